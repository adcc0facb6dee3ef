"""Hudi's ``HiveMetastoreBasedLockProvider`` through this server: Spark writers in several processes on one
table, with optimistic concurrency control.

Three Hudi writers (``tests/support/spark_writers.py``, each its own Spark process) share one copy-on-write
table whose lock lives in this server (``serve --txn-timeout 20`` on PostgreSQL). They check that:

- writers at work together on different partitions all commit: every acknowledged commit is on the timeline,
  its rows are in the data, and the server followed each writer's hive sync;
- two writers updating the same record group at once: one commits, the other fails with Hudi's conflict
  error, and the data holds the winner's row;
- a writer killed while it holds the table's lock leaves it until the server expires it
  (``--txn-timeout``), then the next writer takes it and commits;
- after each, no lock is left in the server.
"""

from __future__ import annotations

import logging
import select
import signal
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest

from hudi_catalog import Catalog
from hudi_catalog.model import InstantState
from tests.conftest import hive, postgresql_database, require_module
from tests.support.servers import READY_SECONDS
from tests.support.spark_writers import SparkWriter, WriterError, hudi_spark_writer
from tests.support.sql_engines import metastore_client, served_metastore

require_module("hudi")

from hudi import HudiReadOptions, HudiTableBuilder  # noqa: E402

from tests.support.hudi_oracles import oracle_slices, our_slices  # noqa: E402

# Spark writers' starts with the first test: past the default 600 s on a machine 3-4 times slower
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
log = logging.getLogger(__name__)

DATABASE = "locked"
TABLE = "trips"
SCHEMA = "id int, name string, region string, price double"
TXN_TIMEOUT = 20
WRITE_ACTIONS = {"commit", "replacecommit"}
BULK_ROWS = 400_000


@dataclass
class Lake:
    uri: str
    db_url: str
    warehouse: Path
    base: Path
    writers: list[SparkWriter]
    spark_work: Path

    @property
    def path(self) -> str:
        return f"file://{self.base}"

    def options(self, **extra: str) -> dict[str, str]:
        return {
            "hoodie.table.name": TABLE,
            "hoodie.datasource.write.table.type": "COPY_ON_WRITE",
            "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "price",
            "hoodie.datasource.write.partitionpath.field": "region",
            "hoodie.datasource.write.hive_style_partitioning": "true",
            "hoodie.datasource.hive_sync.enable": "true",
            "hoodie.datasource.hive_sync.mode": "hms",
            "hoodie.datasource.hive_sync.metastore.uris": self.uri,
            "hoodie.datasource.hive_sync.database": DATABASE,
            "hoodie.datasource.hive_sync.table": TABLE,
            "hoodie.datasource.hive_sync.partition_fields": "region",
            "hoodie.metadata.enable": "false",
            "hoodie.write.concurrency.mode": "optimistic_concurrency_control",
            "hoodie.cleaner.policy.failed.writes": "LAZY",
            "hoodie.write.lock.provider": "org.apache.hudi.hive.transaction.lock.HiveMetastoreBasedLockProvider",
            "hoodie.write.lock.hivemetastore.uris": self.uri,
            "hoodie.write.lock.hivemetastore.database": DATABASE,
            "hoodie.write.lock.hivemetastore.table": TABLE,
            "hoodie.write.lock.wait_time_ms": str(4 * TXN_TIMEOUT * 1000),
            "hoodie.write.lock.client.wait_time_ms_between_retry": "500",
            "hoodie.write.lock.heartbeat_interval_ms": "2000",
            **extra,
        }

    def locks(self) -> list:
        client = metastore_client(self.uri)
        try:
            return client.show_locks(hive.ShowLocksRequest()).locks or []
        finally:
            client.close()

    def completed_writes(self) -> list[str]:
        """The completed writes on storage (hudi-rs)."""
        timeline = HudiTableBuilder.from_base_uri(str(self.base)).build().get_timeline()
        return sorted(i.timestamp for i in timeline.get_completed_commits() + timeline.get_completed_replacecommits())

    def followed_writes(self) -> list[str]:
        """The completed writes on the server's timeline."""
        catalog = Catalog.open(self.db_url, warehouse=f"file://{self.warehouse}")
        try:
            instants = catalog.timeline.instants(DATABASE, TABLE, states=[InstantState.COMPLETED])
        finally:
            catalog.close()
        return sorted(i.requested_time for i in instants if i.action in WRITE_ACTIONS)

    def rows(self) -> dict[int, tuple[str, float]]:
        """The table's rows as hudi-rs reads them: id -> (name, price)."""
        batches = HudiTableBuilder.from_base_uri(str(self.base)).build().read(HudiReadOptions())
        return {
            row["id"]: (row["name"], row["price"])
            for batch in batches
            for row in batch.select(["id", "name", "price"]).to_pylist()
        }


