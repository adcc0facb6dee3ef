"""Notification events over the wire, on SQLite and MariaDB: one per committed change and none for a failed
one, gap-free ids across ``--workers`` processes, Hive 3/4's filters and counts, the configuration event
consumers check, ``fire_listener_event`` in both insert layouts, Hive 3/4's write notification log, and removal
after the time to live."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from thriftpy2.rpc import make_client
from thriftpy2.thrift import TApplicationException

from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_table


def _events(client, after: int = 0, **filters) -> list:
    return client.get_next_notification(hive.NotificationEventRequest(lastEvent=after, **filters)).events


def _setup(client) -> int:
    start = client.get_current_notificationEventId().eventId
    client.create_database(hive.Database(name="shop"))
    client.create_table(make_table("shop", "orders", columns=cols("id:bigint"), partition_keys=cols("day:string")))
    client.create_table(make_table("shop", "items", columns=cols("id:bigint")))
    client.add_partitions(
        [hive.Partition(dbName="shop", tableName="orders", values=[d]) for d in ("2024-01-01", "2024-01-02")]
    )
    return start


def test_each_committed_change_is_one_event_and_a_failed_one_none(client):
    start = _setup(client)
    assert client.get_current_notificationEventId().eventId == start + 4
    with pytest.raises(hive.AlreadyExistsException):
        client.create_table(make_table("shop", "orders", columns=cols("id:bigint")))
    with pytest.raises(hive.AlreadyExistsException):
        client.add_partitions(
            [
                hive.Partition(dbName="shop", tableName="orders", values=["2024-01-03"]),
                hive.Partition(dbName="shop", tableName="orders", values=["2024-01-01"]),
            ]
        )
    with pytest.raises(hive.InvalidOperationException):
        client.drop_database("shop", True, False)  # not empty
    assert client.get_current_notificationEventId().eventId == start + 4
    events = _events(client, start)
    assert [(e.eventId, e.eventType, e.dbName, e.tableName, e.catName) for e in events] == [
        (start + 1, "CREATE_DATABASE", "shop", None, "hive"),
        (start + 2, "CREATE_TABLE", "shop", "orders", "hive"),
        (start + 3, "CREATE_TABLE", "shop", "items", "hive"),
        (start + 4, "ADD_PARTITION", "shop", "orders", "hive"),
    ]
    added = json.loads(events[-1].message)
    assert added["partitions"] == [{"day": "2024-01-01"}, {"day": "2024-01-02"}]
    assert len(added["partitionListJson"]) == 2 and added["tableType"] == "MANAGED_TABLE"

    client.drop_database("shop", True, True)  # cascade: each table, then the database
    assert [(e.eventType, e.tableName) for e in _events(client, start + 4)] == [
        ("DROP_TABLE", "items"),
        ("DROP_TABLE", "orders"),
        ("DROP_DATABASE", None),
    ]


def test_hive_3_and_4_filters_and_counts(client):
    start = _setup(client)
    assert [e.eventType for e in _events(client, start, maxEvents=2)] == ["CREATE_DATABASE", "CREATE_TABLE"]
    assert [e.eventType for e in _events(client, start, eventTypeSkipList=["CREATE_TABLE", "OPEN_TXN"])] == [
        "CREATE_DATABASE",
        "ADD_PARTITION",
    ]
    assert [e.tableName for e in _events(client, start, dbName="@hive#shop", tableNames=["items"])] == ["items"]
    assert _events(client, start, catName="other") == []
    count = client.get_notification_events_count
    assert count(hive.NotificationEventsCountRequest(fromEventId=start, dbName="shop")).eventsCount == 4
    assert count(hive.NotificationEventsCountRequest(fromEventId=start, dbName="default")).eventsCount == 0
    assert (
        count(hive.NotificationEventsCountRequest(fromEventId=start, dbName="shop", toEventId=start + 2)).eventsCount
        == 2
    )
    assert count(hive.NotificationEventsCountRequest(fromEventId=start, dbName="shop", limit=3)).eventsCount == 3


def test_the_configuration_event_consumers_check(client):
    # Impala's catalogd refuses to start its events processor unless these two hold (case ignored)
    assert client.get_config_value("hive.metastore.dml.events", "").lower() == "true"
    assert client.get_config_value("metastore.catalog.default", "") == "hive"
    assert client.get_config_value("hive.metastore.event.db.listener.timetolive", "") == "86400s"
    with pytest.raises(hive.ConfigValSecurityException):
        client.get_config_value("javax.jdo.option.ConnectionPassword", "")


def test_insert_events_in_the_hive_2_and_hive_3_layouts(client):
    start = _setup(client)
    fire = client.fire_listener_event
    hive2 = fire(
        hive.FireEventRequest(
            successful=True,
            data=hive.FireEventRequestData(
                insertData=hive.InsertEventRequestData(filesAdded=["f1", "f2"], filesAddedChecksum=["c1", "c2"])
            ),
            dbName="shop",
            tableName="orders",
            partitionVals=["2024-01-01"],
        )
    )
    # Hive 3/4 send the files in field 2 and the checksums in field 3; a list of inserts is one event each
    hive3 = fire(
        hive.FireEventRequest(
            successful=True,
            data=hive.FireEventRequestData(
                insertDatas=[
                    hive.InsertEventRequestData(
                        filesAddedChecksum=["g1"], hive3FilesAddedChecksum=["d1"], partitionVal=["2024-01-02"]
                    ),
                    hive.InsertEventRequestData(filesAddedChecksum=["g2"], partitionVal=["2024-01-01"]),
                ]
            ),
            dbName="@hive#shop",
            tableName="orders",
        )
    )
    assert hive2.eventIds == [start + 5] and hive3.eventIds == [start + 6, start + 7]
    messages = [json.loads(e.message) for e in _events(client, start + 4)]
    assert [(m["files"], m["partKeyVals"]) for m in messages] == [
        (["f1#c1", "f2#c2"], {"day": "2024-01-01"}),
        (["g1#d1"], {"day": "2024-01-02"}),
        (["g2"], {"day": "2024-01-01"}),
    ]
    assert all("ptnObjJson" in m and m["replace"] == "false" for m in messages)
    # the call declares no exception: Hive answers a missing partition with an application error too
    with pytest.raises(TApplicationException, match="day=2099-01-01 of shop.orders does not exist"):
        fire(
            hive.FireEventRequest(
                successful=True,
                data=hive.FireEventRequestData(insertData=hive.InsertEventRequestData(filesAdded=["f"])),
                dbName="shop",
                tableName="orders",
                partitionVals=["2099-01-01"],
            )
        )
    assert client.get_current_notificationEventId().eventId == start + 7


def _write_notification(txn: int, write: int, files: list[str], values: list[str] | None = None, db: str = "shop"):
    """Hive 3/4's layout of the files: field 2 the files, field 3 their checksums."""
    return hive.WriteNotificationLogRequest(
        txnId=txn,
        writeId=write,
        db=db,
        table="orders",
        fileInfo=hive.InsertEventRequestData(
            filesAddedChecksum=files, hive3FilesAddedChecksum=[f"sum-{f}" for f in files]
        ),
        partitionVals=values,
    )


