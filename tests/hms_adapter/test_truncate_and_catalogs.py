"""``truncate_table`` (Hive 3's call, through a Hive 3.1 client, and Hive 4's request form), the one catalog
``hive`` as Hive 3+ clients ask for it, and Hive 4's ``get_tables_ext``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from thrift_files.libraries.thrift_hive_metastore_client import ttypes as hive3

from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_partition, make_table


def _data_file(location: str, name: str) -> Path:
    path = Path(location.removeprefix("file:")) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"PAR1" + b"x" * 100)
    return path


STATS = ("numFiles", "totalSize", "numRows", "rawDataSize", "numFilesErasureCoded")


def _stats(params: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in params.items() if k in STATS}


def test_truncating_deletes_the_data_and_keeps_the_metadata(client, hive3_metastore):
    client.create_database(hive.Database(name="shop"))
    client.create_table(make_table("shop", "flat", columns=cols("id:bigint")))
    client.create_table(make_table("shop", "daily", columns=cols("id:bigint"), partition_keys=cols("day:string")))
    client.add_partitions(
        [hive.Partition(dbName="shop", tableName="daily", values=[d]) for d in ("2024-01-01", "2024-01-02")]
    )
    flat = client.get_table("shop", "flat")
    flat_file = _data_file(flat.sd.location, "part-0.parquet")
    days = {
        p.values[0]: _data_file(p.sd.location, "part-0.parquet") for p in client.get_partitions("shop", "daily", -1)
    }
    client.update_table_column_statistics(
        hive.ColumnStatistics(
            hive.ColumnStatisticsDesc(isTblLevel=True, dbName="shop", tableName="flat"),
            [
                hive.ColumnStatisticsObj(
                    "id",
                    "bigint",
                    hive.ColumnStatisticsData(
                        longStats=hive.LongColumnStatsData(lowValue=1, highValue=9, numNulls=0, numDVs=9)
                    ),
                )
            ],
        )
    )
    start = client.get_current_notificationEventId().eventId

    had = _stats(client.get_table("shop", "flat").parameters)
    hive3_metastore.truncate_table("shop", "flat", None)
    assert not flat_file.exists() and flat_file.parent.is_dir()
    params = client.get_table("shop", "flat").parameters
    assert _stats(params) == dict.fromkeys(had, "0")  # as Hive 4: the statistics it had, and no others
    assert json.loads(params["COLUMN_STATS_ACCURATE"]) == {"BASIC_STATS": "true"}
    assert client.get_table_statistics_req(hive.TableStatsRequest("shop", "flat", ["id"])).tableStats == []

    client.truncate_table_req(hive.TruncateTableRequest(dbName="shop", tableName="daily", partNames=["day=2024-01-02"]))
    assert days["2024-01-01"].exists() and not days["2024-01-02"].exists()
    assert _stats(client.get_partition("shop", "daily", ["2024-01-02"]).parameters) == dict.fromkeys(
        _stats(client.get_partition("shop", "daily", ["2024-01-01"]).parameters), "0"
    )
    events = client.get_next_notification(hive.NotificationEventRequest(lastEvent=start)).events
    assert [(e.eventType, json.loads(e.message)["isTruncateOp"]) for e in events] == [
        ("ALTER_TABLE", "true"),
        ("ALTER_PARTITION", "true"),
    ]

    with pytest.raises(hive.MetaException, match="Partition doesn't exist. day=2099-01-01"):  # all it declares
        client.truncate_table("shop", "daily", ["day=2099-01-01"])
    client.create_table(make_table("shop", "ext", columns=cols("id:bigint"), table_type="EXTERNAL_TABLE"))
    with pytest.raises(hive.MetaException, match="Cannot truncate non-managed table ext."):
        client.truncate_table("shop", "ext", None)
    assert days["2024-01-01"].exists()


def test_truncating_zeroes_only_the_statistics_a_partition_has(client):
    client.create_database(hive.Database(name="st"))
    client.create_table(make_table("st", "t", columns=cols("id:bigint"), partition_keys=cols("k:string")))
    client.add_partitions([hive.Partition(dbName="st", tableName="t", values=[k]) for k in ("bare", "counted")])
    counted = client.get_partition("st", "t", ["counted"])
    counted.parameters.update({"numRows": "5", "rawDataSize": "50", "numFilesErasureCoded": "1"})
    client.alter_partition_with_environment_context(
        "st", "t", counted, hive.EnvironmentContext({"STATS_GENERATED": "TASK"})
    )
    bare_had = _stats(client.get_partition("st", "t", ["bare"]).parameters)
    assert "numRows" not in bare_had and "rawDataSize" not in bare_had
    client.truncate_table("st", "t", None)
    assert _stats(client.get_partition("st", "t", ["bare"]).parameters) == dict.fromkeys(bare_had, "0")
    counted_after = _stats(client.get_partition("st", "t", ["counted"]).parameters)
    assert {k: counted_after[k] for k in ("numRows", "rawDataSize", "numFilesErasureCoded")} == dict.fromkeys(
        ("numRows", "rawDataSize", "numFilesErasureCoded"), "0"
    )
    assert set(counted_after.values()) == {"0"}


def test_truncating_an_external_table_that_purges_its_data(client, warehouse, tmp_path):
    """Hive 4 truncates an external table with ``external.table.purge=TRUE``; the server does so where the
    data is its to delete (inside the warehouse root or a data root), and refuses plain external tables."""
    client.create_database(hive.Database(name="ext"))
    purged = make_table(
        "ext", "purged", columns=cols("id:bigint"), table_type="EXTERNAL_TABLE", params={"external.table.purge": "TRUE"}
    )
    purged.sd.location = f"file:{warehouse / 'ext.db' / 'purged'}"
    client.create_table(purged)
    data = _data_file(purged.sd.location, "part-0.parquet")
    client.truncate_table("ext", "purged", None)
    assert not data.exists() and data.parent.is_dir()
    assert set(_stats(client.get_table("ext", "purged").parameters).values()) <= {"0"}

    outside = make_table(
        "ext",
        "outside",
        columns=cols("id:bigint"),
        table_type="EXTERNAL_TABLE",
        params={"external.table.purge": "true"},
    )
    outside.sd.location = f"file:{tmp_path / 'elsewhere'}"
    kept = _data_file(outside.sd.location, "part-0.parquet")  # there before the table: not the server's
    client.create_table(outside)
    with pytest.raises(hive.MetaException, match="is not the metastore's to delete"):
        client.truncate_table("ext", "outside", None)
    plain = make_table("ext", "plain", columns=cols("id:bigint"), table_type="EXTERNAL_TABLE")
    plain.sd.location = f"file:{warehouse / 'ext.db' / 'plain'}"
    client.create_table(plain)
    plain_data = _data_file(plain.sd.location, "part-0.parquet")
    with pytest.raises(hive.MetaException, match="Cannot truncate non-managed table plain."):
        client.truncate_table("ext", "plain", None)
    assert kept.exists() and plain_data.exists()


def test_dropping_partitions_of_an_external_table_that_purges_its_data(client, warehouse):
    """Its partitions' data goes with them, as a managed table's (HiveServer2 4 makes a managed table so);
    a plain external table keeps it."""
    client.create_database(hive.Database(name="ext"))
    for name, params in (("purged", {"external.table.purge": "TRUE"}), ("plain", {})):
        table = make_table(
            "ext",
            name,
            columns=cols("id:bigint"),
            partition_keys=cols("p:string"),
            table_type="EXTERNAL_TABLE",
            params=params,
        )
        table.sd.location = f"file:{warehouse / 'ext.db' / name}"
        client.create_table(table)
        files = []
        for value in ("a", "b"):
            location = f"{table.sd.location}/p={value}"
            client.add_partition(make_partition("ext", name, [value], columns=cols("id:bigint"), location=location))
            files.append(_data_file(location, "part-0.parquet"))
        client.drop_partition("ext", name, ["a"], True)
        client.drop_partitions_req(
            hive.DropPartitionsRequest(dbName="ext", tblName=name, parts=hive.RequestPartsSpec(names=["p=b"]))
        )
        assert [f.exists() for f in files] == ([False, False] if params else [True, True]), name


def test_the_one_catalog_and_hive_4_table_lists(client, hive3_metastore):
    assert hive3_metastore.get_catalogs().names == ["hive"]
    catalog = hive3_metastore.get_catalog(hive3.GetCatalogRequest(name="hive")).catalog
    assert (catalog.name, catalog.description) == ("hive", "Default catalog, for Hive")
    assert catalog.locationUri == client.get_database("default").locationUri
    with pytest.raises(hive3.NoSuchObjectException, match="No catalog spark"):
        hive3_metastore.get_catalog(hive3.GetCatalogRequest(name="spark"))

    client.create_database(hive.Database(name="shop"))
    for name in ("orders", "order_items", "users"):
        client.create_table(make_table("shop", name, columns=cols("id:bigint")))
    found = client.get_tables_ext(
        hive.GetTablesExtRequest(catalog="hive", database="shop", tableNamePattern="order*", requestedFields=1)
    )
    assert [(t.tblName, t.accessType) for t in found] == [("order_items", 8), ("orders", 8)]
    assert (
        client.get_tables_ext(
            hive.GetTablesExtRequest(catalog="hive", database="shop", tableNamePattern="*", requestedFields=3, limit=1)
        )[0].requiredReadCapabilities
        == []
    )
