"""File slices read by the ``hudi`` package's file group reader inside Spark tasks.

``HudiSliceSource`` is a Spark Python data source (``hudi_metastore_slices``): its options name the table
location, the file group reader's options and the slices (base file and log files relative to the table,
and the catalog's partition values), spread over input partitions. Each task opens a ``HudiFileGroupReader``
on the table, merges its slices and puts each result into the schema it was given: the file's columns cast
to the table's types, absent columns as nulls, and per partition key the catalog's value as text
(``__hm_raw_<i>``) and whether the file carried the key as a column (``__hm_carried_<i>``), from which
``read_table`` types the partition columns the way it does for parquet files.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.pandas.types import to_arrow_schema
from pyspark.sql.types import BooleanType, StringType, StructField, StructType

from ..errors import UnsupportedReadError
from ..filesystems import hudi_rs_options
from .plan import COMMIT_TIME_COLUMN, SliceRead

SOURCE_NAME = "hudi_metastore_slices"


def raw_column(index: int) -> str:
    """The column holding the catalog's value of partition key ``index`` as text."""
    return f"__hm_raw_{index}"


def carried_column(index: int) -> str:
    """The column telling whether the slice's files carry partition key ``index`` as a data column."""
    return f"__hm_carried_{index}"


def source_schema(table: StructType, partition_count: int) -> StructType:
    """What the data source returns: the table's columns, then the raw and carried columns of each key."""
    extra = [
        field
        for i in range(partition_count)
        for field in (
            StructField(raw_column(i), StringType(), True),
            StructField(carried_column(i), BooleanType(), False),
        )
    ]
    return StructType(table.fields + extra)


def source_options(
    location: str,
    reader_options: dict[str, str],
    slices: Sequence[SliceRead],
    partition_keys: Sequence[str],
    need_commit_time: bool,
    timezone: str,
    tasks: int,
) -> dict[str, str]:
    """The options of a read of ``slices`` through ``HudiSliceSource``."""
    return {
        "location": location,
        "reader_options": json.dumps(reader_options),
        "slices": json.dumps([[s.base_file, list(s.log_files), list(s.partition.values)] for s in slices]),
        "partition_keys": json.dumps(list(partition_keys)),
        "need_commit_time": json.dumps(need_commit_time),
        "timezone": timezone,
        "tasks": str(tasks),
    }


def conform(
    data: pa.RecordBatch, target: pa.Schema, partition_keys: Sequence[str], partition_values: Sequence[str]
) -> pa.RecordBatch:
    """``data`` (one merged slice) in the ``target`` schema (``source_schema`` in Arrow)."""
    rows = data.num_rows
    by_name = {name.lower(): i for i, name in enumerate(data.schema.names)}
    extra: dict[str, pa.Array] = {}
    for i, (key, value) in enumerate(zip(partition_keys, partition_values)):
        extra[raw_column(i)] = pa.array([value] * rows, pa.string())
        extra[carried_column(i)] = pa.array([key.lower() in by_name] * rows, pa.bool_())
    arrays: list[pa.Array] = []
    for field in target:
        position = by_name.get(field.name.lower())
        if field.name in extra:
            arrays.append(extra[field.name])
        elif position is not None:
            arrays.append(_cast(data.column(position), field))
        else:
            arrays.append(pa.nulls(rows, field.type))
    return pa.RecordBatch.from_arrays(arrays, schema=target)


def _cast(column: pa.Array, field: pa.Field) -> pa.Array:
    if column.type == field.type:
        return column
    try:
        return column.cast(field.type)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
        raise UnsupportedReadError(f"column {field.name}: {column.type} does not convert to {field.type}: {e}") from e


@dataclass(frozen=True)
class _Slices(InputPartition):
    slices: tuple  # ((base file, [log files], [partition values]), ...)


class HudiSliceReader(DataSourceReader):
    def __init__(self, options: Mapping[str, str], schema: StructType) -> None:
        self.location = options["location"]
        self.reader_options = json.loads(options["reader_options"])
        self.slices = [tuple(s) for s in json.loads(options["slices"])]
        self.partition_keys = json.loads(options["partition_keys"])
        self.need_commit_time = json.loads(options["need_commit_time"])
        self.tasks = max(1, int(options["tasks"]))
        self.target = to_arrow_schema(schema, timezone=options["timezone"])

    def partitions(self) -> list[InputPartition]:
        return [_Slices(tuple(self.slices[i :: self.tasks])) for i in range(min(self.tasks, len(self.slices)))]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        from hudi import HudiFileGroupReader

        if not isinstance(partition, _Slices):
            raise TypeError(f"not a partition of this reader: {type(partition).__name__}")

        # the store's options are made here, where the files are read, never put in the plan: they may hold keys
        reader = HudiFileGroupReader(self.location, {**hudi_rs_options(self.location), **self.reader_options})
        for base, logs, values in partition.slices:
            data = reader.read_file_slice_from_paths(base or "", logs)
            commit_times = data.column(COMMIT_TIME_COLUMN) if COMMIT_TIME_COLUMN in data.schema.names else None
            if (
                self.need_commit_time
                and data.num_rows
                and (commit_times is None or commit_times.null_count == data.num_rows)
            ):
                raise UnsupportedReadError(
                    f"incremental read of {base}: the table does not populate {COMMIT_TIME_COLUMN}"
                )
            yield conform(data, self.target, self.partition_keys, values)


class HudiSliceSource(DataSource):
    """Reads the file slices its options name with the ``hudi`` package's file group reader."""

    @classmethod
    def name(cls) -> str:
        return SOURCE_NAME

    def reader(self, schema: StructType) -> DataSourceReader:
        return HudiSliceReader(self.options, schema)
