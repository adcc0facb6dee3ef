"""Planning a metastore-driven read: the table, the file slices to read and how, from catalog calls alone.

The plan names every file the read will open; nothing here lists a data folder or opens a data file, and
nothing here needs Spark. A slice whose base file is parquet and that needs no log merge is read by
Spark's parquet reader; any other slice (log files to merge, a ``.lance`` base file, a log-only slice) goes
to the ``hudi`` package's file group reader.

Query types:

- ``snapshot``: the latest file slice of every file group (as of ``as_of`` for time travel); MERGE_ON_READ
  slices with log files are merged.
- ``read_optimized``: the base files of those slices, logs ignored (the same as ``snapshot`` for
  COPY_ON_WRITE); log-only slices have no base file and contribute nothing.
- ``incremental``: the file groups that completed instants in ``(begin, end]`` wrote to, read as of
  ``end``, keeping the records whose ``_hoodie_commit_time`` is in ``(begin, end]``: each record inserted
  or updated in the range once, in its latest state as of ``end``. Ranges compare requested instant times.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import UnsupportedReadError
from ..hudi.properties import COPY_ON_WRITE, MERGE_ON_READ, QUERY_AS_RO_TABLE
from ..instant_times import is_instant_time
from ..model import VIEW_OF_PARAM
from ..read_source import CatalogSource, HudiTableInfo, PartitionInfo

log = logging.getLogger(__name__)

SNAPSHOT, READ_OPTIMIZED, INCREMENTAL = "snapshot", "read_optimized", "incremental"
QUERY_TYPES = (SNAPSHOT, READ_OPTIMIZED, INCREMENTAL)
EARLIEST_INSTANT = "0" * 17
"""The ``begin`` of an incremental read that starts at the beginning of the timeline."""
START_TIMESTAMP_OPTION = "hoodie.read.start.timestamp"
END_TIMESTAMP_OPTION = "hoodie.read.end.timestamp"
"""Options of the ``hudi`` package's file group reader (``HudiReadConfig``): log blocks and records written
after the end (or, for incremental reads, not after the start) are left out of a merge."""
SPARK_BASE_FORMATS = (".parquet",)
HUDI_BASE_FORMATS = (".parquet", ".lance")
"""Base file formats Spark's parquet reader reads, and those the ``hudi`` package's file group reader reads."""
COMMIT_TIME_COLUMN = "_hoodie_commit_time"


@dataclass(frozen=True)
class SliceRead:
    """One file slice to read; file paths are relative to the table location."""

    partition: PartitionInfo
    base_file: str | None
    log_files: tuple[str, ...]

    @property
    def by_spark(self) -> bool:
        """Whether Spark's parquet reader reads this slice (a parquet base file and nothing to merge)."""
        return self.base_file is not None and not self.log_files and self.base_file.endswith(SPARK_BASE_FORMATS)


@dataclass(frozen=True)
class ReadPlan:
    table: HudiTableInfo
    query_type: str
    slices: tuple[SliceRead, ...]
    reader_options: Mapping[str, str]
    """Options of the file group reader for the slices Spark's parquet reader does not read."""
    commit_range: tuple[str, str] | None
    """Incremental reads: keep the rows whose ``_hoodie_commit_time`` is in ``(begin, end]``."""
    where: str | None

    @property
    def location(self) -> str:
        """The table's location (``resolve_table`` refuses a table without one)."""
        if not self.table.location:
            raise UnsupportedReadError(f"{self.table.qualified_name} has no location")
        return self.table.location


def split_name(name: str) -> tuple[str, str]:
    """``("db", "table")`` of ``"db.table"``."""
    database, dot, table = name.partition(".")
    if not dot or not database or not table or "." in table:
        raise ValueError(f"a table name is 'database.table', not {name!r}")
    return database, table


def _check_arguments(query_type: str, as_of: str | None, begin: str | None, end: str | None) -> None:
    if query_type not in QUERY_TYPES:
        raise ValueError(f"query_type must be one of {QUERY_TYPES}, not {query_type!r}")
    if query_type == INCREMENTAL and as_of is not None:
        raise ValueError("an incremental read takes begin and end, not as_of")
    if query_type != INCREMENTAL and (begin is not None or end is not None):
        raise ValueError(f"begin and end are for incremental reads, not {query_type} reads")
    for label, value in (("as_of", as_of), ("begin", begin), ("end", end)):
        if value is not None and not is_instant_time(value):
            raise ValueError(f"{label} must be an instant time (yyyyMMddHHmmssSSS), not {value!r}")


