"""Hive's ``ColumnStatistics`` (and its per-kind ``*ColumnStatsData``) to and from ``ColumnStatsSet``."""

from __future__ import annotations

from decimal import Decimal

from hudi_catalog.model import ColumnStats, ColumnStatsSet, StatsKind

from ..idl import hive
from .names import strip_catalog

# the ColumnStatisticsData field that carries each kind
_FIELDS = {
    StatsKind.BOOLEAN: "booleanStats",
    StatsKind.LONG: "longStats",
    StatsKind.DOUBLE: "doubleStats",
    StatsKind.STRING: "stringStats",
    StatsKind.BINARY: "binaryStats",
    StatsKind.DECIMAL: "decimalStats",
    StatsKind.DATE: "dateStats",
    StatsKind.TIMESTAMP: "timestampStats",
}


class MalformedStatsError(ValueError):
    """A ``ColumnStatisticsObj`` without statistics data (Hive answers these with ``InvalidInputException``)."""


def to_decimal(value) -> Decimal | None:
    """Hive's ``Decimal`` (big-endian two's complement unscaled value and a scale) as an exact ``Decimal``."""
    if value is None or value.unscaled is None:
        return None
    unscaled = int.from_bytes(value.unscaled, "big", signed=True)
    digits = tuple(int(d) for d in str(abs(unscaled)))
    return Decimal((1 if unscaled < 0 else 0, digits, -(value.scale or 0)))


def from_decimal(value: Decimal | None):
    """The inverse of ``to_decimal``; the unscaled bytes are as short as Java's ``BigInteger.toByteArray``."""
    if value is None:
        return None
    sign, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int):  # "n", "N" or "F": NaN or infinity
        raise MalformedStatsError(f"Decimal column statistics must be finite, not {value}")
    unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
    if exponent > 0:
        unscaled, exponent = unscaled * 10**exponent, 0
    length = ((unscaled if unscaled >= 0 else ~unscaled).bit_length() + 8) // 8
    return hive.Decimal(unscaled=unscaled.to_bytes(length, "big", signed=True), scale=-exponent)


def _as_decimal(value: int | float | Decimal | None) -> Decimal | None:
    """A decimal column's bound as a ``Decimal`` (a bound given as a Python number keeps its printed value)."""
    return value if value is None or isinstance(value, Decimal) else Decimal(str(value))


def _bytes(value) -> bytes | None:
    return value.encode() if isinstance(value, str) else value


def from_thrift_stats_obj(obj) -> ColumnStats:
    data = obj.statsData
    kind = next((k for k, f in _FIELDS.items() if data is not None and getattr(data, f) is not None), None)
    if kind is None:
        raise MalformedStatsError(f"Column statistics of {obj.colName} carry no statistics data")
    d = getattr(data, _FIELDS[kind])
    stats = ColumnStats(
        column=obj.colName or "",
        column_type=obj.colType or "",
        kind=kind,
        num_nulls=d.numNulls or 0,
        bit_vectors=_bytes(d.bitVectors),
        histogram=getattr(d, "histogram", None),
    )
    if kind == StatsKind.BOOLEAN:
        stats.num_trues, stats.num_falses = d.numTrues or 0, d.numFalses or 0
    elif kind in (StatsKind.STRING, StatsKind.BINARY):
        stats.max_length, stats.avg_length = d.maxColLen or 0, d.avgColLen or 0.0
        if kind == StatsKind.STRING:
            stats.num_distinct = d.numDVs or 0
    else:
        stats.num_distinct = d.numDVs or 0
        if kind == StatsKind.DECIMAL:
            stats.low, stats.high = to_decimal(d.lowValue), to_decimal(d.highValue)
        elif kind == StatsKind.DATE:
            stats.low = None if d.lowValue is None else d.lowValue.daysSinceEpoch
            stats.high = None if d.highValue is None else d.highValue.daysSinceEpoch
        elif kind == StatsKind.TIMESTAMP:
            stats.low = None if d.lowValue is None else d.lowValue.secondsSinceEpoch
            stats.high = None if d.highValue is None else d.highValue.secondsSinceEpoch
        else:
            stats.low, stats.high = d.lowValue, d.highValue
    return stats


def to_thrift_stats_obj(stats: ColumnStats):
    kind = stats.kind
    common = {"numNulls": stats.num_nulls, "bitVectors": stats.bit_vectors}
    if kind == StatsKind.BOOLEAN:
        data = hive.BooleanColumnStatsData(numTrues=stats.num_trues or 0, numFalses=stats.num_falses or 0, **common)
    elif kind == StatsKind.STRING:
        data = hive.StringColumnStatsData(
            maxColLen=stats.max_length or 0, avgColLen=stats.avg_length or 0.0, numDVs=stats.num_distinct or 0, **common
        )
    elif kind == StatsKind.BINARY:
        data = hive.BinaryColumnStatsData(maxColLen=stats.max_length or 0, avgColLen=stats.avg_length or 0.0, **common)
    else:
        low, high = stats.low, stats.high
        if kind == StatsKind.DECIMAL:
            low, high = from_decimal(_as_decimal(low)), from_decimal(_as_decimal(high))
        elif kind == StatsKind.DATE:
            low = None if low is None else hive.Date(daysSinceEpoch=low)
            high = None if high is None else hive.Date(daysSinceEpoch=high)
        elif kind == StatsKind.TIMESTAMP:
            low = None if low is None else hive.Timestamp(secondsSinceEpoch=low)
            high = None if high is None else hive.Timestamp(secondsSinceEpoch=high)
        struct = {
            StatsKind.LONG: hive.LongColumnStatsData,
            StatsKind.DOUBLE: hive.DoubleColumnStatsData,
            StatsKind.DECIMAL: hive.DecimalColumnStatsData,
            StatsKind.DATE: hive.DateColumnStatsData,
            StatsKind.TIMESTAMP: hive.TimestampColumnStatsData,
        }[kind]
        data = struct(lowValue=low, highValue=high, numDVs=stats.num_distinct or 0, histogram=stats.histogram, **common)
    return hive.ColumnStatisticsObj(
        colName=stats.column, colType=stats.column_type, statsData=hive.ColumnStatisticsData(**{_FIELDS[kind]: data})
    )


def from_thrift_column_statistics(col_stats, engine: str | None = None) -> ColumnStatsSet:
    desc = col_stats.statsDesc
    if desc is None:
        raise MalformedStatsError("Column statistics need a statistics descriptor")
    return ColumnStatsSet(
        database=strip_catalog(desc.dbName) or "",
        table=desc.tableName or "",
        partition=None if desc.isTblLevel else (desc.partName or ""),
        columns=[from_thrift_stats_obj(o) for o in col_stats.statsObj or []],
        last_analyzed=desc.lastAnalyzed or 0,
        engine=engine or getattr(col_stats, "engine", None) or "hive",
    )


def to_thrift_column_statistics(stats: ColumnStatsSet):
    desc = hive.ColumnStatisticsDesc(
        isTblLevel=stats.partition is None,
        dbName=stats.database,
        tableName=stats.table,
        partName=stats.partition,
        lastAnalyzed=stats.last_analyzed,
    )
    return hive.ColumnStatistics(statsDesc=desc, statsObj=[to_thrift_stats_obj(s) for s in stats.columns])
