"""A Hudi table's Iceberg view goes with the table, over a real Thrift socket: dropping the table drops its
view in the same transaction, each with its own DROP_TABLE event, and leaves the Hudi table's files and the
view's metadata files where they are (outside the warehouse, none of it is the server's to delete); a
cascading database drop takes both; a table of the view's name that does not show this table stays."""

from __future__ import annotations

import os

import pytest

from hudi_catalog.services.hudi_import import HudiImporter
from hudi_catalog.services.iceberg_views import METADATA_LOCATION, SOURCE_PARAM, VIEW_PARAM
from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_table
from tests.hudi.tables import unpack

TABLE = "sample_table_cow_v9_txns_simple_nometa"


def _imported_with_view(catalog, tmp_path):
    """The test table imported as ``lake.trips`` with its view ``lake.trips_iceberg``: (base path, metadata
    file of the view)."""
    base = unpack(TABLE, tmp_path)
    HudiImporter(catalog).run(str(base), database="lake", table="trips")
    made = catalog.iceberg_views.create("lake", "trips")
    assert made.view == "trips_iceberg" and made.error is None
    return base, made.metadata_location


def _events_since(client, event_id: int) -> list[tuple[str, str | None]]:
    events = client.get_next_notification(hive.NotificationEventRequest(lastEvent=event_id)).events
    return [(e.eventType, e.tableName) for e in events]


def _local(uri: str) -> str:
    return uri.removeprefix("file:")


def test_dropping_a_hudi_table_drops_its_view(catalog, client, tmp_path):
    base, metadata = _imported_with_view(catalog, tmp_path)
    assert client.get_table("lake", "trips_iceberg").parameters[METADATA_LOCATION] == metadata
    last = client.get_current_notificationEventId().eventId

    client.drop_table("lake", "trips", True)
    assert client.get_all_tables("lake") == []
    with pytest.raises(hive.NoSuchObjectException):
        client.get_table("lake", "trips_iceberg")
    assert _events_since(client, last) == [("DROP_TABLE", "trips_iceberg"), ("DROP_TABLE", "trips")]
    # neither the Hudi table's files nor the view's metadata files are the server's to delete
    assert (base / ".hoodie" / "hoodie.properties").is_file() and any(base.glob("**/*.parquet"))
    assert os.path.isfile(_local(metadata))


def test_a_cascading_database_drop_takes_table_and_view(catalog, client, tmp_path):
    base, metadata = _imported_with_view(catalog, tmp_path)
    last = client.get_current_notificationEventId().eventId

    client.drop_database("lake", True, True)
    assert "lake" not in client.get_all_databases()
    assert sorted(_events_since(client, last)) == [
        ("DROP_DATABASE", None),
        ("DROP_TABLE", "trips"),
        ("DROP_TABLE", "trips_iceberg"),
    ]
    assert (base / ".hoodie" / "hoodie.properties").is_file()


def test_a_table_named_as_the_view_that_shows_something_else_stays(client):
    client.create_database(hive.Database(name="lake"))
    client.create_table(make_table("lake", "trips", columns=cols("x:int"), params={VIEW_PARAM: "other"}))
    client.create_table(make_table("lake", "other", columns=cols("x:int"), params={SOURCE_PARAM: "lake.elsewhere"}))
    client.drop_table("lake", "trips", True)
    assert client.get_all_tables("lake") == ["other"]
