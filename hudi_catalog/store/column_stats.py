"""Queries on ``tbl_col_stats`` and ``part_col_stats``: one row per column and engine."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, Table, delete, func, insert, select

from ..column_stats import merge
from ..model import ColumnStats, StatsKind
from . import schema
from .batches import chunks

_t = schema.tbl_col_stats.c
_p = schema.part_col_stats.c

_LONG_KINDS = (StatsKind.LONG, StatsKind.DATE, StatsKind.TIMESTAMP)


def _row(stats: ColumnStats, engine: str, last_analyzed: int) -> dict[str, Any]:
    row: dict[str, Any] = {
        "column_name": stats.column,
        "engine": engine,
        "column_type": stats.column_type,
        "kind": stats.kind.value,
        "long_low": None,
        "long_high": None,
        "double_low": None,
        "double_high": None,
        "decimal_low": None,
        "decimal_high": None,
        "num_nulls": stats.num_nulls,
        "num_distinct": stats.num_distinct,
        "num_trues": stats.num_trues,
        "num_falses": stats.num_falses,
        "max_length": stats.max_length,
        "avg_length": stats.avg_length,
        "bit_vectors": stats.bit_vectors,
        "histogram": stats.histogram,
        "last_analyzed": last_analyzed,
    }
    if stats.kind in _LONG_KINDS:
        row.update(long_low=stats.low, long_high=stats.high)
    elif stats.kind == StatsKind.DOUBLE:
        row.update(double_low=stats.low, double_high=stats.high)
    elif stats.kind == StatsKind.DECIMAL:
        row.update(
            decimal_low=None if stats.low is None else str(stats.low),
            decimal_high=None if stats.high is None else str(stats.high),
        )
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
        column=row.column_name,
        column_type=row.column_type,
        kind=kind,
        num_nulls=row.num_nulls,
        num_distinct=row.num_distinct,
        low=low,
        high=high,
        num_trues=row.num_trues,
        num_falses=row.num_falses,
        max_length=row.max_length,
        avg_length=row.avg_length,
        bit_vectors=row.bit_vectors,
        histogram=row.histogram,
    )


def write_table(conn: Connection, tbl_id: int, engine: str, last_analyzed: int, stats: Sequence[ColumnStats]) -> None:
    """Replace the table's statistics of these columns."""
    delete_table(conn, tbl_id, engine, [s.column for s in stats])
    if stats:
        conn.execute(
            insert(schema.tbl_col_stats), [{"tbl_id": tbl_id, **_row(s, engine, last_analyzed)} for s in stats]
        )


def write_partitions(
    conn: Connection, tbl_id: int, engine: str, stats: Sequence[tuple[int, int, Sequence[ColumnStats]]]
) -> None:
    """Replace partitions' statistics of these columns: ``(part_id, last_analyzed, stats)`` triples."""
    for part_id, _, columns in stats:
        conn.execute(
            delete(schema.part_col_stats).where(
                _p.part_id == part_id, _p.engine == engine, _p.column_name.in_([c.column for c in columns])
            )
        )
    rows = [
        {"part_id": part_id, "tbl_id": tbl_id, **_row(s, engine, last_analyzed)}
        for part_id, last_analyzed, columns in stats
        for s in columns
    ]
    if rows:
        conn.execute(insert(schema.part_col_stats), rows)


def read_table(
    conn: Connection, tbl_id: int, engine: str, columns: Sequence[str] | None = None
) -> list[tuple[ColumnStats, int]]:
    """``(statistics, last analyzed)`` of the table's columns (of those named), by column name."""
    query = select(schema.tbl_col_stats).where(_t.tbl_id == tbl_id, _t.engine == engine)
    if columns is not None:
        query = query.where(_t.column_name.in_(list(columns)))
    return [(_model(r), r.last_analyzed) for r in conn.execute(query.order_by(_t.column_name))]


def read_partitions(
    conn: Connection, tbl_id: int, part_ids: Iterable[int], engine: str, columns: Sequence[str] | None = None
) -> dict[int, list[tuple[ColumnStats, int]]]:
    """``{part_id: [(statistics, last analyzed)]}`` of the partitions that have any."""
    found: dict[int, list[tuple[ColumnStats, int]]] = defaultdict(list)
    for chunk in chunks(list(part_ids)):
        query = select(schema.part_col_stats).where(_p.tbl_id == tbl_id, _p.engine == engine, _p.part_id.in_(chunk))
        if columns is not None:
            query = query.where(_p.column_name.in_(list(columns)))
        for r in conn.execute(query.order_by(_p.part_id, _p.column_name)):
            found[r.part_id].append((_model(r), r.last_analyzed))
    return found


