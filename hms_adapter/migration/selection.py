"""Which objects a copy covers (``--databases``, ``--tables``), which it refuses and why, and batching."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def matches(name: str, patterns: Iterable[str]) -> bool:
    """Whether ``name`` matches one of the shell patterns (``*``, ``?``, ``[...]``), case-insensitively as
    Hive's names are."""
    return any(fnmatch.fnmatchcase(name.lower(), p.lower()) for p in patterns)


def table_wanted(database: str, table: str, patterns: Iterable[str]) -> bool:
    """A table is named in ``--tables`` by its name or by ``database.table``."""
    return matches(table, patterns) or matches(f"{database}.{table}", patterns)


def refusal(table: Any) -> str:
    """Why a copy cannot carry ``table`` as the source holds it ('' when it can)."""
    parameters = table.parameters or {}
    if parameters.get("transactional", "").lower() == "true":
        return (
            "a transactional table: its write ids cannot be carried through the Thrift API, and without them the "
            "target would hide the table's delta directories (copy it with Hive's REPL, or convert it to an "
            "external table first)"
        )
    if table.tableType == "MATERIALIZED_VIEW":
        return (
            "a materialized view: the tables and snapshot it was built from do not carry over; create it again "
            "on the target"
        )
    if table.temporary:
        return "a temporary table"
    return ""


HUDI_INPUT_FORMAT_PREFIX = "org.apache.hudi."


def is_hudi(table: Any) -> bool:
    """A Hudi table, or one of its merge-on-read views (``_ro``, ``_rt``): read through Hudi's input formats."""
    return ((table.sd.inputFormat if table.sd else None) or "").startswith(HUDI_INPUT_FORMAT_PREFIX)


def chunks(items: Sequence[T], size: int) -> Iterator[list[T]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])
