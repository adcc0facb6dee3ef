"""Hive's locks and transactions in the catalog: granting, queueing, expiry, transactions, write ids, and
compare-and-set alters, on SQLite and MariaDB, with several catalogs on one database standing for several
servers."""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest

from hudi_catalog import Catalog
from hudi_catalog.errors import (
    ConcurrentModificationError,
    InvalidObjectError,
    NoSuchLockError,
    NoSuchTxnError,
    TxnAbortedError,
    TxnOpenError,
)
from hudi_catalog.locks.model import LockComponent, LockRequest, LockState, LockTarget, LockType
from hudi_catalog.model import EXPECTED_KEY, EXPECTED_VALUE, Column, Database, StorageDescriptor, Table
from tests.support.catalog_probes import Clock

SR, SW, EX, EW = LockType.SHARED_READ, LockType.SHARED_WRITE, LockType.EXCLUSIVE, LockType.EXCL_WRITE
ACQUIRED, WAITING = LockState.ACQUIRED, LockState.WAITING


def request(*components: tuple[LockType, str], txn: int = 0) -> LockRequest:
    """``request((EX, "d.t"), (SR, "d.t.p=1"))``: components by type and dotted target."""
    built = []
    for lock_type, dotted in components:
        database, table, partition = (dotted.split(".", 2) + [None, None])[:3]
        built.append(LockComponent(lock_type, LockTarget(database, table, partition)))
    return LockRequest(built, user="u", host="h", txn_id=txn)


@pytest.fixture
def clock(catalog) -> Clock:
    clock = Clock()
    catalog.ctx.clock = clock
    return clock


def states(catalog: Catalog) -> dict[int, set[LockState]]:
    found: dict[int, set[LockState]] = {}
    for held in catalog.locks.show():
        found.setdefault(held.lock_id, set()).add(held.state)
    return found


def test_an_exclusive_lock_waits_for_the_holder_and_is_granted_by_check_lock_after_unlock(catalog):
    first = catalog.locks.lock(request((EX, "d.t")))
    second = catalog.locks.lock(request((EX, "d.t")))
    assert (first.state, second.state) == (ACQUIRED, WAITING)
    assert catalog.locks.check(second.lock_id).state == WAITING
    waiting = [h for h in catalog.locks.show() if h.lock_id == second.lock_id][0]
    assert (waiting.blocked_by_lock, waiting.blocked_by_component) == (first.lock_id, 1)
    catalog.locks.unlock(first.lock_id)
    assert catalog.locks.check(second.lock_id).state == ACQUIRED
    catalog.locks.unlock(second.lock_id)
    assert catalog.locks.show() == []


def test_waiting_locks_are_served_in_arrival_order(catalog):
    reader = catalog.locks.lock(request((SR, "d.t")))
    writer = catalog.locks.lock(request((EX, "d.t")))
    late_reader = catalog.locks.lock(request((SR, "d.t")))
    # a waiting writer is ahead of the later reader: readers cannot starve it
    assert (reader.state, writer.state, late_reader.state) == (ACQUIRED, WAITING, WAITING)
    catalog.locks.unlock(reader.lock_id)
    assert catalog.locks.check(late_reader.lock_id).state == WAITING
    assert catalog.locks.check(writer.lock_id).state == ACQUIRED
    catalog.locks.unlock(writer.lock_id)
    assert catalog.locks.check(late_reader.lock_id).state == ACQUIRED


def test_a_request_gets_all_its_components_or_none(catalog):
    holder = catalog.locks.lock(request((EX, "d.t1")))
    both = catalog.locks.lock(request((EX, "d.t2"), (EX, "d.t1")))
    assert both.state == WAITING
    assert {h.component: h.state for h in catalog.locks.show() if h.lock_id == both.lock_id} == {1: WAITING, 2: WAITING}
    catalog.locks.unlock(holder.lock_id)
    assert catalog.locks.check(both.lock_id).state == ACQUIRED


