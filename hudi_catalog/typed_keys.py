"""Order-preserving text keys for typed partition values.

Hive keeps partition values as strings, but a filter compares them by the partition column's type:
``hr > 9`` must match ``hr=10``. At write time each value of a numeric, date or timestamp key also gets a
*typed key*: a fixed-width string whose byte order is the order of the values, so that a typed comparison
becomes a plain, indexable string comparison in any SQL database. Values that do not parse as the type (the
default partition ``__HIVE_DEFAULT_PARTITION__``, say) get no typed key and match no typed comparison.

Numbers (every integral type, decimal, float, double) share one encoding: a sign digit, then 40 integer and
40 fraction digits, nines-complemented for negative numbers.

Example:
    >>> typed_key("int", "9") < typed_key("int", "10")
    True
    >>> typed_key("decimal(10,2)", "-1.5") < typed_key("decimal(10,2)", "-1.25") < typed_key("bigint", "0")
    True
    >>> typed_key("date", "2024-01-05")
    '2024-01-05'
    >>> typed_key("int", "__HIVE_DEFAULT_PARTITION__") is None
    True
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal, InvalidOperation, localcontext

INTEGER_DIGITS = 40
FRACTION_DIGITS = 40
TYPED_KEY_LENGTH = 1 + INTEGER_DIGITS + FRACTION_DIGITS

NUMERIC = "numeric"
DATE = "date"
TIMESTAMP = "timestamp"

_NUMERIC_TYPES = {
    "tinyint",
    "smallint",
    "int",
    "integer",
    "bigint",
    "decimal",
    "numeric",
    "float",
    "double",
    "double precision",
    "real",
}
_INTEGRAL_RANGES = {
    "tinyint": (-(2**7), 2**7 - 1),
    "smallint": (-(2**15), 2**15 - 1),
    "int": (-(2**31), 2**31 - 1),
    "integer": (-(2**31), 2**31 - 1),
    "bigint": (-(2**63), 2**63 - 1),
}
_COMPLEMENT = str.maketrans("0123456789", "9876543210")
_INTEGER_TEXT = re.compile(r"[+-]?\d+")


def base_type(type_string: str) -> str:
    """``decimal(10,2)`` -> ``decimal``; lower case, parameters dropped."""
    return re.sub(r"\(.*\)$", "", type_string.strip().lower()).strip()


def type_family(type_string: str) -> str | None:
    """``numeric``, ``date`` or ``timestamp`` for types compared by value; ``None`` for strings and others."""
    base = base_type(type_string)
    if base in _NUMERIC_TYPES:
        return NUMERIC
    if base in (DATE, TIMESTAMP):
        return base
    return None


def parse_number(type_string: str, text: str) -> Decimal | None:
    """The value of ``text`` as a number of the column's type, or ``None`` when it is not one."""
    base = base_type(type_string)
    text = text.strip()
    if base in _INTEGRAL_RANGES:
        if not _INTEGER_TEXT.fullmatch(text):
            return None
        integer = int(text)
        low, high = _INTEGRAL_RANGES[base]
        return Decimal(integer) if low <= integer <= high else None
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def encode_number(value: Decimal) -> str | None:
    """The fixed-width, order-preserving text of a number; ``None`` when it does not fit 40.40 digits."""
    with localcontext() as context:
        context.prec = INTEGER_DIGITS + FRACTION_DIGITS + 2
        quantized = abs(value).quantize(Decimal(1).scaleb(-FRACTION_DIGITS))
    digits = f"{quantized:f}".replace(".", "")
    if len(digits) > INTEGER_DIGITS + FRACTION_DIGITS:
        return None
    digits = digits.rjust(INTEGER_DIGITS + FRACTION_DIGITS, "0")
    if value < 0 and quantized != 0:
        return "0" + digits.translate(_COMPLEMENT)
    return "1" + digits


def parse_date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text.strip())
    except ValueError:
        return None


def parse_timestamp(text: str) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(text.strip())
    except ValueError:
        return None


def typed_key(type_string: str, value: str | None) -> str | None:
    """The typed key of a partition value for a column type, or ``None`` (strings, unparsable values)."""
    if value is None:
        return None
    family = type_family(type_string)
    if family == NUMERIC:
        number = parse_number(type_string, value)
        return None if number is None else encode_number(number)
    if family == DATE:
        date = parse_date(value)
        return None if date is None else date.isoformat()
    if family == TIMESTAMP:
        stamp = parse_timestamp(value)
        return None if stamp is None else stamp.strftime("%Y-%m-%d %H:%M:%S.%f")
    return None
