"""The lock and transaction calls over a real Thrift socket: the structs of Hive 2.3, 3 and 4 clients, the
typed errors, and compare-and-set alters as Iceberg sends them."""

from __future__ import annotations

import pytest
from thriftpy2.thrift import TApplicationException

from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_table

SR, SW, EX = hive.LockType.SHARED_READ, hive.LockType.SHARED_WRITE, hive.LockType.EXCLUSIVE
ACQUIRED, WAITING = hive.LockState.ACQUIRED, hive.LockState.WAITING


def component(lock_type, db, table=None, partition=None, **hive4):
    level = hive.LockLevel.PARTITION if partition else hive.LockLevel.TABLE if table else hive.LockLevel.DB
    return hive.LockComponent(type=lock_type, level=level, dbname=db, tablename=table, partitionname=partition, **hive4)


def lock_request(*components, txnid=None, **hive4):
    return hive.LockRequest(
        component=list(components), txnid=txnid, user="alice", hostname="host-a", agentInfo="agent-1", **hive4
    )


def test_lock_check_unlock_and_show_locks_fields(client):
    first = client.lock(lock_request(component(EX, "Sales", "Orders")))
    second = client.lock(lock_request(component(SR, "sales", "orders", "ds=1")))
    assert (first.state, second.state) == (ACQUIRED, WAITING)
    shown = client.show_locks(hive.ShowLocksRequest(dbname="sales", tablename="orders")).locks
    assert [(e.lockid, e.dbname, e.tablename, e.partname, e.state, e.type) for e in shown] == [
        (first.lockid, "sales", "orders", None, ACQUIRED, EX),
        (second.lockid, "sales", "orders", "ds=1", WAITING, SR),
    ]
    held, waiting = shown
    assert (held.user, held.hostname, held.agentInfo, held.lockIdInternal, held.txnid) == (
        "alice",
        "host-a",
        "agent-1",
        1,
        0,
    )
    assert held.acquiredat >= held.lastheartbeat > 1_600_000_000_000  # milliseconds
    assert (waiting.blockedByExtId, waiting.blockedByIntId, waiting.acquiredat) == (first.lockid, 1, None)
    client.heartbeat(hive.HeartbeatRequest(lockid=first.lockid))
    client.unlock(hive.UnlockRequest(lockid=first.lockid))
    assert client.check_lock(hive.CheckLockRequest(lockid=second.lockid)).state == ACQUIRED
    client.unlock(hive.UnlockRequest(lockid=second.lockid))
    assert client.show_locks(hive.ShowLocksRequest()).locks == []


def test_hive4_request_fields_are_accepted(client):
    """PyIceberg and Hive 4 send the extra optional fields of LockRequest and LockComponent."""
    request = lock_request(
        component(
            EX, "db", "t", operationType=hive.DataOperationType.NO_TXN, isAcid=True, isDynamicPartitionWrite=False
        ),
        zeroWaitReadEnabled=False,
        exclusiveCTAS=False,
        locklessReadsEnabled=False,
    )
    response = client.lock(request)
    assert response.state == ACQUIRED and response.errorMessage is None
    client.unlock(hive.UnlockRequest(lockid=response.lockid))


def test_typed_errors(client):
    with pytest.raises(hive.NoSuchLockException, match="lockid:77"):
        client.check_lock(hive.CheckLockRequest(lockid=77))
    with pytest.raises(hive.NoSuchLockException):
        client.heartbeat(hive.HeartbeatRequest(lockid=77))
    client.unlock(hive.UnlockRequest(lockid=77))  # a no-op, as in Hive
    with pytest.raises(hive.NoSuchTxnException, match="No such transaction txnid:5"):
        client.commit_txn(hive.CommitTxnRequest(txnid=5))
    with pytest.raises(hive.NoSuchTxnException):
        client.lock(lock_request(component(SR, "db", "t"), txnid=5))
    [txn] = client.open_txns(hive.OpenTxnRequest(num_txns=1, user="u", hostname="h")).txn_ids
    lock = client.lock(lock_request(component(EX, "db", "t"), txnid=txn))
    with pytest.raises(hive.TxnOpenException, match="Unlocking locks associated with transaction not permitted"):
        client.unlock(hive.UnlockRequest(lockid=lock.lockid))
    client.abort_txn(hive.AbortTxnRequest(txnid=txn))
    with pytest.raises(hive.TxnAbortedException, match=f"Transaction txnid:{txn} already aborted"):
        client.commit_txn(hive.CommitTxnRequest(txnid=txn))
    with pytest.raises(hive.TxnAbortedException):
        client.heartbeat(hive.HeartbeatRequest(txnid=txn))
    assert client.show_locks(hive.ShowLocksRequest()).locks == []


@pytest.mark.parametrize(
    "request_",
    [
        hive.LockRequest(component=[], user="u", hostname="h"),
        hive.LockRequest(component=[hive.LockComponent(type=99, level=1, dbname="d")], user="u", hostname="h"),
        hive.LockRequest(component=[hive.LockComponent(type=1, level=1, dbname=None)], user="u", hostname="h"),
    ],
    ids=["no components", "unknown lock type", "no database"],
)
def test_bad_lock_requests_are_refused_without_leaving_rows(client, request_):
    with pytest.raises(TApplicationException) as error:  # lock declares no exception Hive would use here
        client.lock(request_)
    assert error.value.type == TApplicationException.INTERNAL_ERROR
    assert client.show_locks(hive.ShowLocksRequest()).locks == []
    assert client.get_all_databases() == ["default"]  # the server is up