def test_write_notifications_are_acid_write_events(client):
    """``add_write_notification_log`` (and its batch, one transaction) logs an ``ACID_WRITE`` event with
    Hive's ``JSONAcidWriteMessage`` properties; a missing partition logs none of the batch."""
    start = _setup(client)
    txn = client.open_txns(hive.OpenTxnRequest(num_txns=1, user="hive", hostname="h")).txn_ids[0]
    assert client.add_write_notification_log(_write_notification(txn, 1, ["d1/b0"], ["2024-01-01"], "@hive#shop"))
    assert client.add_write_notification_log_in_batch(
        hive.WriteNotificationLogBatchRequest(
            catalog="hive",
            db="shop",
            table="orders",
            requestList=[_write_notification(txn, 1, ["d1/b1"], ["2024-01-02"]), _write_notification(txn, 1, [])],
        )
    )
    events = _events(client, start + 4)
    assert [(e.eventType, e.dbName, e.tableName) for e in events] == [("ACID_WRITE", "shop", "orders")] * 3
    messages = [json.loads(e.message) for e in events]
    assert [(m["txnid"], m["writeId"], m["database"], m["table"]) for m in messages] == [(txn, 1, "shop", "orders")] * 3
    assert [(m["partition"], m["files"]) for m in messages] == [
        ("day=2024-01-01", ["d1/b0#sum-d1/b0"]),
        ("day=2024-01-02", ["d1/b1#sum-d1/b1"]),
        (None, []),
    ]
    assert messages[0]["partitionObjJson"] and messages[2]["partitionObjJson"] is None
    assert all("orders" in m["tableObjJson"] for m in messages)

    missing = _write_notification(txn, 1, ["x"], ["2099-01-01"])
    with pytest.raises(TApplicationException, match="day=2099-01-01 of shop.orders does not exist"):
        client.add_write_notification_log_in_batch(
            hive.WriteNotificationLogBatchRequest(
                catalog="hive",
                db="shop",
                table="orders",
                requestList=[
                    _write_notification(txn, 1, ["y"], ["2024-01-01"]),
                    missing,
                ],
            )
        )
    with pytest.raises(TApplicationException, match="nope"):
        client.add_write_notification_log(
            hive.WriteNotificationLogRequest(
                txnId=txn, writeId=1, db="shop", table="nope", fileInfo=hive.InsertEventRequestData()
            )
        )
    assert client.get_current_notificationEventId().eventId == start + 7


