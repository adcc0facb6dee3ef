"""The catalog: one object that front ends talk to.

``Catalog`` opens the store, makes sure its schema and the ``default`` database exist, and exposes one
service per entity. Every change a service method makes is one database transaction.

Example:
    >>> import tempfile
    >>> home = tempfile.mkdtemp()
    >>> catalog = Catalog.open(f"sqlite:///{home}/catalog.db", warehouse=f"{home}/warehouse")
    >>> catalog.databases.names()
    ['default']
    >>> catalog.close()
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from . import config
from .authorization import AccessPolicy
from .delegation_tokens import TokenLifetimes
from .events import EventFormat
from .iceberg_views import ViewSettings
from .import_progress import ImportProgress, ImportResult
from .observability import IGNORED, CatalogObserver
from .pruning.hive4_like import LikeRule
from .pruning.parse import FilterLimits
from .read_cache import DEFAULT_MAX_BYTES as DEFAULT_CACHE_BYTES
from .read_cache import CacheMemory
from .retries import RetryPolicy, run_retrying
from .schema_layout import SchemaStatus
from .services.authorization import AuthorizationService
from .services.catalogs import CatalogService
from .services.column_stats import ColumnStatsService
from .services.constraints import ConstraintService
from .services.context import ServiceContext
from .services.databases import DatabaseService
from .services.delegation_tokens import DelegationTokenService
from .services.event_log import EventLog
from .services.events import EventService
from .services.functions import FunctionService
from .services.hive_sync_follow import HiveSyncFollower
from .services.hudi_import import BATCH_FILES, BATCH_INSTANTS, HudiImporter
from .services.iceberg_views import IcebergViewService
from .services.locks import LockService
from .services.partitions import Encode, PartitionService
from .services.schema import SchemaService, empty_database_status, upgrade_sql
from .services.snapshot import SnapshotService
from .services.tables import TableService
from .services.timeline import TimelineService
from .services.transactions import TxnService
from .store import driver_sql
from .store import locations as location_store
from .store.engine import Store
from .store.schema import SCHEMA_VERSION
from .warehouse import Warehouse

if TYPE_CHECKING:
    from .services.iceberg_tables import IcebergTableService

log = logging.getLogger(__name__)

SNAPSHOT_SYNC_MODES = ("inline", "async")
T = TypeVar("T")


class Catalog:
    """Catalogs, databases, tables (and their constraints and column statistics), partitions, functions, Hudi
    timelines, notification events, Hive's locks and transactions, delegation tokens, roles and privileges
    over one store and one warehouse.
    Database names are resolved in the catalog in scope (``catalog_scope``; ``hive`` by default)."""

    def __init__(
        self,
        store: Store,
        warehouse: Warehouse,
        snapshot_sync: str = "inline",
        txn_timeout: float = config.TXN_TIMEOUT_SECONDS_DEFAULT,
        event_format: EventFormat | None = None,
        event_ttl: float = config.EVENT_TTL_SECONDS_DEFAULT,
        token_lifetimes: TokenLifetimes | None = None,
        access_policy: AccessPolicy | None = None,
        filter_limits: FilterLimits | None = None,
        retry_policy: RetryPolicy | None = None,
        iceberg_views: ViewSettings | None = None,
        cache_max_bytes: int = DEFAULT_CACHE_BYTES,
        max_batch_partitions: int = config.MAX_BATCH_PARTITIONS_DEFAULT,
        partition_encoding: Encode | None = None,
        filter_like: LikeRule = LikeRule.AUTO,
    ) -> None:
        """``store`` reports to its observer (``CatalogObserver``), which also hears of logged events.
        ``snapshot_sync``: ``inline`` applies a completed instant to the file snapshot in the completing
        transaction; ``async`` leaves it to ``snapshot.sync_pending`` (see ``SnapshotSyncer``).
        ``txn_timeout``: seconds after which a lock or transaction that was not heartbeated expires.
        ``event_format``: how change events are written (the catalog's own ``NamesFormat`` when None);
        ``event_ttl``: seconds after which ``events.remove_expired`` removes them.
        ``token_lifetimes``: delegation tokens' renewal and lifetime limits (Hive's defaults when None).
        ``access_policy``: how calls are authorized (nothing checked when None).
        ``filter_limits``: how large a partition filter may be (``FilterLimits``' defaults when None).
        ``retry_policy``: how long ``call`` tries a call again through transient database errors.
        ``iceberg_views``: which Hudi tables get Iceberg views and where their metadata goes (only tables
        given one keep one when None).
        ``cache_max_bytes``: the bytes the read caches of the catalog and its front ends hold together.
        ``max_batch_partitions``: partitions one call may add, alter, drop or fetch by name.
        ``partition_encoding``: a front end's wire encoding of a partition, stored with every partition as
        it is created (its first read then needs none); partitions are encoded by their first read when None.
        ``filter_like``: how partition filters' ``LIKE`` patterns are read (``LikeRule``)."""
        if txn_timeout <= 0:
            raise ValueError("txn_timeout must be positive")
        if snapshot_sync not in SNAPSHOT_SYNC_MODES:
            raise ValueError(f"snapshot_sync must be one of {SNAPSHOT_SYNC_MODES}")
        self.store = store
        self.warehouse = warehouse
        self.ctx = ctx = ServiceContext(
            store,
            warehouse,
            events=EventLog(event_format, store.observer),
            filter_limits=filter_limits or FilterLimits(),
            cache_memory=CacheMemory(cache_max_bytes),
            max_batch_partitions=max_batch_partitions,
            partition_encoding=partition_encoding,
            filter_like=filter_like,
        )
        self.cache_memory = ctx.cache_memory
        self.catalogs = CatalogService(ctx)
        self.databases = DatabaseService(ctx)
        self.hive_sync = HiveSyncFollower(self)
        self.tables = TableService(ctx, after_alter=self.hive_sync.table_altered)
        self.constraints = ConstraintService(ctx)
        self.column_stats = ColumnStatsService(ctx)
        self.partitions = PartitionService(ctx)
        self.functions = FunctionService(ctx)
        self.snapshot = SnapshotService(ctx, asynchronous=snapshot_sync == "async")
        self.iceberg_views = IcebergViewService(ctx, self.tables, iceberg_views)
        self.timeline = TimelineService(
            ctx, on_complete=self.snapshot, after_complete=self.iceberg_views.instant_completed
        )
        self.txns = TxnService(ctx, txn_timeout)
        self.locks = LockService(ctx, self.txns)
        self.events = EventService(ctx, event_ttl)
        self.delegation_tokens = DelegationTokenService(ctx, token_lifetimes)
        self.authorization = AuthorizationService(ctx, access_policy)
        self.schema = SchemaService(store)
        self.retry_policy = retry_policy or RetryPolicy()

    @functools.cached_property
    def iceberg_tables(self) -> IcebergTableService:
        """The Iceberg tables of the Iceberg REST catalog (needs the ``rest`` extra: pyiceberg)."""
        from .services.iceberg_tables import IcebergTableService

        return IcebergTableService(self.ctx, self.tables, self.databases, self.locks)

    @classmethod
    def open(
        cls,
        db_url: str,
        warehouse: str,
        init: bool = True,
        snapshot_sync: str = "inline",
        txn_timeout: float = config.TXN_TIMEOUT_SECONDS_DEFAULT,
        event_format: EventFormat | None = None,
        event_ttl: float = config.EVENT_TTL_SECONDS_DEFAULT,
        token_lifetimes: TokenLifetimes | None = None,
        access_policy: AccessPolicy | None = None,
        filter_limits: FilterLimits | None = None,
        retry_policy: RetryPolicy | None = None,
        data_roots: Sequence[str] = (),
        upgrade_schema: bool = False,
        observer: CatalogObserver = IGNORED,
        iceberg_views: ViewSettings | None = None,
        cache_max_bytes: int = DEFAULT_CACHE_BYTES,
        max_batch_partitions: int = config.MAX_BATCH_PARTITIONS_DEFAULT,
        partition_encoding: Encode | None = None,
        filter_like: LikeRule = LikeRule.AUTO,
    ) -> Catalog:
        """Connect to the store at ``db_url``; with ``init``, create its schema when the database is empty
        (and migrate an older one with ``upgrade_schema``) first.
        ``data_roots``: where data may be deleted besides the warehouse root (``Warehouse``).
        ``observer``: receives what the catalog reports of its work (``observability``), for metrics.
        ``iceberg_views``, ``cache_max_bytes``, ``max_batch_partitions``, ``partition_encoding``,
        ``filter_like``: as for the constructor.

        Raises:
            SchemaVersionError: with ``init``, the database's layout is newer than this build's, or older
                and ``upgrade_schema`` is off (``hudi-metastore schema upgrade`` migrates it).
        """
        catalog = cls(
            Store(db_url, observer),
            Warehouse(warehouse, data_roots),
            snapshot_sync,
            txn_timeout,
            event_format,
            event_ttl,
            token_lifetimes,
            access_policy,
            filter_limits,
            retry_policy,
            iceberg_views,
            cache_max_bytes,
            max_batch_partitions,
            partition_encoding,
            filter_like,
        )
        if init:
            try:
                catalog.init(upgrade=upgrade_schema)
            except Exception:  # closed before the error goes up
                catalog.close()
                raise
        return catalog

    @staticmethod
    def schema_at(db_url: str) -> SchemaService:
        """The schema layout of the database at ``db_url``, with no catalog opened over it (an empty, older or
        newer database, which ``open`` refuses): its status, its upgrade and the upgrade's script, as
        ``catalog.schema`` gives them for an open catalog (``hudi-metastore schema``). ``close`` it when done."""
        return SchemaService.connect(db_url)

    @staticmethod
    def empty_schema_status() -> SchemaStatus:
        """The schema status of a database that holds no catalog schema, known without connecting to one
        (connecting to a SQLite file that does not exist would create it)."""
        return empty_database_status()

    @staticmethod
    def schema_sql(dialect: str, from_version: int | None) -> str:
        """The upgrade's SQL script for a database of ``dialect`` (one of ``schema_layout.DIALECTS``) at layout
        ``from_version`` (None or 0: empty), rendered without a database.

        Raises:
            SchemaVersionError: ``from_version`` is newer than this build's layout or older than the oldest.
            NoSqlFormError: a pending migration computes values in Python.
        """
        return upgrade_sql(dialect, from_version)

    def init(self, upgrade: bool = False) -> int:
        """Create the schema (on an empty database; with ``upgrade``, migrate an older layout) and the
        default catalog and database (idempotent); returns the schema version."""
        self.store.init_schema(upgrade)
        self.catalogs.ensure_default()
        self.databases.ensure_default()
        return SCHEMA_VERSION

    def call(self, action: Callable[[], T], name: str = "call") -> T:
        """``action`` (one front-end call of any number of service methods), tried again through transient
        database errors as long as none of its changes committed (``retries.run_retrying``)."""
        return run_retrying(action, self.retry_policy, name)

    def import_table(
        self, path: str, database: str | None = None, table: str | None = None, progress: ImportProgress | None = None
    ) -> ImportResult:
        """Register the Hudi table at ``path`` (its base path, local or a URI), or bring it up to date: its
        timeline read and decoded in this process, then written (``services.hudi_import``; the Spark import
        is ``hudi_catalog.spark.importer``). ``database`` and ``table`` default to the table's
        ``hoodie.database.name`` (else ``default``) and ``hoodie.table.name``; ``progress`` hears the counts.

        Raises:
            HudiMetadataError: ``path`` is not a Hudi table, or an instant cannot be decoded (nothing written).
            StorageError: the file system failed.
        """
        return self.importer(progress).run(path, database, table)

    def importer(
        self,
        progress: ImportProgress | None = None,
        batch_instants: int = BATCH_INSTANTS,
        batch_files: int = BATCH_FILES,
    ) -> HudiImporter:
        """The import's writing half, for an import that reads and decodes the timeline itself (the Spark
        import): ``write`` registers the table and writes decoded instants in batches of at most
        ``batch_instants`` instants or ``batch_files`` files, each one transaction."""
        return HudiImporter(self, batch_instants, batch_files, progress)

    def compile_statements(self) -> None:
        """Compile the statements run on the driver's cursor for this catalog's database now, not on their
        first use: a server does it once as it starts, before it forks its workers, which inherit them."""
        started = time.perf_counter()
        location_store.build_claim_statements(CLAIM_SPELLINGS_AHEAD)
        count = driver_sql.compile_all(self.store.engine.dialect)
        log.debug("compiled %d statements in %.1f ms", count, (time.perf_counter() - started) * 1000)

    def close(self) -> None:
        self.hive_sync.close()
        self.store.dispose()


CLAIM_SPELLINGS_AHEAD = 8
"""The directory checks compiled at start: up to this many spellings of directories in one call (one
directory has one to four)."""


class PeriodicTask:
    """A background thread running ``action`` every ``interval_seconds`` until stopped; a failed run is
    logged and the next one tries again."""

    def __init__(self, name: str, action: Callable[[], object], interval_seconds: float) -> None:
        self.name = name
        self.action = action
        self.interval = interval_seconds
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(30)

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                self.action()
            except Exception:  # logged and retried on the next pass
                log.exception("%s failed; retrying in %.1f s", self.name, self.interval)
            self._stopping.wait(self.interval)


class SnapshotSyncer(PeriodicTask):
    """Applies completed instants to the snapshot (``snapshot_sync="async"``); pending rows stay until then."""

    def __init__(self, catalog: Catalog, interval_seconds: float = 1.0) -> None:
        super().__init__("snapshot-sync", catalog.snapshot.sync_pending, interval_seconds)


class TimelineReconciler(PeriodicTask):
    """Brings Hudi tables whose writers do not call the metastore up to their storage (``serve
    --follow-interval``): a pass every ``interval_seconds``, each table at most once an interval."""

    def __init__(self, catalog: Catalog, interval_seconds: float) -> None:
        def reconcile() -> None:
            catalog.hive_sync.reconcile(interval_seconds, catalog.store.observer.timeline_reconciled)

        super().__init__("timeline-reconciler", reconcile, interval_seconds)


class EventCleaner(PeriodicTask):
    """Removes notification events older than the catalog's event time to live."""

    def __init__(self, catalog: Catalog, interval_seconds: float = config.EVENT_CLEAN_INTERVAL_SECONDS) -> None:
        super().__init__("event-cleaner", catalog.events.remove_expired, interval_seconds)
