"""Parse the filter language of ``get_partitions_by_filter`` into a sqlglot expression tree.

Hive clients write filters such as ``ds = "2024-01-01" and hr >= 10`` or ``(k = "a" or k = "b")``:
double-quoted strings are literals, as in HiveQL, so the Hive dialect of sqlglot reads them as they are.

Example:
    >>> parse_filter('ds = "2024" and hr > 1').sql()
    "ds = '2024' AND hr > 1"
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from ..errors import InvalidFilterError


def parse_filter(text: str) -> exp.Expression:
    """The expression tree of a filter; ``InvalidFilterError`` with Hive's wording when it does not parse."""
    try:
        expression = sqlglot.parse_one(text, read="hive")
    except SqlglotError as e:
        raise InvalidFilterError(f"Error parsing partition filter : {e}") from e
    if expression is None:
        raise InvalidFilterError(f"Error parsing partition filter : empty filter {text!r}")
    return expression
