"""``get_open_txns`` answered in both layouts of ``GetOpenTxnsResponse.open_txns`` at once.

Hive 2.3 declares field 2 a ``set<i64>``, Hive 3 and 4 a ``list<i64>``; a reader skips a field whose type is not
the one it declares. Nothing a client sends before ``get_open_txns`` tells its version: Trino opens a
connection per metastore operation and sends only ``set_ugi`` before ``get_open_txns``, and Hive 2.3's and
3.1's ``HiveMetaStoreClient`` both open with ``set_ugi`` alone. So the binary-protocol answer carries field 2
twice, first as a set, then as a list, with the same ids: each reader takes the one of its type and skips the
other (Java's, Apache Thrift's Python and thriftpy2's generated readers all do), and a reader that took both
would read the same ids twice. In other protocols (compact) the answer keeps Hive 2.3's layout alone.
"""

from __future__ import annotations

import struct

from thriftpy2.protocol import TCyBinaryProtocol
from thriftpy2.thrift import TType
from thriftpy2.transport import TCyMemoryBuffer

from hudi_catalog.locks.model import OpenTxns

from ..idl import ThriftStruct, hive
from .locks import to_thrift_open_txns
from .wire import EncodedAnswer

_STOP = b"\x00"


def _encode(value: ThriftStruct) -> bytes:
    buffer = TCyMemoryBuffer()
    value.write(TCyBinaryProtocol(buffer))
    return buffer.getvalue()


class BothLayoutsOpenTxns(EncodedAnswer):
    """A ``GetOpenTxnsResponse`` whose ``open_txns`` is written as a set (Hive 2.3) and as a list (Hive 3+)."""

    def __init__(self, snapshot: OpenTxns) -> None:
        self._as_set = to_thrift_open_txns(snapshot)

    def result_struct(self) -> bytes:
        as_set = _encode(self._as_set)  # fields 1 to 4, then STOP
        # the list field alone: the same header and elements as the set's, of type LIST
        as_list = _encode(hive.GetOpenTxnsResponseHive4(open_txns=self._as_set.open_txns))
        response = as_set[: -len(_STOP)] + as_list[: -len(_STOP)] + _STOP
        return struct.pack(">bh", TType.STRUCT, 0) + response + _STOP

    def to_thrift(self) -> ThriftStruct:
        return self._as_set