@pytest.mark.parametrize(
    "held, requested, granted",
    [
        ((EX, "d"), (SR, "d.t.p=1"), False),  # a database lock covers its tables and partitions
        ((SW, "d.t"), (SW, "d.t.p=1"), False),  # a table lock covers its partitions
        ((EX, "d.t.p=1"), (EX, "d.t.p=2"), True),  # other partition
        ((EX, "d.t"), (EX, "d.u"), True),  # other table
        ((EX, "d.t"), (EX, "e.t"), True),  # other database
        ((SR, "d.t"), (SW, "d.t"), True),
        ((SW, "d.t"), (SR, "d.t"), True),
        ((EW, "d.t"), (SR, "d.t"), True),
        ((EW, "d.t"), (SW, "d.t"), False),
        ((SR, "d"), (EX, "d.t"), True),  # Hive's exemption: dropping a table of a database in use
        ((EX, "d.t"), (SR, "d"), True),
    ],
)
def test_compatibility_by_type_and_level(catalog, held, requested, granted):
    assert catalog.locks.lock(request(held)).state == ACQUIRED
    assert catalog.locks.lock(request(requested)).state == (ACQUIRED if granted else WAITING)


def test_a_lock_on_objects_that_do_not_exist_is_granted_and_names_are_lower_cased_by_the_adapter(catalog):
    assert catalog.locks.lock(request((EX, "nodb.notable"))).state == ACQUIRED


def test_locks_of_one_transaction_do_not_conflict_and_go_at_its_commit(catalog):
    txn = catalog.txns.open(1, "u", "h")[0]
    first = catalog.locks.lock(request((EX, "d.t"), txn=txn))
    second = catalog.locks.lock(request((SW, "d.t"), txn=txn))
    assert (first.state, second.state) == (ACQUIRED, ACQUIRED)
    with pytest.raises(TxnOpenError, match="Unlocking locks associated with transaction not permitted"):
        catalog.locks.unlock(first.lock_id)
    other = catalog.locks.lock(request((SR, "d.t")))
    assert other.state == WAITING
    catalog.txns.commit(txn)
    assert set(states(catalog)) == {other.lock_id}
    assert catalog.locks.check(other.lock_id).state == ACQUIRED
    catalog.txns.commit(txn)  # a retried commit is a no-op


def test_abort_releases_the_transactions_locks_and_its_errors(catalog):
    txn, other = catalog.txns.open(2, "u", "h")
    lock = catalog.locks.lock(request((EX, "d.t"), txn=txn))
    catalog.txns.abort([txn])
    assert catalog.locks.show() == []
    with pytest.raises(NoSuchLockError):
        catalog.locks.check(lock.lock_id)
    with pytest.raises(TxnAbortedError, match=f"Transaction txnid:{txn} already aborted"):
        catalog.txns.commit(txn)
    with pytest.raises(TxnAbortedError):
        catalog.locks.lock(request((SR, "d.t"), txn=txn))
    catalog.txns.abort([txn])  # again: a no-op
    with pytest.raises(NoSuchTxnError, match="No such transaction txnid:999"):
        catalog.txns.commit(999)
    with pytest.raises(NoSuchTxnError):
        catalog.txns.abort([other, 999])
    assert catalog.txns.snapshot().open == [other]  # all or none: ``other`` stayed open
    catalog.txns.commit(other)
    with pytest.raises(NoSuchTxnError, match="is already committed"):
        catalog.txns.abort([other])


def test_unknown_and_released_lock_ids(catalog):
    with pytest.raises(NoSuchLockError, match="lockid:42"):
        catalog.locks.check(42)
    with pytest.raises(NoSuchLockError):
        catalog.locks.heartbeat(42)
    catalog.locks.unlock(42)  # as Hive: unlocking an unknown lock is a no-op
    lock = catalog.locks.lock(request((SR, "d.t")))
    catalog.locks.unlock(lock.lock_id)
    with pytest.raises(NoSuchLockError):
        catalog.locks.check(lock.lock_id)
    with pytest.raises(InvalidObjectError):
        catalog.locks.lock(LockRequest([], "u", "h"))
    assert catalog.locks.show() == []


def test_a_lock_not_heartbeated_expires_and_unblocks_the_next_writer(db_url, warehouse):
    catalog = Catalog.open(db_url, str(warehouse), txn_timeout=5)
    clock = Clock()
    catalog.ctx.clock = clock
    try:
        dead = catalog.locks.lock(request((EX, "d.t")))
        alive = catalog.locks.lock(request((EX, "d.t")))
        clock.advance(4)
        assert catalog.locks.check(alive.lock_id).state == WAITING  # check_lock heartbeats ``alive``
        clock.advance(2)
        assert catalog.locks.check(alive.lock_id).state == ACQUIRED
        for call in (catalog.locks.check, catalog.locks.heartbeat):
            with pytest.raises(NoSuchLockError):
                call(dead.lock_id)
        clock.advance(4)
        catalog.locks.heartbeat(alive.lock_id)
        clock.advance(4)
        assert [h.lock_id for h in catalog.locks.show()] == [alive.lock_id]
    finally:
        catalog.close()


