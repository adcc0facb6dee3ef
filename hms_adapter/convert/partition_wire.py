"""Partition lists answered from cached binary-protocol encodings.

Encoding 10,000 partitions costs far more than reading them, so each partition's encoding is cached in the
catalog (``PartitionService.read_encoded``/``save_encodings``) and replies splice the cached bytes.

An encoding holds every field of the partition's ``Partition`` struct except the three that name its table
(``dbName``, ``tableName``, ``catName``), which are written per reply: renaming a table leaves the encodings
valid. Thrift readers take a struct's fields in any order, so a partition on the wire is its cached fields,
then the table's fields, then the struct's stop byte. Replies in other protocols decode the same bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from thriftpy2.protocol import TCyBinaryProtocol
from thriftpy2.thrift import TType
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


class EncodedPartitionList(EncodedAnswer):
    """A ``list<Partition>`` answer made of cached encodings of one table's partitions.

    ``wrapper`` is the response struct of Hive 3/4 request-style calls (``PartitionsResponse`` and the like),
    whose field 1 holds the list; ``None`` when the method returns the list itself.
    """

    def __init__(self, database: str, table: str, encodings: Sequence[bytes], wrapper: type | None = None) -> None:
        self._encodings = encodings
        self._wrapper = wrapper
        self._table_fields = (
            _string_field(_DB_NAME, database)
            + _string_field(_TABLE_NAME, table)
            + _string_field(_CAT_NAME, current_catalog())
            + _STOP
        )

    def __len__(self) -> int:
        return len(self._encodings)

    def result_struct(self) -> bytes:
        if self._wrapper is None:
            head, end = struct.pack(">bhbi", TType.LIST, 0, TType.STRUCT, len(self._encodings)), _STOP
        else:
            head = struct.pack(">bhbhbi", TType.STRUCT, 0, TType.LIST, 1, TType.STRUCT, len(self._encodings))
            end = _STOP + _STOP
        tail = self._table_fields
        return b"".join([head, *(part for encoding in self._encodings for part in (encoding, tail)), end])

    def to_thrift(self):
        partitions = []
        for encoding in self._encodings:
            partition = hive.Partition()
            partition.read(TCyBinaryProtocol(TCyMemoryBuffer(encoding + self._table_fields)))
            partitions.append(partition)
        return partitions if self._wrapper is None else self._wrapper(partitions=partitions)
