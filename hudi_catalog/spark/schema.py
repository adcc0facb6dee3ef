"""The Spark schema of a Hudi table from the catalog's columns, and how each parquet file is read into it.

The table's schema is the catalog's: its data columns (Hive types) then its partition keys. Files written
at different times may store a column with another type (Hudi's timestamp key generators wrote the
partition field as a long in some commits and as a string in others): Spark's parquet reader cannot read
a column as a type other than the stored one, so each file is read with its own type for such columns
(from its footer) and cast to the table's type afterwards. Files that agree are read together.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.errors import PySparkException
from pyspark.sql.pandas.types import from_arrow_type
from pyspark.sql.types import ArrayType, DataType, MapType, StructField, StructType, TimestampNTZType, TimestampType

from ..errors import UnsupportedReadError
from ..hudi.storage import open_path
from ..model import Column

log = logging.getLogger(__name__)

FOOTER_READERS = 16
"""Threads reading parquet footers."""


def quote(name: str) -> str:
    """``name`` as a Spark SQL identifier."""
    return "`" + name.replace("`", "``") + "`"


def table_schema(columns: Sequence[Column]) -> StructType:
    """The Spark schema of ``columns`` (Hive types), in order.

    Raises:
        UnsupportedReadError: a type Spark does not have.
    """
    if not columns:
        return StructType([])
    ddl = ", ".join(f"{quote(c.name)} {c.type}" for c in columns)
    try:
        parsed = DataType.fromDDL(ddl)
    except PySparkException as e:
        raise UnsupportedReadError(f"the table's columns are not Spark types: {ddl}: {e}") from e
    if not isinstance(parsed, StructType):  # a column list parses as a struct
        raise UnsupportedReadError(f"the table's columns are not a Spark schema: {ddl}")
    return StructType([StructField(f.name, f.dataType, True) for f in parsed.fields])


def parquet_footers(location: str, paths: Sequence[str]) -> dict[str, pq.FileMetaData]:
    """The footer of each parquet file at ``paths`` (relative to ``location``): schema and statistics."""
    if not paths:
        return {}
    fs, base = open_path(location)
    with ThreadPoolExecutor(min(FOOTER_READERS, len(paths))) as pool:
        return dict(zip(paths, pool.map(lambda p: pq.read_metadata(f"{base}/{p}", filesystem=fs), paths)))


def all_null(footer: pq.FileMetaData, column: str) -> bool:
    """Whether the file's statistics show ``column`` absent or null in every row (a file without rows, or
    without statistics to tell, is not)."""
    names = footer.schema.names
    if column not in names:
        return True
    index = names.index(column)
    if footer.num_rows == 0:
        return False
    for group in range(footer.num_row_groups):
        stats = footer.row_group(group).column(index).statistics
        null_count = None if stats is None else stats.null_count  # None when the file does not record it
        if null_count is None or null_count < footer.row_group(group).num_rows:
            return False
    return True


@dataclass(frozen=True)
class ReadShape:
    """How Spark reads a group of parquet files into the table's schema."""

    stored_types: tuple[tuple[str, DataType], ...]
    """Columns read as the type the files store, then cast to the table's type."""
    partition_columns: tuple[str, ...]
    """Partition keys the files carry as data columns (read from the files, like Hudi does)."""

    def read_schema(self, table: StructType, partition_keys: Sequence[str]) -> StructType:
        """What Spark's parquet reader is asked for: the data columns, and the partition keys the files carry."""
        stored = dict(self.stored_types)
        return StructType(
            [
                StructField(f.name, stored.get(f.name, f.dataType), True)
                for f in table.fields
                if f.name not in partition_keys or f.name in self.partition_columns
            ]
        )


def _is_nested(data_type: DataType) -> bool:
    return isinstance(data_type, (StructType, ArrayType, MapType))


def _stored_type(field: pa.Field) -> DataType | None:
    try:
        return from_arrow_type(field.type, prefer_timestamp_ntz=False)
    except (PySparkException, TypeError, ValueError):  # a type Spark maps on its own (int96, unsigned, ...)
        return None


def _needs_stored_type(stored: DataType | None, wanted: DataType) -> bool:
    """Whether a column stored as ``stored`` must be read as that type and cast: both are plain types and
    differ (nested types are reconciled by Spark's reader; timestamps with and without time zone too)."""
    if stored is None or stored == wanted or _is_nested(stored) or _is_nested(wanted):
        return False
    timestamps = (TimestampType, TimestampNTZType)
    return not (isinstance(stored, timestamps) and isinstance(wanted, timestamps))


def read_shape(stored: pa.Schema, table: StructType, partition_keys: Sequence[str]) -> ReadShape:
    """How to read a file whose footer holds ``stored`` into ``table`` (names match case-insensitively, as
    Spark's parquet reader matches them)."""
    fields = {f.name.lower(): f for f in stored}
    stored_types = []
    for wanted in table.fields:
        field = fields.get(wanted.name.lower())
        stored_type = None if field is None else _stored_type(field)
        if stored_type is not None and _needs_stored_type(stored_type, wanted.dataType):
            stored_types.append((wanted.name, stored_type))
    carried = tuple(k for k in partition_keys if k.lower() in fields)
    return ReadShape(tuple(stored_types), carried)


def group_by_shape(
    footers: dict[str, pq.FileMetaData], table: StructType, partition_keys: Sequence[str]
) -> dict[ReadShape, list[str]]:
    """The files at the keys of ``footers``, grouped by how Spark reads them."""
    groups: dict[ReadShape, list[str]] = defaultdict(list)
    for path, footer in footers.items():
        groups[read_shape(footer.schema.to_arrow_schema(), table, partition_keys)].append(path)
    if len(groups) > 1:
        log.info("files stored with %d different column types or layouts; read in as many groups", len(groups))
    return dict(groups)
