"""Hive's column statistics rules: which kind of statistics fits which column type, how two sets of
statistics of one column merge, how partitions' statistics aggregate, and the ``COLUMN_STATS_ACCURATE``
parameter that says which columns have statistics.

Example:
    >>> from hudi_catalog.model import ColumnStats, StatsKind
    >>> a = ColumnStats("x", "bigint", StatsKind.LONG, num_nulls=1, num_distinct=5, low=3, high=9)
    >>> b = ColumnStats("x", "bigint", StatsKind.LONG, num_nulls=2, num_distinct=7, low=1, high=4)
    >>> m = merge(a, b)
    >>> (m.low, m.high, m.num_nulls, m.num_distinct)
    (1, 9, 3, 7)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from .errors import InvalidInputError
from .model import Column, ColumnStats, StatsKind
from .stats import COLUMN_STATS_ACCURATE

BASIC_STATS = "BASIC_STATS"
COLUMN_STATS = "COLUMN_STATS"

KINDS_OF_TYPE: Mapping[str, tuple[StatsKind, ...]] = {
    "boolean": (StatsKind.BOOLEAN,),
    **{t: (StatsKind.LONG,) for t in ("tinyint", "smallint", "int", "integer", "bigint")},
    **{t: (StatsKind.DOUBLE,) for t in ("float", "double", "double precision", "real")},
    **{t: (StatsKind.STRING,) for t in ("string", "varchar", "char")},
    "binary": (StatsKind.BINARY,),
    "decimal": (StatsKind.DECIMAL,),
    "numeric": (StatsKind.DECIMAL,),
    "date": (StatsKind.DATE,),
    # Hive 2 describes timestamps with long statistics (seconds), Hive 3 and later with timestamp statistics
    "timestamp": (StatsKind.TIMESTAMP, StatsKind.LONG),
}
"""The statistics kinds that describe a column type; complex types (arrays, maps, structs) have none."""


def base_type(column_type: str) -> str:
    """``decimal(10,2)`` -> ``decimal``, ``varchar(20)`` -> ``varchar``."""
    return column_type.split("(", 1)[0].strip().lower()


def check_kind(stats: ColumnStats, column_type: str, table_name: str) -> None:
    """Raise ``InvalidInputError`` unless ``stats`` can describe a column of ``column_type``."""
    kinds = KINDS_OF_TYPE.get(base_type(column_type), ())
    if stats.kind not in kinds:
        raise InvalidInputError(
            f"Statistics of kind {stats.kind.value} do not fit column {stats.column} of type {column_type} "
            f"in table {table_name}"
        )


def _lower(a, b):
    return b if a is None else a if b is None else min(a, b)


def _higher(a, b):
    return b if a is None else a if b is None else max(a, b)


def _add(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else a + b


def merge(old: ColumnStats, new: ColumnStats) -> ColumnStats:
    """One column's statistics over the data of both, as Hive's column statistics mergers do: lows and highs
    widen, null, true and false counts add, lengths and distinct counts take the larger (bit vectors are not
    read; the newer ones are kept). Statistics of another kind replace the old ones."""
    if old.kind != new.kind:
        return new
    return replace(
        new,
        low=_lower(old.low, new.low),
        high=_higher(old.high, new.high),
        num_nulls=old.num_nulls + new.num_nulls,
        num_distinct=_higher(old.num_distinct, new.num_distinct),
        num_trues=_add(old.num_trues, new.num_trues),
        num_falses=_add(old.num_falses, new.num_falses),
        max_length=_higher(old.max_length, new.max_length),
        avg_length=_higher(old.avg_length, new.avg_length),
        bit_vectors=new.bit_vectors if new.bit_vectors is not None else old.bit_vectors,
    )


def extrapolated(total: ColumnStats, found: int, requested: int) -> ColumnStats:
    """A column's statistics aggregated over the ``found`` partitions that have them, for ``requested``
    partitions (``get_aggr_stats_for``): when at least two but not all have statistics, the counts are
    extrapolated to all as Hive does (``sum // found * requested``); lows, highs and lengths stay those
    found. Bit vectors and histograms are left out."""
    if 2 <= found < requested:

        def scaled(value: int | None) -> int | None:
            return None if value is None else value // found * requested

        total = replace(
            total,
            num_nulls=scaled(total.num_nulls) or 0,
            num_trues=scaled(total.num_trues),
            num_falses=scaled(total.num_falses),
        )
    return replace(total, bit_vectors=None, histogram=None)


def accurate_columns(params: Mapping[str, str]) -> tuple[bool, dict[str, str]]:
    """``(basic stats accurate, {column: "true"})`` from a ``COLUMN_STATS_ACCURATE`` parameter."""
    try:
        state = json.loads(params.get(COLUMN_STATS_ACCURATE) or "{}")
    except ValueError:
        return False, {}
    if not isinstance(state, dict):  # Hive 1's plain "true" meant the basic statistics
        return state is True, {}
    columns = state.get(COLUMN_STATS)
    return str(state.get(BASIC_STATS)).lower() == "true", dict(columns) if isinstance(columns, dict) else {}


def with_accurate_columns(
    params: Mapping[str, str], added: Iterable[str] = (), removed: Iterable[str] = ()
) -> dict[str, str]:
    """``params`` with columns marked (``added``) or unmarked (``removed``) in ``COLUMN_STATS_ACCURATE``,
    written as Hive writes it (basic stats first, columns sorted)."""
    basic, columns = accurate_columns(params)
    columns.update({c: "true" for c in added})
    for column in removed:
        columns.pop(column, None)
    updated = dict(params)
    state: dict[str, object] = {BASIC_STATS: "true"} if basic else {}
    if columns:
        state[COLUMN_STATS] = dict(sorted(columns.items()))
    if state:
        updated[COLUMN_STATS_ACCURATE] = json.dumps(state, separators=(",", ":"))
    else:
        updated.pop(COLUMN_STATS_ACCURATE, None)
    return updated


def stale_columns(old: Sequence[Column], new: Sequence[Column]) -> list[str]:
    """Columns whose statistics an alter makes stale: dropped, or given another type."""
    new_types = {c.name.lower(): c.type.lower() for c in new}
    return [c.name.lower() for c in old if new_types.get(c.name.lower()) != c.type.lower()]
