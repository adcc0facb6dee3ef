"""What a Parquet base file's footer says for Iceberg: record count, size, split offsets, and per column its
size, value and null counts and bounds. Only the footer is read, never the data.

Metrics are kept for the primitive columns outside lists and maps (their statistics count one value per row),
matched to Iceberg fields by name path, since Hudi's files carry no field ids. Bounds are left out where the
footer cannot be trusted to give them:

- ``float`` and ``double``: the footer does not say whether the column holds NaN, which Parquet writers leave
  out of min/max while Iceberg readers would take the bounds as covering every value;
- a row group with values but no min/max, INT96 timestamps, and a column stored with a physical type other than
  the one its Iceberg type reads from;
- strings and binaries are truncated to 16 characters or bytes: a prefix as the lower bound, a prefix with its
  last unit incremented as the upper one (left out if none exists). parquet-java, which writes Hudi's files,
  only ever widens the bounds it truncates, so the footer's own bounds are safe to start from.
"""

from __future__ import annotations

import functools
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from pyarrow import fs as pafs
from pyarrow._parquet import ParquetReader

from .errors import MissingDataFileError
from .schema import Schema
from .serialization import to_bytes, truncate_lower, truncate_upper

_READS_FROM = {
    "boolean": {"BOOLEAN"},
    "int": {"INT32"},
    "long": {"INT32", "INT64"},
    "date": {"INT32"},
    "time": {"INT32", "INT64"},
    "timestamp": {"INT64"},
    "timestamptz": {"INT64"},
    "string": {"BYTE_ARRAY"},
    "binary": {"BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"},
}
_TO_MICROS = {"milliseconds": 1000, "microseconds": 1}


@dataclass(frozen=True)
class _Column:
    """One leaf column of a Parquet schema: what deciding its Iceberg type and the trust of its bounds needs."""

    path: str
    physical: str
    logical: dict[str, Any]
    length: int
    repeated: bool


class FooterLayout:
    """The leaf columns of one Parquet schema, worked out once for every file written with it (the files of
    one table mostly share one or a few)."""

    def __init__(self, schema: pq.ParquetSchema) -> None:
        self.schema = schema
        self.columns = tuple(
            _Column(
                column.path,
                column.physical_type,
                _logical(column.logical_type.to_json()),
                column.length or 0,
                column.max_repetition_level > 0,
            )
            for column in (schema.column(index) for index in range(len(schema)))
        )
        self.top_level_types: dict[str, str] = {}
        """``column -> Iceberg type`` of the top-level primitive columns, as they are stored."""
        for column in self.columns:
            if "." not in column.path and not column.repeated:
                stored = _stored_type(column.physical, column.logical, column.length)
                if stored is not None:
                    self.top_level_types[column.path] = stored


_RECENT_LAYOUTS: deque[FooterLayout] = deque(maxlen=8)


def _layout(metadata: pq.FileMetaData) -> FooterLayout:
    """The layout of a footer's schema: a recent one equal to it, else a new one (threads building views at
    once each search a copy of the recent ones: a deque cannot be iterated while another thread adds to it)."""
    schema = metadata.schema
    for layout in tuple(_RECENT_LAYOUTS):
        if layout.schema.equals(schema):
            return layout
    layout = FooterLayout(schema)
    _RECENT_LAYOUTS.appendleft(layout)
    return layout


@dataclass(frozen=True)
class Footer:
    """A base file's size and footer."""

    path: str
    file_size: int
    metadata: pq.FileMetaData
    layout: FooterLayout

    @property
    def record_count(self) -> int:
        return int(self.metadata.num_rows)

    def split_offsets(self) -> list[int]:
        """The start of each row group: where a reader may split the file."""
        offsets = []
        for index in range(self.metadata.num_row_groups):
            first = self.metadata.row_group(index).column(0)
            dictionary = first.dictionary_page_offset if first.has_dictionary_page else None
            offsets.append(int(dictionary if dictionary is not None else first.data_page_offset))
        return sorted(offsets)


