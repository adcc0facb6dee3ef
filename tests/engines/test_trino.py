"""Trino's Hive connector, replayed: the metastore calls it makes while planning a query and after an INSERT,
with the structs it builds (trinodb/trino ``plugin/trino-hive`` ``ThriftHiveMetastore`` and
``ThriftHiveMetastoreClient``). It never sets a catalog name or an engine.

Planning: ``get_table_req`` with ``ClientCapabilities([INSERT_ONLY_TABLES])``, partition names (empty strings
as wildcards in ``get_partition_names_ps``), basic statistics from the parameters (``numFiles``, ``numRows``,
``rawDataSize``, ``totalSize``) and column statistics from ``get_table_statistics_req`` /
``get_partitions_statistics_req``. After an INSERT (``updateTableStatistics``/``updatePartitionStatistics``):
the table or partition altered with the new basic statistics under ``DO_NOT_UPDATE_STATS``, then
``update_*_column_statistics`` (date statistics in a call of their own), then ``delete_*_column_statistics``
for columns whose statistics went.
"""

from __future__ import annotations

from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_table

BASIC = {"numFiles": "3", "numRows": "1000", "rawDataSize": "52000", "totalSize": "48128"}
COLUMNS = ["id", "price", "name", "day"]


def _stats(*objs) -> list:
    return list(objs)


def _long(name: str, low: int, high: int, nulls: int, ndv: int):
    return hive.ColumnStatisticsObj(
        name,
        "bigint",
        hive.ColumnStatisticsData(
            longStats=hive.LongColumnStatsData(lowValue=low, highValue=high, numNulls=nulls, numDVs=ndv)
        ),
    )


def _others():
    return [
        hive.ColumnStatisticsObj(
            "price",
            "double",
            hive.ColumnStatisticsData(
                doubleStats=hive.DoubleColumnStatsData(lowValue=0.5, highValue=99.5, numNulls=0, numDVs=50)
            ),
        ),
        hive.ColumnStatisticsObj(
            "name",
            "varchar(20)",
            hive.ColumnStatisticsData(
                stringStats=hive.StringColumnStatsData(maxColLen=20, avgColLen=8.5, numNulls=4, numDVs=700)
            ),
        ),
    ]


def _date(low: int, high: int):
    return hive.ColumnStatisticsObj(
        "day",
        "date",
        hive.ColumnStatisticsData(
            dateStats=hive.DateColumnStatsData(
                lowValue=hive.Date(low), highValue=hive.Date(high), numNulls=0, numDVs=high - low + 1
            )
        ),
    )


def _update_table_statistics(client, db: str, name: str, objs: list, dates: list, removed: list[str]) -> None:
    """``ThriftHiveMetastore.updateTableStatistics``."""
    table = client.get_table_req(
        hive.GetTableRequest(
            dbName=db,
            tblName=name,
            capabilities=hive.ClientCapabilities(values=[hive.ClientCapability.INSERT_ONLY_TABLES]),
        )
    ).table
    client.get_table_statistics_req(hive.TableStatsRequest(dbName=db, tblName=name, colNames=COLUMNS))
    table.parameters = {**table.parameters, **BASIC}
    client.alter_table_with_environment_context(
        db, name, table, hive.EnvironmentContext(properties={"DO_NOT_UPDATE_STATS": "true"})
    )
    desc = hive.ColumnStatisticsDesc(isTblLevel=True, dbName=db, tableName=name)
    client.update_table_column_statistics(hive.ColumnStatistics(statsDesc=desc, statsObj=objs))
    if dates:
        client.update_table_column_statistics(hive.ColumnStatistics(statsDesc=desc, statsObj=dates))
    for column in removed:
        client.delete_table_column_statistics(db, name, column)


def _update_partition_statistics(client, db: str, name: str, part_name: str, objs: list) -> None:
    """``ThriftHiveMetastore.updatePartitionStatistics`` for one partition."""
    (partition,) = client.get_partitions_by_names(db, name, [part_name])
    partition.parameters = {**partition.parameters, **BASIC}
    client.alter_partition(db, name, partition)
    desc = hive.ColumnStatisticsDesc(isTblLevel=False, dbName=db, tableName=name, partName=part_name)
    client.update_partition_column_statistics(hive.ColumnStatistics(statsDesc=desc, statsObj=objs))


