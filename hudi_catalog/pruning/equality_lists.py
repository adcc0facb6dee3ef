"""The filter form Hudi's hive sync pushes down, read without recursion.

Hudi's ``PartitionFilterGenerator`` asks for up to 1000 partitions at once as ORs of ``key = literal``
conjunctions, with one more pair of parentheses per partition: ``((k = "a" OR k = "b") OR k = "c")``. The
general parser recurses per parenthesis and gives up after a few dozen, and a chain of a thousand ORs would
exceed SQLite's expression depth. This module reads exactly that form with a stack (shunting-yard) and
returns it as one ``IN`` over the keys, which the SQL translator answers with one index lookup per key;
it expands the multi-key ``IN`` into the same equalities, so the answer is the one the ORs define.

Example:
    >>> equality_disjunction('((k = "a" or k = "b") or k = "c")').sql()
    "k IN ('a', 'b', 'c')"
    >>> equality_disjunction('(a = 1 and b = "x") or (b = "y" and a = 2)').sql()
    "(STRUCT(a, b)) IN (STRUCT(1, 'x'), STRUCT(2, 'y'))"
    >>> equality_disjunction('k = "a" or k > "b"') is None
    True
"""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.dialects.hive import Hive
from sqlglot.errors import SqlglotError
from sqlglot.tokens import Token, TokenType

_CONNECTIVES = {TokenType.AND: 2, TokenType.OR: 1}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _literal(tokens: list[Token], i: int) -> tuple[exp.Literal, int] | None:
    """The literal starting at ``tokens[i]`` (a string, a number, ``-`` and a number, or an unquoted date
    ``2024-01-01``, which Hive's grammar reads as a string) and the index after it."""
    kinds = [t.token_type for t in tokens[i : i + 5]]
    if kinds[:1] == [TokenType.STRING]:
        return exp.Literal.string(tokens[i].text), i + 1
    if kinds[:2] == [TokenType.DASH, TokenType.NUMBER]:
        return exp.Literal(this="-" + tokens[i + 1].text, is_string=False), i + 2
    date = tokens[i : i + 5]
    if (
        kinds == [TokenType.NUMBER, TokenType.DASH, TokenType.NUMBER, TokenType.DASH, TokenType.NUMBER]
        and [len(t.text) for t in date] == [4, 1, 2, 1, 2]
        and all(t.text.isdigit() for t in date[::2])
        and all(a.end + 1 == b.start for a, b in zip(date, date[1:]))
    ):
        return exp.Literal.string("".join(t.text for t in date)), i + 5
    if kinds[:1] == [TokenType.NUMBER]:
        return exp.Literal(this=tokens[i].text, is_string=False), i + 1
    return None


def equality_disjunction(text: str) -> exp.Expr | None:
    """A filter that only ORs conjunctions of ``key = literal`` naming the same keys, as one ``IN`` over those
    keys (``k IN (...)``, or ``(struct(k1, k2)) IN (struct(...), ...)`` for several); None for any other
    filter."""
    try:
        tokens = Hive().tokenize(text)
    except SqlglotError:
        return None
    # shunting-yard to postfix: ("term", (key, literal)) or ("op", AND | OR)
    output: list[tuple] = []
    pending: list = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        kind = token.token_type
        if kind is TokenType.L_PAREN:
            pending.append(kind)
        elif kind is TokenType.R_PAREN:
            while pending and pending[-1] is not TokenType.L_PAREN:
                output.append(("op", pending.pop()))
            if not pending:
                return None
            pending.pop()
        elif kind in _CONNECTIVES:
            while pending and pending[-1] in _CONNECTIVES and _CONNECTIVES[pending[-1]] >= _CONNECTIVES[kind]:
                output.append(("op", pending.pop()))
            pending.append(kind)
        else:
            is_name = kind is TokenType.IDENTIFIER or _NAME.fullmatch(token.text)
            if not is_name or i + 2 >= len(tokens) or tokens[i + 1].token_type is not TokenType.EQ:
                return None
            found = _literal(tokens, i + 2)
            if found is None:
                return None
            output.append(("term", (token.text, found[0])))
            i = found[1]
            continue
        i += 1
    while pending:
        if pending[-1] is TokenType.L_PAREN:
            return None
        output.append(("op", pending.pop()))
    # evaluate: each value is a list of conjunctions; AND may only join single conjunctions
    stack: list[list[list[tuple[str, exp.Literal]]]] = []
    for kind, item in output:
        if kind == "term":
            stack.append([[item]])
            continue
        if len(stack) < 2:
            return None
        right, left = stack.pop(), stack.pop()
        if item is TokenType.OR:
            stack.append(left + right)
        elif len(left) == 1 and len(right) == 1:
            stack.append([left[0] + right[0]])
        else:
            return None
    if len(stack) != 1:
        return None
    rows = [sorted(conjunction, key=lambda term: term[0].lower()) for conjunction in stack[0]]
    keys = [name.lower() for name, _ in rows[0]]
    if len(set(keys)) != len(keys) or any([name.lower() for name, _ in row] != keys for row in rows):
        return None
    columns = [exp.column(name) for name, _ in rows[0]]
    if len(columns) == 1:
        return exp.In(this=columns[0], expressions=[row[0][1] for row in rows])
    return exp.In(
        this=exp.Paren(this=exp.Struct(expressions=columns)),
        expressions=[exp.Struct(expressions=[value for _, value in row]) for row in rows],
    )