@pytest.fixture(scope="module")
def lake(tmp_path_factory, postgresql_server_url) -> Iterator[Lake]:
    work = tmp_path_factory.mktemp("spark-locks")
    with ExitStack() as stack:
        db_url = stack.enter_context(postgresql_database(postgresql_server_url))
        ours = stack.enter_context(served_metastore(work / "ours", db_url, "--txn-timeout", str(TXN_TIMEOUT)))
        writers = [stack.enter_context(hudi_spark_writer(work / f"writer-{i}", ours.uri)) for i in range(2)]
        found = Lake(ours.uri, db_url, ours.warehouse, work / "data" / TABLE, writers, work)
        writers[0].write(found.path, SCHEMA, [[0, "zed", "eu", 1.0]], found.options(), mode="overwrite")
        yield found


def _inflight(base: Path) -> set[str]:
    """The instants on storage that reached inflight (their files stay after they complete)."""
    return {p.name for p in (base / ".hoodie" / "timeline").glob("*.inflight")}


def test_writers_on_different_partitions_all_commit(lake):
    first, second = lake.writers
    before = lake.completed_writes()
    for round_ in range(3):
        first.send_write(lake.path, SCHEMA, [[10 + round_, "a", "eu", 1.0]], lake.options())
        second.send_write(lake.path, SCHEMA, [[20 + round_, "b", "us", 1.0]], lake.options())
        first.receive()
        second.receive()
    written = lake.completed_writes()
    assert len(written) == len(before) + 6  # every acknowledged commit is on the timeline, once
    assert {10, 11, 12, 20, 21, 22} <= set(lake.rows())
    assert lake.followed_writes() == written  # each writer's hive sync brought its commit in
    assert lake.locks() == []


def test_a_conflict_fails_one_writer_the_way_hudi_reports_it(lake):
    first, second = lake.writers
    before, started = lake.completed_writes(), _inflight(lake.base)
    # the first write also adds many rows to the same file group, so it is still writing when the second starts
    first.send_write(lake.path, SCHEMA, [[0, "first", "eu", 5.0]], lake.options(), more=(100_000, BULK_ROWS))
    deadline = time.monotonic() + READY_SECONDS  # only a ceiling against a hang
    while _inflight(lake.base) == started:  # the first writer's instant is inflight: the two overlap
        assert time.monotonic() < deadline, "the first writer never started its commit"
        time.sleep(0.02)
    second.send_write(lake.path, SCHEMA, [[0, "second", "eu", 6.0]], lake.options())
    outcomes = {}
    for name, writer in (("first", first), ("second", second)):
        try:
            writer.receive()
            outcomes[name] = "committed"
        except WriterError as error:
            outcomes[name] = str(error)
    failed = [text for text in outcomes.values() if text != "committed"]
    assert len(failed) == 1, outcomes
    assert "HoodieWriteConflictException" in failed[0] or "conflict" in failed[0].lower(), failed[0]
    winner = next(name for name, text in outcomes.items() if text == "committed")
    assert lake.rows()[0][0] == winner
    assert len(lake.completed_writes()) == len(before) + 1
    assert lake.locks() == []


