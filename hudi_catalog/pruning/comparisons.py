"""The comparison operators of Hive filters, as sqlglot node types mapped to Python operators.

The same operators work on SQLAlchemy columns (building SQL) and on plain values (evaluating in Python).
"""

from __future__ import annotations

import operator

from sqlglot import exp

COMPARISONS = {
    exp.EQ: operator.eq,
    exp.NEQ: operator.ne,
    exp.LT: operator.lt,
    exp.LTE: operator.le,
    exp.GT: operator.gt,
    exp.GTE: operator.ge,
}

REVERSED = {exp.EQ: exp.EQ, exp.NEQ: exp.NEQ, exp.LT: exp.GT, exp.LTE: exp.GTE, exp.GT: exp.LT, exp.GTE: exp.LTE}
"""The operator to use when the operands are swapped (``5 < hr`` is ``hr > 5``)."""

NEGATED = {exp.EQ: exp.NEQ, exp.NEQ: exp.EQ, exp.LT: exp.GTE, exp.LTE: exp.GT, exp.GT: exp.LTE, exp.GTE: exp.LT}
"""The operator of the negated comparison (``NOT hr > 5`` is ``hr <= 5``)."""
