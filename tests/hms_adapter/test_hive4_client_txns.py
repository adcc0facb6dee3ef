"""Transactions through a real Hive 4 client: the Apache Thrift code of Hive 4's IDL that PyIceberg ships
(``hive_metastore``). Hive 4's ``get_open_txns_req`` is answered in Hive 4's layout (``open_txns`` a list)."""

from __future__ import annotations

from hive_metastore import ttypes as hive4


def test_get_open_txns_req_in_hive_4_layout(hive4_metastore):
    first, second, third = hive4_metastore.open_txns(
        hive4.OpenTxnRequest(num_txns=3, user="hive4", hostname="h4", txn_type=hive4.TxnType.DEFAULT)
    ).txn_ids
    hive4_metastore.abort_txn(hive4.AbortTxnRequest(txnid=second))
    hive4_metastore.commit_txn(hive4.CommitTxnRequest(txnid=first))
    answer = hive4_metastore.get_open_txns_req(hive4.GetOpenTxnsRequest(excludeTxnTypes=[]))
    assert (answer.txn_high_water_mark, answer.open_txns, answer.min_open_txn, answer.abortedBits) == (
        third,
        [second, third],
        third,
        b"\x01",
    )
    hive4_metastore.commit_txn(hive4.CommitTxnRequest(txnid=third))