def _completions(base: Path) -> dict[str, str]:
    """Requested time -> completion time of the completed writes on storage (Hudi 1.x's file names,
    ``<requested>_<completed>.commit``)."""
    found = {}
    for path in (base / ".hoodie" / "timeline").glob("*_*.*commit"):
        requested, completed = path.name.split(".", 1)[0].split("_", 1)
        found[requested] = completed
    return found


def test_a_commit_that_completes_after_a_later_one_is_followed_at_once(lake):
    """Under optimistic concurrency the write that starts first can complete last: its hive sync then moves
    only ``last_commit_completion_time_sync`` (``last_commit_time_sync`` already names the later-started
    commit). The server follows it at once: its timeline and latest file slices are storage's, no later write
    needed."""
    first, second = lake.writers
    before, started = set(_completions(lake.base)), _inflight(lake.base)
    # the first write adds many rows to its partition, so it is still writing while the second one commits
    first.send_write(lake.path, SCHEMA, [[50, "slow", "eu", 1.0]], lake.options(), more=(200_000, BULK_ROWS))
    deadline = time.monotonic() + READY_SECONDS  # only a ceiling against a hang
    while _inflight(lake.base) == started:
        assert time.monotonic() < deadline, "the first writer never started its commit"
        time.sleep(0.02)
    second.write(lake.path, SCHEMA, [[51, "fast", "us", 1.0]], lake.options())
    first.receive()

    completions = _completions(lake.base)
    slow, fast = sorted(set(completions) - before)  # by requested time: the first writer's, then the second's
    assert completions[slow] > completions[fast], "the earlier-started commit completed last"
    assert lake.followed_writes() == lake.completed_writes()
    catalog = Catalog.open(lake.db_url, warehouse=f"file://{lake.warehouse}")
    try:
        oracle = HudiTableBuilder.from_base_uri(str(lake.base)).build()
        assert our_slices(catalog, TABLE, database=DATABASE) == oracle_slices(oracle)
    finally:
        catalog.close()
    assert {50, 51} <= set(lake.rows())
    assert lake.locks() == []


def _answered(writer: SparkWriter) -> bool:
    """Whether the writer has written an answer that is not read yet."""
    assert writer.process.stdout is not None
    return bool(select.select([writer.process.stdout], [], [], 0)[0])


def test_a_writer_killed_holding_the_lock_is_outlived(lake):
    first, _ = lake.writers
    client = metastore_client(lake.uri)
    acknowledged: list[int] = []
    try:
        with hudi_spark_writer(lake.spark_work / "victim", lake.uri) as victim:
            before = lake.completed_writes()
            # a write holds the lock for a moment; one that finished before it was seen is followed by another
            for key in (30, 32, 34):
                victim.send_write(lake.path, SCHEMA, [[key, "victim", "asia", 1.0]], lake.options())
                deadline = time.monotonic() + READY_SECONDS  # only a ceiling against a hang
                while not (held := client.show_locks(hive.ShowLocksRequest()).locks) and not _answered(victim):
                    assert time.monotonic() < deadline, "the writer neither took the lock nor finished"
                    time.sleep(0.002)
                if held:
                    break
                victim.receive()
                acknowledged.append(key)
            assert held, "no write of the victim was seen holding the lock"
            victim.process.send_signal(signal.SIGKILL)
            victim.process.wait(30)
        killed = key
        held = client.show_locks(hive.ShowLocksRequest()).locks
    finally:
        client.close()
    assert [(lock.dbname, lock.tablename, lock.state) for lock in held] == [
        (DATABASE, TABLE, hive.LockState.ACQUIRED)
    ], "the killed writer's lock stays until it expires"

    started = time.monotonic()
    first.write(lake.path, SCHEMA, [[31, "after", "asia", 1.0]], lake.options())
    log.info("the next writer committed %.1f s after the kill", time.monotonic() - started)
    rows = lake.rows()
    assert 31 in rows and killed not in rows and set(acknowledged) <= set(rows)
    assert len(lake.completed_writes()) == len(before) + 1 + len(acknowledged)
    assert lake.followed_writes() == lake.completed_writes()
    assert lake.locks() == []
