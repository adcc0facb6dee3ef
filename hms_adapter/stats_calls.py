"""The HMS column statistics calls of ``MetastoreHandler``: convert, call ``Catalog.column_stats``, convert
back."""

from __future__ import annotations

from hudi_catalog import Catalog
from hudi_catalog.authorization import ObjectType, Operation
from hudi_catalog.catalog_scope import current_catalog
from hudi_catalog.errors import InvalidInputError, NoSuchObjectError
from hudi_catalog.model import ColumnStatsSet

from .access_rules import access
from .convert.column_stats import (
    MalformedStatsError,
    from_thrift_column_statistics,
    to_thrift_column_statistics,
    to_thrift_stats_obj,
)
from .convert.names import strip_catalog
from .convert.stats_wire import EncodedPartitionStats, StatsEncodings
from .idl import hive

HIVE_ENGINE = "hive"


def _engine(req) -> str:
    return getattr(req, "engine", None) or HIVE_ENGINE


def _stats_sets(stats_list, engine: str | None = None) -> list[ColumnStatsSet]:
    try:
        return [from_thrift_column_statistics(s, engine) for s in stats_list or []]
    except MalformedStatsError as e:
        raise InvalidInputError(str(e)) from e


class StatsCalls:
    """Mixed into ``MetastoreHandler``."""

    catalog: Catalog
    stats_encodings: StatsEncodings

    @access(Operation.WRITE, ObjectType.TABLE)
    def update_table_column_statistics(self, stats_obj):
        self._update(stats_obj, table_level=True)
        return True

    @access(Operation.WRITE, ObjectType.TABLE)
    def update_partition_column_statistics(self, stats_obj):
        self._update(stats_obj, table_level=False)
        return True

    def _update(self, stats_obj, table_level: bool) -> None:
        (stats,) = _stats_sets([stats_obj])
        if (stats.partition is None) != table_level:
            level = "table" if table_level else "partition"
            raise InvalidInputError(f"Column statistics for the {level} call must be {level}-level statistics")
        self.catalog.column_stats.update(stats)

    @access(Operation.WRITE, ObjectType.TABLE)
    def update_table_column_statistics_req(self, req):
        """Hive 4's form of both update calls (the request's engine applies to every set)."""
        self.catalog.column_stats.update_many(_stats_sets(req.colStats, _engine(req)), merge_existing=False)
        return hive.SetPartitionsStatsResponse(result=True)

    @access(Operation.WRITE, ObjectType.TABLE)
    def update_partition_column_statistics_req(self, req):
        return self.update_table_column_statistics_req(req)

    @access(Operation.WRITE, ObjectType.TABLE)
    def set_aggr_stats_for(self, request):
        """Statistics of several tables or partitions in one transaction; ``needMerge`` merges each column
        with the statistics already kept."""
        sets = _stats_sets(request.colStats, _engine(request))
        self.catalog.column_stats.update_many(sets, merge_existing=bool(request.needMerge))
        return True

    @access(Operation.READ, ObjectType.TABLE)
    def get_table_column_statistics(self, db_name, tbl_name, col_name):
        """A column without statistics is ``NoSuchObjectException`` (Hive 2.3 answers it with no result)."""
        stats = self.catalog.column_stats.of_table(strip_catalog(db_name) or "", tbl_name, [col_name or ""])
        if not stats.columns:
            raise NoSuchObjectError(
                f"Column stats doesn't exist for db={stats.database} table={stats.table} col={(col_name or '').lower()}"
            )
        return to_thrift_column_statistics(stats)

    @access(Operation.READ, ObjectType.TABLE)
    def get_partition_column_statistics(self, db_name, tbl_name, part_name, col_name):
        found = self.catalog.column_stats.of_partitions(strip_catalog(db_name) or "", tbl_name, [part_name], [col_name])
        if part_name not in found:
            raise NoSuchObjectError(
                f"Column stats doesn't exist for db={strip_catalog(db_name)} table={tbl_name} "
                f"partition={part_name} col={(col_name or '').lower()}"
            )
        return to_thrift_column_statistics(found[part_name])

    @access(Operation.READ, ObjectType.TABLE)
    def get_table_statistics_req(self, request):
        stats = self.catalog.column_stats.of_table(
            strip_catalog(request.dbName) or "", request.tblName, list(request.colNames or []), _engine(request)
        )
        return hive.TableStatsResult(tableStats=[to_thrift_stats_obj(s) for s in stats.columns])

    @access(Operation.READ, ObjectType.TABLE)
    def get_partitions_statistics_req(self, request):
        """Answered from cached encodings: the whole answer while the table's partitions are unchanged,
        else each partition's at its revision (``convert.stats_wire``)."""
        engine = _engine(request)
        database, table = strip_catalog(request.dbName) or "", request.tblName
        names, columns = list(request.partNames or []), list(dict.fromkeys(c.lower() for c in request.colNames or []))
        revision = self.catalog.column_stats.partitions_revision(database, table)
        key = (current_catalog(), (database or "").lower(), (table or "").lower(), engine, tuple(names), tuple(columns))
        answer = self.stats_encodings.answer(key, revision)
        if answer is not None:
            return answer
        held: dict[int, dict[str, bytes]] = {}

        def holds(part_id: int, part_revision: int) -> bool:
            found = self.stats_encodings.get(part_id, engine, part_revision)
            if found is not None:
                held[part_id] = found
            return found is not None

        entries = []
        for part in self.catalog.column_stats.of_partitions_revised(database, table, names, engine, holds):
            encodings = (
                held[part.part_id]
                if part.columns is None
                else self.stats_encodings.encode(part.part_id, engine, part.revision, part.columns)
            )
            chosen = [encodings[c] for c in columns if c in encodings]
            if chosen:
                entries.append((part.name, chosen))
        return self.stats_encodings.keep_answer(key, revision, EncodedPartitionStats(entries))

    @access(Operation.READ, ObjectType.TABLE)
    def get_aggr_stats_for(self, request):
        result = self.catalog.column_stats.aggregate(
            strip_catalog(request.dbName) or "",
            request.tblName,
            list(request.partNames or []),
            list(request.colNames or []),
            _engine(request),
        )
        return hive.AggrStats(
            colStats=[to_thrift_stats_obj(s) for s in result.columns], partsFound=result.partitions_found
        )

    @access(Operation.WRITE, ObjectType.TABLE)
    def delete_table_column_statistics(self, db_name, tbl_name, col_name):
        self.catalog.column_stats.delete(strip_catalog(db_name) or "", tbl_name, None, col_name)
        return True

    @access(Operation.WRITE, ObjectType.TABLE)
    def delete_partition_column_statistics(self, db_name, tbl_name, part_name, col_name):
        self.catalog.column_stats.delete(strip_catalog(db_name) or "", tbl_name, part_name, col_name)
        return True
