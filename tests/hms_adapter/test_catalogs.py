"""Hive 3's catalogs over the wire, on SQLite and MariaDB: a Hive 3.1 client (``hive-metastore-client``)
creates a second catalog and the same database and table names in both; ``@<catalog>#<db>`` names and the
catalog fields of requests select the catalog; PyIceberg (Hive 4 structs, default catalog) works beside
them; bad calls get Hive's errors."""

from __future__ import annotations

import pyarrow as pa
import pytest
from pyiceberg.catalog.hive import HiveCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField
from thrift_files.libraries.thrift_hive_metastore_client import ttypes as hive3

from tests.conftest import hive


def _hive3_table(catalog: str, db: str, name: str, *columns: str) -> hive3.Table:
    return hive3.Table(
        tableName=name,
        dbName=db,
        owner="alice",
        tableType="MANAGED_TABLE",
        parameters={},
        sd=hive3.StorageDescriptor(
            cols=[hive3.FieldSchema(c, "int", None) for c in columns], serdeInfo=hive3.SerDeInfo(), parameters={}
        ),
        partitionKeys=[],
        catName=catalog,
    )


def test_two_catalogs_hold_the_same_names_apart(hive3_metastore, client, warehouse):
    hive3_metastore.create_catalog(
        hive3.CreateCatalogRequest(
            hive3.Catalog(name="spark", description="Spark's tables", locationUri=f"file:{warehouse}/spark")
        )
    )
    assert hive3_metastore.get_catalogs().names == ["hive", "spark"]
    spark = hive3_metastore.get_catalog(hive3.GetCatalogRequest("spark")).catalog
    assert (spark.name, spark.description, spark.locationUri) == ("spark", "Spark's tables", f"file:{warehouse}/spark")
    # a new catalog has its default database, at the catalog's location
    assert hive3_metastore.get_database("@spark#default").locationUri == f"file:{warehouse}/spark"

    for catalog in ("hive", "spark"):
        hive3_metastore.create_database(hive3.Database(name="sales", catalogName=catalog, parameters={}))
        hive3_metastore.create_table(_hive3_table(catalog, "sales", "orders", "id", f"only_{catalog}"))
    assert hive3_metastore.get_databases("@spark#") == ["default", "sales"]
    assert [c.name for c in hive3_metastore.get_table("@spark#sales", "orders").sd.cols] == ["id", "only_spark"]
    assert [c.name for c in client.get_table("sales", "orders").sd.cols] == ["id", "only_hive"]
    by_request = hive3_metastore.get_table_req(
        hive3.GetTableRequest(dbName="sales", tblName="orders", catName="spark")
    ).table
    assert (by_request.catName, [c.name for c in by_request.sd.cols]) == ("spark", ["id", "only_spark"])
    assert client.get_table("sales", "orders").catName == "hive"

    # statistics and events are per catalog too
    stats = hive.ColumnStatistics(
        hive.ColumnStatisticsDesc(isTblLevel=True, dbName="sales", tableName="orders", catName="spark"),
        [
            hive.ColumnStatisticsObj(
                "id",
                "int",
                hive.ColumnStatisticsData(
                    longStats=hive.LongColumnStatsData(lowValue=1, highValue=2, numNulls=0, numDVs=2)
                ),
            )
        ],
    )
    client.update_table_column_statistics(stats)
    assert client.get_table_statistics_req(hive.TableStatsRequest("sales", "orders", ["id"])).tableStats == []
    assert (
        len(
            client.get_table_statistics_req(
                hive.TableStatsRequest("sales", "orders", ["id"], catName="spark")
            ).tableStats
        )
        == 1
    )
    events = client.get_next_notification(hive.NotificationEventRequest(lastEvent=0, catName="spark")).events
    assert [(e.eventType, e.dbName, e.catName) for e in events] == [
        ("CREATE_DATABASE", "sales", "spark"),
        ("CREATE_TABLE", "sales", "spark"),
    ]
    assert (
        client.get_next_notification(hive.NotificationEventRequest(lastEvent=0, dbName="@spark#sales")).events == events
    )
    assert (
        client.get_notification_events_count(
            hive.NotificationEventsCountRequest(fromEventId=0, dbName="sales")
        ).eventsCount
        == 4
    )  # both catalogs' sales

    with pytest.raises(hive3.InvalidOperationException, match="non-default databases in the catalog spark"):
        hive3_metastore.drop_catalog(hive3.DropCatalogRequest("spark"))
    hive3_metastore.drop_table("@spark#sales", "orders", True)
    hive3_metastore.drop_database("@spark#sales", True, False)
    hive3_metastore.drop_catalog(hive3.DropCatalogRequest("spark"))
    assert hive3_metastore.get_catalogs().names == ["hive"]
    assert [c.name for c in client.get_table("sales", "orders").sd.cols] == ["id", "only_hive"]


