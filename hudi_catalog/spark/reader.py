"""``read_table``: a Hudi table read into a Spark DataFrame from exactly the files the catalog names.

The catalog prunes partitions with the WHERE clause and names the latest file slices (``plan.py``). Slices
with a parquet base file and nothing to merge are read by Spark's own parquet reader from their explicit
paths, with the table's schema; the others (log files to merge, ``.lance`` base files) by the ``hudi``
package's file group reader in Spark tasks (``slice_reader.py``). No data folder is listed. Partition
columns hold what the data files carry (as Hudi reads them), else the catalog's partition values, typed by
the partition key types. The WHERE clause is then applied as a row filter, so the result is exact.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
from collections.abc import Sequence
from posixpath import basename

import pyarrow.parquet as pq
from pyspark.sql import Column as SparkColumn
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DataType, StringType, StructField, StructType

from ..catalog import Catalog
from ..errors import UnsupportedReadError
from ..read_source import CatalogSource, LocalCatalogSource
from .filters import exact_filter, hidden_column
from .plan import COMMIT_TIME_COLUMN, INCREMENTAL, SNAPSHOT, ReadPlan, SliceRead, plan_read
from .schema import ReadShape, all_null, group_by_shape, parquet_footers, quote, table_schema
from .slice_reader import SOURCE_NAME, HudiSliceSource, carried_column, raw_column, source_options, source_schema

log = logging.getLogger(__name__)

FILE_COLUMN = "__hm_file"


def read_table(
    spark: SparkSession,
    name: str,
    where: str | None = None,
    as_of: str | None = None,
    query_type: str = SNAPSHOT,
    begin: str | None = None,
    end: str | None = None,
    *,
    catalog: Catalog | CatalogSource,
) -> DataFrame:
    """The rows of Hudi table ``name`` (``"db.table"``) as the catalog describes it.

    Args:
        spark: the session that reads.
        name: ``database.table``; the ``_ro``/``_rt`` tables of a MERGE_ON_READ table read their owner
            (``_ro`` read-optimized).
        where: an engine's WHERE clause; its terms over partition columns prune partitions in the catalog, and
            the whole clause filters the rows.
        as_of: an instant time: the table as of that instant (time travel).
        query_type: ``snapshot``, ``read_optimized`` or ``incremental``.
        begin, end: instant times of an incremental read, ``(begin, end]``; by default from the start of the
            timeline to the latest commit.
        catalog: a ``Catalog`` in this process or any ``CatalogSource`` (such as
            ``hms_adapter.metaserver_client.MetaserverSource`` for a remote server).

    Raises:
        ValueError: a malformed argument.
        UnsupportedReadError: the table or one of its files cannot be read as asked.
        InvalidFilterError: ``where`` is not SQL.
        NoSuchObjectError: the table does not exist.
    """
    if isinstance(catalog, Catalog):
        catalog = LocalCatalogSource(catalog)
    elif not isinstance(catalog, CatalogSource):
        raise TypeError(f"catalog must be a Catalog or a CatalogSource, not {type(catalog).__name__}")
    plan = plan_read(catalog, name, where=where, as_of=as_of, query_type=query_type, begin=begin, end=end)
    keys = [k.name for k in plan.table.partition_keys]
    output = table_schema([*plan.table.columns, *plan.table.partition_keys])
    if not output.fields:  # a table with no commit that recorded a schema has no columns and no rows
        return spark.createDataFrame([], output)
    # the catalog's partition values, typed, beside the table's columns until the WHERE clause is applied
    hidden = [StructField(hidden_column(i), output[k].dataType, True) for i, k in enumerate(keys)]

    by_spark = [s for s in plan.slices if s.by_spark]
    by_hudi = [s for s in plan.slices if not s.by_spark]
    parquet = [s.base_file for s in plan.slices if s.base_file and s.base_file.endswith(".parquet")]
    footers = parquet_footers(plan.location, parquet)
    if plan.commit_range:
        _check_commit_times(plan, footers)
    frames = []
    if by_spark:
        frames += _spark_frames(spark, plan, by_spark, footers, output, keys, hidden)
    if by_hudi:
        frames.append(_hudi_frame(spark, plan, by_hudi, keys, output, hidden))
    if not frames:
        frames.append(spark.createDataFrame([], StructType(output.fields + hidden)))
    frame = functools.reduce(DataFrame.unionByName, frames)
    if plan.commit_range:
        begin, end = plan.commit_range
        commit_time = _col(COMMIT_TIME_COLUMN)
        frame = frame.filter((commit_time > F.lit(begin)) & (commit_time <= F.lit(end)))
    condition = exact_filter(plan.where, keys)
    if condition:
        frame = frame.filter(condition)
    return frame.drop(*(f.name for f in hidden))


def _col(name: str) -> SparkColumn:
    return F.col(quote(name))


def _check_commit_times(plan: ReadPlan, footers: dict[str, pq.FileMetaData]) -> None:
    """An incremental read keeps rows by commit time: refuse files that do not record it."""
    lacking = sorted(p for p, footer in footers.items() if all_null(footer, COMMIT_TIME_COLUMN))
    if lacking:
        raise UnsupportedReadError(
            f"incremental read of {plan.table.qualified_name}: files without "
            f"{COMMIT_TIME_COLUMN} (the table does not populate Hudi's meta fields): "
            f"{', '.join(lacking[:3])}{' ...' if len(lacking) > 3 else ''}"
        )


def _base_file(slice_read: SliceRead) -> str:
    """The base file of a slice Spark's parquet reader reads (``by_spark``: it has one)."""
    if slice_read.base_file is None:
        raise UnsupportedReadError(f"a slice of partition {slice_read.partition.path!r} has no base file")
    return slice_read.base_file