def test_statistics_written_after_an_insert_are_what_the_planner_reads(client):
    client.create_database(hive.Database(name="tpch"))
    columns = cols("id:bigint", "price:double", "name:varchar(20)", "day:date")
    client.create_table(make_table("tpch", "orders", columns=columns))
    _update_table_statistics(
        client, "tpch", "orders", [_long("id", 1, 1000, 0, 1000), *_others()], [_date(19000, 19030)], removed=[]
    )
    _update_table_statistics(client, "tpch", "orders", [_long("id", 1, 2000, 0, 2000), *_others()], [], removed=["day"])

    # planning
    assert client.get_all_databases() == ["default", "tpch"]
    assert client.get_all_tables("tpch") == ["orders"]
    assert client.get_tables_by_type("tpch", ".*", "VIRTUAL_VIEW") == []
    table = client.get_table_req(
        hive.GetTableRequest(dbName="tpch", tblName="orders", capabilities=hive.ClientCapabilities(values=[2]))
    ).table
    assert {k: table.parameters[k] for k in BASIC} == BASIC  # DO_NOT_UPDATE_STATS: kept as Trino wrote them
    found = client.get_table_statistics_req(
        hive.TableStatsRequest(dbName="tpch", tblName="orders", colNames=COLUMNS)
    ).tableStats
    by_name = {o.colName: o.statsData for o in found}
    assert sorted(by_name) == ["id", "name", "price"]  # day's statistics were deleted
    assert (by_name["id"].longStats.lowValue, by_name["id"].longStats.highValue) == (1, 2000)
    assert by_name["name"].stringStats.avgColLen == 8.5


def test_partition_statistics_and_wildcard_partition_names(client):
    client.create_database(hive.Database(name="tpch"))
    client.create_table(
        make_table(
            "tpch",
            "lineitem",
            columns=cols("id:bigint", "price:double", "name:string"),
            partition_keys=cols("ship:string", "mode:string"),
        )
    )
    client.add_partitions(
        [
            hive.Partition(dbName="tpch", tableName="lineitem", values=[s, m])
            for s in ("2024-01-01", "2024-01-02")
            for m in ("AIR", "RAIL")
        ]
    )
    for i, name in enumerate(["ship=2024-01-01/mode=AIR", "ship=2024-01-02/mode=AIR"]):
        _update_partition_statistics(client, "tpch", "lineitem", name, [_long("id", i, 10 + i, i, 5)])

    assert client.get_partition_names("tpch", "lineitem", -1) == [
        "ship=2024-01-01/mode=AIR",
        "ship=2024-01-01/mode=RAIL",
        "ship=2024-01-02/mode=AIR",
        "ship=2024-01-02/mode=RAIL",
    ]
    air = client.get_partition_names_ps("tpch", "lineitem", ["", "AIR"], -1)
    assert air == ["ship=2024-01-01/mode=AIR", "ship=2024-01-02/mode=AIR"]
    parts = client.get_partitions_by_names("tpch", "lineitem", air)
    # a partition altered without DO_NOT_UPDATE_STATS gets its file count and size from its directory, as in
    # Hive (here empty); the row counts stay as Trino wrote them
    assert [(p.parameters["numRows"], p.parameters["rawDataSize"], p.parameters["numFiles"]) for p in parts] == [
        ("1000", "52000", "0")
    ] * 2
    result = client.get_partitions_statistics_req(
        hive.PartitionsStatsRequest(
            dbName="tpch", tblName="lineitem", colNames=["id", "price"], partNames=air + ["ship=2024-01-01/mode=RAIL"]
        )
    )
    assert {
        name: [(o.colName, o.statsData.longStats.highValue) for o in objs] for name, objs in result.partStats.items()
    } == {"ship=2024-01-01/mode=AIR": [("id", 10)], "ship=2024-01-02/mode=AIR": [("id", 11)]}
