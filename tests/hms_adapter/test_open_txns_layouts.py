"""``get_open_txns`` read by clients of both layouts of ``GetOpenTxnsResponse.open_txns`` through a real server:
Hive 2.3's ``set<i64>`` (the project's IDL, thriftpy2) and Hive 3.1's ``list<i64>`` (PyPI's
``hive-metastore-client``, Apache Thrift code generated from Hive 3.1's IDL), on the same server."""

from __future__ import annotations

import socket
import struct

import pytest
from thrift_files.libraries.thrift_hive_metastore_client import ttypes as hive3
from thriftpy2.protocol import TCompactProtocolFactory
from thriftpy2.thrift import TType

from hms_adapter.idl import hive
from tests.conftest import RunningServer

pytestmark = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)  # a wire layout: the store is moot


def _three_txns_one_aborted(client) -> None:
    """Transactions 1 (committed), 2 (aborted) and 3 (open)."""
    assert client.open_txns(hive.OpenTxnRequest(num_txns=3, user="u", hostname="h")).txn_ids == [1, 2, 3]
    client.commit_txn(hive.CommitTxnRequest(txnid=1))
    client.abort_txns(hive.AbortTxnsRequest(txn_ids=[2]))


def test_a_hive_2_3_and_a_hive_3_client_both_read_the_open_txns(client, hive3_metastore):
    _three_txns_one_aborted(client)
    as_set = client.get_open_txns()
    assert (as_set.txn_high_water_mark, sorted(as_set.open_txns), as_set.min_open_txn) == (3, [2, 3], 3)
    assert as_set.abortedBits == b"\x01"
    as_list = hive3_metastore.get_open_txns()
    assert isinstance(as_list, hive3.GetOpenTxnsResponse)
    # before: None here, the list reader having skipped Hive 2.3's set
    assert (as_list.txn_high_water_mark, as_list.open_txns, as_list.min_open_txn) == (3, [2, 3], 3)
    assert as_list.abortedBits == b"\x01"


def _call_get_open_txns(port: int) -> bytes:
    """The raw binary-protocol reply to ``get_open_txns`` (buffered transport)."""
    name = b"get_open_txns"
    call = struct.pack(">Ii", 0x80010001, len(name)) + name + struct.pack(">i", 7) + b"\x00"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(call)
        reply = b""
        while not reply.endswith(b"\x00\x00"):  # the response's STOP, then the result's
            chunk = sock.recv(65536)
            assert chunk, "the server closed the connection"
            reply += chunk
    return reply


def test_the_reply_carries_field_2_as_a_set_and_as_a_list_with_the_same_ids(client, server):
    _three_txns_one_aborted(client)
    reply = _call_get_open_txns(server.port)
    body = reply[4 + 4 + len("get_open_txns") + 4 :]
    assert body[:3] == struct.pack(">bh", TType.STRUCT, 0)
    elements = struct.pack(">bi", TType.I64, 2) + struct.pack(">qq", 2, 3)
    as_set = struct.pack(">bh", TType.SET, 2) + elements
    as_list = struct.pack(">bh", TType.LIST, 2) + elements
    assert body.count(as_set) == 1 and body.count(as_list) == 1
    assert body.index(as_set) < body.index(as_list)
    # Hive 4's get_open_txns_req answers the list alone
    assert sorted(client.get_open_txns_req(hive.GetOpenTxnsRequest()).open_txns) == [2, 3]


def test_an_empty_snapshot_in_both_layouts(client, hive3_metastore):
    assert client.get_open_txns().open_txns == []
    assert hive3_metastore.get_open_txns().open_txns == []


def test_compact_replies_keep_hive_2_3_s_layout(catalog):
    running = RunningServer(catalog, protocol="compact")
    try:
        compact = running.client(proto_factory=TCompactProtocolFactory())
        _three_txns_one_aborted(compact)
        assert sorted(compact.get_open_txns().open_txns) == [2, 3]
        compact.close()
    finally:
        running.stop()
