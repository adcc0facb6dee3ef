"""Column statistics over the wire: Hive's exceptions and wording for bad input (with nothing written), the
Hive 4 request forms with their ``engine``, ``set_aggr_stats_for`` merging, and bit vectors kept as bytes."""

from __future__ import annotations

import pytest

from tests.conftest import RunningServer, hive
from tests.hms_adapter.helpers import cols, make_table


def _long(name: str, low: int, high: int, nulls: int = 0, ndv: int = 1, bits: bytes | None = None):
    return hive.ColumnStatisticsObj(
        name,
        "bigint",
        hive.ColumnStatisticsData(
            longStats=hive.LongColumnStatsData(
                lowValue=low, highValue=high, numNulls=nulls, numDVs=ndv, bitVectors=bits
            )
        ),
    )


def _table_stats(db: str, table: str, *objs, **desc):
    return hive.ColumnStatistics(
        hive.ColumnStatisticsDesc(isTblLevel=True, dbName=db, tableName=table, **desc), list(objs)
    )


def _part_stats(db: str, table: str, part: str, *objs):
    return hive.ColumnStatistics(
        hive.ColumnStatisticsDesc(isTblLevel=False, dbName=db, tableName=table, partName=part), list(objs)
    )


@pytest.fixture
def shop(client):
    client.create_database(hive.Database(name="shop"))
    client.create_table(
        make_table("shop", "sales", columns=cols("qty:bigint", "name:string"), partition_keys=cols("region:string"))
    )
    client.add_partition(hive.Partition(dbName="shop", tableName="sales", values=["eu"]))
    return client


def test_bad_input_gets_hives_exceptions_and_nothing_is_written(shop):
    with pytest.raises(hive.MetaException, match="Column nope doesn't exist in table sales in database shop"):
        shop.update_table_column_statistics(_table_stats("shop", "sales", _long("qty", 1, 2), _long("nope", 1, 2)))
    with pytest.raises(hive.NoSuchObjectException, match="Specified database/table does not exist : shop.missing"):
        shop.update_table_column_statistics(_table_stats("shop", "missing", _long("qty", 1, 2)))
    with pytest.raises(hive.NoSuchObjectException, match="Partition for which stats is gathered doesn't exist."):
        shop.update_partition_column_statistics(_part_stats("shop", "sales", "region=mars", _long("qty", 1, 2)))
    # Hive keeps statistics of the wrong kind and then fails to read them back; they are refused here
    with pytest.raises(hive.InvalidInputException, match="do not fit column name of type string"):
        shop.update_table_column_statistics(_table_stats("shop", "sales", _long("name", 1, 2)))
    with pytest.raises(hive.InvalidInputException, match="carry no statistics data"):
        shop.update_table_column_statistics(
            _table_stats("shop", "sales", hive.ColumnStatisticsObj("qty", "bigint", hive.ColumnStatisticsData()))
        )
    assert shop.get_table_statistics_req(hive.TableStatsRequest("shop", "sales", ["qty", "name"])).tableStats == []
    assert "COLUMN_STATS_ACCURATE" not in shop.get_table("shop", "sales").parameters
    with pytest.raises(hive.NoSuchObjectException, match="Column stats doesn't exist for db=shop table=sales col=qty"):
        shop.get_table_column_statistics("shop", "sales", "qty")
    with pytest.raises(
        hive.NoSuchObjectException,
        match="Column stats doesn't exist for db=shop table=sales partition=region=eu col=qty",
    ):
        shop.delete_partition_column_statistics("shop", "sales", "region=eu", "qty")
    with pytest.raises(
        hive.NoSuchObjectException, match="Table missing  for which stats deletion is requested doesn't exist"
    ):
        shop.delete_table_column_statistics("shop", "missing", "qty")
    assert shop.delete_table_column_statistics("shop", "sales", None)  # every column: nothing to delete is fine


def test_hive_4_requests_keep_statistics_per_engine(shop):
    request = hive.SetPartitionsStatsRequest(
        colStats=[_table_stats("shop", "sales", _long("qty", 1, 5))], engine="impala"
    )
    assert shop.update_table_column_statistics_req(request).result is True
    assert (
        shop.update_partition_column_statistics_req(
            hive.SetPartitionsStatsRequest(
                colStats=[_part_stats("shop", "sales", "region=eu", _long("qty", 2, 3))], engine="impala"
            )
        ).result
        is True
    )
    impala = shop.get_table_statistics_req(hive.TableStatsRequest("shop", "sales", ["qty"], engine="impala"))
    assert [o.statsData.longStats.highValue for o in impala.tableStats] == [5]
    assert shop.get_table_statistics_req(hive.TableStatsRequest("shop", "sales", ["qty"])).tableStats == []
    by_partition = shop.get_partitions_statistics_req(
        hive.PartitionsStatsRequest("shop", "sales", ["qty"], ["region=eu"], engine="impala")
    ).partStats
    assert by_partition["region=eu"][0].statsData.longStats.lowValue == 2


