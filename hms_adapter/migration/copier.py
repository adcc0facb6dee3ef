"""``hudi-metastore copy``: everything one Hive Metastore holds, written into another through Thrift.

A run reads the source and the target and writes only what differs, so the same command is the first
copy, the catch-up before a switch, and the finish of a run that was stopped:

1. catalogs (Hive 3 and later), then per database: the database, its tables (in batches of names), each
   table's partitions (new ones added, changed ones altered, ones gone from the source dropped from the
   target without touching their files), its column statistics, and the grants on it;
2. constraints, once every table exists (a foreign key names another table);
3. functions, roles, role grants and global privileges;
4. the target's notification event ids continue after the source's (this server only).

A new table is created with the marker ``hudi_metastore.copy.incomplete`` among its parameters; the last
write of the table is an ``alter_table`` to the source's exact definition, which removes it. A table
killed half-way keeps its marker, and the next run completes it. On this server that alter also makes a
Hudi table's timeline and file snapshot be read from storage (``hive_sync_follow``), as a Hudi writer's
sync does. Nothing reads, moves or deletes a data file: locations are kept exactly and partitions are
dropped with ``deleteData=false``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from thriftpy2.thrift import TApplicationException

from ..idl import hive
from .constraints import copy_constraints
from .endpoint import DEFAULT_CATALOG, KEEP_STATS, Endpoint, EndpointDown, TableRef, qualified
from .forms import COPY_MARKER, same
from .grants import GrantCopier
from .partitions import PartitionCopier
from .progress import CopyProgress
from .report import Action, Report
from .selection import chunks, is_hudi, matches, refusal, table_wanted

log = logging.getLogger(__name__)

TABLE_BATCH = 100
"""Tables read with one ``get_table_objects_by_name_req``."""
MERGE_ON_READ_VIEWS = ("_ro", "_rt")
THRIFT_ERRORS = (
    hive.MetaException,
    hive.InvalidObjectException,
    hive.AlreadyExistsException,
    hive.NoSuchObjectException,
    hive.InvalidOperationException,
    hive.InvalidInputException,
    TApplicationException,
)
"""What a metastore answers when it refuses one object; the run goes on with the next."""


@dataclass
class CopyOptions:
    databases: Sequence[str] = ("*",)
    """Database names to copy (shell patterns, ``*`` and ``?``)."""
    tables: Sequence[str] = ("*",)
    """Table names, or ``database.table`` names, to copy (shell patterns)."""
    dry_run: bool = False
    drop_missing: bool = False
    """Drop from the target the tables of copied databases that the source no longer has (files kept)."""
    batch_size: int = 1000
    """Partitions read, added or altered per call."""
    grants: bool = True
    continue_events: bool = True
    parallel: int = 4
    """Tables copied at once, each thread on its own connections to both sides."""


@dataclass
class _Plan:
    """The objects a run copied, for the passes after the tables."""

    databases: list[tuple[str, str]] = field(default_factory=list)
    """(catalog, database)"""
    tables: list[TableRef] = field(default_factory=list)


class _Worker:
    """What one thread copies tables with: its own connections to both sides."""

    def __init__(self, source: Endpoint, target: Endpoint, copier: Copier) -> None:
        self.source, self.target = source, target
        options = copier.options
        self.partitions = PartitionCopier(source, target, copier.report, options.batch_size, copier.progress)
        self.grants = GrantCopier(source, target, copier.report, options.dry_run)

    def reconnect(self) -> None:
        """Open both connections again; ``EndpointDown`` when a side cannot be reached (the run stops)."""
        self.source.open()
        self.target.open()

    def close(self) -> None:
        self.source.close()
        self.target.close()


class Copier:
    """Copies ``source`` into ``target`` as ``options`` say; ``run`` answers what it did."""

    def __init__(self, source: Endpoint, target: Endpoint, options: CopyOptions, progress: CopyProgress) -> None:
        self.source, self.target, self.options, self.progress = source, target, options, progress
        self.report = Report(dry_run=options.dry_run)
        self.main = _Worker(source, target, self)
        self.grants = self.main.grants
        self.plan = _Plan()
        self._pool: ThreadPoolExecutor | None = None
        self._local = threading.local()
        self._workers: list[_Worker] = []
        self._workers_guard = threading.Lock()

    def run(self) -> Report:
        if self.options.parallel > 1:
            self._pool = ThreadPoolExecutor(self.options.parallel, thread_name_prefix="copy")
        try:
            self.source.open()
            self.target.open()
            source_event = self._source_event_id()
            if self.target.is_hudi_metastore and not self.options.dry_run:
                try:
                    self.target.on_connect(lambda client: client.hudi_record_events(False))
                except THRIFT_ERRORS as error:
                    self.report.stopped = (
                        f"the target refused to write without notification events ({_message(error)}): copy as "
                        "one of its admins (serve --admin)"
                    )
                    return self.report
            if self.options.grants:
                self.grants.copy_roles()
            for catalog in self.source.catalogs():
                self._copy_catalog(catalog)
            self._copy_constraints()
            if self.options.grants:
                self.grants.copy_global()
            self._copy_functions()
            self._continue_events(source_event)
        except EndpointDown as error:
            self.report.stopped = str(error)
        finally:
            if self._pool is not None:
                self._pool.shutdown(wait=True, cancel_futures=True)
            self.progress.close()
            for worker in [self.main, *self._workers]:
                worker.close()
        return self.report

    def _worker(self) -> _Worker:
        """The calling thread's worker: the main one, or one with connections of its own."""
        if threading.current_thread() is threading.main_thread() or self._pool is None:
            return self.main
        worker = getattr(self._local, "worker", None)
        if worker is None:
            worker = self._local.worker = _Worker(self.source.clone(), self.target.clone(), self)
            with self._workers_guard:
                self._workers.append(worker)
        return worker

    # -- catalogs and databases ------------------------------------------------------------------------

    def _copy_catalog(self, catalog: str) -> None:
        if catalog != DEFAULT_CATALOG:
            if not self.target.has_catalogs:
                self.report.add("catalog", catalog, Action.REFUSED, "the target keeps no catalogs (Hive 2)")
                return
            if not self._ensure_catalog(catalog):
                return
        names = self.source.databases(catalog)
        for database in sorted(n for n in names if matches(n, self.options.databases)):
            self._guarded("database", _display(catalog, database), lambda d=database: self._copy_database(catalog, d))

    def _ensure_catalog(self, catalog: str) -> bool:
        source = self.source.read("get_catalog", hive.GetCatalogRequest(name=catalog)).catalog
        try:
            self.target.read("get_catalog", hive.GetCatalogRequest(name=catalog))
            self.report.add("catalog", catalog, Action.UNCHANGED)
            return True
        except hive.NoSuchObjectException:
            pass
        if not self.options.dry_run:
            try:
                self.target.write("create_catalog", hive.CreateCatalogRequest(catalog=source))
            except THRIFT_ERRORS as error:
                self.report.add("catalog", catalog, Action.FAILED, _message(error))
                return False
        self.report.add("catalog", catalog, Action.CREATED)
        return True

    def _copy_database(self, catalog: str, name: str) -> None:
        qname = qualified(catalog, name)
        source = self.source.read("get_database", qname)
        if catalog != DEFAULT_CATALOG:
            source.catalogName = catalog
        try:
            target = self.target.read("get_database", qname)
        except hive.NoSuchObjectException:
            target = None
        display = _display(catalog, name)
        if target is None:
            if not self.options.dry_run:
                self.target.write("create_database", source)
            self.report.add("database", display, Action.CREATED)
        elif not same(source, target):
            if not self.options.dry_run:
                self.target.write("alter_database", qname, source)
            self.report.add("database", display, Action.UPDATED)
        else:
            self.report.add("database", display, Action.UNCHANGED)
        self.plan.databases.append((catalog, name))
        if self.options.grants:
            self.grants.copy_database(catalog, name)
        self._copy_tables(catalog, name, exists=target is not None)

    # -- tables ----------------------------------------------------------------------------------------

    def _copy_tables(self, catalog: str, database: str, exists: bool) -> None:
        qname = qualified(catalog, database)
        names = sorted(
            n for n in self.source.read("get_all_tables", qname) if table_wanted(database, n, self.options.tables)
        )
        on_target = set(self.target.read("get_all_tables", qname)) if exists else set()
        self.progress.add_tables(len(names))
        jobs: list[Future] = []
        for batch in chunks(names, TABLE_BATCH):
            sources = {t.tableName: t for t in self.source.tables(catalog, database, batch)}
            present = [n for n in batch if n in on_target]
            targets = {t.tableName: t for t in self.target.tables(catalog, database, present)} if present else {}
            for name in batch:
                table = sources.get(name)  # None: dropped on the source since it was listed
                ref = TableRef(catalog, database, name)
                if self._pool is None:
                    self._table_job(ref, table, targets.get(name))
                else:
                    jobs.append(self._pool.submit(self._table_job, ref, table, targets.get(name)))
        for job in jobs:
            job.result()  # EndpointDown from a thread stops the run
        if self.options.drop_missing:
            for name in sorted(on_target - set(self.source.read("get_all_tables", qname))):
                if table_wanted(database, name, self.options.tables):
                    self._guarded(
                        "table",
                        _display(catalog, database, name),
                        lambda n=name: self._drop_table(qname, catalog, database, n),
                    )

    def _table_job(self, ref: TableRef, source: Any | None, target: Any | None) -> None:
        if source is not None:
            worker = self._worker()
            self._guarded("table", ref.display, lambda: self._copy_table(worker, ref, source, target), worker)
        self.progress.table_done()

    def _copy_table(self, worker: _Worker, ref: TableRef, source: Any, target: Any | None) -> None:
        reason = refusal(source)
        if reason:
            self.report.add("table", ref.display, Action.REFUSED, reason)
            return
        if ref.catalog != DEFAULT_CATALOG:
            source.hive3CatName = ref.catalog
        source.catName = None
        if not worker.target.is_hudi_metastore:
            _lower_column_names(source)
        created = target is None
        if self.options.dry_run:
            changed = created or not same(source, target)
            worker.partitions.plan(ref, source, exists=not created)
            self.report.add(
                "table", ref.display, Action.CREATED if created else Action.UPDATED if changed else Action.UNCHANGED
            )
            return
        if created:
            marked = _with_marker(source)
            worker.target.write("create_table_with_environment_context", marked, KEEP_STATS)
        incomplete = created or COPY_MARKER in ((target.parameters or {}) if target else {})
        changed_partitions = worker.partitions.copy(ref, source, fresh=created)
        failed = worker.partitions.failed
        if failed:
            self.report.add(
                "table", ref.display, Action.FAILED, f"{failed} partitions not copied: it keeps {COPY_MARKER}"
            )
            return
        changed = incomplete or changed_partitions or not same(source, target)
        if changed:
            # the source's exact definition: removes the marker; on this server, follows a Hudi table's timeline
            worker.target.write(
                "alter_table_with_environment_context",
                qualified(ref.catalog, ref.database),
                ref.name,
                source,
                KEEP_STATS,
            )
        if self.options.grants:
            worker.grants.copy_table(ref)
        self.plan.tables.append(ref)
        detail = ""
        if changed and is_hudi(source) and not source.tableName.endswith(MERGE_ON_READ_VIEWS):
            detail = "a Hudi table"
            if worker.target.is_hudi_metastore:
                detail += ": its timeline and file snapshot were read from storage"
                self.report.hudi_table_followed()
        self.report.add(
            "table", ref.display, Action.CREATED if created else Action.UPDATED if changed else Action.UNCHANGED, detail
        )

    def _drop_table(self, qname: str, catalog: str, database: str, name: str) -> None:
        if not self.options.dry_run:
            self.target.write("drop_table", qname, name, False)
        self.report.add(
            "table", _display(catalog, database, name), Action.DROPPED, "gone from the source; its files are kept"
        )

    # -- after the tables --------------------------------------------------------------------------------

    def _copy_constraints(self) -> None:
        for ref in self.plan.tables:
            self._guarded(
                "constraints",
                ref.display,
                lambda r=ref: copy_constraints(self.source, self.target, r, self.report, self.options.dry_run),
            )

    def _copy_functions(self) -> None:
        wanted = {(c, d) for c, d in self.plan.databases}
        functions = self.source.read("get_all_functions").functions or []
        for function in functions:
            if (function.catName or DEFAULT_CATALOG, function.dbName) not in wanted:
                continue
            display = f"{function.dbName}.{function.functionName}"
            self._guarded("function", display, lambda f=function, d=display: self._copy_function(f, d))

    def _copy_function(self, function: Any, display: str) -> None:
        qname = qualified(function.catName or DEFAULT_CATALOG, function.dbName)
        try:
            target = self.target.read("get_function", qname, function.functionName)
        except hive.NoSuchObjectException:
            target = None
        if target is None:
            if not self.options.dry_run:
                self.target.write("create_function", function)
            self.report.add("function", display, Action.CREATED)
        elif not same(function, target):
            if not self.options.dry_run:
                self.target.write("alter_function", qname, function.functionName, function)
            self.report.add("function", display, Action.UPDATED)
        else:
            self.report.add("function", display, Action.UNCHANGED)

    def _source_event_id(self) -> int | None:
        try:
            return self.source.read("get_current_notificationEventId").eventId
        except THRIFT_ERRORS as error:
            log.warning("the source's current event id cannot be read: %s", _message(error))
            return None

    def _continue_events(self, source_event: int | None) -> None:
        if not self.options.continue_events or source_event is None:
            return
        if not self.target.is_hudi_metastore:
            self.report.notes.append(
                f"the target's notification event ids go on from its own (an Apache Hive Metastore cannot be told "
                f"where they continue); the source's are at {source_event}"
            )
            return
        if self.options.dry_run:
            self.report.add("events", "notification ids", Action.UPDATED, f"would continue after {source_event}")
            return
        newest = self.target.write("hudi_continue_events_after", source_event).eventId
        self.report.add(
            "events", "notification ids", Action.UPDATED, f"continue after {newest} (the source's: {source_event})"
        )

    # -- one object at a time ----------------------------------------------------------------------------

    def _guarded(self, kind: str, name: str, copy, worker: _Worker | None = None) -> None:
        """Copy one object; a refusal by either metastore is that object's failure and the run goes on. After
        a broken connection both are opened again; one that cannot be made stops the run."""
        try:
            copy()
        except THRIFT_ERRORS as error:
            self.report.add(kind, name, Action.FAILED, _message(error))
        except EndpointDown as error:
            self.report.add(kind, name, Action.FAILED, str(error))
            (worker or self.main).reconnect()


def _lower_column_names(table: Any) -> None:
    """Apache Hive Metastore keeps column names in lower case (this server as they are given): the names it
    will store, so that the alter after the create keeps the partition keys it has."""
    for column in [*(table.partitionKeys or []), *((table.sd.cols if table.sd else None) or [])]:
        column.name = column.name.lower() if column.name else column.name


def _with_marker(table: Any) -> Any:
    marked = hive.Table(**vars(table))
    marked.parameters = {**(table.parameters or {}), COPY_MARKER: "true"}
    return marked


def _display(catalog: str, database: str, table: str | None = None) -> str:
    name = database if catalog == DEFAULT_CATALOG else f"{catalog}.{database}"
    return f"{name}.{table}" if table else name


def _message(error: BaseException) -> str:
    message = getattr(error, "message", None) or str(error)
    return f"{type(error).__name__}: {message}"
