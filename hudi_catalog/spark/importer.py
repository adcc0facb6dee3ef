"""``hudi-metastore import PATH --spark``: the import with the instant files read and decoded in Spark tasks.

The driver lists the timeline (``timeline_entries``: one listing of the timeline folder, plus the archived
timeline, whose instants come with their bytes) and hands the entries to Spark in timeline order. Each task
reads its instants' files from the table's storage and decodes them (``decode_entry``, the same code
as the single-process import); the decoded instants (their bytes and the compact metadata the snapshot
applies, without the writer's schema) stay cached in the executors. A first job brings back one line per
instant: its failure, if any, and whether it holds a schema. Only when every instant decoded does the driver
write anything: it pulls the decoded instants partition by partition, in timeline order
(``toLocalIterator``), and writes them with ``HudiImporter.write``, in batches of one transaction each,
exactly as the single-process import does. So the result is the same, a re-run records only new instants,
and a corrupt instant fails the import, naming its file, with the catalog untouched.

pyspark is imported only when a session is made or used, so ``hudi_catalog`` imports without it. With a
cluster master the executors need this package (``pip install hudi-metastore``) and read access to the
table's storage; the catalog database is written by the driver only.
"""

from __future__ import annotations

import logging
import math
import os
import sys
from collections.abc import Iterable, Iterator
from functools import partial

from ..catalog import Catalog
from ..errors import HudiMetadataError, StorageError
from ..hudi.properties import TableConfig
from ..hudi.storage import open_path
from ..hudi.timeline_source import DecodedInstant, TableSource, TimelineEntry, decode_entry, timeline_entries
from ..import_progress import ImportProgress, ImportResult

log = logging.getLogger(__name__)

INSTANTS_PER_TASK = 250
"""How many instants one Spark task reads and decodes (there are at least as many tasks as cores)."""
APP_NAME = "hudi-metastore-import"


class SparkUnavailableError(ImportError):
    """``--spark`` was asked for and PySpark cannot be imported."""


def spark_session(master: str | None = None):
    """A SparkSession for the import (``master``: e.g. ``local[4]``, ``spark://host:7077``, ``yarn``; ``None``:
    what ``spark-submit`` or the Spark configuration says, else ``local[*]``).

    Raises:
        SparkUnavailableError: PySpark is not installed.
    """
    try:
        from pyspark.sql import SparkSession
    except ImportError as error:
        raise SparkUnavailableError(
            "the Spark import needs PySpark, which is not installed: pip install 'hudi-metastore[spark]'"
        ) from error
    if master is None or master.startswith("local"):
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # local workers run this interpreter
    if logging.getLogger("py4j").level == logging.NOTSET:
        logging.getLogger("py4j").setLevel(logging.WARNING)  # one INFO line per gateway connection otherwise
    builder = SparkSession.builder.appName(APP_NAME).config("spark.ui.showConsoleProgress", "false")
    if master:
        builder = builder.master(master)
    return builder.getOrCreate()


class SparkHudiImporter:
    """The import with reading and decoding in Spark tasks; the writing is the catalog's
    (``Catalog.importer``), as for the single-process import.

    ``spark``: the session to use (kept open); without it one is made with ``master`` and stopped after
    the import. ``batches``: ``batch_instants`` and ``batch_files`` of ``Catalog.importer``.
    """

    def __init__(
        self,
        catalog: Catalog,
        spark=None,
        master: str | None = None,
        instants_per_task: int = INSTANTS_PER_TASK,
        progress: ImportProgress | None = None,
        **batches: int,
    ) -> None:
        self.writer = catalog.importer(progress, **batches)
        self.progress = self.writer.progress
        self.spark = spark
        self.master = master
        self.instants_per_task = instants_per_task

    def run(self, path: str, database: str | None = None, table: str | None = None) -> ImportResult:
        source = TableSource.open(path)
        entries = timeline_entries(source.fs, source.base, source.config)
        self.progress.listed(len(entries))
        spark = self.spark or spark_session(self.master)
        try:
            return self._run(spark, source, entries, database, table)
        finally:
            if self.spark is None:
                spark.stop()

    def _run(
        self,
        spark,
        source: TableSource,
        entries: list[TimelineEntry],
        database: str | None,
        table: str | None,
    ) -> ImportResult:
        from pyspark import StorageLevel

        context = spark.sparkContext
        location = source.location
        tasks = max(context.defaultParallelism, math.ceil(len(entries) / self.instants_per_task))
        decoded = (
            context.parallelize(list(enumerate(entries)), max(1, min(tasks, len(entries))))
            .mapPartitions(partial(_decode_task, location, source.config))
            .persist(StorageLevel.MEMORY_AND_DISK)
        )
        try:
            outline = sorted(decoded.map(_outline).collect(), key=lambda line: line[0])
            failures = [failure for _, _, _, failure in outline if failure is not None]
            if failures:  # the first in timeline order, as the single-process import reports it
                kind, message = failures[0]
                raise (StorageError if kind == StorageError.__name__ else HudiMetadataError)(message)
            self.progress.decoded(len(outline))
            log.info(
                "decoded %d instants of %s in %d Spark tasks", len(outline), source.base, decoded.getNumPartitions()
            )
            with_schema = [index for index, _, has_schema, _ in outline if has_schema]
            schema_instant = None
            if with_schema:
                latest = with_schema[-1]
                schema_instant = decoded.filter(lambda row: row[0] == latest).first()[1]
            instants = (row[1] for row in decoded.toLocalIterator(prefetchPartitions=True))
            return self.writer.write(
                source, database, table, [instant for _, instant, _, _ in outline], schema_instant, instants
            )
        finally:
            decoded.unpersist()


_Row = tuple[int, DecodedInstant | None, tuple[str, str] | None]
"""A task's answer for one instant: its index in the timeline, and the instant decoded or the failure."""


def _decode_task(location: str, config: TableConfig, rows: Iterable[tuple[int, TimelineEntry]]) -> Iterator[_Row]:
    """A Spark task: read and decode its instants; a failure is returned (kind, message), not raised, so the
    driver reports the first one in timeline order, as the single-process import would."""
    fs, base = open_path(location)
    for index, entry in rows:
        try:
            yield index, decode_entry(entry, entry.read(fs, base, config), config.version), None
        except (HudiMetadataError, StorageError) as error:
            yield index, None, (type(error).__name__, str(error))


def _outline(row: _Row) -> tuple:
    index, decoded, failure = row
    if decoded is None:
        return index, None, False, failure
    return index, decoded.instant, decoded.has_schema, None