def test_a_waiter_polling_check_lock_records_a_heartbeat_at_most_once_a_second(catalog, clock):
    catalog.locks.lock(request((EX, "d.t")))
    waiter = catalog.locks.lock(request((EX, "d.t")))

    def recorded() -> tuple[int, int]:
        waiting = catalog.locks.show()[1]
        return waiting.last_heartbeat_ms, waiting.heartbeat_count

    locked_at, _ = recorded()
    for _ in range(3):
        clock.advance(0.3)
        assert catalog.locks.check(waiter.lock_id).state == WAITING
    assert recorded() == (locked_at, 0)
    clock.advance(0.2)  # 1.1 s since the lock was taken
    assert catalog.locks.check(waiter.lock_id).state == WAITING
    assert recorded() == (locked_at + 1100, 1)
    catalog.locks.heartbeat(waiter.lock_id)  # an explicit heartbeat is always recorded
    assert recorded() == (locked_at + 1100, 2)


def test_a_transaction_not_heartbeated_is_aborted_with_its_locks(db_url, warehouse):
    catalog = Catalog.open(db_url, str(warehouse), txn_timeout=5)
    clock = Clock()
    catalog.ctx.clock = clock
    try:
        kept, dropped = catalog.txns.open(2, "u", "h")
        catalog.locks.lock(request((EX, "d.t"), txn=dropped))
        clock.advance(3)
        catalog.txns.heartbeat(kept)
        assert catalog.txns.heartbeat_range(kept, kept) == (set(), set())
        assert catalog.txns.heartbeat_range(dropped + 1, dropped + 2) == (set(), {dropped + 1, dropped + 2})
        clock.advance(3)
        assert catalog.txns.heartbeat_range(kept, dropped) == ({dropped}, set())
        with pytest.raises(TxnAbortedError):
            catalog.txns.heartbeat(dropped)
        assert catalog.locks.lock(request((EX, "d.t"))).state == ACQUIRED
        snapshot = catalog.txns.snapshot()
        # it took a write lock, so it stays listed as aborted: readers must skip what it may have written
        assert (snapshot.open, snapshot.aborted, snapshot.high_water_mark) == ([kept], [dropped], 2)
    finally:
        catalog.close()


def test_open_transactions_snapshot_and_infos(catalog):
    first, second, third = catalog.txns.open(3, "alice", "host1", agent_info="agent")
    catalog.txns.allocate_write_ids("d", "t", [second])
    catalog.txns.abort([second])
    catalog.txns.commit(third)
    snapshot = catalog.txns.snapshot()
    assert (snapshot.high_water_mark, snapshot.open, snapshot.aborted) == (3, [first], [second])
    assert snapshot.min_open == first
    high, infos = catalog.txns.infos()
    assert high == 3
    assert [(i.txn_id, i.state.name, i.user, i.host, i.agent_info) for i in infos] == [
        (first, "OPEN", "alice", "host1", "agent"),
        (second, "ABORTED", "alice", "host1", "agent"),
    ]
    with pytest.raises(InvalidObjectError):
        catalog.txns.open(0, "u", "h")
    assert len(catalog.txns.open(5000, "u", "h")) == 1000  # Hive's hive.txn.max.open.batch


def test_write_ids_and_the_valid_write_ids_a_reader_sees(catalog):
    t1, t2, t3, t4 = catalog.txns.open(4, "u", "h")
    assert catalog.txns.allocate_write_ids("D", "T", [t3, t1]) == [(t1, 1), (t3, 2)]
    assert catalog.txns.allocate_write_ids("d", "t", [t1, t2]) == [(t1, 1), (t2, 3)]  # t1 keeps its id
    assert catalog.txns.allocate_write_ids("d", "other", [t2]) == [(t2, 1)]
    catalog.txns.commit(t1)
    catalog.txns.abort([t2])
    [ids] = catalog.txns.valid_write_ids(["d.t"], None)
    assert (ids.table, ids.high_water_mark, ids.invalid, ids.aborted, ids.min_open) == ("d.t", 3, [2, 3], [3], 2)
    # a reader whose snapshot predates t3: t3's write id is above the high water mark
    from hudi_catalog.locks.model import OpenTxns

    [old] = catalog.txns.valid_write_ids(["d.t"], OpenTxns(high_water_mark=2, open=[2], aborted=[]))
    assert (old.high_water_mark, old.invalid, old.min_open) == (3, [2, 3], 2)
    with pytest.raises(TxnAbortedError):
        catalog.txns.allocate_write_ids("d", "t", [t2])
    with pytest.raises(NoSuchTxnError):
        catalog.txns.allocate_write_ids("d", "t", [t1])
    with pytest.raises(InvalidObjectError):
        catalog.txns.valid_write_ids(["no_dot"], None)
    assert catalog.txns.valid_write_ids(["d.none"], None)[0].high_water_mark == 0
    catalog.txns.commit(t4)


