"""Locks, transactions and write ids through a real Hive 3.1 client: PyPI's ``hive-metastore-client`` (Apache
Thrift code generated from Hive 3.1's IDL), so the Hive 3.1 layouts of the lock structs are checked on the wire
(``LockComponent.isTransactional``, ``AllocateTableWriteIdsRequest``, ``TableValidWriteIds.abortedBits``)."""

from __future__ import annotations

import pytest
from thrift_files.libraries.thrift_hive_metastore_client import ttypes as hive3


def _exclusive(table: str, txnid=None):
    return hive3.LockRequest(
        component=[
            hive3.LockComponent(
                type=hive3.LockType.EXCLUSIVE,
                level=hive3.LockLevel.TABLE,
                dbname="db",
                tablename=table,
                operationType=hive3.DataOperationType.UPDATE,
                isTransactional=True,
            )
        ],
        txnid=txnid,
        user="hive3",
        hostname="h3",
    )


def test_locks_through_a_hive_3_client(hive3_metastore):
    first = hive3_metastore.lock(_exclusive("t"))
    second = hive3_metastore.lock(_exclusive("t"))
    assert (first.state, second.state) == (hive3.LockState.ACQUIRED, hive3.LockState.WAITING)
    shown = hive3_metastore.show_locks(hive3.ShowLocksRequest(dbname="db")).locks
    assert [(e.lockid, e.tablename, e.state, e.blockedByExtId) for e in shown] == [
        (first.lockid, "t", hive3.LockState.ACQUIRED, None),
        (second.lockid, "t", hive3.LockState.WAITING, first.lockid),
    ]
    hive3_metastore.heartbeat(hive3.HeartbeatRequest(lockid=first.lockid))
    hive3_metastore.unlock(hive3.UnlockRequest(lockid=first.lockid))
    assert hive3_metastore.check_lock(hive3.CheckLockRequest(lockid=second.lockid)).state == hive3.LockState.ACQUIRED
    hive3_metastore.unlock(hive3.UnlockRequest(lockid=second.lockid))
    with pytest.raises(hive3.NoSuchLockException):
        hive3_metastore.check_lock(hive3.CheckLockRequest(lockid=second.lockid))


def test_a_hive_3_transaction_with_write_ids(hive3_metastore):
    reader, writer = hive3_metastore.open_txns(hive3.OpenTxnRequest(num_txns=2, user="hive3", hostname="h3")).txn_ids
    assert hive3_metastore.lock(_exclusive("acid", txnid=writer)).state == hive3.LockState.ACQUIRED
    [allocated] = hive3_metastore.allocate_table_write_ids(
        hive3.AllocateTableWriteIdsRequest(dbName="db", tableName="acid", txnIds=[writer])
    ).txnToWriteIds
    assert (allocated.txnId, allocated.writeId) == (writer, 1)
    # the reader's snapshot sees the writer open: its write id is invalid, not aborted
    [ids] = hive3_metastore.get_valid_write_ids(
        hive3.GetValidWriteIdsRequest(fullTableNames=["db.acid"], validTxnList=f"{writer}:{reader}:{reader},{writer}:")
    ).tblValidWriteIds
    assert (ids.writeIdHighWaterMark, ids.invalidWriteIds, ids.minOpenWriteId, ids.abortedBits) == (1, [1], 1, b"")
    with pytest.raises(hive3.TxnOpenException):
        hive3_metastore.unlock(
            hive3.UnlockRequest(lockid=hive3_metastore.show_locks(hive3.ShowLocksRequest(dbname="db")).locks[0].lockid)
        )
    hive3_metastore.commit_txn(hive3.CommitTxnRequest(txnid=writer))
    hive3_metastore.abort_txns(hive3.AbortTxnsRequest(txn_ids=[reader]))
    assert hive3_metastore.show_locks(hive3.ShowLocksRequest()).locks == []
    info = hive3_metastore.get_open_txns_info()
    assert [(t.id, t.state) for t in info.open_txns] == [(reader, hive3.TxnState.ABORTED)]
