"""Impala's catalogd, replayed: its events processor (apache/impala ``MetastoreEventsProcessor`` and
``MetastoreEvents``, the ``compat-hive-3`` shim) against a server where DDL happens meanwhile.

At start: ``get_current_notificationEventId``, the two ``get_config_value`` checks it refuses to start
without (``hive.metastore.dml.events`` = true, ``metastore.catalog.default`` = its catalog, case ignored,
default value ""), and the time of the start event (``get_next_notification(lastEvent=id-1, maxEvents=1)``).
Each poll: ``get_current_notificationEventId``, then, when it moved, ``get_next_notification(lastEvent=
last synced, maxEvents=1000, eventTypeSkipList=[OPEN_TXN, UPDATE_TBL_COL_STAT_EVENT,
UPDATE_PART_COL_STAT_EVENT])``. Messages are read with Hive's JSON deserializer, which must find, per event
type, the properties Impala requires (checked here as its ``checkNotNull`` calls do) with the Thrift objects
it then uses; a rename is an ALTER_TABLE whose before and after names differ. When events were removed
(the response is empty while the current id moved on), it jumps to the current id.
"""

from __future__ import annotations

import json
from datetime import timedelta

from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_table

SKIPPED = ["OPEN_TXN", "UPDATE_TBL_COL_STAT_EVENT", "UPDATE_PART_COL_STAT_EVENT"]
BATCH = 1000

# the message properties Impala's event classes require, by event type
REQUIRED = {
    "CREATE_DATABASE": ["dbJson"],
    "DROP_DATABASE": ["dbJson"],
    "ALTER_DATABASE": ["dbObjAfterJson"],
    "CREATE_TABLE": ["tableObjJson"],
    "DROP_TABLE": ["tableObjJson"],
    "ALTER_TABLE": ["tableObjBeforeJson", "tableObjAfterJson", "isTruncateOp"],
    "ADD_PARTITION": ["tableObjJson", "partitionListJson", "partitions"],
    "ALTER_PARTITION": ["tableObjJson", "partitionObjBeforeJson", "partitionObjAfterJson", "isTruncateOp"],
    "DROP_PARTITION": ["tableObjJson", "partitions"],
    "INSERT": ["tableObjJson", "files"],
}


def _thrift(text: str) -> dict:
    """A TJSONProtocol struct: field id -> value."""
    return {int(k): next(iter(v.values())) for k, v in json.loads(text).items()}


class EventsProcessor:
    """The calls of Impala's events processor, and what it makes of each event."""

    def __init__(self, client) -> None:
        self.client = client
        self.last_synced = client.get_current_notificationEventId().eventId
        for key, expected in (("hive.metastore.dml.events", "true"), ("metastore.catalog.default", "hive")):
            value = client.get_config_value(key, "")
            assert value and value.lower() == expected, f"Impala would not start: {key}={value!r}"
        client.get_next_notification(hive.NotificationEventRequest(lastEvent=self.last_synced - 1, maxEvents=1))

    def poll(self) -> list[tuple]:
        current = self.client.get_current_notificationEventId().eventId
        if current <= self.last_synced:
            return []
        events = self.client.get_next_notification(
            hive.NotificationEventRequest(lastEvent=self.last_synced, maxEvents=BATCH, eventTypeSkipList=SKIPPED)
        ).events
        if not events:  # cleaned up before it could read them: Impala moves on to the current id
            self.last_synced = current
            return []
        self.last_synced = events[-1].eventId
        return [self._parse(e) for e in events]

    @staticmethod
    def _parse(event) -> tuple:
        message = json.loads(event.message)
        for key in REQUIRED.get(event.eventType, []):
            assert message.get(key) is not None, f"{event.eventType} lacks {key}: {message}"
        kind = event.eventType
        if kind == "ALTER_TABLE":
            before, after = _thrift(message["tableObjBeforeJson"]), _thrift(message["tableObjAfterJson"])
            renamed = (before[2], before[1]) != (after[2], after[1])
            return kind, event.dbName, event.tableName, f"{before[1]}->{after[1]}" if renamed else "altered"
        if kind == "ADD_PARTITION":
            table = _thrift(message["tableObjJson"])
            values = [_thrift(p)[1][2:] for p in message["partitionListJson"]]  # ["str", n, v1, ...]
            return kind, event.dbName, table[1], values
        if kind == "ALTER_PARTITION":
            after = _thrift(message["partitionObjAfterJson"])
            return kind, event.dbName, event.tableName, after[1][2:]
        if kind == "DROP_PARTITION":
            return kind, event.dbName, _thrift(message["tableObjJson"])[1], message["partitions"]
        if kind == "INSERT":
            partition = _thrift(message["ptnObjJson"])[1][2:] if message.get("ptnObjJson") else None
            return kind, event.dbName, _thrift(message["tableObjJson"])[1], partition
        if kind in ("CREATE_DATABASE", "DROP_DATABASE"):
            return kind, _thrift(message["dbJson"])[1], None, None
        if kind == "ALTER_DATABASE":
            return kind, _thrift(message["dbObjAfterJson"])[1], None, None
        return kind, event.dbName, _thrift(message["tableObjJson"])[1], None