@dataclass
class ColumnMetrics:
    """What the manifest records of a data file's columns, by field id."""

    column_sizes: dict[int, int] = field(default_factory=dict)
    value_counts: dict[int, int] = field(default_factory=dict)
    null_value_counts: dict[int, int] = field(default_factory=dict)
    lower_bounds: dict[int, bytes] = field(default_factory=dict)
    upper_bounds: dict[int, bytes] = field(default_factory=dict)


def read_footer(fs: pafs.FileSystem, path: str) -> Footer:
    """The footer of the Parquet file at ``path`` (Hudi's bloom filter left out of it, when it is there).

    Raises:
        MissingDataFileError: the file does not exist or its footer cannot be read.
    """
    try:
        with fs.open_input_file(path) as source:
            size = source.size()
            # a file within the first read cannot hold a filter worth cutting: Arrow reads it at once
            metadata = _footer_without_bloom_filter(source, size) if size > _END_READ else None
            if metadata is None:
                reader = ParquetReader()  # what ParquetFile wraps, without the column paths it works out besides
                reader.open(source)
                metadata = reader.metadata
    except FileNotFoundError as e:
        raise MissingDataFileError(f"base file {path} not found") from e
    except (OSError, ValueError) as e:  # pyarrow raises ArrowInvalid (a ValueError) on a corrupt footer
        raise MissingDataFileError(f"cannot read the Parquet footer of {path}: {e}") from e
    return Footer(path, size, metadata, _layout(metadata))


_MAGIC = b"PAR1"
_END_READ = 64 * 1024
"""Bytes read from a file's end first, as Arrow's reader does: the whole footer of most files."""
BLOOM_FILTER_KEY = b"org.apache.hudi.bloomfilter"
"""The footer key under which Hudi's writers keep the bloom filter of a base file's record keys: about 430 KB
with Hudi's defaults, which Arrow takes half a millisecond to parse, 80% of reading such a footer."""
_BLOOM_FILTER_FIELD = b"\x18" + bytes([len(BLOOM_FILTER_KEY)]) + BLOOM_FILTER_KEY + b"\x18"
"""A ``KeyValue`` whose key (field 1, binary) is Hudi's, up to the header of its value (field 2, binary), in
Thrift's compact protocol; the value's length follows."""


def _footer_without_bloom_filter(source: pa.NativeFile, size: int) -> pq.FileMetaData | None:
    """A file's footer with Hudi's bloom filter cut to nothing, read in a piece of up to 64 KB from each end of
    the footer, the first stopping where the last begins (the filter lies between the row groups and the last
    key-values; what lies between the pieces is read once, when the first holds no filter or the filter ends
    before the last begins: no byte is read twice); ``None`` when the footer is not as expected, for the caller
    to read it whole.

    Raises:
        ValueError, OSError: a footer without a filter, read whole, does not parse.
    """
    end = _read_at(source, size - min(size, _END_READ), min(size, _END_READ))
    if len(end) < 12 or end[-4:] != _MAGIC:
        return None
    length = int.from_bytes(end[-8:-4], "little")
    start = size - 8 - length  # the footer's first byte in the file
    end_start = size - len(end)
    if start < len(_MAGIC):
        return None
    if start >= end_start:
        head = end[start - end_start : -8]  # the whole footer
    else:  # its first piece, and the whole footer when that piece reaches what was read from the end
        head = _read_at(source, start, min(_END_READ, end_start - start))
        if start + len(head) == end_start:
            head += end[:-8]
    found = head.rfind(_BLOOM_FILTER_FIELD)  # the key-values follow the row groups: the last is the filter's
    if found < 0 and len(head) < length:  # none in the first piece: the rest of the footer, read once
        head += _to_footer_end(source, start + len(head), end, end_start)
        found = head.rfind(_BLOOM_FILTER_FIELD)
    if found < 0:
        return _parse(head)  # no filter: the footer was read whole
    value_start = found + len(_BLOOM_FILTER_FIELD)
    value_length, position = _varint(head, value_start)
    after = position + value_length  # the first byte after the filter, in the footer
    if value_length < 0 or after > length:
        return None
    # the footer after the filter: what the first piece holds of it, then the rest (read unless ``end`` has it)
    rest = head[after:] + _to_footer_end(source, start + max(after, len(head)), end, end_start)
    footer = head[:value_start] + b"\x00" + rest  # the value's length now 0
    try:
        metadata = _parse(footer)
    except (OSError, ValueError):
        return None  # not as expected: the whole footer decides
    if (metadata.metadata or {}).get(BLOOM_FILTER_KEY) != b"":
        return None  # what was cut was not the filter (a value framed like it): the whole footer decides
    return metadata


