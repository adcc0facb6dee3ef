"""Hive column type strings: which type changes Hive Metastore accepts on ALTER TABLE.

Hive refuses a change of a column's type unless the old type converts implicitly to the new one: within
the string group, numeric widening, numbers and dates to strings, and identical complex types.

Example:
    >>> is_implicitly_convertible("int", "bigint"), is_implicitly_convertible("bigint", "int")
    (True, False)
"""

from __future__ import annotations

import re

_NUMERIC_ORDER = ["tinyint", "smallint", "int", "bigint", "float", "double", "decimal"]
_STRING_GROUP = {"string", "varchar", "char"}
_DATE_GROUP = {"date", "timestamp"}


def _base(type_string: str) -> str:
    t = type_string.strip().lower()
    t = {"integer": "int"}.get(t, t)
    return re.sub(r"\(.*\)$", "", t).strip()


def is_implicitly_convertible(old: str, new: str) -> bool:
    if old.strip().lower() == new.strip().lower():
        return True
    a, b = _base(old), _base(new)
    if a == b and a in ("decimal", "varchar", "char"):
        return True
    if a == "void":
        return True
    if a in _STRING_GROUP and b in _STRING_GROUP:
        return True
    if a in _STRING_GROUP and b == "double":
        return True
    if (a in _DATE_GROUP or a in _NUMERIC_ORDER) and b in _STRING_GROUP:
        return True
    if a in _NUMERIC_ORDER and b in _NUMERIC_ORDER:
        return _NUMERIC_ORDER.index(a) <= _NUMERIC_ORDER.index(b)
    return False
