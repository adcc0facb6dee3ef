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

from .services.context import ServiceContext
from .services.databases import DatabaseService
from .services.functions import FunctionService
from .services.partitions import PartitionService
from .services.snapshot import SnapshotService
from .services.tables import TableService
from .services.timeline import TimelineService
from .store.engine import Store
from .warehouse import Warehouse

log = logging.getLogger(__name__)


class Catalog:
    """Databases, tables, partitions, functions and Hudi timelines over one store and one warehouse."""

    def __init__(self, store: Store, warehouse: Warehouse) -> None:
        self.store = store
        self.warehouse = warehouse
        self.ctx = ctx = ServiceContext(store, warehouse)
        self.databases = DatabaseService(ctx)
        self.tables = TableService(ctx)
        self.partitions = PartitionService(ctx)
        self.functions = FunctionService(ctx)
        self.snapshot = SnapshotService(ctx)
        self.timeline = TimelineService(ctx, on_complete=self.snapshot)

    @classmethod
    def open(cls, db_url: str, warehouse: str, init: bool = True) -> "Catalog":
        """Connect to the store at ``db_url``; with ``init``, create or migrate its schema first."""
        catalog = cls(Store(db_url), Warehouse(warehouse))
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
