"""``add_dynamic_partitions``'s request read in both layouts of ``AddDynamicPartitions``.

Hive 2.3 declares ``1: i64 txnid, 2: string dbname, 3: string tablename, 4: list<string> partitionnames,
5: DataOperationType operationType``; Hive 3 and 4 put ``2: i64 writeid`` in and moved the others one id on.
The ids clash on their types (4 is a list in one layout and a string in the other, 5 an enum and a list), so no
single struct reads both, and nothing a client sent before tells its version. The request is therefore read
in Hive 3's layout (``AddDynamicPartitionsHive3``) first: a reader skips a field of another type than the one
it declares, so a Hive 2.3 request (field 2 a string) leaves ``writeid`` unset, and is then read again, from the
same bytes, in Hive 2.3's layout. Both structs name their common fields alike (``txnid``, ``dbname``,
``tablename``, ``partitionnames``, ``operationType``); only Hive 3's has ``writeid``.
"""

from __future__ import annotations

from thriftpy2.thrift import TPayload, TType
from thriftpy2.transport import TCyMemoryBuffer

from ..idl import ThriftStruct, hive


class _Hive3Arguments(TPayload):
    """``add_dynamic_partitions_args`` with its request in Hive 3's layout."""

    thrift_spec = {1: (TType.STRUCT, "rqst", hive.AddDynamicPartitionsHive3, False)}
    default_spec = [("rqst", None)]
    rqst: ThriftStruct


def read_add_dynamic_partitions_args(iprot) -> ThriftStruct:
    """The arguments of an ``add_dynamic_partitions`` call whose message header ``iprot`` has read; their
    ``rqst`` is an ``AddDynamicPartitionsHive3`` or, from a Hive 2.3 client, an ``AddDynamicPartitions``.

    ``iprot`` reads from a ``TCyMemoryBuffer`` holding the request (the server reads each request whole
    before it decodes it): its unread bytes are read twice when the request is in Hive 2.3's layout."""
    trans = iprot.trans
    if not isinstance(trans, TCyMemoryBuffer):
        raise TypeError(f"add_dynamic_partitions is read from a TCyMemoryBuffer, not {type(trans).__name__}")
    arguments = trans.getvalue()
    as_hive3 = _Hive3Arguments()
    as_hive3.read(iprot)
    if as_hive3.rqst is None or as_hive3.rqst.writeid is not None:
        return as_hive3
    trans.setvalue(arguments)
    as_hive2 = hive.ThriftHiveMetastore.add_dynamic_partitions_args()
    as_hive2.read(iprot)
    return as_hive2
