"""Following a Hudi table's storage: what makes the server look, what it reads, and the background
reconciliation (``hudi_catalog/services/hive_sync_follow.py``), on a real Hudi 1.0 table.

Under optimistic concurrency a commit requested first can complete last: the table then holds a pending
instant ``t1`` and a completed ``t2 > t1``, and ``t1``'s later completion changes no ``last_commit_time_sync``.
The tests make that state from the real table by holding ``t1``'s completed file back, and then complete it.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.conftest import require_module

require_module("hudi")

from hudi import HudiTableBuilder  # noqa: E402

from hms_adapter.catalog_access import hive_wire  # noqa: E402
from hudi_catalog import Catalog  # noqa: E402
from hudi_catalog.catalog import TimelineReconciler  # noqa: E402
from hudi_catalog.iceberg_views import ViewSettings  # noqa: E402
from hudi_catalog.model import InstantState  # noqa: E402
from hudi_catalog.observability import CatalogObserver  # noqa: E402
from hudi_catalog.services.hudi_import import HudiImporter  # noqa: E402
from tests.conftest import RunningServer  # noqa: E402
from tests.hudi.tables import unpack  # noqa: E402
from tests.support.hudi_oracles import oracle_slices, our_slices  # noqa: E402
from tests.support.servers import READY_SECONDS  # noqa: E402

TABLE = "sample_table_cow_v8_complexkeygen_hivestyle"
LAST_COMPLETION_SYNC = "last_commit_completion_time_sync"


class _HeldBack:
    """A table whose first commit is still inflight on storage: its completed file is held back."""

    def __init__(self, base: Path) -> None:
        self.base = base
        timeline = base / ".hoodie" / "timeline"
        first, self.later = sorted(timeline.glob("*_*.commit"))
        self.first = first
        self.held = base / first.name
        first.rename(self.held)

    @property
    def first_time(self) -> str:
        return self.first.name.split("_", 1)[0]

    def complete(self) -> None:
        """The slow writer's commit completes, after the later one."""
        self.held.rename(self.first)


def _completed(catalog: Catalog) -> list[str]:
    return [i.requested_time for i in catalog.timeline.instants("h", "t", states=[InstantState.COMPLETED])]


def _oracle_completed(base: Path) -> list[str]:
    return sorted(
        i.timestamp for i in HudiTableBuilder.from_base_uri(str(base)).build().get_timeline().get_completed_commits()
    )


def _pending_first(catalog: Catalog, tmp_path: Path) -> _HeldBack:
    held = _HeldBack(unpack(TABLE, tmp_path))
    HudiImporter(catalog).run(str(held.base), database="h", table="t")
    assert held.first_time not in _completed(catalog)  # recorded as pending
    return held


def test_a_commit_completing_after_a_later_one_is_followed_on_the_next_alter(catalog, client, tmp_path, caplog):
    """The writer's sync moves only ``last_commit_completion_time_sync``: any alter of the table makes the
    server look again, and it reads only what changed."""
    held = _pending_first(catalog, tmp_path)
    synced = client.get_table("h", "t")
    held.complete()
    synced.parameters[LAST_COMPLETION_SYNC] = "20991231000000000"  # last_commit_time_sync stays as it was
    client.alter_table("h", "t", synced)

    assert _completed(catalog) == _oracle_completed(held.base)
    assert our_slices(catalog, "t") == oracle_slices(HudiTableBuilder.from_base_uri(str(held.base)).build())

    # nothing changed on storage since: an alter reads no instant file (an unreadable old one goes unnoticed,
    # where reading the whole timeline again would fail on it)
    held.later.write_bytes(b"not json")
    client.alter_table("h", "t", client.get_table("h", "t"))
    assert "could not be read" not in caplog.text


def test_a_schema_alter_alone_makes_the_server_look(catalog, client, tmp_path):
    """Spark SQL's ``ALTER TABLE ... ADD COLUMNS`` completes a commit, then alters the columns only."""
    held = _pending_first(catalog, tmp_path)
    held.complete()
    table = client.get_table("h", "t")
    table.sd.cols.append(type(table.sd.cols[0])(name="note", type="string", comment=None))
    client.alter_table("h", "t", table)
    assert _completed(catalog) == _oracle_completed(held.base)


def test_the_background_reconciliation_catches_up_writers_that_do_not_sync(catalog, tmp_path):
    held = _pending_first(catalog, tmp_path)
    held.complete()  # and no alter: the writer's hive sync is off
    reports: list[tuple] = []

    def report(*seen) -> None:
        reports.append(seen)

    assert catalog.hive_sync.reconcile(0, report) == 1
    assert reports == [("hive", "h", "t", 1)]
    assert _completed(catalog) == _oracle_completed(held.base)
    assert catalog.hive_sync.reconcile(3600, report) == 0  # each table at most once an interval
    assert catalog.hive_sync.reconcile(0, report) == 1
    assert reports[-1] == ("hive", "h", "t", 0)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_followed_commit_makes_and_then_updates_the_iceberg_view(db_url, warehouse, tmp_path):
    """Under ``serve --iceberg-views`` a table hive sync registers gets its view when the follow records its
    commits, and the view takes the commits later follows record (the view names the last one it took)."""
    catalog = Catalog.open(db_url, str(warehouse), iceberg_views=ViewSettings(all_tables=True), **hive_wire())
    server = RunningServer(catalog)
    client = server.client()
    try:
        held = _HeldBack(unpack(TABLE, tmp_path))
        HudiImporter(catalog).run(str(held.base), database="h", table="t")
        assert "hudi.iceberg.view" not in client.get_table("h", "t").parameters  # the import made none
        held.complete()
        client.alter_table("h", "t", client.get_table("h", "t"))  # the writer's sync
        view = client.get_table("h", "t_iceberg")
        assert view.parameters["hudi.iceberg.applied"] == max(_oracle_completed(held.base))
    finally:
        client.close()
        server.stop()
        catalog.close()


class _Recorder(CatalogObserver):
    def __init__(self) -> None:
        self.reconciled: list[tuple] = []
        self.seen = threading.Event()

    def timeline_reconciled(self, catalog: str, database: str, table: str, behind: int) -> None:
        self.reconciled.append((catalog, database, table, behind))
        self.seen.set()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_the_reconciler_runs_on_its_own_and_reports_each_table(db_url, warehouse, tmp_path):
    recorder = _Recorder()
    catalog = Catalog.open(db_url, str(warehouse), observer=recorder)
    reconciler = TimelineReconciler(catalog, interval_seconds=0.2)
    try:
        held = _pending_first(catalog, tmp_path)
        held.complete()
        reconciler.start()
        deadline = time.monotonic() + READY_SECONDS  # only a ceiling: the loop ends once it caught up
        while _completed(catalog) != _oracle_completed(held.base):
            assert time.monotonic() < deadline, "the reconciler never caught up"
            time.sleep(0.05)
        assert recorder.seen.wait(READY_SECONDS)
        assert recorder.reconciled[0] == ("hive", "h", "t", 1)
    finally:
        reconciler.stop()
        catalog.close()
