"""Hive's lock and transaction structs to and from ``hudi_catalog.locks.model``."""

from __future__ import annotations

from hudi_catalog.errors import InvalidObjectError
from hudi_catalog.locks.model import (
    HeldLock,
    LockComponent,
    LockRequest,
    LockTarget,
    LockType,
    OpenTxns,
    TableWriteIds,
    TxnInfo,
)

from ..idl import hive


def from_thrift_lock_request(rqst) -> LockRequest:
    """A ``LockRequest`` of any Hive version (Hive 4's extra fields do not change what is locked)."""
    if rqst is None:
        raise InvalidObjectError("A lock request is required")
    return LockRequest(
        components=[_from_thrift_component(c) for c in rqst.component or []],
        user=rqst.user or "",
        host=rqst.hostname or "",
        txn_id=rqst.txnid or 0,
        agent_info=rqst.agentInfo,
    )


def _from_thrift_component(component) -> LockComponent:
    if component is None or not component.dbname:
        raise InvalidObjectError("A lock component needs a database name")
    try:
        lock_type = LockType(component.type)
    except ValueError:
        raise InvalidObjectError(f"Unknown lock type {component.type!r}") from None
    table = component.tablename or None
    partition = component.partitionname if component.partitionname and table else None
    return LockComponent(lock_type, LockTarget(component.dbname, table, partition))


def to_thrift_show_locks_element(held: HeldLock):
    return hive.ShowLocksResponseElement(
        lockid=held.lock_id,
        dbname=held.target.database,
        tablename=held.target.table,
        partname=held.target.partition,
        state=int(held.state),
        type=int(held.type),
        txnid=held.txn_id,
        lastheartbeat=held.last_heartbeat_ms,
        acquiredat=held.acquired_at_ms,
        user=held.user,
        hostname=held.host,
        heartbeatCount=held.heartbeat_count,
        agentInfo=held.agent_info,
        blockedByExtId=held.blocked_by_lock,
        blockedByIntId=held.blocked_by_component,
        lockIdInternal=held.component,
    )


def aborted_bits(ids: list[int], aborted: set[int]) -> bytes:
    """Java's ``BitSet.toByteArray`` of the positions in ``ids`` that are aborted (Hive 3's abortedBits).

    Example:
        >>> aborted_bits([3, 5, 9], {5, 9})
        b'\\x06'
    """
    bits = 0
    for position, value in enumerate(ids):
        if value in aborted:
            bits |= 1 << position
    return bits.to_bytes((bits.bit_length() + 7) // 8, "little")


def to_thrift_open_txns(snapshot: OpenTxns, response_type=hive.GetOpenTxnsResponse):
    """Open and aborted ids together in ``open_txns`` (ascending), ``min_open_txn`` among the open ones,
    ``abortedBits`` marking the aborted. ``response_type``: Hive 2.3's layout (a set) or Hive 4's
    (``GetOpenTxnsResponseHive4``, a list)."""
    exceptions = snapshot.exceptions
    return response_type(
        txn_high_water_mark=snapshot.high_water_mark,
        open_txns=exceptions,
        min_open_txn=snapshot.min_open,
        abortedBits=aborted_bits(exceptions, set(snapshot.aborted)),
    )


def to_thrift_txn_info(info: TxnInfo):
    return hive.TxnInfo(
        id=info.txn_id,
        state=int(info.state),
        user=info.user,
        hostname=info.host,
        agentInfo=info.agent_info or "Unknown",
        heartbeatCount=info.heartbeat_count,
        startedTime=info.started_ms,
        lastHeartbeatTime=info.last_heartbeat_ms,
    )


def to_thrift_table_write_ids(ids: TableWriteIds):
    return hive.TableValidWriteIds(
        fullTableName=ids.table,
        writeIdHighWaterMark=ids.high_water_mark,
        invalidWriteIds=ids.invalid,
        minOpenWriteId=ids.min_open,
        abortedBits=aborted_bits(ids.invalid, set(ids.aborted)),
    )


def from_valid_txn_list(text: str | None) -> OpenTxns | None:
    """Hive 3's ``ValidReadTxnList`` string, ``<high water mark>:<min open>:<open ids>:<aborted ids>``; Hive 4
    writes runs of consecutive ids as ranges (``1-5,7``).

    Example:
        >>> from_valid_txn_list("12:9:9,11:10")
        OpenTxns(high_water_mark=12, open=[9, 11], aborted=[10])
        >>> from_valid_txn_list("10:9223372036854775807::1-3,7")
        OpenTxns(high_water_mark=10, open=[], aborted=[1, 2, 3, 7])
    """
    if not text:
        return None
    parts = text.split(":")
    try:
        high_water_mark = int(parts[0])
        open_ids = _txn_ids(parts[2], high_water_mark) if len(parts) > 2 else []
        aborted = _txn_ids(parts[3], high_water_mark) if len(parts) > 3 else []
    except ValueError:
        raise InvalidObjectError(f"Invalid transaction list: {text[:200]}") from None
    return OpenTxns(high_water_mark, open_ids, aborted)


def _txn_ids(text: str, high_water_mark: int) -> list[int]:
    """Ids and ranges of ids, none above the high water mark (a range cannot ask for more)."""
    ids: list[int] = []
    for item in text.split(","):
        first, _, last = item.partition("-")
        if not first:
            continue
        start, end = int(first), int(last or first)
        if not 0 < start <= end <= high_water_mark:
            raise ValueError(item)
        ids.extend(range(start, end + 1))
    return ids
