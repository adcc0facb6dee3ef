"""A table's partitions and column statistics, copied in batches.

The partition names of both sides say what is new and what is gone; the partitions both have are read from
both in batches and altered on the target where they differ. A batch the target refuses is added again one
partition at a time, so one bad partition (a name the target cannot hold, a location it refuses) fails
alone. Partitions gone from the source are dropped from the target by name with ``deleteData=false``.
Column statistics are read with the request calls (``get_table_statistics_req``,
``get_partitions_statistics_req``) and written where they differ (``update_table_column_statistics``,
``set_aggr_stats_for`` per batch).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from ..idl import hive
from .endpoint import KEEP_STATS, Endpoint, TableRef
from .forms import HUDI_TABLE_VERSION, SLICE_STATISTICS, computed_by_target, same
from .progress import CopyProgress
from .report import Action, Report
from .selection import chunks

log = logging.getLogger(__name__)

ENGINE = "hive"
"""The engine column statistics are kept for (Hive 4 keeps them per engine; older servers ignore it)."""


class PartitionCopier:
    def __init__(
        self,
        source: Endpoint,
        target: Endpoint,
        report: Report,
        batch_size: int,
        progress: CopyProgress,
    ) -> None:
        self.source, self.target, self.report = source, target, report
        self.batch_size, self.progress = batch_size, progress
        self.failed = 0
        """Partitions of the table copied last that the target refused."""

    def plan(self, ref: TableRef, table: Any, exists: bool) -> None:
        """Count what a copy of the table's partitions would do (names only)."""
        if not table.partitionKeys:
            return
        names = self._names(self.source, ref)
        present = self._names(self.target, ref) if exists else {}
        self.report.tally("added", sum(key not in present for key in names))
        self.report.tally("dropped", sum(key not in names for key in present))

    def copy(self, ref: TableRef, table: Any, fresh: bool) -> bool:
        """Bring the target's partitions and statistics of the table to the source's; whether anything was
        written. ``fresh``: the target's table was just created (nothing to compare)."""
        self.failed = 0
        changed = self._table_statistics(ref, table, fresh)
        if not table.partitionKeys:
            return changed
        # this server derives a Hudi table's basic statistics from its file slices: they are left to it
        derived = self.target.is_hudi_metastore and HUDI_TABLE_VERSION in (table.parameters or {})
        ignored = SLICE_STATISTICS if derived else frozenset()
        names = self._names(self.source, ref)
        present = {} if fresh else self._names(self.target, ref)
        new = [name for key, name in names.items() if key not in present]
        common = [(name, present[key]) for key, name in names.items() if key in present]
        gone = sorted(name for key, name in present.items() if key not in names)
        for batch in chunks(new, self.batch_size):
            self._add(ref, batch, ignored)
            changed = True
        for pairs in chunks(common, self.batch_size):
            changed |= self._alter_changed(ref, pairs, ignored)
        for batch in chunks(gone, self.batch_size):
            self.target.write(
                "drop_partitions_req",
                hive.DropPartitionsRequest(
                    dbName=ref.qualified_database,
                    tblName=ref.name,
                    parts=hive.RequestPartsSpec(names=batch),
                    deleteData=False,
                    ifExists=True,
                    needResult=False,
                ),
            )
            self.report.tally("dropped", len(batch))
            changed = True
        columns = [c.name for c in table.sd.cols or []]
        if columns:
            pairs = [*((name, self._target_name(name)) for name in new), *common]
            added = set(new)
            for pair_batch in chunks(pairs, self.batch_size):
                fresh_batch = fresh or all(name in added for name, _ in pair_batch)
                changed |= self._partition_statistics(ref, columns, pair_batch, fresh_batch)
        return changed

    # -- partitions -----------------------------------------------------------------------------------

    def _names(self, side: Endpoint, ref: TableRef) -> dict[str, str]:
        """The side's partition names by their ``name_key``."""
        return {name_key(n): n for n in side.read("get_partition_names", ref.qualified_database, ref.name, -1)}

    def _target_name(self, source_name: str) -> str:
        """The name the target gives a partition added under ``source_name``: Apache Hive Metastore writes the
        keys in lower case, this server as the table has them."""
        return source_name if self.target.is_hudi_metastore else name_key(source_name)

    def _read(self, side: Endpoint, ref: TableRef, names: Sequence[str]) -> list[Any]:
        return side.read("get_partitions_by_names", ref.qualified_database, ref.name, list(names))

    def _add(self, ref: TableRef, names: Sequence[str], ignored: frozenset[str]) -> None:
        partitions = self._read(self.source, ref, names)
        for partition in partitions:
            partition.catName = None if ref.catalog == "hive" else ref.catalog
            for key in ignored:
                (partition.parameters or {}).pop(key, None)
        try:
            self.target.write("add_partitions", partitions)
            self.report.tally("added", len(partitions))
        except (hive.MetaException, hive.InvalidObjectException, hive.AlreadyExistsException) as error:
            if len(partitions) == 1:
                self._failed(ref, partitions[0], error)
                return
            log.info(
                "%s: the target refused a batch of %d partitions; adding them one by one", ref.display, len(partitions)
            )
            for partition in partitions:
                try:
                    self.target.write("add_partitions", [partition])
                    self.report.tally("added", 1)
                except (hive.MetaException, hive.InvalidObjectException, hive.AlreadyExistsException) as one:
                    self._failed(ref, partition, one)
        # a metastore computes fast statistics (numFiles, totalSize) for partitions whose folders exist: the
        # source's values are put back, so the copy holds what the source does
        self._alter_differing(ref, partitions, [self._target_name(n) for n in names], ignored)
        self.progress.partitions_done(len(partitions))

    def _failed(self, ref: TableRef, partition: Any, error: Exception) -> None:
        self.failed += 1
        self.report.tally("failed", 1)
        self.report.add(
            "partition",
            f"{ref.display} {partition.values}",
            Action.FAILED,
            f"{type(error).__name__}: {getattr(error, 'message', error)}",
        )

    def _alter_changed(self, ref: TableRef, pairs: Sequence[tuple[str, str]], ignored: frozenset[str]) -> bool:
        """Alter the partitions of ``pairs`` (source name, target name) that differ on the target."""
        sources = self._read(self.source, ref, [s for s, _ in pairs])
        altered = self._alter_differing(ref, sources, [t for _, t in pairs], ignored)
        self.report.tally("altered", altered)
        self.progress.partitions_done(len(pairs))
        return bool(altered)

    def _alter_differing(
        self, ref: TableRef, sources: Sequence[Any], target_names: Sequence[str], ignored: frozenset[str]
    ) -> int:
        """Alter to ``sources`` the partitions the target holds differently (read by ``target_names``); how many."""
        targets = {tuple(p.values): p for p in self._read(self.target, ref, target_names)}
        changed = []
        for partition in sources:
            target = targets.get(tuple(partition.values))
            if target is not None and not same(partition, target, ignored | computed_by_target(partition, target)):
                changed.append(partition)
        if changed:
            self.target.write(
                "alter_partitions_with_environment_context", ref.qualified_database, ref.name, changed, KEEP_STATS
            )
        return len(changed)

    # -- column statistics ------------------------------------------------------------------------------

    def _table_statistics(self, ref: TableRef, table: Any, fresh: bool) -> bool:
        columns = [c.name for c in (table.sd.cols if table.sd else None) or []]
        if not columns or table.tableType == "VIRTUAL_VIEW":
            return False
        request = hive.TableStatsRequest(
            dbName=ref.qualified_database, tblName=ref.name, colNames=columns, engine=ENGINE
        )
        source = self.source.read("get_table_statistics_req", request).tableStats or []
        if not source:
            return False
        target = [] if fresh else self.target.read("get_table_statistics_req", request).tableStats or []
        if same(_by_column(source), _by_column(target)):
            return False
        desc = hive.ColumnStatisticsDesc(isTblLevel=True, dbName=ref.qualified_database, tableName=ref.name)
        self.target.write(
            "update_table_column_statistics", hive.ColumnStatistics(statsDesc=desc, statsObj=source, engine=ENGINE)
        )
        return True

    def _partition_statistics(
        self, ref: TableRef, columns: list[str], pairs: Sequence[tuple[str, str]], fresh: bool
    ) -> bool:
        """Write the column statistics of the partitions of ``pairs`` (source name, target name) that differ."""
        source = self._statistics(self.source, ref, columns, [s for s, _ in pairs])
        if not source:
            return False
        target = (
            {}
            if fresh
            else {name_key(k): v for k, v in self._statistics(self.target, ref, columns, [t for _, t in pairs]).items()}
        )
        target_names = dict(pairs)
        changed = [
            hive.ColumnStatistics(
                statsDesc=hive.ColumnStatisticsDesc(
                    isTblLevel=False, dbName=ref.qualified_database, tableName=ref.name, partName=target_names[name]
                ),
                statsObj=stats,
                engine=ENGINE,
            )
            for name, stats in sorted(source.items())
            if stats
            and name in target_names
            and not same(_by_column(stats), _by_column(target.get(name_key(name)) or []))
        ]
        if not changed:
            return False
        self.target.write(
            "set_aggr_stats_for", hive.SetPartitionsStatsRequest(colStats=changed, needMerge=False, engine=ENGINE)
        )
        self.report.tally("statistics", len(changed))
        return True

    @staticmethod
    def _statistics(side: Endpoint, ref: TableRef, columns: list[str], names: list[str]) -> dict[str, list[Any]]:
        request = hive.PartitionsStatsRequest(
            dbName=ref.qualified_database, tblName=ref.name, colNames=columns, partNames=names, engine=ENGINE
        )
        return side.read("get_partitions_statistics_req", request).partStats or {}


def _by_column(stats: Sequence[Any]) -> dict[str, Any]:
    return {s.colName.lower(): s for s in stats}


def name_key(name: str) -> str:
    """A partition name as both sides can be matched on: keys in lower case (Apache Hive Metastore writes them
    so, this server as the table has them), values as they are."""
    return "/".join(f"{key.lower()}={value}" for key, _, value in (part.partition("=") for part in name.split("/")))