def _table(name: str, **parameters: str) -> Table:
    return Table("cas", name, sd=StorageDescriptor(columns=[Column("x", "int")]), parameters=dict(parameters))


def test_alter_with_an_expected_parameter_value_is_a_compare_and_set(catalog):
    catalog.databases.create(Database("cas"))
    catalog.tables.create(_table("t", metadata_location="v1"))
    expect_v1 = {EXPECTED_KEY: "metadata_location", EXPECTED_VALUE: "v1"}
    catalog.tables.alter("cas", "t", _table("t", metadata_location="v2"), environment=expect_v1)
    assert catalog.tables.get("cas", "t").parameters["metadata_location"] == "v2"
    with pytest.raises(ConcurrentModificationError) as error:
        catalog.tables.alter("cas", "t", _table("t", metadata_location="v3"), environment=expect_v1)
    assert str(error.value).startswith(
        "The table has been modified. The parameter value for key 'metadata_location' is 'v2'"
    )
    assert catalog.tables.get("cas", "t").parameters["metadata_location"] == "v2"
    with pytest.raises(InvalidObjectError, match="New value for expected key metadata_location is not set"):
        catalog.tables.alter("cas", "t", _table("t"), environment={**expect_v1, EXPECTED_VALUE: "v2"})


def test_concurrent_compare_and_set_alters_across_catalogs_let_exactly_one_win(db_url, warehouse):
    catalogs = [Catalog.open(db_url, str(warehouse)) for _ in range(2)]
    try:
        catalogs[0].databases.create(Database("cas"))
        catalogs[0].tables.create(_table("t", metadata_location="0"))
        wins: list[str] = []

        def commit(catalog: Catalog, name: str) -> None:
            for _ in range(10):
                current = catalog.tables.get("cas", "t").parameters["metadata_location"]
                try:
                    catalog.tables.alter(
                        "cas",
                        "t",
                        _table("t", metadata_location=f"{current}.{name}"),
                        environment={EXPECTED_KEY: "metadata_location", EXPECTED_VALUE: current},
                    )
                    wins.append(name)
                except ConcurrentModificationError:
                    pass

        threads = [threading.Thread(target=commit, args=(catalogs[i % 2], f"w{i}")) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        final = catalogs[1].tables.get("cas", "t").parameters["metadata_location"]
        # every successful commit is in the chain exactly once: no lost update. A thread records its win
        # after its alter returns, so the list's order may differ from the commit order.
        assert Counter(final.split(".")[1:]) == Counter(wins)
        assert len(wins) >= 10
    finally:
        for catalog in catalogs:
            catalog.close()


def test_no_two_servers_hold_one_exclusive_lock_at_once(db_url, warehouse):
    catalogs = [Catalog.open(db_url, str(warehouse)) for _ in range(2)]
    holders, overlaps, rounds = [0], [], []
    guard = threading.Lock()

    def writer(catalog: Catalog) -> None:
        for _ in range(8):
            lock = catalog.locks.lock(request((EX, "d.t")))
            while lock.state != ACQUIRED:
                time.sleep(0.005)
                lock = catalog.locks.check(lock.lock_id)
            with guard:
                holders[0] += 1
                if holders[0] > 1:
                    overlaps.append(lock.lock_id)
            time.sleep(0.002)
            with guard:
                holders[0] -= 1
                rounds.append(lock.lock_id)
            catalog.locks.unlock(lock.lock_id)

    try:
        threads = [threading.Thread(target=writer, args=(catalogs[i % 2],)) for i in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert overlaps == []
        assert len(rounds) == 48 and len(set(rounds)) == 48
        assert catalogs[0].locks.show() == []
    finally:
        for catalog in catalogs:
            catalog.close()


def test_write_ids_follow_a_renamed_table_and_go_with_a_dropped_one(catalog):
    catalog.databases.create(Database("cas"))
    catalog.tables.create(_table("t"))
    txn = catalog.txns.open(1, "u", "h")[0]
    catalog.txns.allocate_write_ids("cas", "t", [txn])
    catalog.tables.alter("cas", "t", _table("renamed"))
    assert catalog.txns.valid_write_ids(["cas.renamed"], None)[0].invalid == [1]
    catalog.tables.drop("cas", "renamed", delete_data=False)
    catalog.txns.commit(txn)
    assert catalog.txns.valid_write_ids(["cas.renamed"], None)[0].high_water_mark == 0


def test_large_heartbeat_ranges_and_abort_lists(catalog):
    ids = catalog.txns.open(1000, "u", "h") + catalog.txns.open(1000, "u", "h")
    catalog.txns.abort(ids[:1500], strict=False)
    assert catalog.txns.heartbeat_range(1, 50_000) == (set(ids[:1500]), set(range(2001, 50_001)))
    with pytest.raises(InvalidObjectError, match="At most 100000 transactions"):
        catalog.txns.heartbeat_range(1, 200_000)
    assert catalog.txns.heartbeat_range(5, 4) == (set(), set())
    assert catalog.txns.snapshot().open == ids[1500:]


def test_locks_of_thousands_of_partitions_meet_only_where_they_overlap(catalog):
    many = request(*[(SR, f"d.t.p={i}") for i in range(5000)])
    assert catalog.locks.lock(many).state == ACQUIRED
    assert catalog.locks.lock(request(*[(SW, f"d.t.p={i}") for i in range(5000)])).state == ACQUIRED
    writer = catalog.locks.lock(request(*[(EX, f"d.t.p={i}") for i in range(4999, 10_000)]))
    assert writer.state == WAITING
    blocked = [h for h in catalog.locks.show() if h.lock_id == writer.lock_id and h.blocked_by_lock]
    assert [(h.component, h.blocked_by_lock, h.blocked_by_component) for h in blocked] == [
        (1, 2, 5000)
    ]  # the nearest: lock 2's p=4999


def test_a_commit_after_the_timeout_finds_the_transaction_aborted(db_url, warehouse):
    catalog = Catalog.open(db_url, str(warehouse), txn_timeout=5)
    clock = Clock()
    catalog.ctx.clock = clock
    try:
        txn = catalog.txns.open(1, "u", "h")[0]
        catalog.locks.lock(request((EX, "d.t"), txn=txn))
        clock.advance(6)
        # as if another call had just swept (sweeps run at most once a second): the commit itself must see it
        catalog.txns._last_sweep_ms = catalog.txns.now_ms()
        with pytest.raises(TxnAbortedError):
            catalog.txns.commit(txn)
        assert catalog.txns.snapshot().aborted == [txn]
        assert catalog.locks.show() == []
    finally:
        catalog.close()


def test_write_ids_go_with_a_database_dropped_with_its_tables(catalog):
    catalog.databases.create(Database("cas"))
    catalog.tables.create(_table("t"))
    txn = catalog.txns.open(1, "u", "h")[0]
    catalog.txns.allocate_write_ids("cas", "t", [txn])
    catalog.txns.commit(txn)
    catalog.databases.drop("cas", delete_data=False, cascade=True)
    assert catalog.txns.valid_write_ids(["cas.t"], None)[0].high_water_mark == 0


def test_a_waiter_polling_check_lock_sees_a_dead_transactions_lock_expire(db_url, warehouse):
    """A client that died holding a lock in a transaction (its commit cut off) leaves the lock until its
    transaction times out; the waiter that polls ``check_lock`` all along is granted then, not kept waiting:
    found by the rolling-upgrade scenario, where both lock clients waited 600 s."""
    catalog = Catalog.open(db_url, str(warehouse), txn_timeout=5)
    clock = Clock()
    catalog.ctx.clock = clock
    try:
        dead, alive = catalog.txns.open(2, "u", "h")
        catalog.locks.lock(request((EX, "d.t"), txn=dead))
        waiting = catalog.locks.lock(request((EX, "d.t"), txn=alive))
        for _ in range(10):  # 6 s of polls, every 0.6 s: the dead transaction's timeout passes on the way
            clock.advance(0.6)
            state = catalog.locks.check(waiting.lock_id).state
        assert state == ACQUIRED
        assert catalog.txns.snapshot().aborted == [dead]
    finally:
        catalog.close()