def resolve_table(source: CatalogSource, database: str, table: str, query_type: str) -> tuple[HudiTableInfo, str]:
    """The Hudi table to read and the query type to read it with. The ``_ro``/``_rt`` tables of a
    MERGE_ON_READ table name the table that owns the files; a snapshot read of ``_ro`` is read-optimized.

    Raises:
        UnsupportedReadError: the table is not a Hudi table.
    """
    info = source.table(database, table)
    owner = info.parameters.get(VIEW_OF_PARAM)
    if owner:
        if info.parameters.get(QUERY_AS_RO_TABLE) == "true" and query_type == SNAPSHOT:
            query_type = READ_OPTIMIZED
        log.debug("%s reads %s.%s (%s)", info.qualified_name, info.database, owner, query_type)
        info = source.table(info.database, owner)
    if info.table_type not in (COPY_ON_WRITE, MERGE_ON_READ):
        raise UnsupportedReadError(f"{info.qualified_name} is not a Hudi table (no hoodie.table.type)")
    if not info.location:
        raise UnsupportedReadError(f"{info.qualified_name} has no location")
    return info, query_type


def plan_read(
    source: CatalogSource,
    name: str,
    *,
    where: str | None = None,
    as_of: str | None = None,
    query_type: str = SNAPSHOT,
    begin: str | None = None,
    end: str | None = None,
) -> ReadPlan:
    """The slices a read of table ``name`` (``"db.table"``) opens, from the catalog's answers alone.

    Raises:
        ValueError: a malformed argument (name, query type, instant time, arguments of another query type).
        UnsupportedReadError: the table is not a Hudi table, or a base file is in a format no reader here
            reads.
    """
    _check_arguments(query_type, as_of, begin, end)
    info, query_type = resolve_table(source, *split_name(name), query_type)
    database, table = info.database, info.name
    partitions = {p.path: p for p in source.partitions(database, table, where)}
    paths = sorted(partitions) if where else None
    options: dict[str, str] = {}
    commit_range = None
    if query_type == INCREMENTAL:
        begin, end = begin or EARLIEST_INSTANT, end or source.latest_commit(database, table)
        if end is None or end <= begin:
            found = []
        else:
            groups = source.file_groups_changed(database, table, begin, end)
            found = [
                s
                for s in source.latest_file_slices(database, table, paths, end)
                if (s.partition_path, s.file_id) in groups
            ]
            commit_range = (begin, end)
            options = {START_TIMESTAMP_OPTION: begin, END_TIMESTAMP_OPTION: end}
    else:
        found = source.latest_file_slices(database, table, paths, as_of)
        latest = as_of or source.latest_commit(database, table)
        options = {END_TIMESTAMP_OPTION: latest} if latest else {}
    slices = []
    for s in found:
        partition = partitions.get(s.partition_path)
        if partition is None:  # a partition the where clause pruned
            continue
        logs = () if query_type == READ_OPTIMIZED else tuple(_relative(s.partition_path, n) for n in s.log_files)
        if s.base_file is None and not logs:
            continue
        if s.base_file is not None and not s.base_file.endswith(HUDI_BASE_FORMATS):
            raise UnsupportedReadError(
                f"{info.qualified_name}: base file {s.base_file} is in a format neither "
                f"Spark's parquet reader nor the hudi file group reader reads"
            )
        base = None if s.base_file is None else _relative(s.partition_path, s.base_file)
        slices.append(SliceRead(partition, base, logs))
    log.info(
        "%s read of %s%s: %d partitions, %d file slices (%d by Spark's parquet reader)",
        query_type,
        info.qualified_name,
        f" as of {as_of}" if as_of else "",
        len(partitions),
        len(slices),
        sum(s.by_spark for s in slices),
    )
    return ReadPlan(info, query_type, tuple(slices), options, commit_range, where)


def _relative(partition_path: str, name: str) -> str:
    return f"{partition_path}/{name}" if partition_path else name
