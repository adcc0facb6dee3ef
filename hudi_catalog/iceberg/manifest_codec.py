"""Avro binary of the two records the view writes, ``manifest_entry`` and ``manifest_file``, encoded by hand
for the fixed schemas of ``manifest_schemas.py`` (field by field, in schema order; optional fields are unions
with ``null`` first, so ``0`` is null and ``1`` a value).

An entry is kept as its few header fields plus its ``data_file`` record as bytes: a manifest rewritten by a
later commit changes the header (status, the snapshot id and sequence numbers made explicit) and copies the
``data_file`` bytes, which is most of the entry, unchanged.

Example:
    >>> metrics = encode_file_metrics(10, 2048, ({}, {}, {}, {}, {}), [4])
    >>> raw = encode_data_file("s3://t/a.parquet", b"\\x02\\x06abc", metrics)
    >>> entry = ManifestEntry(1, 7, None, None, "s3://t/a.parquet", 10, 2048, raw)
    >>> EntryDecoder(b"\\x02\\x06abc", None).decode(encode_entry(entry)) == entry
    True
"""

from __future__ import annotations

import functools
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import fastavro

from .avro_file import encode_bytes, encode_long, read_bytes, read_long

NULL = b"\x00"
PRESENT = b"\x02"
"""A union's branch index: ``null`` (0) or the value (1)."""
_PARQUET = encode_bytes(b"PARQUET")
_DATA_CONTENT = b"\x00"
_TRUE, _FALSE = b"\x01", b"\x00"


@dataclass(slots=True)
class ManifestEntry:
    """One ``manifest_entry``: its header fields, the ``data_file`` fields the view reads, and the encoded
    ``data_file`` record."""

    status: int
    snapshot_id: int | None
    sequence_number: int | None
    file_sequence_number: int | None
    file_path: str
    record_count: int
    file_size: int
    data_file: bytes


@dataclass(frozen=True, slots=True)
class ManifestCounts:
    """The fields of a ``manifest_file`` record before its partition summaries."""

    manifest_path: str
    manifest_length: int
    partition_spec_id: int
    content: int
    sequence_number: int
    min_sequence_number: int
    added_snapshot_id: int
    added_files_count: int
    existing_files_count: int
    deleted_files_count: int
    added_rows_count: int
    existing_rows_count: int
    deleted_rows_count: int


def encode_entry(entry: ManifestEntry) -> bytes:
    """The ``manifest_entry`` record."""
    return (
        entry_header(entry.status, entry.snapshot_id, entry.sequence_number, entry.file_sequence_number)
        + entry.data_file
    )


@functools.lru_cache(maxsize=1024)
def entry_header(status: int, snapshot_id: int | None, sequence_number: int | None, file_sequence: int | None) -> bytes:
    """The fields before ``data_file``: the entries of a manifest share a few, so they are encoded once."""
    return b"".join(
        (
            encode_long(status),
            _optional_long(snapshot_id),
            _optional_long(sequence_number),
            _optional_long(file_sequence),
        )
    )


class EntryDecoder:
    """Decodes the ``manifest_entry`` records of one manifest, whose files are all in one partition.

    Args:
        partition: the encoded partition record the entries are expected to hold.
        partition_schema: the parsed ``r102`` schema, to read an entry holding another partition record.
    """

    def __init__(self, partition: bytes, partition_schema: Any) -> None:
        self._partition = partition
        self._partition_schema = partition_schema
        self._header: bytes | None = None  # the last header decoded, and its fields: entries mostly share it
        self._fields: tuple[int, int | None, int | None, int | None] = (0, None, None, None)

    def header(self, raw: bytes) -> tuple[tuple[int, int | None, int | None, int | None], int]:
        """The fields before ``data_file`` (status, snapshot id, sequence numbers), and where they end."""
        if self._header is None or not raw.startswith(self._header):
            status, pos = read_long(raw, 0)
            snapshot_id, pos = _read_optional_long(raw, pos)
            sequence_number, pos = _read_optional_long(raw, pos)
            file_sequence_number, pos = _read_optional_long(raw, pos)
            self._header, self._fields = raw[:pos], (status, snapshot_id, sequence_number, file_sequence_number)
            return self._fields, pos
        return self._fields, len(self._header)

    @staticmethod
    def file_path(raw: bytes, header_end: int) -> str:
        """The entry's ``data_file.file_path`` (``header_end``: from :meth:`header`)."""
        _, pos = read_long(raw, header_end)  # content
        return read_bytes(raw, pos)[0].decode("utf-8")

    def decode(self, raw: bytes) -> ManifestEntry:
        """A ``manifest_entry`` record."""
        fields, start = self.header(raw)
        _, pos = read_long(raw, start)  # content
        path, pos = read_bytes(raw, pos)
        if raw.startswith(_PARQUET, pos):
            pos += len(_PARQUET)
        else:
            _, pos = read_bytes(raw, pos)  # file_format
        if raw.startswith(self._partition, pos):
            pos += len(self._partition)
        else:
            stream = io.BytesIO(raw)
            stream.seek(pos)
            fastavro.schemaless_reader(stream, self._partition_schema, self._partition_schema)
            pos = stream.tell()
        record_count, pos = read_long(raw, pos)
        file_size, pos = read_long(raw, pos)
        return ManifestEntry(*fields, path.decode("utf-8"), record_count, file_size, raw[start:])


