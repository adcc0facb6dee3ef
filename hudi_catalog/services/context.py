"""What every service shares: the store, the warehouse, the clock, the table cache and the event log."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone

from sqlalchemy import Connection

from ..config import MAX_BATCH_PARTITIONS_DEFAULT
from ..model import Database, Partition, Table
from ..pruning.hive4_like import LikeRule
from ..pruning.parse import FilterLimits
from ..read_cache import CacheMemory, RevisionCache
from ..store import tables as table_store
from ..store.engine import Store
from ..store.tables import TableRecord
from ..warehouse import Warehouse
from .event_log import EventLog


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class ServiceContext:
    store: Store
    warehouse: Warehouse
    clock: Callable[[], datetime] = field(default=_utc_now)
    """The current time; instant times and Hive's create and DDL times come from it."""
    cache_memory: CacheMemory = field(default_factory=CacheMemory)
    """The bytes every read cache of the catalog (and of its front ends) holds together."""
    table_cache: RevisionCache[Table] = field(init=False)
    """Table models by ``(tbl_id)`` at their ``tbl.revision``: shared by every service of one catalog."""
    database_cache: RevisionCache[Database] = field(init=False)
    """Database models by ``(db_id)`` at their ``db.revision``."""
    events: EventLog = field(default_factory=EventLog)
    """Where every change writes its notification event, in the changing transaction."""
    filter_limits: FilterLimits = field(default_factory=FilterLimits)
    """How large a partition filter may be."""
    filter_like: LikeRule = LikeRule.AUTO
    """How a partition filter's ``LIKE`` patterns are read (Hive 2/3's or Hive 4's rule)."""
    max_batch_partitions: int = MAX_BATCH_PARTITIONS_DEFAULT
    """Partitions one call may add, alter, drop or fetch by name (``BatchTooLargeError`` beyond)."""
    partition_encoding: Callable[[Partition], bytes] | None = None
    """A front end's wire encoding of a partition (``services.partitions.Encode``): when given, every
    partition is stored with it as it is created, so that its first read need not make it."""

    def __post_init__(self) -> None:
        self.table_cache = RevisionCache(self.cache_memory)
        self.database_cache = RevisionCache(self.cache_memory)

    def table_model(self, conn: Connection, row: TableRecord) -> Table:
        """The model of a ``tbl`` row (read in ``conn``): from the cache while the row's revision is unchanged,
        else read in ``conn`` and cached."""
        table = self.table_cache.get(row.tbl_id, row.revision)
        if table is None:
            table = table_store.to_models(conn, [row])[0]
            self.table_cache.put(row.tbl_id, row.revision, table)
        return table

    def now(self) -> int:
        """The current time in seconds since the epoch, as Hive records create and DDL times."""
        return int(self.clock().timestamp())


DDL_TIME = "transient_lastDdlTime"