def test_a_huge_request_is_refused_and_a_large_one_granted(client):
    too_many = [component(SR, "d", "t", f"p={i}") for i in range(100_001)]
    with pytest.raises(TApplicationException, match="at most 100000 components"):
        client.lock(lock_request(*too_many))
    many = client.lock(lock_request(*too_many[:5000]))
    assert many.state == ACQUIRED
    assert len(client.show_locks(hive.ShowLocksRequest(dbname="d")).locks) == 5000
    client.unlock(hive.UnlockRequest(lockid=many.lockid))
    assert client.show_locks(hive.ShowLocksRequest()).locks == []


def test_transactions_over_the_wire(client):
    ids = client.open_txns(hive.OpenTxnRequest(num_txns=3, user="u", hostname="h", agentInfo="a")).txn_ids
    assert ids == [1, 2, 3]
    client.commit_txn(hive.CommitTxnRequest(txnid=1))
    client.abort_txns(hive.AbortTxnsRequest(txn_ids=[2]))
    open_txns = client.get_open_txns()
    # a set on the wire (Hive 2.3's layout), read back by thriftpy2 as a list
    assert (open_txns.txn_high_water_mark, sorted(open_txns.open_txns), open_txns.min_open_txn) == (3, [2, 3], 3)
    assert open_txns.abortedBits == b"\x01"  # position 0 of [2, 3] is aborted
    info = client.get_open_txns_info()
    assert [(t.id, t.state, t.user, t.hostname, t.agentInfo) for t in info.open_txns] == [
        (2, hive.TxnState.ABORTED, "u", "h", "a"),
        (3, hive.TxnState.OPEN, "u", "h", "a"),
    ]
    assert sorted(client.get_open_txns_req(hive.GetOpenTxnsRequest()).open_txns) == [2, 3]
    ranged = client.heartbeat_txn_range(hive.HeartbeatTxnRangeRequest(min=1, max=4))
    assert (sorted(ranged.aborted), sorted(ranged.nosuch)) == ([2], [1, 4])
    client.commit_txn(hive.CommitTxnRequest(txnid=3))


def test_write_ids_over_the_wire(client):
    t1, t2 = client.open_txns(hive.OpenTxnRequest(num_txns=2, user="u", hostname="h")).txn_ids
    allocated = client.allocate_table_write_ids(
        hive.AllocateTableWriteIdsRequest(dbName="db", tableName="t", txnIds=[t2, t1])
    ).txnToWriteIds
    assert [(a.txnId, a.writeId) for a in allocated] == [(t1, 1), (t2, 2)]
    client.commit_txn(hive.CommitTxnRequest(txnid=t1))
    client.abort_txn(hive.AbortTxnRequest(txnid=t2))
    # the reader's transaction list as Hive 3 writes it: <hwm>:<min open>:<open>:<aborted>
    [ids] = client.get_valid_write_ids(
        hive.GetValidWriteIdsRequest(fullTableNames=["db.t"], validTxnList=f"2:9223372036854775807::{t2}")
    ).tblValidWriteIds
    assert (ids.fullTableName, ids.writeIdHighWaterMark, ids.invalidWriteIds, ids.minOpenWriteId, ids.abortedBits) == (
        "db.t",
        2,
        [2],
        None,
        b"\x01",
    )
    with pytest.raises(hive.TxnAbortedException):
        client.allocate_table_write_ids(hive.AllocateTableWriteIdsRequest(dbName="db", tableName="t", txnIds=[t2]))
    # Hive 4 writes consecutive ids as a range; one reaching past the high water mark is refused
    [ranged] = client.get_valid_write_ids(
        hive.GetValidWriteIdsRequest(fullTableNames=["db.t"], validTxnList=f"2:9223372036854775807::{t1}-{t2}")
    ).tblValidWriteIds
    assert (ranged.writeIdHighWaterMark, ranged.invalidWriteIds) == (2, [1, 2])
    with pytest.raises(hive.MetaException, match="Invalid transaction list"):
        client.get_valid_write_ids(hive.GetValidWriteIdsRequest(fullTableNames=["db.t"], validTxnList="2:5::1-9"))


def _cas_table(client, location):
    table = client.get_table("cas", "t")
    table.parameters["metadata_location"] = location
    return table


def test_compare_and_set_alter_as_iceberg_sends_it(client):
    client.create_database(hive.Database(name="cas"))
    client.create_table(make_table("cas", "t", columns=cols("x:int"), params={"metadata_location": "m1"}))
    expect = {"expected_parameter_key": "metadata_location", "expected_parameter_value": "m1"}
    client.alter_table_with_environment_context(
        "cas", "t", _cas_table(client, "m2"), hive.EnvironmentContext(properties=expect)
    )
    with pytest.raises(hive.MetaException) as error:
        client.alter_table_with_environment_context(
            "cas", "t", _cas_table(client, "m3"), hive.EnvironmentContext(properties=expect)
        )
    assert error.value.message.startswith(
        "The table has been modified. The parameter value for key 'metadata_location' is 'm2'"
    )
    client.alter_table_req(
        hive.AlterTableRequest(
            dbName="cas",
            tableName="t",
            table=_cas_table(client, "m3"),
            expectedParameterKey="metadata_location",
            expectedParameterValue="m2",
        )
    )
    with pytest.raises(hive.MetaException, match="The table has been modified"):
        client.alter_table_req(
            hive.AlterTableRequest(
                dbName="cas",
                tableName="t",
                table=_cas_table(client, "m4"),
                expectedParameterKey="metadata_location",
                expectedParameterValue="m2",
            )
        )
    assert client.get_table("cas", "t").parameters["metadata_location"] == "m3"
