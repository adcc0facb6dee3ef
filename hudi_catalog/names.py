"""Object names and Hive's name patterns.

Hive keeps database, table and function names in lower case and accepts only word characters. Listing calls
take patterns where ``*`` matches anything, ``|`` separates alternatives and matching ignores case.

Example:
    >>> filter_names(["sales_2024", "Orders", "users"], "sales*|orders")
    ['sales_2024', 'Orders']
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_VALID_NAME = re.compile(r"[A-Za-z0-9_]+")


def is_valid_name(name: str | None) -> bool:
    return name is not None and _VALID_NAME.fullmatch(name) is not None


def normalize(name: str) -> str:
    return name.lower()


def compile_pattern(pattern: str | None) -> re.Pattern[str] | None:
    """Hive's ``*``/``|`` pattern as a regular expression; ``None`` or ``*`` matches everything."""
    if pattern is None or pattern.strip() in ("", "*"):
        return None
    alternatives = [p.strip().replace("*", ".*") for p in pattern.split("|")]
    try:
        return re.compile("|".join(f"(?:{a})" for a in alternatives), re.IGNORECASE)
    except re.error:
        escaped = [re.escape(p.strip()).replace(r"\*", ".*") for p in pattern.split("|")]
        return re.compile("|".join(f"(?:{a})" for a in escaped), re.IGNORECASE)


def filter_names(names: Iterable[str], pattern: str | None) -> list[str]:
    regex = compile_pattern(pattern)
    return [n for n in names if regex is None or regex.fullmatch(n)]