def test_bad_catalog_calls_get_hives_errors(hive3_metastore, client, warehouse):
    with pytest.raises(hive3.NoSuchObjectException, match="No catalog nope"):
        hive3_metastore.get_catalog(hive3.GetCatalogRequest("nope"))
    with pytest.raises(hive3.NoSuchObjectException):
        hive3_metastore.drop_catalog(hive3.DropCatalogRequest("nope"))
    with pytest.raises(hive3.MetaException, match="Cannot drop hive catalog"):
        hive3_metastore.drop_catalog(hive3.DropCatalogRequest("hive"))
    with pytest.raises(hive3.AlreadyExistsException, match="Catalog hive already exists"):
        hive3_metastore.create_catalog(
            hive3.CreateCatalogRequest(hive3.Catalog(name="hive", locationUri=f"file:{warehouse}"))
        )
    with pytest.raises(hive3.InvalidObjectException, match="location"):
        hive3_metastore.create_catalog(hive3.CreateCatalogRequest(hive3.Catalog(name="x")))
    with pytest.raises(hive3.NoSuchObjectException):
        hive3_metastore.get_database("@nope#default")
    hive3_metastore.create_catalog(
        hive3.CreateCatalogRequest(hive3.Catalog(name="flink", locationUri=f"file:{warehouse}/f"))
    )
    # Hive 3.1's client has no alter_catalog; Hive 4's request, through the project's IDL
    client.alter_catalog(hive.AlterCatalogRequest("flink", hive.Catalog(name="flink", description="streams")))
    assert hive3_metastore.get_catalog(hive3.GetCatalogRequest("flink")).catalog.description == "streams"
    with pytest.raises(hive.InvalidOperationException, match="cannot change a catalog's name"):
        client.alter_catalog(hive.AlterCatalogRequest("flink", hive.Catalog(name="other")))


def test_pyiceberg_in_the_default_catalog_beside_another(hive3_metastore, server, warehouse):
    hive3_metastore.create_catalog(
        hive3.CreateCatalogRequest(hive3.Catalog(name="other", locationUri=f"file:{warehouse}/o"))
    )
    hive3_metastore.create_database(hive3.Database(name="lake", catalogName="other", parameters={}))
    hive3_metastore.create_table(_hive3_table("other", "lake", "events", "x"))
    iceberg = HiveCatalog("hms", uri=server.uri, warehouse=f"file://{warehouse}")
    iceberg.create_namespace("lake")
    table = iceberg.create_table("lake.events", Schema(NestedField(1, "id", LongType(), required=False)))
    table.append(pa.table({"id": pa.array([1, 2, 3], pa.int64())}))
    assert sorted(iceberg.load_table("lake.events").scan().to_arrow().column("id").to_pylist()) == [1, 2, 3]
    assert iceberg.list_tables("lake") == [("lake", "events")]
    other = hive3_metastore.get_table("@other#lake", "events")
    assert "metadata_location" not in other.parameters and [c.name for c in other.sd.cols] == ["x"]


def test_databases_go_below_their_catalog_and_need_one(hive3_metastore, warehouse):
    hive3_metastore.create_catalog(
        hive3.CreateCatalogRequest(hive3.Catalog(name="lab", locationUri=f"file:{warehouse}/lab"))
    )
    hive3_metastore.create_database(hive3.Database(name="trials", catalogName="lab", parameters={}))
    assert hive3_metastore.get_database("@lab#trials").locationUri == f"file:{warehouse}/lab/trials.db"
    assert (warehouse / "lab" / "trials.db").is_dir()
    with pytest.raises(hive3.InvalidObjectException, match="No such catalog nope"):
        hive3_metastore.create_database(hive3.Database(name="x", catalogName="nope", parameters={}))
