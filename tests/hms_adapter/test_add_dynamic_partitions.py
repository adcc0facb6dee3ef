"""``add_dynamic_partitions`` in both layouts of its request ``AddDynamicPartitions``, whose field ids clash:
Hive 2.3's (the project's IDL, thriftpy2) and Hive 3's, which inserted ``2: i64 writeid`` (PyPI's
``hive-metastore-client``, Apache Thrift code generated from Hive 3.1's IDL; Trino sends this one). The
transaction must be open, with Hive's errors otherwise. What the server read is checked in its debug line,
which names the database, the table and how many partitions: a request read in the wrong layout loses them."""

from __future__ import annotations

import logging

import pytest
from thrift_files.libraries.thrift_hive_metastore_client import ttypes as hive3
from thriftpy2.protocol import TCompactProtocolFactory

from hms_adapter.idl import hive
from tests.conftest import RunningServer

PARTITIONS = ["p=a", "p=b"]
SERVICE_LOG = "hudi_catalog.services.transactions"


def _read(caplog, txn_id: int) -> list[str]:
    """The server's lines on what ``add_dynamic_partitions`` read for the transaction."""
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith(f"txnid:{txn_id} wrote")]


def _hive2_request(txn_id: int) -> object:
    return hive.AddDynamicPartitions(
        txnid=txn_id,
        dbname="db",
        tablename="acid",
        partitionnames=PARTITIONS,
        operationType=hive.DataOperationType.INSERT,
    )


def test_a_hive_2_3_request(client, caplog):
    [txn_id] = client.open_txns(hive.OpenTxnRequest(num_txns=1, user="u", hostname="h")).txn_ids
    with caplog.at_level(logging.DEBUG, logger=SERVICE_LOG):
        assert client.add_dynamic_partitions(_hive2_request(txn_id)) is None
    assert _read(caplog, txn_id) == [f"txnid:{txn_id} wrote 2 partition(s) of db.acid"]
    client.commit_txn(hive.CommitTxnRequest(txnid=txn_id))


def test_a_hive_3_request_after_a_write_id(client, hive3_metastore, caplog):
    [txn_id] = hive3_metastore.open_txns(hive3.OpenTxnRequest(num_txns=1, user="u", hostname="h")).txn_ids
    [allocated] = hive3_metastore.allocate_table_write_ids(
        hive3.AllocateTableWriteIdsRequest(dbName="db", tableName="acid", txnIds=[txn_id])
    ).txnToWriteIds
    request = hive3.AddDynamicPartitions(
        txnid=txn_id,
        writeid=allocated.writeId,
        dbname="db",
        tablename="acid",
        partitionnames=PARTITIONS,
        operationType=hive3.DataOperationType.INSERT,
    )
    with caplog.at_level(logging.DEBUG, logger=SERVICE_LOG):
        assert hive3_metastore.add_dynamic_partitions(request) is None
    assert _read(caplog, txn_id) == [f"txnid:{txn_id} wrote 2 partition(s) of db.acid"]
    hive3_metastore.commit_txn(hive3.CommitTxnRequest(txnid=txn_id))
    # the Hive 2.3 client on the same server, after the Hive 3 one
    [second] = client.open_txns(hive.OpenTxnRequest(num_txns=1, user="u", hostname="h")).txn_ids
    client.add_dynamic_partitions(_hive2_request(second))
    client.abort_txn(hive.AbortTxnRequest(txnid=second))


def _refused(call, request, error: type) -> str:
    with pytest.raises(error) as refused:
        call(request)
    return refused.value.message


def test_a_transaction_that_is_not_open(client, hive3_metastore):
    committed, aborted = client.open_txns(hive.OpenTxnRequest(num_txns=2, user="u", hostname="h")).txn_ids
    client.commit_txn(hive.CommitTxnRequest(txnid=committed))
    client.abort_txn(hive.AbortTxnRequest(txnid=aborted))
    unknown = aborted + 100
    call = client.add_dynamic_partitions
    assert _refused(call, _hive2_request(unknown), hive.NoSuchTxnException) == f"No such transaction txnid:{unknown}"
    assert _refused(call, _hive2_request(aborted), hive.TxnAbortedException) == (
        f"Transaction txnid:{aborted} already aborted"
    )
    assert _refused(call, _hive2_request(committed), hive.NoSuchTxnException) == (
        f"Transaction txnid:{committed} is already committed."
    )

    def hive3_request(txn_id: int) -> object:
        return hive3.AddDynamicPartitions(
            txnid=txn_id, writeid=1, dbname="db", tablename="acid", partitionnames=PARTITIONS
        )

    call = hive3_metastore.add_dynamic_partitions
    assert _refused(call, hive3_request(unknown), hive3.NoSuchTxnException) == f"No such transaction txnid:{unknown}"
    assert _refused(call, hive3_request(aborted), hive3.TxnAbortedException) == (
        f"Transaction txnid:{aborted} already aborted"
    )


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)  # a wire layout: the store is moot
def test_both_layouts_in_the_compact_protocol(catalog, caplog):
    server = RunningServer(catalog, protocol="compact")
    client = server.client(proto_factory=TCompactProtocolFactory())
    try:
        first, second = client.open_txns(hive.OpenTxnRequest(num_txns=2, user="u", hostname="h")).txn_ids
        with caplog.at_level(logging.DEBUG, logger=SERVICE_LOG):
            client.add_dynamic_partitions(_hive2_request(first))
            # thriftpy2 writes the struct it is given: here Hive 3's layout
            client.add_dynamic_partitions(
                hive.AddDynamicPartitionsHive3(
                    txnid=second, writeid=7, dbname="db", tablename="acid", partitionnames=PARTITIONS[:1]
                )
            )
        assert _read(caplog, first) == [f"txnid:{first} wrote 2 partition(s) of db.acid"]
        assert _read(caplog, second) == [f"txnid:{second} wrote 1 partition(s) of db.acid"]
    finally:
        client.close()
        server.stop()
