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
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from ..errors import InvalidFilterError
from .equality_lists import equality_disjunction
from .hive4_like import with_hive4_patterns
from .literal_lists import LiteralList, extract_lists, restore_lists


@dataclass(frozen=True)
class FilterLimits:
    """How large a filter may be (``serve --max-filter-length``, ``--max-filter-terms``)."""

    max_length: int = 10_000_000
    """Characters."""
    max_terms: int = 200_000
    """Comparisons, plus each value of an ``IN`` list."""


_TERM = re.compile(
    r"""'[^']*'|"[^"]*"|`[^`]*`|(<=>|!=|<>|<=|>=|=|<|>|\blike\b|\bbetween\b|\bin\s*\(|,)""", re.IGNORECASE
)
"""A term is a comparison operator, ``IN (`` or a comma outside quotes: an ``IN`` list of n values is n terms."""


def check_size(text: str, limits: FilterLimits) -> None:
    """``InvalidFilterError`` when a filter is longer or has more terms than ``limits`` allow. It reads the
    text once and builds nothing from it, so a refused filter costs no more memory than its own text."""
    if len(text) > limits.max_length:
        raise InvalidFilterError(
            f"Error parsing partition filter : the filter has {len(text)} characters, over "
            f"the limit of {limits.max_length} (serve --max-filter-length)"
        )
    terms = sum(1 for match in _TERM.finditer(text) if match.group(1))
    if terms > limits.max_terms:
        raise InvalidFilterError(
            f"Error parsing partition filter : the filter has {terms} terms, over the "
            f"limit of {limits.max_terms} (serve --max-filter-terms)"
        )


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


def parse_filter(text: str, limits: FilterLimits = FilterLimits()) -> exp.Expr:
    """The expression tree of a filter; ``InvalidFilterError`` with Hive's wording when it does not parse or
    is over ``limits``. Long ``IN`` lists of literals come back as ``literal_lists.LiteralList`` nodes."""
    shortened, lists = _shortened(text, limits)
    return _parse(shortened, lists)


def _shortened(text: str, limits: FilterLimits) -> tuple[str, dict[str, LiteralList]]:
    check_size(text, limits)
    return extract_lists(text)


def _parse(text: str, lists: dict[str, LiteralList]) -> exp.Expr:
    try:
        expression = sqlglot.parse_one(_rewrite_outside_quotes(text), read="hive")
    except SqlglotError as e:
        raise InvalidFilterError(f"Error parsing partition filter : {e}") from e
    except RecursionError:
        raise InvalidFilterError("Error parsing partition filter : the filter is nested too deeply") from None
    if expression is None:
        raise InvalidFilterError(f"Error parsing partition filter : empty filter {text!r}")
    return restore_lists(expression, lists)


def parse_partition_filter(text: str, limits: FilterLimits = FilterLimits(), hive4_like: bool = False) -> exp.Expr:
    """``parse_filter`` for partition filters: Hudi's hive sync pushdown (ORs of key equalities nested a
    thousand deep) is read as one ``IN`` (``equality_lists``) first, unless the filter has long ``IN``
    lists (then it is not that form). ``hive4_like``: ``LIKE`` patterns are Hive 4's (``hive4_like``)."""
    shortened, lists = _shortened(text, limits)
    listed = None if lists else equality_disjunction(text)
    if listed is not None:
        return listed
    parsed = _parse(shortened, lists)
    return with_hive4_patterns(parsed) if hive4_like else parsed
