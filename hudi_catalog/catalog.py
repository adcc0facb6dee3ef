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

import logging
import threading

from . import config
from .services.column_stats import ColumnStatsService
from .services.constraints import ConstraintService
from .services.context import ServiceContext
from .services.databases import DatabaseService
from .services.functions import FunctionService
from .services.locks import LockService
from .services.partitions import PartitionService
from .services.snapshot import SnapshotService
from .services.tables import TableService
from .services.timeline import TimelineService
from .services.transactions import TxnService
from .store.engine import Store
from .warehouse import Warehouse

log = logging.getLogger(__name__)

SNAPSHOT_SYNC_MODES = ("inline", "async")


class Catalog:
    """Databases, tables (and their constraints and column statistics), partitions, functions, Hudi timelines, and Hive's locks and
    transactions over one store and one warehouse."""

    def __init__(self, store: Store, warehouse: Warehouse, snapshot_sync: str = "inline",
                 txn_timeout: float = config.TXN_TIMEOUT_SECONDS_DEFAULT) -> None:
        """``snapshot_sync``: ``inline`` applies a completed instant to the file snapshot in the completing
        transaction; ``async`` leaves it to ``snapshot.sync_pending`` (see ``SnapshotSyncer``).
        ``txn_timeout``: seconds after which a lock or transaction that was not heartbeated expires."""
        if txn_timeout <= 0:
            raise ValueError("txn_timeout must be positive")
        if snapshot_sync not in SNAPSHOT_SYNC_MODES:
            raise ValueError(f"snapshot_sync must be one of {SNAPSHOT_SYNC_MODES}")
        self.store = store
        self.warehouse = warehouse
        self.ctx = ctx = ServiceContext(store, warehouse)
        self.databases = DatabaseService(ctx)
        self.tables = TableService(ctx)
        self.constraints = ConstraintService(ctx)
        self.column_stats = ColumnStatsService(ctx)
        self.partitions = PartitionService(ctx)
        self.functions = FunctionService(ctx)
        self.snapshot = SnapshotService(ctx, asynchronous=snapshot_sync == "async")
        self.timeline = TimelineService(ctx, on_complete=self.snapshot)
        self.txns = TxnService(ctx, txn_timeout)
        self.locks = LockService(ctx, self.txns)

    @classmethod
    def open(cls, db_url: str, warehouse: str, init: bool = True, snapshot_sync: str = "inline",
             txn_timeout: float = config.TXN_TIMEOUT_SECONDS_DEFAULT) -> "Catalog":
        """Connect to the store at ``db_url``; with ``init``, create or migrate its schema first."""
        catalog = cls(Store(db_url), Warehouse(warehouse), snapshot_sync, txn_timeout)
        if init:
            catalog.init()
        return catalog

    def init(self) -> int:
        """Create or migrate the schema and the default database (idempotent); returns the schema version."""
        version = self.store.init_schema()
        self.databases.ensure_default()
        return version

    def close(self) -> None:
        self.store.dispose()


class SnapshotSyncer:
    """A background thread applying completed instants to the snapshot (``snapshot_sync="async"``)."""

    def __init__(self, catalog: Catalog, interval_seconds: float = 1.0) -> None:
        self.catalog = catalog
        self.interval = interval_seconds
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="snapshot-sync", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(30)

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                self.catalog.snapshot.sync_pending()
            except Exception:  # logged and retried on the next pass: the pending rows stay
                log.exception("snapshot sync failed; retrying in %.1f s", self.interval)
            self._stopping.wait(self.interval)
