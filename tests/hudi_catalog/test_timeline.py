"""The timeline service on SQLite and MariaDB: instant times, transitions as compare-and-set, heartbeats."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone

import pytest

from hudi_catalog.errors import AlreadyExistsError, InvalidOperationError, NoSuchObjectError, NoSuchTableError
from hudi_catalog.instant_times import is_instant_time
from hudi_catalog.model import Column, Database, InstantState, StorageDescriptor, Table

REQUESTED, INFLIGHT, COMPLETED = InstantState.REQUESTED, InstantState.INFLIGHT, InstantState.COMPLETED


@pytest.fixture
def timeline(catalog):
    catalog.databases.create(Database("h"))
    catalog.tables.create(Table("h", "t", sd=StorageDescriptor(columns=[Column("x", "int")])))
    return catalog.timeline


def test_instant_times_are_unique_and_increasing_under_concurrency(timeline):
    drawn: list[list[str]] = []

    def draw() -> None:
        mine = [timeline.new_instant_time("h", "t") for _ in range(25)]
        drawn.append(mine)

    threads = [threading.Thread(target=draw) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    everything = [ts for mine in drawn for ts in mine]
    assert len(set(everything)) == 150
    assert all(is_instant_time(ts) for ts in everything)
    assert all(mine == sorted(mine) and len(set(mine)) == 25 for mine in drawn)


def test_instant_lifecycle_with_metadata_per_state(timeline):
    ts = timeline.new_instant_time("h", "t")
    timeline.create("h", "t", ts, "commit", metadata=b"plan")
    timeline.transition("h", "t", ts, "commit", REQUESTED, INFLIGHT, b"")
    done = timeline.transition("h", "t", ts, "commit", INFLIGHT, COMPLETED, b'{"partitionToWriteStats": {}}')
    assert done.state is COMPLETED and done.completion_time > ts
    [listed] = timeline.instants("h", "t")
    assert (listed.requested_time, listed.action, listed.state, listed.completion_time) == (
        ts,
        "commit",
        COMPLETED,
        done.completion_time,
    )
    assert timeline.metadata("h", "t", ts, "commit", REQUESTED) == b"plan"
    assert timeline.metadata("h", "t", ts, "commit", INFLIGHT) == b""
    assert timeline.metadata("h", "t", ts, "commit", COMPLETED) == b'{"partitionToWriteStats": {}}'
    later = timeline.new_instant_time("h", "t")
    assert later > done.completion_time


def test_exactly_one_of_concurrent_transitions_wins(timeline):
    ts = timeline.new_instant_time("h", "t")
    timeline.create("h", "t", ts, "deltacommit", state=INFLIGHT)
    barrier = threading.Barrier(6)

    def complete(i: int) -> str:
        barrier.wait()
        try:
            metadata = {"partitionToWriteStats": {}, "extraMetadata": {"writer": str(i)}}
            timeline.transition("h", "t", ts, "deltacommit", INFLIGHT, COMPLETED, json.dumps(metadata).encode())
            return "won"
        except InvalidOperationError as error:
            assert "is completed, not inflight" in str(error)
            return "lost"

    with ThreadPoolExecutor(6) as pool:
        outcomes = list(pool.map(complete, range(6)))
    assert sorted(outcomes) == ["lost"] * 5 + ["won"]
    winner = json.loads(timeline.metadata("h", "t", ts, "deltacommit", COMPLETED))
    assert winner["extraMetadata"]["writer"] in {str(i) for i in range(6)}


def test_bad_transitions_and_instants_are_refused(timeline):
    ts = timeline.new_instant_time("h", "t")
    timeline.create("h", "t", ts, "commit")
    with pytest.raises(InvalidOperationError, match="from requested to completed"):
        timeline.transition("h", "t", ts, "commit", REQUESTED, COMPLETED)
    with pytest.raises(InvalidOperationError, match="is requested, not inflight"):
        timeline.transition("h", "t", ts, "commit", INFLIGHT, COMPLETED)
    with pytest.raises(NoSuchObjectError):
        timeline.transition("h", "t", ts, "deltacommit", REQUESTED, INFLIGHT)
    with pytest.raises(AlreadyExistsError):
        timeline.create("h", "t", ts, "commit")
    with pytest.raises(InvalidOperationError, match="unknown Hudi action"):
        timeline.create("h", "t", timeline.new_instant_time("h", "t"), "bogus")
    with pytest.raises(InvalidOperationError, match="invalid instant time"):
        timeline.create("h", "t", "2024-01-01", "commit")
    with pytest.raises(NoSuchTableError):
        timeline.new_instant_time("h", "missing")
    assert [i.state for i in timeline.instants("h", "t")] == [REQUESTED]


def test_only_pending_instants_can_be_deleted(timeline):
    pending, done = timeline.new_instant_time("h", "t"), timeline.new_instant_time("h", "t")
    timeline.create("h", "t", pending, "commit", state=INFLIGHT)
    timeline.create("h", "t", done, "commit", state=INFLIGHT)
    timeline.transition("h", "t", done, "commit", INFLIGHT, COMPLETED)
    timeline.delete("h", "t", pending, "commit")
    with pytest.raises(InvalidOperationError, match="only pending instants"):
        timeline.delete("h", "t", done, "commit")
    with pytest.raises(NoSuchObjectError):
        timeline.delete("h", "t", pending, "commit")
    assert [i.requested_time for i in timeline.instants("h", "t")] == [done]


def test_expired_heartbeats_name_dead_writers(timeline):
    moment = [datetime(2026, 1, 1, tzinfo=timezone.utc)]
    timeline.ctx.clock = lambda: moment[0]
    alive, dead, unwatched = (timeline.new_instant_time("h", "t") for _ in range(3))
    timeline.create("h", "t", alive, "commit", heartbeat_seconds=60)
    timeline.create("h", "t", dead, "commit", heartbeat_seconds=60)
    timeline.create("h", "t", unwatched, "commit")
    start = timeline.ctx.now()
    moment[0] += timedelta(seconds=50)
    timeline.heartbeat("h", "t", alive)
    assert timeline.expired("h", "t", now=start + 60) == []
    assert [i.requested_time for i in timeline.expired("h", "t", now=start + 61)] == [dead]
    assert [i.requested_time for i in timeline.expired("h", "t", now=start + 111)] == [alive, dead]
    with pytest.raises(NoSuchObjectError):
        timeline.heartbeat("h", "t", "20000101000000000")


def test_latest_instants_with_a_limit_keep_timeline_order(timeline):
    times = [timeline.new_instant_time("h", "t") for _ in range(5)]
    for ts in times:
        timeline.create("h", "t", ts, "deltacommit")
    assert [i.requested_time for i in timeline.instants("h", "t", limit=2)] == times[-2:]
    assert [i.requested_time for i in timeline.instants("h", "t", states=[INFLIGHT])] == []


STORED_ACTION_CODES = {
    "commit": 1,
    "deltacommit": 2,
    "clean": 3,
    "rollback": 4,
    "savepoint": 5,
    "replacecommit": 6,
    "compaction": 7,
    "restore": 8,
    "clustering": 9,
    "logcompaction": 10,
    "indexing": 11,
}
"""The codes catalog databases hold (also Hudi's metaserver TAction values): never renumbered."""


def test_every_action_is_stored_under_its_fixed_code_and_read_back(catalog, timeline):
    from sqlalchemy import select

    from hudi_catalog.model import Action
    from hudi_catalog.store import schema

    times = {}
    for action in Action:
        times[action] = timeline.new_instant_time("h", "t")
        timeline.create("h", "t", times[action], action.value, INFLIGHT)
    with catalog.store.read() as conn:
        rows = conn.execute(select(schema.instant.c.ts, schema.instant.c.action, schema.instant.c.state)).all()
    stored = {ts: (code, state) for ts, code, state in rows}
    assert {action.value: stored[ts] for action, ts in times.items()} == {
        name: (code, 2) for name, code in STORED_ACTION_CODES.items()
    }
    listed = timeline.instants("h", "t", actions=[Action.CLUSTERING, Action.INDEXING])
    assert [(i.requested_time, i.action) for i in listed] == [
        (times[Action.CLUSTERING], Action.CLUSTERING),
        (times[Action.INDEXING], Action.INDEXING),
    ]
    assert all(type(i.action) is Action and i.state is INFLIGHT for i in timeline.instants("h", "t"))
    with pytest.raises(InvalidOperationError, match="unknown Hudi action"):
        timeline.create("h", "t", timeline.new_instant_time("h", "t"), "frobnicate")
