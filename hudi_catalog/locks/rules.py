"""Which locks exclude which: Hive's lock compatibility, as ``TxnHandler`` grants locks.

A component waits when a lock ahead of it in the queue (any acquired lock, or a waiting one that arrived
first) overlaps its object and conflicts with its type. Shared reads go together with shared writes; a
shared write excludes another shared write (as in Hive 2.3; Hive 3 made them compatible, relying on a write
conflict check at commit that this server does not have); exclusive locks exclude everything.

Example:
    >>> conflicts(LockType.SHARED_READ, LockType.SHARED_WRITE)
    False
    >>> conflicts(LockType.EXCL_WRITE, LockType.SHARED_WRITE)
    True
"""

from __future__ import annotations

from .model import LockLevel, LockType

SR, SW, EW, EX = LockType.SHARED_READ, LockType.SHARED_WRITE, LockType.EXCL_WRITE, LockType.EXCLUSIVE

_COMPATIBLE: dict[LockType, frozenset[LockType]] = {
    SR: frozenset({SR, SW, EW}),
    SW: frozenset({SR}),
    EW: frozenset({SR}),
    EX: frozenset(),
}
"""For each requested type, the types of overlapping locks it may be granted beside."""


def conflicts(requested: LockType, existing: LockType) -> bool:
    """Whether a ``requested`` lock must wait for an overlapping ``existing`` one."""
    return existing not in _COMPATIBLE[requested]


def exempt(
    requested_level: LockLevel, requested_type: LockType, existing_level: LockLevel, existing_type: LockType
) -> bool:
    """Hive's one exemption by level: a shared read of a database and an exclusive lock of one of its
    tables or partitions do not exclude each other, whichever came first (so a table can be created or
    dropped while its database is read).

    Example:
        >>> exempt(LockLevel.PARTITION, LockType.EXCLUSIVE, LockLevel.DB, LockType.SHARED_READ)
        True
        >>> exempt(LockLevel.DB, LockType.EXCLUSIVE, LockLevel.DB, LockType.SHARED_READ)
        False
    """

    def db_read(level: LockLevel, lock_type: LockType) -> bool:
        return level == LockLevel.DB and lock_type == SR

    def below_db_exclusive(level: LockLevel, lock_type: LockType) -> bool:
        return level != LockLevel.DB and lock_type == EX

    return (db_read(requested_level, requested_type) and below_db_exclusive(existing_level, existing_type)) or (
        db_read(existing_level, existing_type) and below_db_exclusive(requested_level, requested_type)
    )
