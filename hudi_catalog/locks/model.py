"""Plain data types of Hive's locks and transactions, in Python names and with Hive's enum values.

Times are milliseconds since the epoch, as Hive reports them for locks and transactions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum


class LockType(IntEnum):
    SHARED_READ = 1
    SHARED_WRITE = 2
    EXCLUSIVE = 3
    EXCL_WRITE = 4
    """Hive 3+: excludes other writers, not readers."""


class LockLevel(IntEnum):
    DB = 1
    TABLE = 2
    PARTITION = 3


class LockState(IntEnum):
    ACQUIRED = 1
    WAITING = 2
    ABORT = 3
    NOT_ACQUIRED = 4


class TxnState(IntEnum):
    COMMITTED = 1
    ABORTED = 2
    OPEN = 3


@dataclass(frozen=True)
class LockTarget:
    """What a lock component covers: a database, a table of it, or a partition of that table. Two targets
    overlap when they name the same database, and the same table and partition wherever both name one (a
    database lock covers its tables, a table lock its partitions). Names are lower-cased here, partition
    names included, as Hive 3+ does: ``O.T`` and ``o.t`` are one object whoever builds the target."""

    database: str
    table: str | None = None
    partition: str | None = None

    def __post_init__(self) -> None:
        for name in ("database", "table", "partition"):
            value = getattr(self, name)
            if value is not None and not value.islower():
                object.__setattr__(self, name, value.lower())

    @property
    def level(self) -> LockLevel:
        """The level, as Hive derives it from the names given (not from the request's level field)."""
        if self.table is None:
            return LockLevel.DB
        return LockLevel.TABLE if self.partition is None else LockLevel.PARTITION


@dataclass(frozen=True)
class LockComponent:
    """One object a request locks, and how."""

    type: LockType
    target: LockTarget


@dataclass
class LockRequest:
    """A request for several components at once, granted all together or not at all."""

    components: list[LockComponent]
    user: str
    host: str
    txn_id: int = 0
    agent_info: str | None = None


@dataclass
class LockStatus:
    """The answer to ``lock`` and ``check_lock``."""

    lock_id: int
    state: LockState


@dataclass
class HeldLock:
    """One component of a lock as ``show_locks`` reports it."""

    lock_id: int
    component: int
    target: LockTarget
    state: LockState
    type: LockType
    txn_id: int
    last_heartbeat_ms: int
    acquired_at_ms: int | None
    user: str
    host: str
    heartbeat_count: int
    agent_info: str | None
    blocked_by_lock: int | None
    blocked_by_component: int | None


@dataclass
class TxnInfo:
    """An open or aborted transaction."""

    txn_id: int
    state: TxnState
    user: str
    host: str
    agent_info: str | None
    heartbeat_count: int
    started_ms: int
    last_heartbeat_ms: int


@dataclass
class OpenTxns:
    """The transaction snapshot: every id up to ``high_water_mark`` is committed except those listed."""

    high_water_mark: int
    open: list[int] = field(default_factory=list)
    aborted: list[int] = field(default_factory=list)

    @property
    def min_open(self) -> int | None:
        return min(self.open) if self.open else None

    @property
    def exceptions(self) -> list[int]:
        """Open and aborted ids together, ascending."""
        return sorted(self.open + self.aborted)


@dataclass
class TableWriteIds:
    """A table's write ids as one reader sees them: ``high_water_mark`` and the ids below it to skip."""

    table: str
    """``<db>.<table>``."""
    high_water_mark: int
    invalid: list[int]
    aborted: list[int]
    min_open: int | None
