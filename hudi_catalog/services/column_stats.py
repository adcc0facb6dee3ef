"""Column statistics of tables and partitions (Hive's column statistics calls).

Statistics are kept per table or partition, column and engine. Writing them marks the columns in the
owner's ``COLUMN_STATS_ACCURATE`` parameter, as Hive does, in the same transaction; they follow a renamed
table or partition (they hang off its id) and go with a dropped one, and ``TableService.alter`` drops those
of a column that is dropped or changes type.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection

from ..column_stats import check_kind, extrapolated, merge, with_accurate_columns
from ..errors import CatalogError, NoSuchObjectError, NoSuchTableError, UnknownColumnError
from ..model import ColumnStats, ColumnStatsSet, Table
from ..names import normalize
from ..partition_names import make_partition_name, values_for_keys
from ..read_cache import RevisionCache, digest
from ..store import column_stats as stats_store
from ..store import params, schema
from ..store import partitions as partition_store
from ..store import tables as table_store
from ..store.tables import TableRecord
from .context import ServiceContext

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AggregateStats:
    """``get_aggr_stats_for``: per column over the partitions, and how many partitions had them all."""

    columns: list[ColumnStats]
    partitions_found: int


@dataclass(frozen=True)
class PartitionStats:
    """One partition's statistics as ``of_partitions_revised`` reads them: every column's, or None when the
    caller holds them already at this ``revision`` of the partition."""

    name: str
    part_id: int
    revision: int
    columns: list[ColumnStats] | None


def _normalized(stats: ColumnStatsSet) -> ColumnStatsSet:
    columns = [
        ColumnStats(**{**vars(c), "column": c.column.lower(), "column_type": c.column_type.lower()})
        for c in stats.columns
    ]
    return ColumnStatsSet(
        normalize(stats.database),
        normalize(stats.table),
        stats.partition,
        columns,
        stats.last_analyzed,
        stats.engine or "hive",
    )


class ColumnStatsService:
    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx
        # get_aggr_stats_for answers by (tbl_id, engine, partitions, columns), at tbl.partitions_revision
        self._aggregates: RevisionCache[AggregateStats] = RevisionCache(ctx.cache_memory)

    # -- write --------------------------------------------------------------------------------------

    def update(self, stats: ColumnStatsSet) -> None:
        """Write the statistics of some columns of a table, or of a partition (``stats.partition``).

        Raises:
            NoSuchTableError / NoSuchObjectError: the table or partition does not exist.
            UnknownColumnError: a column is not in the table.
            InvalidInputError: statistics do not fit their column's type (Hive keeps these, then fails to
                read them back).
        """
        self.update_many([stats], merge_existing=False)

    def update_many(self, sets: Sequence[ColumnStatsSet], merge_existing: bool) -> None:
        """Write several sets in one transaction (``set_aggr_stats_for``); with ``merge_existing``, each
        column's statistics merge with those already kept (Hive's ``needMerge``)."""
        with self.ctx.store.write() as conn:
            for stats in sets:
                self._write(conn, _normalized(stats), merge_existing)

    def _write(self, conn: Connection, stats: ColumnStatsSet, merge_existing: bool) -> None:
        row, table = self._table(conn, stats.database, stats.table, lock=True)
        self._check_columns(table, stats.columns)
        last_analyzed = stats.last_analyzed or self.ctx.now()
        columns = stats.columns
        if stats.partition is None:
            if merge_existing:
                columns = self._merged(
                    columns, stats_store.read_table(conn, row.tbl_id, stats.engine, [c.column for c in columns])
                )
            stats_store.write_table(conn, row.tbl_id, stats.engine, last_analyzed, columns)
            table_store.write_parameters(
                conn, row.tbl_id, with_accurate_columns(table.parameters, added=[c.column for c in columns])
            )
            log.info("wrote statistics of %d column(s) of %s", len(columns), table.qualified_name)
            return
        part_id = self._partition_id(conn, row.tbl_id, table, stats.partition)
        if part_id is None:
            raise NoSuchObjectError("Partition for which stats is gathered doesn't exist.")
        if merge_existing:
            existing = stats_store.read_partitions(
                conn, row.tbl_id, [part_id], stats.engine, [c.column for c in columns]
            )
            columns = self._merged(columns, existing.get(part_id, []))
        stats_store.write_partitions(conn, row.tbl_id, stats.engine, [(part_id, last_analyzed, columns)])
        part_params = params.read_params(conn, schema.partition_params, part_id)
        partition_store.write_parameters(
            conn, row.tbl_id, {part_id: with_accurate_columns(part_params, added=[c.column for c in columns])}
        )
        log.info(
            "wrote statistics of %d column(s) of %s partition %s", len(columns), table.qualified_name, stats.partition
        )

    @staticmethod
    def _merged(new: Sequence[ColumnStats], existing: Sequence[tuple[ColumnStats, int]]) -> list[ColumnStats]:
        old = {s.column: s for s, _ in existing}
        return [merge(old[s.column], s) if s.column in old else s for s in new]

    @staticmethod
    def _check_columns(table: Table, columns: Sequence[ColumnStats]) -> None:
        types = {c.name.lower(): c.type for c in table.sd.columns}
        for stats in columns:
            if stats.column not in types:
                raise UnknownColumnError(
                    f"Column {stats.column} doesn't exist in table {table.name} in database {table.database}"
                )
            check_kind(stats, types[stats.column], table.qualified_name)

    # -- read ---------------------------------------------------------------------------------------

    def of_table(self, database: str, table: str, columns: Sequence[str], engine: str = "hive") -> ColumnStatsSet:
        """The table's statistics of those ``columns`` that have any (``get_table_statistics_req``)."""
        with self.ctx.store.read() as conn:
            row, model = self._table(conn, database, table)
            found = stats_store.read_table(conn, row.tbl_id, engine, [c.lower() for c in columns])
        return ColumnStatsSet(
            model.database, model.name, None, [s for s, _ in found], max((t for _, t in found), default=0), engine
        )

    def of_partitions(
        self, database: str, table: str, part_names: Sequence[str], columns: Sequence[str], engine: str = "hive"
    ) -> dict[str, ColumnStatsSet]:
        """``{partition name: statistics}`` of the named partitions that have statistics of any of
        ``columns`` (``get_partitions_statistics_req``)."""
        with self.ctx.store.read() as conn:
            row, model = self._table(conn, database, table)
            ids = partition_store.ids_by_name(conn, row.tbl_id, part_names)
            found = stats_store.read_partitions(conn, row.tbl_id, ids.values(), engine, [c.lower() for c in columns])
        names = {part_id: name for name, part_id in ids.items()}
        return {
            names[part_id]: ColumnStatsSet(
                model.database, model.name, names[part_id], [s for s, _ in entries], max(t for _, t in entries), engine
            )
            for part_id, entries in found.items()
        }

    def partitions_revision(self, database: str, table: str) -> int:
        """The table's partitions revision, raised by every change of its partitions or their statistics:
        an answer read after it was read is at least that new, so it may be cached under it."""
        with self.ctx.store.read() as conn:
            return self._table(conn, database, table)[0].partitions_revision

    def of_partitions_revised(
        self, database: str, table: str, part_names: Sequence[str], engine: str, held: Callable[[int, int], bool]
    ) -> list[PartitionStats]:
        """The statistics of every column of the named partitions, by partition, with each partition's id and
        revision (every change of a partition's statistics raises it), for a caller that caches them:
        ``held(part_id, revision)`` says it has them already, and those are not read. Partitions that do not
        exist are left out; one transaction reads the revisions and the statistics."""
        with self.ctx.store.read() as conn:
            row, _ = self._table(conn, database, table)
            revisions = partition_store.ids_and_revisions(conn, row.tbl_id, part_names)
            wanted = [part_id for part_id, revision in revisions.values() if not held(part_id, revision)]
            found = stats_store.read_partitions(conn, row.tbl_id, wanted, engine) if wanted else {}
        fetched = set(wanted)
        return [
            PartitionStats(
                name, part_id, revision, [s for s, _ in found.get(part_id, [])] if part_id in fetched else None
            )
            for name, (part_id, revision) in revisions.items()
        ]

    def aggregate(
        self, database: str, table: str, part_names: Sequence[str], columns: Sequence[str], engine: str = "hive"
    ) -> AggregateStats:
        """Each column's statistics over the named partitions (``get_aggr_stats_for``), aggregated by the
        database and kept in a read cache until the table's partitions change.

        Columns no partition has statistics of are left out; ``partitions_found`` counts the partitions
        that have statistics of every requested column. Counts are extrapolated to partitions without
        statistics as Hive does (``column_stats.extrapolated``).
        """
        wanted = list(dict.fromkeys(c.lower() for c in columns))
        if not wanted or not part_names:
            return AggregateStats([], 0)
        with self.ctx.store.read() as conn:
            row, _ = self._table(conn, database, table)
            key = (row.tbl_id, digest(engine, tuple(part_names), tuple(wanted)))
            cached = self._aggregates.get(key, row.partitions_revision)
            if cached is not None:
                return cached
            ids = list(partition_store.ids_by_name(conn, row.tbl_id, part_names).values())
            found = stats_store.aggregate_partitions(conn, row.tbl_id, ids, engine, wanted)
            complete = stats_store.complete_partitions(conn, row.tbl_id, ids, engine, wanted)
        order = {c: i for i, c in enumerate(wanted)}
        result = AggregateStats(
            [extrapolated(s, n, len(part_names)) for s, n in sorted(found, key=lambda f: order[f[0].column])], complete
        )
        self._aggregates.put(key, row.partitions_revision, result)
        return result

    # -- delete -------------------------------------------------------------------------------------

    def delete(
        self, database: str, table: str, partition: str | None, column: str | None, engine: str | None = None
    ) -> None:
        """Delete the statistics of one column (or, ``column`` None, of every column) of a table or of one
        of its partitions, and unmark them in ``COLUMN_STATS_ACCURATE``.

        Raises:
            NoSuchObjectError: the table or partition does not exist, or the column has no statistics (Hive's
                wording for each).
        """
        column = column.lower() if column is not None else None
        with self.ctx.store.write() as conn:
            row = table_store.find_row(conn, normalize(database), normalize(table), lock=True)
            if row is None:
                raise NoSuchTableError(f"Table {table}  for which stats deletion is requested doesn't exist")
            model = self.ctx.table_model(conn, row)
            columns = None if column is None else [column]
            removed = columns or [c.name.lower() for c in model.sd.columns]
            where = f"db={model.database} table={model.name}"
            if partition is None:
                deleted = stats_store.delete_table(conn, row.tbl_id, engine, columns)
                table_store.write_parameters(conn, row.tbl_id, with_accurate_columns(model.parameters, removed=removed))
            else:
                part_id = self._partition_id(conn, row.tbl_id, model, partition)
                if part_id is None:
                    raise NoSuchObjectError(
                        f"Partition {partition} for which stats deletion is requested doesn't exist"
                    )
                deleted = stats_store.delete_partitions(conn, row.tbl_id, [part_id], engine, columns)
                part_params = params.read_params(conn, schema.partition_params, part_id)
                partition_store.write_parameters(
                    conn, row.tbl_id, {part_id: with_accurate_columns(part_params, removed=removed)}
                )
                where += f" partition={partition}"
            if not deleted and column is not None:
                raise NoSuchObjectError(f"Column stats doesn't exist for {where} col={column}")
        log.info("deleted statistics of %s%s", model.qualified_name, f" partition {partition}" if partition else "")

    # -- helpers ------------------------------------------------------------------------------------

    def _table(self, conn: Connection, database: str, table: str, lock: bool = False) -> tuple[TableRecord, Table]:
        row = table_store.find_row(conn, normalize(database), normalize(table), lock=lock)
        if row is None:
            raise NoSuchTableError(
                f"Specified database/table does not exist : {normalize(database)}.{normalize(table)}"
            )
        return row, self.ctx.table_model(conn, row)

    @staticmethod
    def _partition_id(conn: Connection, tbl_id: int, table: Table, part_name: str) -> int | None:
        """The id of the partition named ``part_name`` (key names in any case), or None."""
        keys = [k.name for k in table.partition_keys]
        try:
            name = make_partition_name(keys, values_for_keys(keys, part_name))
        except CatalogError:
            name = part_name
        return partition_store.ids_by_name(conn, tbl_id, [name]).get(name)
