"""Long ``IN`` lists of literals, read without the general parser.

Engines push down ``k IN ('a', 'b', ...)`` with thousands of values (Spark's and Trino's partition lists). The
general parser builds a node per token, some ten microseconds a value; this module finds each list of at
least ``MIN_VALUES`` plain literals (quoted strings without escapes, numbers) with one regular expression
pass, hands the parser the filter with each such list replaced by a placeholder, and puts the values back
into the parsed tree as one ``LiteralList`` node, which the SQL translator binds as they are (the values
without their quotes: a partition key's type decides how a value compares, quoted or not).

Example:
    >>> text, lists = extract_lists("ds IN (" + ", ".join(f"'{i}'" for i in range(100)) + ") AND hr = 1")
    >>> text.startswith("ds IN ('\\x00list:"), text.endswith("') AND hr = 1")
    (True, True)
    >>> [(node.args["values"][:2], node.args["numbers"]) for node in lists.values()]
    [(['0', '1'], False)]
"""

from __future__ import annotations

import re
import secrets

from sqlglot import exp

MIN_VALUES = 64
"""Shorter lists are parsed as any filter: the parser's cost is small there."""
PLACEHOLDER = "\x00list:"
"""Followed by a random token per filter, so no literal a client writes can pass for one."""

_LITERAL = r"""(?:'[^'\\\x00]*'|"[^"\\\x00]*"|-?\d+(?:\.\d+)?)"""
_LIST_BODY = re.compile(rf"\s*{_LITERAL}(?:\s*,\s*{_LITERAL})*\s*\)")
_VALUE = re.compile(_LITERAL)
_IN_OPEN = re.compile(r"""'[^']*'|"[^"]*"|`[^`]*`|\bIN\s*\(""", re.IGNORECASE)


class LiteralList(exp.Expression):
    """The values of a long ``IN`` list, as Python strings; ``numbers``: whether any was an unquoted number
    (which a string key refuses, as a comparison with a number does)."""

    arg_types = {"values": True, "numbers": True}


def extract_lists(text: str) -> tuple[str, dict[str, LiteralList]]:
    """``text`` with each long literal list replaced by a placeholder, and the lists by placeholder."""
    out: list[str] = []
    lists: dict[str, LiteralList] = {}
    token = secrets.token_hex(8)
    position = 0
    for match in _IN_OPEN.finditer(text):
        if not match.group(0).upper().startswith("IN") or match.start() < position:
            continue  # a quoted string or identifier, or inside a list already taken
        body = _LIST_BODY.match(text, match.end())
        if body is None:
            continue
        literals = _VALUE.findall(text, match.end(), body.end())
        if len(literals) < MIN_VALUES:
            continue
        placeholder = f"{PLACEHOLDER}{token}:{len(lists)}"
        out.append(text[position : match.end()])
        out.append(f"'{placeholder}')")
        numbers = any(v[0] not in "'\"" for v in literals)
        lists[placeholder] = LiteralList(values=[_unquote(v) for v in literals], numbers=numbers)
        position = body.end()
    if not lists:
        return text, {}
    out.append(text[position:])
    return "".join(out), lists


def _unquote(literal: str) -> str:
    return literal[1:-1] if literal[0] in "'\"" else literal


def restore_lists(tree: exp.Expr, lists: dict[str, LiteralList]) -> exp.Expr:
    """Put the extracted lists back into the parsed ``tree`` (as ``LiteralList`` nodes)."""
    if not lists:
        return tree
    for node in tree.find_all(exp.In):
        items = node.expressions
        if len(items) == 1 and isinstance(items[0], exp.Literal) and items[0].is_string and items[0].this in lists:
            node.set("expressions", [lists[items[0].this]])
    return tree