def _parse(footer: bytes) -> pq.FileMetaData:
    """A footer's Thrift bytes parsed by Arrow, as the end of a file of nothing else (it reads no data)."""
    reader = ParquetReader()
    reader.open(pa.BufferReader(_MAGIC + footer + len(footer).to_bytes(4, "little") + _MAGIC))
    return reader.metadata


def _to_footer_end(source: pa.NativeFile, offset: int, end: bytes, end_start: int) -> bytes:
    """The footer's bytes from file offset ``offset`` to its length and magic, reading only what ``end`` (the
    file's last bytes, from ``end_start``) does not hold."""
    if offset >= end_start:
        return end[offset - end_start : -8]
    return _read_at(source, offset, end_start - offset) + end[:-8]


def _read_at(source: pa.NativeFile, offset: int, length: int) -> bytes:
    source.seek(offset)
    return source.read(length)


def _varint(data: bytes, position: int) -> tuple[int, int]:
    """The unsigned varint at ``position`` and the position after it."""
    value = shift = 0
    while position < len(data):
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, position
        shift += 7
    return -1, position  # cut off: never a length


_Convert = Callable[[Any], Any]
_Plan = tuple[tuple[int, int, str, _Convert | None], ...]
"""Per column an Iceberg schema knows: its index in the file, field id, Iceberg type, and how its footer's raw
min and max become the type's physical value (``None``: its bounds cannot be trusted)."""


class FileMetrics:
    """The sizes, counts and bounds of files' columns that ``schema`` has (outside lists and maps); what each
    column of a footer layout maps to is worked out once per layout."""

    def __init__(self, schema: Schema) -> None:
        self._columns = schema.primitive_columns()
        self._plans: dict[FooterLayout, _Plan] = {}

    def of(self, footer: Footer) -> ColumnMetrics:
        plan = self._plans.get(footer.layout)
        if plan is None:
            plan = self._plans[footer.layout] = self._plan(footer.layout)
        metrics = ColumnMetrics()
        sizes, values = metrics.column_sizes, metrics.value_counts
        bounds: dict[int, _Bounds] = {}
        nulls: dict[int, int] = {}
        unknown_nulls: set[int] = set()
        meta = footer.metadata
        for group_index in range(meta.num_row_groups):
            group = meta.row_group(group_index)
            for index, field_id, iceberg_type, convert in plan:
                chunk = group.column(index)
                sizes[field_id] = sizes.get(field_id, 0) + chunk.total_compressed_size
                values[field_id] = values.get(field_id, 0) + chunk.num_values
                stats = chunk.statistics if chunk.is_stats_set else None
                null_count = stats.null_count if stats is not None else None
                if null_count is not None:
                    nulls[field_id] = nulls.get(field_id, 0) + null_count
                else:
                    unknown_nulls.add(field_id)  # unknown in one row group: unknown for the file
                found = bounds.get(field_id)
                if found is None:
                    found = bounds[field_id] = _Bounds(iceberg_type, convert)
                found.add(chunk.num_values, stats, null_count)
        metrics.null_value_counts = {k: v for k, v in nulls.items() if k not in unknown_nulls}
        for field_id, found in bounds.items():
            lower, upper = found.serialized()
            if lower is not None:
                metrics.lower_bounds[field_id] = lower
            if upper is not None:
                metrics.upper_bounds[field_id] = upper
        return metrics

    def _plan(self, layout: FooterLayout) -> _Plan:
        plan = []
        for index, column in enumerate(layout.columns):
            known = self._columns.get(column.path)
            if known is not None:
                field_id, iceberg_type = known
                plan.append((index, field_id, iceberg_type, _converter(iceberg_type, column.physical, column.logical)))
        return tuple(plan)


