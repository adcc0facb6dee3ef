"""Following Hudi's writers: every alter of a Hudi table brings the table's new instants into the catalog.

A Hudi writer with hive sync (``HiveSyncTool``, ``hoodie.datasource.hive_sync.mode=hms``) writes its instants
to storage, then registers the table and its partitions through Thrift and ends each sync with an
``alter_table`` that records the latest commit it synced (``last_commit_time_sync``, and in Hudi 1.x
``last_commit_completion_time_sync``). Neither value tells the whole story: under optimistic concurrency a
commit requested earlier can complete later (only the completion time moves), and Spark SQL's ``ALTER TABLE
... ADD COLUMNS`` completes a schema commit and then alters the table's columns with no sync parameter at
all. So any alter of a Hudi table that holds a timeline (not its merge-on-read views ``<t>_ro``/``<t>_rt``,
nor an import's own alters) makes the server look at the table's ``.hoodie`` folder: an incremental follow
(``HudiImporter.follow``) that lists the active timeline and reads only the instants the catalog lacks or
holds in an earlier state, which also re-checks the pending instants it knows of until they complete. A
follow that recorded instants brings the table's Iceberg view up to date (or makes it, under ``serve
--iceberg-views``), as a commit through the server does.

Writers that never call the metastore after a commit (hive sync off, or a sync that failed) are caught up by
the background reconciliation, when ``serve --follow-interval`` turns it on (``reconcile``): one table at a
time, each at most once an interval, skipping those an alter followed within it.

The alter commits first, in its own transaction. The follow runs on the follower's threads, one at a time per
table (alters that arrive meanwhile are folded into one more follow), and the altering call waits for it at
most ``wait_seconds``: a writer's sync normally returns with the timeline and the snapshot agreeing with
storage, and a slow or failing read never holds the alter up longer. A table whose ``.hoodie`` cannot be
read (storage the server cannot reach, a corrupt instant) keeps what hive sync wrote: the failure is logged,
and the alter succeeds.
"""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from ..catalog_scope import catalog_scope, current_catalog
from ..model import Table
from ..store import tables as table_store
from .hudi_import import IMPORTING, HudiImporter

log = logging.getLogger(__name__)

HUDI_INPUT_FORMAT_PREFIX = "org.apache.hudi."
MERGE_ON_READ_VIEW_SUFFIXES = ("_ro", "_rt")
FOLLOW_WAIT_SECONDS = 30.0
"""How long an alter waits for the follow it started before it answers (the follow goes on)."""
FOLLOW_THREADS = 2
TableKey = tuple[str, str, str]
"""A followed table: its catalog, database and name."""


class HiveSyncFollower:
    """Brings a Hudi table's new instants into the catalog after each alter of the table."""

    def __init__(self, catalog, wait_seconds: float = FOLLOW_WAIT_SECONDS) -> None:
        """``catalog``: the ``Catalog`` whose tables are followed (the importer writes through it)."""
        self.catalog = catalog
        self.wait_seconds = wait_seconds
        self._pool: ThreadPoolExecutor | None = None
        self._guard = threading.Lock()
        # keyed on (catalog, database, name)
        self._queued: dict[TableKey, Future] = {}
        self._table_locks: dict[TableKey, threading.Lock] = {}
        self._followed_at: dict[TableKey, float] = {}
        """When each table was last followed, on the monotonic clock."""

    def table_altered(self, old_parameters: Mapping[str, str], table: Table) -> None:
        """Called after an alter of ``table`` committed; ``old_parameters`` are its parameters before."""
        if IMPORTING.get() or not table.sd.location or not _holds_timeline(table):
            return
        future = self._follow_soon((current_catalog(), table.database, table.name), table.sd.location)
        try:
            future.result(timeout=self.wait_seconds)
        except CancelledError:  # the server is stopping
            return
        except FutureTimeout:
            log.warning(
                "the follow of %s.%s after its alter takes over %.0f s: the alter answers, the follow goes on",
                table.database,
                table.name,
                self.wait_seconds,
            )

    def _follow_soon(self, key: TableKey, location: str) -> Future:
        """A follow of the table that starts after every alter seen so far: the one queued already, or a new
        one. It runs in the caller's context (the catalog the call names)."""
        with self._guard:
            queued = self._queued.get(key)
            if queued is not None:
                return queued
            if self._pool is None:
                self._pool = ThreadPoolExecutor(FOLLOW_THREADS, thread_name_prefix="hudi-follow")
            context = contextvars.copy_context()
            future = self._pool.submit(context.run, self._follow, key, location)
            self._queued[key] = future
            return future

    def _follow(self, key: TableKey, location: str) -> None:
        with self._guard:
            self._queued.pop(key, None)  # started: a later alter queues another follow
        self._follow_now(key, location)

    def _follow_now(self, key: TableKey, location: str) -> int | None:
        """Follow the table now, one follow of it at a time, in the catalog the current context names (its
        key's); the instants recorded (None: its storage could not be read, which is logged)."""
        _, database, name = key
        with self._guard:
            table_lock = self._table_locks.setdefault(key, threading.Lock())
        with table_lock:
            try:
                result = HudiImporter(self.catalog).follow(location, database, name)
            except Exception as error:  # noqa: BLE001 - an alter must not fail for the follow
                log.warning(
                    "%s.%s keeps the timeline the catalog has: its timeline at %s could not be read: %s",
                    database,
                    name,
                    location,
                    error,
                )
                return None
            finally:
                with self._guard:
                    self._followed_at[key] = time.monotonic()
        if result.recorded:
            log.info(
                "followed %s.%s: %d instants recorded, latest commit %s",
                database,
                name,
                result.recorded,
                result.latest_commit,
            )
            self.catalog.iceberg_views.instants_followed(database, name)
        return result.recorded

    def reconcile(self, interval_seconds: float, report: Callable[[str, str, str, int], None]) -> int:
        """One pass of the background reconciliation: follow each Hudi table holding a timeline that was not
        followed within ``interval_seconds``, one at a time, and ``report(catalog, database, table, behind)``
        how many instants the catalog lacked. Returns how many tables were looked at."""
        with self.catalog.store.read() as conn:
            tables = table_store.with_timeline(conn)
        looked = 0
        for catalog_name, database, name, location in tables:
            if not location or name.endswith(MERGE_ON_READ_VIEW_SUFFIXES):
                continue
            key = (catalog_name, database, name)
            with self._guard:
                last = self._followed_at.get(key)
            if last is not None and time.monotonic() - last < interval_seconds:
                continue
            with catalog_scope(catalog_name):
                behind = self._follow_now(key, location)
            looked += 1
            if behind is not None:
                report(catalog_name, database, name, behind)
        return looked

    def close(self) -> None:
        """Stop taking follows; those running finish."""
        with self._guard:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


def _holds_timeline(table: Table) -> bool:
    """A Hudi table (registered by hive sync or an import) that is not a merge-on-read view (``_ro``,
    ``_rt``)."""
    input_format = table.sd.input_format or ""
    return input_format.startswith(HUDI_INPUT_FORMAT_PREFIX) and not table.name.endswith(MERGE_ON_READ_VIEW_SUFFIXES)
