"""Column widths checked before SQL: a value too long for its column is refused the same way on every store.

MySQL/MariaDB refuse a value longer than its ``VARCHAR(n)`` (or than a ``TEXT`` column's 65,535 bytes) with
``Data too long``, PostgreSQL with ``value too long``, and SQLite stores it. The services check what Hive
limits in Hive's words (``hudi_catalog.names``); this guard catches every other client value that reaches a
fixed-width column (owner names, parameter keys, serde names, lock and transaction users and hosts, role and
principal names, ...) and raises ``ValueTooLongError`` before the statement runs, naming the field in words
and never the catalog's tables or columns.

The widths come from ``schema.metadata``: ``String(n)`` columns hold ``n`` characters, plain ``Text`` columns
(``TEXT`` on MySQL) 65,535 bytes of UTF-8; ``LONGTEXT`` and binary columns are not limited here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from operator import methodcaller
from typing import Any

from sqlalchemy import Engine, String, event
from sqlalchemy.dialects import mysql
from sqlalchemy.engine.default import DefaultExecutionContext
from sqlalchemy.sql.schema import Column

from ..errors import ValueTooLongError
from ..names import preview
from . import schema

TEXT_BYTES = 65_535
"""What a MySQL ``TEXT`` column holds, in bytes."""

Width = tuple[int, bool, str]
"""``(limit, counted in bytes, the field in words)``."""

_LABELS = {
    "catalogs.name": "catalog name",
    "db.name": "database name",
    "tbl.name": "table name",
    "functions.name": "function name",
    "role.name": "role name",
    "schema.name": "column name",
    "tbl_constraint.name": "constraint name",
    "files.name": "file name",
    "cat_name": "catalog name",
    "db_name": "database name",
    "tbl_name": "table name",
    "part_name": "partition name",
    "key_name": "partition key name",
    "key_val": "partition value",
    "hudi_path": "partition path",
    "param_key": "parameter key",
    "tbl_type": "table type",
    "location_uri": "location",
    "managed_location_uri": "managed location",
    "sd_params": "storage descriptor parameters",
    "serde_lib": "serialization library",
    "serde_extra": "serde description or classes",
    "bucket_cols": "bucket columns",
    "sort_cols": "sort columns",
    "ts": "instant time",
    "decimal_low": "decimal low value",
    "decimal_high": "decimal high value",
    "value": "constraint value",
}
"""Fields in words, by ``table.column`` or by column name; other columns are named by their name in words."""

_MULTI_VALUES_BIND = re.compile(r"(.+)_m\d+")
"""The bind names of a multi-row ``insert().values([...])``: ``<column>_m<row>``."""


def _width(table: str, column: Column) -> Width | None:
    """The width of a text column, or None when it has none this guard checks."""
    if not isinstance(column.type, String):
        return None
    label = _LABELS.get(f"{table}.{column.key}") or _LABELS.get(column.key) or column.key.replace("_", " ")
    if column.type.length is not None:
        return column.type.length, False, label
    if column.type.compile(dialect=mysql.dialect()) == "TEXT":
        return TEXT_BYTES, True, label
    return None


WIDTHS: dict[str, dict[str, Width]] = {
    table.name: {c.key: w for c in table.columns if (w := _width(table.name, c)) is not None}
    for table in schema.metadata.sorted_tables
}
"""``{table: {column: width}}`` of every text column the guard checks."""


def _too_long(value: str, limit: int, in_bytes: bool) -> int | None:
    """The length of ``value`` in the unit of its limit when it exceeds it, else None."""
    if not in_bytes:
        return len(value) if len(value) > limit else None
    if len(value) * 4 <= limit:  # UTF-8 takes at most 4 bytes a character
        return None
    size = len(value.encode("utf-8", "surrogatepass"))
    return size if size > limit else None


def _columns_of(widths: dict[str, Width], keys: Iterable[str]) -> dict[str, Width]:
    """The checked columns among a statement's bind names (a column's name, or a multi-row insert's)."""
    found = {}
    for key in keys:
        width = widths.get(key)
        if width is None and (matched := _MULTI_VALUES_BIND.fullmatch(key)):
            width = widths.get(matched.group(1))
        if width is not None:
            found[key] = width
    return found


def check_widths(table: str, rows: Sequence[Mapping[str, Any]]) -> None:
    """Raise ``ValueTooLongError`` for the first value in ``rows`` (bound parameters of an INSERT or UPDATE of
    ``table``, keyed by column or by a multi-row insert's bind names) longer than its column holds.

    Column by column, with the longest value's length first (a large batch costs a pass of ``len`` per checked
    column, not a Python loop per value)."""
    widths = WIDTHS.get(table)
    if not widths or not rows:
        return
    for key, (limit, in_bytes, label) in _columns_of(widths, rows[0]).items():
        values = [v for v in map(methodcaller("get", key), rows) if v.__class__ is str]
        if max(map(len, values), default=0) <= (limit // 4 if in_bytes else limit):
            continue
        for value in values:
            length = _too_long(value, limit, in_bytes)
            if length is not None:
                unit = "bytes" if in_bytes else "characters"
                raise ValueTooLongError(f"The {label} '{preview(value)}' is too long: {length} {unit}, at most {limit}")


_CHECKED = "_hudi_metastore_widths_checked"


def guard_widths(engine: Engine) -> None:
    """Check every INSERT and UPDATE through ``engine`` with ``check_widths`` before it is sent (once per
    statement, however many batches a large insert is sent in)."""

    @event.listens_for(engine, "before_cursor_execute")
    def _before(_conn, _cursor, _statement, _parameters, context: DefaultExecutionContext | None, _many) -> None:
        if context is None or context.compiled is None or getattr(context, _CHECKED, False):
            return
        if context.isinsert or context.isupdate:
            setattr(context, _CHECKED, True)
            table = getattr(context.compiled.statement, "table", None)
            if table is not None:
                check_widths(table.name, context.compiled_parameters)
