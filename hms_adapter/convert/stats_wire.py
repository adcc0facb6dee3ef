"""Partition statistics answered from cached binary-protocol encodings.

Building and encoding 20,000 ``ColumnStatisticsObj`` structs (1,000 partitions of 20 columns) costs far
more than reading them, so each column's encoding is cached per partition, under the partition's revision
(which every change of its statistics raises), and ``get_partitions_statistics_req`` answers splice them.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from thriftpy2.protocol import TCyBinaryProtocol
from thriftpy2.thrift import TType
from thriftpy2.transport import TCyMemoryBuffer

from hudi_catalog.model import ColumnStats
from hudi_catalog.read_cache import CacheMemory, RevisionCache, digest

from ..idl import hive
from .column_stats import to_thrift_stats_obj
from .wire import EncodedAnswer

_STOP = b"\x00"


def encode_stats_obj(stats: ColumnStats) -> bytes:
    """The binary-protocol encoding of one ``ColumnStatisticsObj`` (the whole struct)."""
    buffer = TCyMemoryBuffer()
    to_thrift_stats_obj(stats).write(TCyBinaryProtocol(buffer))
    return buffer.getvalue()


class StatsEncodings:
    """``{column: encoding}`` of each partition's statistics, by ``(part_id, engine)`` at the partition's
    revision; and whole answers, by request at the table's partitions revision (a planner asks the same
    again and again)."""

    def __init__(self, memory: CacheMemory | None = None) -> None:
        """``memory``: the bytes the server process's caches share (the catalog's ``cache_memory``)."""
        self._cache: RevisionCache[dict[str, bytes]] = RevisionCache(memory, copies=False)
        self._answers: RevisionCache[EncodedPartitionStats] = RevisionCache(memory, copies=False)

    def answer(self, key: tuple, revision: int) -> EncodedPartitionStats | None:
        return self._answers.get(digest(*key), revision)

    def keep_answer(self, key: tuple, revision: int, answer: EncodedPartitionStats) -> EncodedPartitionStats:
        self._answers.put(digest(*key), revision, answer)
        return answer

    def get(self, part_id: int, engine: str, revision: int) -> dict[str, bytes] | None:
        return self._cache.get((part_id, engine), revision)

    def encode(self, part_id: int, engine: str, revision: int, columns: Sequence[ColumnStats]) -> dict[str, bytes]:
        encodings = {s.column: encode_stats_obj(s) for s in columns}
        self._cache.put((part_id, engine), revision, encodings)
        return encodings


def _string(text: str) -> bytes:
    data = text.encode()
    return struct.pack(">i", len(data)) + data


class EncodedPartitionStats(EncodedAnswer):
    """A ``PartitionsStatsResult``: ``{partition name: [ColumnStatisticsObj]}`` from encodings."""

    def __init__(self, entries: Sequence[tuple[str, Sequence[bytes]]]) -> None:
        self._entries = entries

    def __len__(self) -> int:
        """How many statistics (partition and column pairs) the answer holds."""
        return sum(len(encodings) for _, encodings in self._entries)

    def result_struct(self) -> bytes:
        head = struct.pack(">bhbhbbi", TType.STRUCT, 0, TType.MAP, 1, TType.STRING, TType.LIST, len(self._entries))
        parts = [head]
        for name, encodings in self._entries:
            parts += [_string(name), struct.pack(">bi", TType.STRUCT, len(encodings)), *encodings]
        parts.append(_STOP + _STOP)
        return b"".join(parts)

    def to_thrift(self):
        stats = {}
        for name, encodings in self._entries:
            objs = []
            for encoding in encodings:
                obj = hive.ColumnStatisticsObj()
                obj.read(TCyBinaryProtocol(TCyMemoryBuffer(encoding)))
                objs.append(obj)
            stats[name] = objs
        return hive.PartitionsStatsResult(partStats=stats)