def test_set_aggr_stats_for_merges_and_bit_vectors_are_kept_as_bytes(shop):
    sketch = b"HLL\x00\x80\xff\xfe"  # not UTF-8: Hive 3's sketches are binary
    assert shop.set_aggr_stats_for(
        hive.SetPartitionsStatsRequest(
            colStats=[
                _table_stats("shop", "sales", _long("qty", 10, 20, nulls=1, ndv=4, bits=sketch)),
                _part_stats("shop", "sales", "region=eu", _long("qty", 10, 20, nulls=1, ndv=4)),
            ]
        )
    )
    assert shop.set_aggr_stats_for(
        hive.SetPartitionsStatsRequest(
            needMerge=True, colStats=[_table_stats("shop", "sales", _long("qty", 5, 15, nulls=2, ndv=9))]
        )
    )
    merged = shop.get_table_column_statistics("shop", "sales", "qty").statsObj[0].statsData.longStats
    assert (merged.lowValue, merged.highValue, merged.numNulls, merged.numDVs, merged.bitVectors) == (
        5,
        20,
        3,
        9,
        sketch,
    )
    assert shop.set_aggr_stats_for(
        hive.SetPartitionsStatsRequest(needMerge=False, colStats=[_table_stats("shop", "sales", _long("qty", 7, 8))])
    )
    replaced = shop.get_table_column_statistics("shop", "sales", "qty").statsObj[0].statsData.longStats
    assert (replaced.lowValue, replaced.highValue, replaced.bitVectors) == (7, 8, None)


def test_aggregates_extrapolate_counts_to_partitions_without_statistics(shop):
    shop.add_partitions([hive.Partition(dbName="shop", tableName="sales", values=[r]) for r in ("us", "asia")])
    shop.update_partition_column_statistics(_part_stats("shop", "sales", "region=eu", _long("qty", 0, 10, nulls=2)))
    shop.update_partition_column_statistics(_part_stats("shop", "sales", "region=us", _long("qty", 20, 40, nulls=5)))
    names = ["region=eu", "region=us", "region=asia"]
    aggregated = shop.get_aggr_stats_for(hive.PartitionsStatsRequest("shop", "sales", ["qty"], names))
    stats = aggregated.colStats[0].statsData.longStats
    assert aggregated.partsFound == 2
    assert (stats.lowValue, stats.highValue, stats.numNulls) == (0, 40, 9)  # 7 // 2 * 3, as Hive
    assert shop.get_aggr_stats_for(hive.PartitionsStatsRequest("shop", "sales", ["qty", "name"], names)).partsFound == 0
    assert shop.get_aggr_stats_for(hive.PartitionsStatsRequest("shop", "sales", [], names)).colStats == []


def test_cached_answers_follow_every_change(shop, catalog):
    """Partition statistics are answered from encodings cached by revision: each change is seen at once,
    and a second server on the same database (its own cache) sees it too."""
    shop.add_partition(hive.Partition(dbName="shop", tableName="sales", values=["us"]))
    second = RunningServer(catalog)
    other = second.client()
    request = hive.PartitionsStatsRequest("shop", "sales", ["qty"], ["region=eu", "region=us"])

    def highs(client):
        return {
            name: objs[0].statsData.longStats.highValue
            for name, objs in client.get_partitions_statistics_req(request).partStats.items()
        }

    shop.update_partition_column_statistics(_part_stats("shop", "sales", "region=eu", _long("qty", 0, 10)))
    assert highs(shop) == highs(other) == {"region=eu": 10}
    shop.update_partition_column_statistics(_part_stats("shop", "sales", "region=us", _long("qty", 0, 20)))
    assert highs(shop) == {"region=eu": 10, "region=us": 20}
    shop.update_partition_column_statistics(_part_stats("shop", "sales", "region=eu", _long("qty", 0, 11)))
    assert highs(other) == {"region=eu": 11, "region=us": 20}
    shop.delete_partition_column_statistics("shop", "sales", "region=us", "qty")
    assert highs(shop) == {"region=eu": 11}
    table = shop.get_table("shop", "sales")
    table.sd.cols = [hive.FieldSchema("qty", "string", None), *table.sd.cols[1:]]  # retyped: its statistics go
    shop.alter_table("shop", "sales", table)
    assert highs(shop) == highs(other) == {}
    other.close()
    second.stop()
