"""``truncate_table`` (Hive 3's call, through a Hive 3.1 client, and Hive 4's request form), the one catalog
``hive`` as Hive 3+ clients ask for it, and Hive 4's ``get_tables_ext``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from thrift_files.libraries.thrift_hive_metastore_client import ttypes as hive3

from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_table


def _data_file(location: str, name: str) -> Path:
    path = Path(location.removeprefix("file:")) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"PAR1" + b"x" * 100)
    return path


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

    hive3_metastore.truncate_table("shop", "flat", None)
    assert not flat_file.exists() and flat_file.parent.is_dir()
    params = client.get_table("shop", "flat").parameters
    assert (params["numFiles"], params["totalSize"], params["numRows"]) == ("0", "0", "0")
    assert json.loads(params["COLUMN_STATS_ACCURATE"]) == {"BASIC_STATS": "true"}
    assert client.get_table_statistics_req(hive.TableStatsRequest("shop", "flat", ["id"])).tableStats == []

    client.truncate_table_req(hive.TruncateTableRequest(dbName="shop", tableName="daily", partNames=["day=2024-01-02"]))
    assert days["2024-01-01"].exists() and not days["2024-01-02"].exists()
    assert client.get_partition("shop", "daily", ["2024-01-02"]).parameters["numFiles"] == "0"
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
