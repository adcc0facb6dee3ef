"""Parse the filter language of ``get_partitions_by_filter`` into a sqlglot expression tree.

Hive clients write filters such as ``ds = "2024-01-01" and hr >= 10`` or ``(k = "a" or k = "b")``:
double-quoted strings are literals, as in HiveQL, so the Hive dialect of sqlglot reads them as they are.
Two forms of Hive's filter grammar are not SQL and are rewritten first: unquoted dates (``ds = 2024-01-01``
would otherwise be arithmetic) become string literals, and ``const struct(...)`` (the multi-column
``(struct(a, b)) IN (const struct(1, 'x'), ...)`` form) loses its ``const``.

Example:
    >>> parse_filter('ds = "2024" and hr > 1').sql()
    "ds = '2024' AND hr > 1"
    >>> parse_filter("ds >= 2024-01-01").sql()
    "ds >= '2024-01-01'"
"""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from ..errors import InvalidFilterError
from .equality_lists import equality_disjunction


_BARE_DATE = re.compile(r"(?<![\w.])(\d{4}-\d{2}-\d{2})(?![\w.:-])")
_CONST_STRUCT = re.compile(r"\bconst\s+(?=struct\s*\()", re.IGNORECASE)


def _rewrite_outside_quotes(text: str) -> str:
    """Apply the Hive-only rewrites to the parts of ``text`` outside quoted strings and identifiers."""
    out: list[str] = []
    plain_start = 0
    i = 0
    while i < len(text):
        quote = text[i]
        if quote in "'\"`":
            out.append(_rewrite(text[plain_start:i]))
            end = i + 1
            while end < len(text) and text[end] != quote:
                end += 2 if text[end] == "\\" and quote != "`" else 1
            out.append(text[i : end + 1])
            i = plain_start = end + 1
        else:
            i += 1
    out.append(_rewrite(text[plain_start:]))
    return "".join(out)


def _rewrite(plain: str) -> str:
    return _CONST_STRUCT.sub("", _BARE_DATE.sub(r"'\1'", plain))


def parse_filter(text: str) -> exp.Expression:
    """The expression tree of a filter; ``InvalidFilterError`` with Hive's wording when it does not parse."""
    try:
        expression = sqlglot.parse_one(_rewrite_outside_quotes(text), read="hive")
    except SqlglotError as e:
        raise InvalidFilterError(f"Error parsing partition filter : {e}") from e
    if expression is None:
        raise InvalidFilterError(f"Error parsing partition filter : empty filter {text!r}")
    return expression


def parse_partition_filter(text: str) -> exp.Expression:
    """``parse_filter`` for partition filters: Hudi's hive sync pushdown (ORs of key equalities nested a
    thousand deep) is read as one ``IN`` (``equality_lists``) first."""
    listed = equality_disjunction(text)
    return listed if listed is not None else parse_filter(text)