@dataclass
class _Bounds:
    """Min and max of one column over a file's row groups, in Iceberg's physical form; ``usable`` turns false
    for good once a row group's bounds cannot be trusted."""

    iceberg_type: str
    convert: _Convert | None
    lower: Any = None
    upper: Any = None
    usable: bool = True

    def add(self, num_values: int, stats: pq.Statistics | None, null_count: int | None) -> None:
        if not self.usable:
            return
        if stats is None or null_count is None or self.convert is None:
            self.usable = False
            return
        if not stats.has_min_max:
            self.usable = null_count == num_values  # all null: no values to bound
            return
        low = self.convert(stats.min_raw)
        high = self.convert(stats.max_raw)
        if low is None or high is None:
            self.usable = False
            return
        self.lower = low if self.lower is None else min(self.lower, low)
        self.upper = high if self.upper is None else max(self.upper, high)

    def serialized(self) -> tuple[bytes | None, bytes | None]:
        if not self.usable or self.lower is None:
            return None, None
        upper = truncate_upper(self.iceberg_type, self.upper)
        return (
            to_bytes(self.iceberg_type, truncate_lower(self.iceberg_type, self.lower)),
            None if upper is None else to_bytes(self.iceberg_type, upper),
        )


@functools.lru_cache(maxsize=256)
def _logical(text: str) -> dict[str, Any]:
    """A Parquet logical type's JSON, parsed (a file's columns repeat a few; callers do not change it)."""
    return json.loads(text)


def _converter(iceberg_type: str, physical: str, logical: dict[str, Any]) -> _Convert | None:
    """How a column's raw footer min and max become the Iceberg type's physical value, or ``None`` when its
    bounds cannot be trusted."""
    if iceberg_type.startswith("decimal("):
        scale = int(iceberg_type[len("decimal(") : -1].split(",")[1])
        if logical.get("Type") != "Decimal" or int(logical.get("scale", -1)) != scale:
            return None
        return _unscaled
    if iceberg_type.startswith("fixed["):
        return bytes if physical == "FIXED_LEN_BYTE_ARRAY" else None
    if physical not in _READS_FROM.get(iceberg_type, ()):
        return None  # float and double (NaN), or stored as another type
    if iceberg_type in ("timestamp", "timestamptz", "time"):
        unit = logical.get("timeUnit")
        return functools.partial(_micros, _TO_MICROS[unit]) if unit in _TO_MICROS else None
    if iceberg_type == "string":
        return _text
    if iceberg_type == "binary":
        return bytes
    return bool if iceberg_type == "boolean" else int


def _unscaled(raw: Any) -> int:
    return int.from_bytes(raw, "big", signed=True) if isinstance(raw, bytes) else int(raw)


def _micros(per_unit: int, raw: Any) -> int:
    return int(raw) * per_unit


def _text(raw: Any) -> str | None:
    """A string bound, or ``None`` when its bytes are not UTF-8."""
    try:
        return raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)
    except UnicodeDecodeError:
        return None


def _stored_type(physical: str, logical: dict[str, Any], length: int) -> str | None:
    """The Iceberg type a Parquet column holds, as stored."""
    kind = logical.get("Type")
    if kind == "Decimal":
        return f"decimal({logical['precision']},{logical['scale']})"
    if physical == "INT32":
        return "date" if kind == "Date" else "int"
    if physical == "INT64":
        if kind == "Timestamp":
            return "timestamptz" if logical.get("isAdjustedToUTC") else "timestamp"
        return "long"
    if physical == "BYTE_ARRAY":
        return "string" if kind in ("String", "Enum", "JSON") else "binary"
    if physical == "FIXED_LEN_BYTE_ARRAY":
        return f"fixed[{length}]"
    return {"BOOLEAN": "boolean", "FLOAT": "float", "DOUBLE": "double"}.get(physical)
