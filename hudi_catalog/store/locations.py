"""Locations of databases, tables and partitions as the deletion and move rules need them.

Each ``db``, ``tbl`` and ``partitions`` row keeps, besides its location, ``location_key`` (the location's
first ``LOCATION_KEY`` characters, indexed) and ``made_location`` (the location whose directory the server
made, or moved there, for that object). ``claimed`` answers, for many directories at once, which of them are
or contain a live object's location: one statement per batch, each directory a few range scans of the three
``location_key`` indexes with bound parameters, whatever the number of partitions.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Table,
    and_,
    bindparam,
    exists,
    func,
    literal,
    not_,
    or_,
    select,
    update,
)

from . import schema
from .batches import chunks
from .driver_sql import DriverStatement

LOCATED: tuple[tuple[Table, str, str], ...] = (
    (schema.db, "location_uri", "db_id"),
    (schema.tbl, "location", "tbl_id"),
    (schema.partitions, "location", "part_id"),
)
"""The tables of located objects: ``(table, location column, id column)``."""

CLAIM_BATCH = 256
"""Spellings of directories checked per statement (8 bound parameters each: 2,048 at most, well under every
store's limit). A batch is padded to the next power of two (its last slot repeated), so at most nine statement
shapes are ever built and compiled."""


def location_key(location: str | None) -> str | None:
    """The indexed prefix of a location (what ``location_key`` holds)."""
    return None if location is None else location[: schema.LOCATION_KEY]


@dataclass(frozen=True)
class Spared:
    """Live objects a check ignores: the table being moved or truncated (with its partitions), the partition
    being renamed."""

    table_id: int | None = None
    partition_id: int | None = None


NOTHING_SPARED = Spared()


NO_ID = -1
"""Bound for a spared id when nothing is spared (ids are positive)."""


def _upper_bound(low: str) -> str:
    """A string greater than every ``location_key`` that starts with ``low``, and than no other: ``low``
    with its last character raised by one, or, when that is the largest code point, ``low`` padded past any
    key's length with it."""
    last = ord(low[-1])
    if last < sys.maxunicode:
        return low[:-1] + chr(last + 1)
    return low + chr(sys.maxunicode) * (schema.LOCATION_KEY + 1 - len(low))


def _slot_clause(i: int) -> ColumnElement[bool]:
    """Whether a live object's location is the path of slot ``i``, or lies under it, sparing the slot's
    table and partition ids: range scans of the ``location_key`` indexes, all values bound parameters."""
    held = []
    for table, column, _ in LOCATED:
        key, location = table.c.location_key, table.c[column]
        at = and_(key == bindparam(f"k{i}"), location == bindparam(f"p{i}"))
        under = and_(
            key >= bindparam(f"lo{i}"),
            key < bindparam(f"hi{i}"),
            func.substr(location, 1, bindparam(f"n{i}")) == bindparam(f"pre{i}"),
        )
        spared = []
        if table is not schema.db:
            spared.append(table.c.tbl_id != bindparam(f"st{i}"))
        if table is schema.partitions:
            spared.append(table.c.part_id != bindparam(f"sp{i}"))
        held.append(exists(select(literal(1)).select_from(table).where(or_(at, under), *spared)))
    return or_(*held)


def _padded(size: int) -> int:
    """The statement size serving ``size`` slots: the next power of two."""
    return 1 << (size - 1).bit_length()


@lru_cache(maxsize=CLAIM_BATCH.bit_length())
def _batch_statement(size: int) -> DriverStatement:
    """One statement answering ``size`` slots, built once per size and run on the driver's cursor (its compiled
    SQL, shared by every store of the process, is inherited by a server's forked workers)."""
    return DriverStatement(select(*(_slot_clause(i).label(f"c{i}") for i in range(size))))


def build_claim_statements(most_spellings: int) -> None:
    """Build the statements of ``claimed`` up to ``most_spellings`` slots now, for ``driver_sql.compile_all``:
    a directory has one to four spellings, and most calls that may delete one name one directory."""
    for size in range(most_spellings.bit_length()):
        _batch_statement(1 << size)


def _slot_values(i: int, path: str, spared: Spared) -> dict[str, Any]:
    prefix = path.rstrip("/") + "/"
    low = prefix[: schema.LOCATION_KEY]
    return {
        f"k{i}": location_key(path),
        f"p{i}": path,
        f"lo{i}": low,
        f"hi{i}": _upper_bound(low),
        f"n{i}": len(prefix),
        f"pre{i}": prefix,
        f"st{i}": NO_ID if spared.table_id is None else spared.table_id,
        f"sp{i}": NO_ID if spared.partition_id is None else spared.partition_id,
    }


def claimed(conn: Connection, directories: Sequence[tuple[Sequence[str], Spared]]) -> list[bool]:
    """For each directory, given as its spellings (``file:/x`` and ``file:///x``, the path with its links
    resolved, ...) and the objects to ignore, whether it is or contains a live object's location. Each
    spelling is one slot; ``CLAIM_BATCH`` slots go in one statement."""
    slots = [(d, path, spared) for d, (spellings, spared) in enumerate(directories) for path in spellings]
    answers = [False] * len(directories)
    for batch in chunks(slots, CLAIM_BATCH):
        values: dict[str, Any] = {}
        size = _padded(len(batch))
        for i in range(size):
            _, path, spared = batch[min(i, len(batch) - 1)]
            values.update(_slot_values(i, path, spared))
        (row,) = _batch_statement(size).execute(conn, values).rows
        for (d, _, _), held in zip(batch, row):
            answers[d] = answers[d] or bool(held)
    return answers


def made(row: Any) -> bool:
    """Whether a ``db``/``tbl``/``partitions`` row's directory (a ``DatabaseRecord``'s ``location_uri``, the
    others' ``location``) is one the server made for it (at the location it has now)."""
    location = row.location_uri if hasattr(row, "location_uri") else row.location
    return location is not None and row.made_location == location


def made_partitions(conn: Connection, part_ids: Iterable[int]) -> set[int]:
    """Those of the partitions whose directory the server made for them."""
    p = schema.partitions.c
    found: set[int] = set()
    for chunk in chunks(list(part_ids)):
        rows = conn.execute(select(p.part_id, p.location, p.made_location).where(p.part_id.in_(chunk)))
        found.update(r.part_id for r in rows if made(r))
    return found


def partitions_apart(conn: Connection, tbl_id: int, table_spellings: Sequence[str]) -> list[tuple[str, bool]]:
    """``(location, made)`` of a table's partitions located neither at nor under the table's location, given
    as its spellings (``Warehouse.spellings``)."""
    p = schema.partitions.c
    rows = conn.execute(
        select(p.location, p.made_location).where(
            p.tbl_id == tbl_id, p.location.is_not(None), not_(_at_or_under(p.location, table_spellings))
        )
    )
    return [(r.location, made(r)) for r in rows]


def record_made(conn: Connection, table: Table, ids: Sequence[int]) -> None:
    """Record that the server made (or moved there) the directories at the current locations of the rows
    ``ids`` of ``table`` (``db``, ``tbl`` or ``partitions``)."""
    _, column, id_column = next(entry for entry in LOCATED if entry[0] is table)
    for chunk in chunks(list(ids)):
        conn.execute(update(table).where(table.c[id_column].in_(chunk)).values(made_location=table.c[column]))


def _at_or_under(location: ColumnElement, spellings: Sequence[str]) -> ColumnElement[bool]:
    """Whether ``location`` is one of ``spellings`` of a directory, or lies under one of them."""
    tests = []
    for spelling in spellings:
        prefix = spelling.rstrip("/") + "/"
        tests.append(or_(location == spelling, func.substr(location, 1, len(prefix)) == prefix))
    return or_(*tests)


def _below(location: str, spellings: Sequence[str]) -> str | None:
    """What ``location`` adds to the longest of ``spellings`` it is at or under (``""`` when it is one of
    them, ``/a/b`` under one), or None (never, for the rows ``_at_or_under`` chose)."""
    for spelling in sorted(spellings, key=len, reverse=True):
        if location == spelling or location.startswith(spelling.rstrip("/") + "/"):
            return location[len(spelling.rstrip("/")) :]
    return None


def relocated(conn: Connection, tbl_id: int, old_spellings: Sequence[str], new_prefix: str) -> list[dict]:
    """The rows ``partitions.relocate`` writes when a table's directory moves to ``new_prefix`` from the
    directory whose spellings are ``old_spellings`` (``Warehouse.spellings``: ``file:/x`` and ``file:///x``
    name one directory): its partitions at or under it, with their new location, key and provenance (the
    server moved their directories, so a partition whose directory it had made keeps that)."""
    p = schema.partitions.c
    rows = conn.execute(
        select(p.part_id, p.location, p.made_location).where(
            p.tbl_id == tbl_id, _at_or_under(p.location, old_spellings)
        )
    ).all()
    moved = []
    for row in rows:
        location = new_prefix.rstrip("/") + (_below(row.location, old_spellings) or "")
        moved.append(
            {
                "pid": row.part_id,
                "loc": location,
                "key": location_key(location),
                "made": location if made(row) else None,
            }
        )
    return moved


RELOCATE_VALUES: dict[str, Any] = {
    "location": bindparam("loc"),
    "location_key": bindparam("key"),
    "made_location": bindparam("made"),
}
"""The values of ``relocated``'s rows in an executemany update."""
