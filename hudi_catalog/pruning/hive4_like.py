"""``LIKE`` in a partition filter as Hive Metastore 4 reads it, turned into the Java regular expression the
rest of the pruning matches (``hudi_catalog.pruning.like``).

Hive 2/3 clients and Spark send a Java regular expression (``dt like "2024-.*"``), matched whole. Hive
Metastore 4 turns the pattern into SQL ``LIKE`` on its way to the database: SQL's wildcards work (``%`` any
run, ``_`` one character, ``\\%`` and ``\\_`` themselves), so do the regular expression's ``.*`` and ``.``, and
a leading ``(?i)`` ignores case; anything else is itself (``u[ks]`` matches only the text ``u[ks]``). Which
rule a call follows is ``LikeRule``'s choice (``serve --filter-like``).

Example:
    >>> [hive4_pattern(p) for p in ("%k", "u_", "u.*", "(?i)UK", "u[ks]")]
    ['.*k', 'u.', 'u.*', '(?i)UK', 'u\\\\[ks\\\\]']
"""

from __future__ import annotations

from enum import Enum

from sqlglot import exp

from ..java_regex import escape

CASE_INSENSITIVE = "(?i)"


class LikeRule(str, Enum):
    """How ``LIKE`` patterns of partition filters are read (``serve --filter-like``)."""

    AUTO = "auto"
    """As the client's Hive version reads them: Hive 4's rule for a connection that made a call only Hive 4
    clients make (its request forms), the Java regular expression otherwise."""
    JAVA_REGEX = "java-regex"
    """Always Hive 2/3's: a Java regular expression matched whole."""
    HIVE4 = "hive4"
    """Always Hive 4's (SQL wildcards beside ``.`` and ``.*``)."""


def hive4_pattern(pattern: str) -> str:
    """The Java regular expression matching what Hive Metastore 4 matches for ``LIKE pattern``."""
    flags = CASE_INSENSITIVE if pattern.startswith(CASE_INSENSITIVE) else ""
    out, i = [flags], len(flags)
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(escape(pattern[i + 1]))
            i += 2
        elif ch == "." and pattern.startswith(".*", i):
            out.append(".*")
            i += 2
        else:
            out.append(".*" if ch == "%" else "." if ch in "_." else escape(ch))
            i += 1
    return "".join(out)


def with_hive4_patterns(expression: exp.Expr) -> exp.Expr:
    """``expression`` with each ``LIKE`` pattern read as Hive 4 reads it."""

    def rewrite(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Like) and isinstance(node.expression, exp.Literal) and node.expression.is_string:
            return exp.Like(this=node.this, expression=exp.Literal.string(hive4_pattern(node.expression.this)))
        return node

    return expression.transform(rewrite, copy=False)