def test_catalogd_follows_every_change_through_the_events(client, catalog):
    processor = EventsProcessor(client)
    assert processor.poll() == []
    client.create_database(hive.Database(name="web", parameters={}))
    client.create_table(make_table("web", "clicks", columns=cols("url:string"), partition_keys=cols("day:string")))
    client.add_partitions(
        [hive.Partition(dbName="web", tableName="clicks", values=[d]) for d in ("2024-01-01", "2024-01-02")]
    )
    assert processor.poll() == [
        ("CREATE_DATABASE", "web", None, None),
        ("CREATE_TABLE", "web", "clicks", None),
        ("ADD_PARTITION", "web", "clicks", [["2024-01-01"], ["2024-01-02"]]),
    ]

    part = client.get_partition("web", "clicks", ["2024-01-01"])
    part.parameters["impala.events.catalogVersion"] = "7"
    client.alter_partition("web", "clicks", part)
    client.fire_listener_event(
        hive.FireEventRequest(
            successful=True,
            data=hive.FireEventRequestData(
                insertData=hive.InsertEventRequestData(filesAdded=["file:/wh/web.db/clicks/day=2024-01-02/f0"])
            ),
            dbName="web",
            tableName="clicks",
            partitionVals=["2024-01-02"],
        )
    )
    renamed = client.get_table("web", "clicks")
    renamed.tableName = "visits"
    client.alter_table("web", "clicks", renamed)
    client.drop_partition("web", "visits", ["2024-01-01"], True)
    database = client.get_database("web")
    database.parameters = {"owner": "analytics"}
    client.alter_database("web", database)
    client.drop_table("web", "visits", True)
    client.drop_database("web", True, True)
    assert processor.poll() == [
        ("ALTER_PARTITION", "web", "clicks", ["2024-01-01"]),
        ("INSERT", "web", "clicks", ["2024-01-02"]),
        ("ALTER_TABLE", "web", "visits", "clicks->visits"),
        ("DROP_PARTITION", "web", "visits", [{"day": "2024-01-01"}]),
        ("ALTER_DATABASE", "web", None, None),
        ("DROP_TABLE", "web", "visits", None),
        ("DROP_DATABASE", "web", None, None),
    ]

    # events removed by their time to live before catalogd read them: it moves on to the current id
    client.create_database(hive.Database(name="late", parameters={}))
    real_clock = catalog.ctx.clock
    catalog.ctx.clock = lambda: real_clock() + timedelta(days=2)
    catalog.events.remove_expired()
    catalog.ctx.clock = real_clock
    assert processor.poll() == []
    assert processor.last_synced == client.get_current_notificationEventId().eventId
