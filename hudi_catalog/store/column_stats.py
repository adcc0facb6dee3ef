"""Queries on ``tbl_col_stats`` and ``part_col_stats``: one row per column and engine."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from decimal import Decimal

from sqlalchemy import Connection, Table, delete, insert, select

from ..model import ColumnStats, StatsKind
from . import schema
from .batches import chunks

_t = schema.tbl_col_stats.c
_p = schema.part_col_stats.c

_LONG_KINDS = (StatsKind.LONG, StatsKind.DATE, StatsKind.TIMESTAMP)


def _row(stats: ColumnStats, engine: str, last_analyzed: int) -> dict:
    row = {
        "column_name": stats.column, "engine": engine, "column_type": stats.column_type, "kind": stats.kind.value,
        "long_low": None, "long_high": None, "double_low": None, "double_high": None, "decimal_low": None,
        "decimal_high": None, "num_nulls": stats.num_nulls, "num_distinct": stats.num_distinct,
        "num_trues": stats.num_trues, "num_falses": stats.num_falses, "max_length": stats.max_length,
        "avg_length": stats.avg_length, "bit_vectors": stats.bit_vectors, "histogram": stats.histogram,
        "last_analyzed": last_analyzed,
    }
    if stats.kind in _LONG_KINDS:
        row.update(long_low=stats.low, long_high=stats.high)
    elif stats.kind == StatsKind.DOUBLE:
        row.update(double_low=stats.low, double_high=stats.high)
    elif stats.kind == StatsKind.DECIMAL:
        row.update(decimal_low=None if stats.low is None else str(stats.low),
                   decimal_high=None if stats.high is None else str(stats.high))
    return row


def _model(row) -> ColumnStats:
    kind = StatsKind(row.kind)
    low = high = None
    if kind in _LONG_KINDS:
        low, high = row.long_low, row.long_high
    elif kind == StatsKind.DOUBLE:
        low, high = row.double_low, row.double_high
    elif kind == StatsKind.DECIMAL:
        low = None if row.decimal_low is None else Decimal(row.decimal_low)
        high = None if row.decimal_high is None else Decimal(row.decimal_high)
    return ColumnStats(
        column=row.column_name, column_type=row.column_type, kind=kind, num_nulls=row.num_nulls,
        num_distinct=row.num_distinct, low=low, high=high, num_trues=row.num_trues, num_falses=row.num_falses,
        max_length=row.max_length, avg_length=row.avg_length, bit_vectors=row.bit_vectors, histogram=row.histogram,
    )


def write_table(conn: Connection, tbl_id: int, engine: str, last_analyzed: int,
                stats: Sequence[ColumnStats]) -> None:
    """Replace the table's statistics of these columns."""
    delete_table(conn, tbl_id, engine, [s.column for s in stats])
    if stats:
        conn.execute(insert(schema.tbl_col_stats),
                     [{"tbl_id": tbl_id, **_row(s, engine, last_analyzed)} for s in stats])


def write_partitions(conn: Connection, tbl_id: int, engine: str,
                     stats: Sequence[tuple[int, int, Sequence[ColumnStats]]]) -> None:
    """Replace partitions' statistics of these columns: ``(part_id, last_analyzed, stats)`` triples."""
    for part_id, _, columns in stats:
        conn.execute(delete(schema.part_col_stats).where(
            _p.part_id == part_id, _p.engine == engine, _p.column_name.in_([c.column for c in columns])))
    rows = [{"part_id": part_id, "tbl_id": tbl_id, **_row(s, engine, last_analyzed)}
            for part_id, last_analyzed, columns in stats for s in columns]
    if rows:
        conn.execute(insert(schema.part_col_stats), rows)


def read_table(conn: Connection, tbl_id: int, engine: str,
               columns: Sequence[str] | None = None) -> list[tuple[ColumnStats, int]]:
    """``(statistics, last analyzed)`` of the table's columns (of those named), by column name."""
    query = select(schema.tbl_col_stats).where(_t.tbl_id == tbl_id, _t.engine == engine)
    if columns is not None:
        query = query.where(_t.column_name.in_(list(columns)))
    return [(_model(r), r.last_analyzed) for r in conn.execute(query.order_by(_t.column_name))]


def read_partitions(conn: Connection, tbl_id: int, part_ids: Iterable[int], engine: str,
                    columns: Sequence[str] | None = None) -> dict[int, list[tuple[ColumnStats, int]]]:
    """``{part_id: [(statistics, last analyzed)]}`` of the partitions that have any."""
    found: dict[int, list[tuple[ColumnStats, int]]] = defaultdict(list)
    for chunk in chunks(list(part_ids)):
        query = select(schema.part_col_stats).where(_p.tbl_id == tbl_id, _p.engine == engine, _p.part_id.in_(chunk))
        if columns is not None:
            query = query.where(_p.column_name.in_(list(columns)))
        for r in conn.execute(query.order_by(_p.part_id, _p.column_name)):
            found[r.part_id].append((_model(r), r.last_analyzed))
    return found


def _delete(conn: Connection, table: Table, owner_filter, engine: str | None, columns: Sequence[str] | None) -> int:
    statement = delete(table).where(owner_filter)
    if engine is not None:
        statement = statement.where(table.c.engine == engine)
    if columns is not None:
        statement = statement.where(table.c.column_name.in_(list(columns)))
    return conn.execute(statement).rowcount


def delete_table(conn: Connection, tbl_id: int, engine: str | None = None, columns: Sequence[str] | None = None) -> int:
    """Delete table-level statistics (of one engine, of some columns); the rows deleted."""
    return _delete(conn, schema.tbl_col_stats, _t.tbl_id == tbl_id, engine, columns)


def delete_partitions(conn: Connection, tbl_id: int, part_ids: Sequence[int] | None = None, engine: str | None = None,
                      columns: Sequence[str] | None = None) -> int:
    """Delete partition statistics of a table (of some partitions, one engine, some columns)."""
    if part_ids is None:
        return _delete(conn, schema.part_col_stats, _p.tbl_id == tbl_id, engine, columns)
    return sum(_delete(conn, schema.part_col_stats, _p.part_id.in_(chunk), engine, columns)
               for chunk in chunks(list(part_ids)))