_AGGREGATES = (
    func.max(_p.column_type).label("column_type"),
    func.min(_p.long_low).label("long_low"),
    func.max(_p.long_high).label("long_high"),
    func.min(_p.double_low).label("double_low"),
    func.max(_p.double_high).label("double_high"),
    func.sum(_p.num_nulls).label("num_nulls"),
    func.max(_p.num_distinct).label("num_distinct"),
    func.sum(_p.num_trues).label("num_trues"),
    func.sum(_p.num_falses).label("num_falses"),
    func.max(_p.max_length).label("max_length"),
    func.max(_p.avg_length).label("avg_length"),
    func.count().label("found"),
)


def aggregate_partitions(
    conn: Connection, tbl_id: int, part_ids: Sequence[int], engine: str, columns: Sequence[str]
) -> list[tuple[ColumnStats, int]]:
    """Each column's statistics over the partitions, aggregated by the database (lows the least, highs
    the greatest, counts summed, lengths and distinct counts the greatest; decimals exactly, here), with
    how many partitions had them: ``[(statistics, partitions found)]``."""
    found: dict[tuple[str, str], list[tuple[ColumnStats, int]]] = defaultdict(list)
    decimals: dict[str, list[tuple[Decimal | None, Decimal | None]]] = defaultdict(list)
    for chunk in chunks(list(part_ids)):
        chosen = (_p.tbl_id == tbl_id, _p.engine == engine, _p.part_id.in_(chunk), _p.column_name.in_(list(columns)))
        for r in conn.execute(
            select(_p.column_name, _p.kind, *_AGGREGATES).where(*chosen).group_by(_p.column_name, _p.kind)
        ):
            found[(r.column_name, r.kind)].append((_aggregate_model(r), r.found))
        for d in conn.execute(
            select(_p.column_name, _p.decimal_low, _p.decimal_high).where(*chosen, _p.kind == StatsKind.DECIMAL.value)
        ):
            decimals[d.column_name].append((d.decimal_low, d.decimal_high))
    result = []
    for (column, kind), parts in found.items():
        stats, count = parts[0][0], sum(n for _, n in parts)
        for more, _ in parts[1:]:  # several chunks of partitions
            stats = merge(stats, more)
        if kind == StatsKind.DECIMAL.value:
            lows = [Decimal(low) for low, _ in decimals[column] if low is not None]
            highs = [Decimal(high) for _, high in decimals[column] if high is not None]
            stats = replace(stats, low=min(lows, default=None), high=max(highs, default=None))
        result.append((stats, count))
    return result


def _aggregate_model(row) -> ColumnStats:
    kind = StatsKind(row.kind)
    low, high = (row.double_low, row.double_high) if kind == StatsKind.DOUBLE else (row.long_low, row.long_high)
    return ColumnStats(
        column=row.column_name,
        column_type=row.column_type,
        kind=kind,
        num_nulls=int(row.num_nulls or 0),
        num_distinct=row.num_distinct,
        low=low if kind not in (StatsKind.DECIMAL,) else None,
        high=high if kind not in (StatsKind.DECIMAL,) else None,
        num_trues=None if row.num_trues is None else int(row.num_trues),
        num_falses=None if row.num_falses is None else int(row.num_falses),
        max_length=row.max_length,
        avg_length=row.avg_length,
    )


def complete_partitions(
    conn: Connection, tbl_id: int, part_ids: Sequence[int], engine: str, columns: Sequence[str]
) -> int:
    """How many of the partitions have statistics of every one of ``columns``."""
    wanted = list(dict.fromkeys(columns))
    total = 0
    for chunk in chunks(list(part_ids)):
        complete = (
            select(_p.part_id)
            .where(_p.tbl_id == tbl_id, _p.engine == engine, _p.part_id.in_(chunk), _p.column_name.in_(wanted))
            .group_by(_p.part_id)
            .having(func.count() == len(wanted))
        )
        total += conn.execute(select(func.count()).select_from(complete.subquery())).scalar_one()
    return total


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


def delete_partitions(
    conn: Connection,
    tbl_id: int,
    part_ids: Sequence[int] | None = None,
    engine: str | None = None,
    columns: Sequence[str] | None = None,
) -> int:
    """Delete partition statistics of a table (of some partitions, one engine, some columns)."""
    if part_ids is None:
        return _delete(conn, schema.part_col_stats, _p.tbl_id == tbl_id, engine, columns)
    return sum(
        _delete(conn, schema.part_col_stats, _p.part_id.in_(chunk), engine, columns) for chunk in chunks(list(part_ids))
    )