def encode_data_file(path: str, partition: bytes, file_metrics: bytes) -> bytes:
    """A ``data_file`` record of a Parquet file: its path, its ``partition`` record and the fields after it
    (``encode_file_metrics``)."""
    return b"".join((_DATA_CONTENT, encode_bytes(path.encode("utf-8")), _PARQUET, partition, file_metrics))


def encode_file_metrics(
    record_count: int,
    file_size: int,
    metrics: tuple[Mapping[int, int], Mapping[int, int], Mapping[int, int], Mapping[int, bytes], Mapping[int, bytes]],
    split_offsets: Sequence[int],
) -> bytes:
    """The fields of a ``data_file`` record after its partition; ``metrics`` are the file's column sizes, value
    counts, null counts, lower and upper bounds by field id (NaN counts, key metadata, equality ids and sort
    order are null)."""
    sizes, values, nulls, lowers, uppers = metrics
    return b"".join(
        (
            encode_long(record_count),
            encode_long(file_size),
            _long_map(sizes),
            _long_map(values),
            _long_map(nulls),
            NULL,  # nan_value_counts
            _bytes_map(lowers),
            _bytes_map(uppers),
            NULL,  # key_metadata
            _long_list(split_offsets),
            NULL,  # equality_ids
            NULL,  # sort_order_id
        )
    )


def encode_record(value: dict[str, Any], parsed_schema: Any) -> bytes:
    """Any record of a parsed schema, through fastavro (partition records, and records read from files the view
    did not write)."""
    out = io.BytesIO()
    fastavro.schemaless_writer(out, parsed_schema, value)
    return out.getvalue()


def encode_manifest_file(
    counts: ManifestCounts, summaries: Sequence[tuple[bool, bool, bytes | None, bytes | None]]
) -> bytes:
    """A ``manifest_file`` record; ``summaries`` are the partition fields' (contains null, contains NaN, lower
    bound, upper bound)."""
    c = counts
    parts = [
        encode_bytes(c.manifest_path.encode("utf-8")),
        *(
            encode_long(n)
            for n in (
                c.manifest_length,
                c.partition_spec_id,
                c.content,
                c.sequence_number,
                c.min_sequence_number,
                c.added_snapshot_id,
                c.added_files_count,
                c.existing_files_count,
                c.deleted_files_count,
                c.added_rows_count,
                c.existing_rows_count,
                c.deleted_rows_count,
            )
        ),
        PRESENT,
    ]
    if summaries:
        parts.append(encode_long(len(summaries)))
        for contains_null, contains_nan, lower, upper in summaries:
            parts.append(_TRUE if contains_null else _FALSE)
            parts.append(PRESENT + (_TRUE if contains_nan else _FALSE))
            parts.append(NULL if lower is None else PRESENT + encode_bytes(lower))
            parts.append(NULL if upper is None else PRESENT + encode_bytes(upper))
    parts.append(b"\x00")  # end of the partitions array
    parts.append(NULL)  # key_metadata
    return b"".join(parts)


def decode_manifest_counts(raw: bytes) -> ManifestCounts:
    """The fields of a ``manifest_file`` record before its partition summaries."""
    path, pos = read_bytes(raw, 0)
    numbers = []
    for _ in range(12):
        value, pos = read_long(raw, pos)
        numbers.append(value)
    return ManifestCounts(path.decode("utf-8"), *numbers)


def manifest_path(raw: bytes) -> str:
    """The ``manifest_path`` of a ``manifest_file`` record (its first field)."""
    return read_bytes(raw, 0)[0].decode("utf-8")


def _optional_long(value: int | None) -> bytes:
    return NULL if value is None else PRESENT + encode_long(value)


def _read_optional_long(raw: bytes, pos: int) -> tuple[int | None, int]:
    branch, pos = read_long(raw, pos)
    if branch == 0:
        return None, pos
    return read_long(raw, pos)


def _long_map(values: Mapping[int, int]) -> bytes:
    if not values:
        return PRESENT + b"\x00"
    items = b"".join(encode_long(k) + encode_long(v) for k, v in sorted(values.items()))
    return PRESENT + encode_long(len(values)) + items + b"\x00"


def _bytes_map(values: Mapping[int, bytes]) -> bytes:
    if not values:
        return PRESENT + b"\x00"
    items = b"".join(encode_long(k) + encode_bytes(v) for k, v in sorted(values.items()))
    return PRESENT + encode_long(len(values)) + items + b"\x00"


def _long_list(values: Sequence[int]) -> bytes:
    if not values:
        return PRESENT + b"\x00"
    return PRESENT + encode_long(len(values)) + b"".join(encode_long(v) for v in values) + b"\x00"