def _partition_values(spark: SparkSession, slices: Sequence[SliceRead], hidden: Sequence[StructField]) -> DataFrame:
    """One row per slice: its base file's name and the catalog's partition values, typed."""
    raw = StructType(
        [
            StructField(FILE_COLUMN, StringType()),
            *(StructField(raw_column(i), StringType()) for i in range(len(hidden))),
        ]
    )
    rows = [(basename(_base_file(s)), *s.partition.values) for s in slices]
    typed = [_typed_raw(i, f.dataType).alias(f.name) for i, f in enumerate(hidden)]
    return spark.createDataFrame(rows, raw).select(FILE_COLUMN, *typed)


def _spark_frames(
    spark: SparkSession,
    plan: ReadPlan,
    slices: Sequence[SliceRead],
    footers: dict[str, pq.FileMetaData],
    output: StructType,
    keys: Sequence[str],
    hidden: Sequence[StructField],
) -> list[DataFrame]:
    """Spark's parquet reader over the explicit base files, one read per group of files stored alike;
    partitioned tables join the slices' partition values on the file name."""
    values = None
    if keys:
        names = [basename(_base_file(s)) for s in slices]
        if len(set(names)) != len(names):  # Hudi's names carry file id, write token and instant: never expected
            raise UnsupportedReadError(f"{plan.table.qualified_name}: two base files share a name")
        values = F.broadcast(_partition_values(spark, slices, hidden))
    location = plan.location.rstrip("/")
    groups = group_by_shape({_base_file(s): footers[_base_file(s)] for s in slices}, output, keys)
    return [
        _spark_frame(spark, shape, [f"{location}/{p}" for p in paths], values, output, keys, hidden)
        for shape, paths in groups.items()
    ]


def _spark_frame(
    spark: SparkSession,
    shape: ReadShape,
    paths: list[str],
    values: DataFrame | None,
    output: StructType,
    keys: Sequence[str],
    hidden: Sequence[StructField],
) -> DataFrame:
    stored = dict(shape.stored_types)
    data = spark.read.schema(shape.read_schema(output, keys)).parquet(*paths)
    if values is not None:
        data = data.withColumn(FILE_COLUMN, F.col("_metadata.file_name")).join(values, FILE_COLUMN)
    columns = []
    for field in output.fields:
        if field.name in keys and field.name not in shape.partition_columns:
            column = _col(hidden_column(keys.index(field.name)))
        else:
            column = _col(field.name).cast(field.dataType) if field.name in stored else _col(field.name)
        columns.append(column.alias(field.name))
    return data.select(*columns, *(_col(f.name) for f in hidden))


def _hudi_frame(
    spark: SparkSession,
    plan: ReadPlan,
    slices: Sequence[SliceRead],
    keys: Sequence[str],
    output: StructType,
    hidden: Sequence[StructField],
) -> DataFrame:
    """The ``hudi`` package's file group reader over the slices, in Spark tasks (``HudiSliceSource``)."""
    if importlib.util.find_spec("hudi") is None:
        raise UnsupportedReadError(
            f"{plan.query_type} read of {plan.table.qualified_name} needs the hudi package "
            f"(pip install 'hudi-metastore[spark]') to merge log files or read "
            f"non-parquet base files"
        )
    spark.dataSource.register(HudiSliceSource)
    tasks = max(1, min(len(slices), spark.sparkContext.defaultParallelism * 2))
    timezone = spark.conf.get("spark.sql.session.timeZone") or "UTC"  # Spark always has one
    options = source_options(
        plan.location, dict(plan.reader_options), slices, keys, plan.query_type == INCREMENTAL, timezone, tasks
    )
    log.debug("%s: %d slices for the hudi file group reader in %d tasks", plan.table.qualified_name, len(slices), tasks)
    data = spark.read.format(SOURCE_NAME).schema(source_schema(output, len(keys))).options(**options).load()
    columns = []
    for field in output.fields:
        column = _col(field.name)
        if field.name in keys:
            i = keys.index(field.name)
            column = F.when(_col(carried_column(i)), column).otherwise(_typed_raw(i, field.dataType))
        columns.append(column.alias(field.name))
    return data.select(*columns, *(_typed_raw(i, f.dataType).alias(f.name) for i, f in enumerate(hidden)))


def _typed_raw(index: int, data_type: DataType) -> SparkColumn:
    """The catalog's value of partition key ``index`` typed by its key's type (null when it is not of the
    type, such as Hive's default partition)."""
    return _col(raw_column(index)).try_cast(data_type)
