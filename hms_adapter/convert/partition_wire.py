"""Partition lists answered from cached binary-protocol encodings.

Encoding 10,000 partitions costs far more than reading them, so each partition's encoding is cached in the
catalog (``PartitionService.read_encoded``/``save_encodings``) and replies splice the cached bytes.

An encoding holds every field of the partition's ``Partition`` struct except the three that name its table
(``dbName``, ``tableName``, ``catName``), which are written per reply: renaming a table leaves the encodings
valid. Thrift readers take a struct's fields in any order, so a partition on the wire is its cached fields,
then the table's fields, then the struct's stop byte. A list's reply is assembled in one join of the encodings
(``assemble_partition_list``), and the catalog keeps it whole in its read cache, keyed on the table's partitions
revision in the database: a repeated list costs no Python operation per partition. Replies in other protocols
decode the same bytes.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Sequence

from thriftpy2.protocol import TCyBinaryProtocol
from thriftpy2.thrift import TPayload, TType, gen_init
from thriftpy2.transport import TCyMemoryBuffer

from hudi_catalog.catalog_scope import current_catalog
from hudi_catalog.model import Partition

from ..idl import hive
from .partition import to_thrift_partition
from .wire import EncodedAnswer

_STOP = b"\x00"
_DB_NAME, _TABLE_NAME, _CAT_NAME = 2, 3, 9
"""Field ids of the table-naming fields of ``Partition``."""


def encode_partition_fields(partition: Partition) -> bytes:
    """The binary-protocol fields of ``partition`` without its table's names and without the stop byte."""
    thrift = to_thrift_partition(partition)
    thrift.dbName = thrift.tableName = thrift.catName = None
    buffer = TCyMemoryBuffer()
    thrift.write(TCyBinaryProtocol(buffer))
    encoded = buffer.getvalue()
    if not encoded.endswith(_STOP):  # the encoder broke the binary protocol: never cache what it made
        raise ValueError(f"the encoding of partition {partition.values} does not end with a stop byte")
    return encoded[:-1]


def _string_field(field_id: int, text: str) -> bytes:
    data = text.encode()
    return struct.pack(">bhi", TType.STRING, field_id, len(data)) + data


_WRAPPER_FIELDS = {hive.PartitionsByExprResult: struct.pack(">bhb", TType.BOOL, 2, 0)}
"""The fields a wrapper has after its list: ``get_partitions_by_expr``'s ``hasUnknownPartitions = false`` (its
answers are exact)."""


def assemble_partition_list(database: str, table: str, encodings: Sequence[bytes], wrapper: type | None) -> bytes:
    """The ``<method>_result`` struct of a ``list<Partition>`` answer, in one join of the encodings: each
    partition's tail (its table's fields and its stop byte) separates them, the list's head rides on the
    first and the end follows the last tail.

    ``wrapper`` is the response struct of Hive 3/4 request-style calls (``PartitionsResponse`` and the like),
    whose field 1 holds the list; ``None`` when the method returns the list itself.
    """
    if wrapper is None:
        head, end = struct.pack(">bhbi", TType.LIST, 0, TType.STRUCT, len(encodings)), _STOP
    else:
        head = struct.pack(">bhbhbi", TType.STRUCT, 0, TType.LIST, 1, TType.STRUCT, len(encodings))
        end = _WRAPPER_FIELDS.get(wrapper, b"") + _STOP + _STOP
    if not encodings:
        return head + end
    tail = _table_tail(database, table)
    parts = list(encodings)
    parts[0] = head + parts[0]
    parts.append(end)
    return tail.join(parts)


def assemble_partition(database: str, table: str, encoding: bytes) -> bytes:
    """The ``<method>_result`` struct of a ``Partition`` answer (``get_partition``): the encoding, its table's
    fields and stop byte, then the result's stop byte."""
    head = struct.pack(">bh", TType.STRUCT, 0)
    return head + encoding + _table_tail(database, table) + _STOP


def _table_tail(database: str, table: str) -> bytes:
    """What ends a partition's cached fields on the wire: its table's fields and the struct's stop byte."""
    return (
        _string_field(_DB_NAME, database)
        + _string_field(_TABLE_NAME, table)
        + _string_field(_CAT_NAME, current_catalog())
        + _STOP
    )


def assemble_name_list(names: Sequence[str]) -> bytes:
    """The ``<method>_result`` struct of a ``list<string>`` answer (partition names)."""
    encoded = [name.encode() for name in names]
    head = struct.pack(">bhbi", TType.LIST, 0, TType.STRING, len(encoded))
    return b"".join([head, *(part for data in encoded for part in (_LENGTH.pack(len(data)), data)), _STOP])


_LENGTH = struct.Struct(">i")
NAME_LIST = "list<string>"
"""What ``assemble_name_list`` makes: the key of its answers in the catalog's cache."""


@functools.cache
def _result_type(success: tuple) -> type:
    """A struct of field 0 alone, as ``success`` in a ``<method>_result``: to decode one."""
    return gen_init(type("ListResult", (TPayload,), {}), {0: success}, [("success", None)])


class _AssembledAnswer(EncodedAnswer):
    """An answer as the bytes of its ``<method>_result`` struct, its field 0 of spec ``success``."""

    def __init__(self, result: bytes, success: tuple) -> None:
        self._result = result
        self._success = success

    def result_struct(self) -> bytes:
        return self._result

    def to_thrift(self):
        decoded = _result_type(self._success)()
        decoded.read(TCyBinaryProtocol(TCyMemoryBuffer(self._result)))
        return decoded.success


class EncodedPartitionList(_AssembledAnswer):
    """A ``list<Partition>`` answer (``assemble_partition_list``); ``wrapper`` as there."""

    def __init__(self, result: bytes, wrapper: type | None = None) -> None:
        success = (TType.LIST, "success", (TType.STRUCT, hive.Partition), False)
        super().__init__(result, success if wrapper is None else (TType.STRUCT, "success", wrapper, False))


class EncodedPartition(_AssembledAnswer):
    """A ``Partition`` answer (``assemble_partition``)."""

    def __init__(self, result: bytes) -> None:
        super().__init__(result, (TType.STRUCT, "success", hive.Partition, False))


class EncodedNameList(_AssembledAnswer):
    """A ``list<string>`` answer (``assemble_name_list``)."""

    def __init__(self, result: bytes) -> None:
        super().__init__(result, (TType.LIST, "success", TType.STRING, False))