def test_events_past_their_time_to_live_are_removed_and_the_gap_shows(client, catalog):
    start = _setup(client)
    assert catalog.events.remove_expired() == 0
    real_clock = catalog.ctx.clock
    catalog.ctx.clock = lambda: real_clock() + timedelta(seconds=86400 + 5)
    client.drop_table("shop", "items", True)  # logged a day later
    assert catalog.events.remove_expired() == 4
    catalog.ctx.clock = real_clock
    # as Hive: the next events are those left; the consumer sees the ids jump
    assert [(e.eventId, e.eventType) for e in _events(client, start)] == [(start + 5, "DROP_TABLE")]
    assert client.get_current_notificationEventId().eventId == start + 5


def test_event_ids_are_gap_free_and_in_commit_order_across_two_workers(workers):
    _, port, _ = workers

    def connect():
        return make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=60_000)

    setup = connect()
    start = setup.get_current_notificationEventId().eventId
    setup.create_database(hive.Database(name="busy"))
    setup.close()

    def writer(n: int) -> list[str]:
        client = connect()
        done = []
        try:
            table = f"t{n}"
            client.create_table(make_table("busy", table, columns=cols("id:bigint"), partition_keys=cols("p:int")))
            done.append(f"CREATE_TABLE {table}")
            for i in range(5):
                client.add_partition(hive.Partition(dbName="busy", tableName=table, values=[str(i)]))
                done.append(f"ADD_PARTITION {table}")
            client.drop_partition("busy", table, ["0"], False)
            done.append(f"DROP_PARTITION {table}")
        finally:
            client.close()
        return done

    with ThreadPoolExecutor(16) as pool:
        done = list(pool.map(writer, range(16)))
    reader = connect()
    events = _events(reader, start)
    last = reader.get_current_notificationEventId().eventId
    reader.close()
    ids = [e.eventId for e in events]
    assert ids == list(range(start + 1, last + 1))  # gap-free, none duplicated
    assert len(events) == 1 + sum(len(d) for d in done)  # none lost
    for n, expected in enumerate(done):  # each writer's changes in the order it committed them
        assert [f"{e.eventType} {e.tableName}" for e in events if e.tableName == f"t{n}"] == expected
