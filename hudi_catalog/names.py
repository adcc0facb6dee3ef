"""Object names and Hive's name patterns.

Hive keeps database, table and function names in lower case and accepts only word characters, and no name
longer than its schema holds (checked here the same way on every store). Listing calls take patterns where
``*`` matches anything, ``|`` separates alternatives and matching ignores case.

Example:
    >>> filter_names(["sales_2024", "Orders", "users"], "sales*|orders")
    ['sales_2024', 'Orders']
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .errors import CatalogError, ValueTooLongError
from .java_regex import JavaRegex, PatternError, compile_java, escape

_VALID_NAME = re.compile(r"[A-Za-z0-9_]+")


NAME_LIMIT = 128
"""Hive's limit for the names of catalogs, databases, tables, functions, roles and partition keys (the width
of ``DBS.NAME``, ``FUNCS.FUNC_NAME``, ``ROLES.ROLE_NAME`` and ``PARTITION_KEYS.PKEY_NAME`` in its schema)."""
COLUMN_NAME_LIMIT = 767
"""Hive's limit for column names (``COLUMNS_V2.COLUMN_NAME``)."""
PARTITION_VALUE_LIMIT = 256
"""Hive's limit for one partition value (``PARTITION_KEY_VALS.PART_KEY_VAL``)."""
PARTITION_NAME_LIMIT = 750
"""The longest partition name (``k1=v1/k2=v2``, escaped) the catalog keeps: Hive's ``PARTITIONS.PART_NAME``
is 767 bytes of latin1; 750 characters keep the catalog's unique key on it within InnoDB's limit in utf8mb4."""


def is_valid_name(name: str | None) -> bool:
    """Whether ``name`` is a valid database, table, function or catalog name: word characters only, at most
    ``NAME_LIMIT`` of them (Hive's ``MetaStoreUtils.validateName`` and the width of its name columns)."""
    return name is not None and len(name) <= NAME_LIMIT and _VALID_NAME.fullmatch(name) is not None


def preview(value: str, length: int = 40) -> str:
    """The start of a client's value, to name it in a message without echoing all of a huge one."""
    return value if len(value) <= length else value[:length] + "..."


def check_column_names(columns: Iterable[str], partition_keys: Iterable[str], error: type[CatalogError]) -> None:
    """Raise ``error`` in Hive's words (``Invalid column name: x``, ``Invalid partition column name: x``) for a
    column name longer than ``COLUMN_NAME_LIMIT`` or a partition key longer than ``NAME_LIMIT``."""
    for name in columns:
        if name and len(name) > COLUMN_NAME_LIMIT:
            raise error(f"Invalid column name: {preview(name)} (longer than {COLUMN_NAME_LIMIT} characters)")
    for name in partition_keys:
        if name and len(name) > NAME_LIMIT:
            raise error(f"Invalid partition column name: {preview(name)} (longer than {NAME_LIMIT} characters)")


def check_partition_lengths(values: Iterable[str | None], name: str) -> None:
    """Raise ``ValueTooLongError`` for a partition value longer than Hive's ``PARTITION_VALUE_LIMIT`` or a
    partition name (``name``, escaped) longer than ``PARTITION_NAME_LIMIT``."""
    for value in values:
        if value and len(value) > PARTITION_VALUE_LIMIT:
            raise ValueTooLongError(
                f"Partition value '{preview(value)}' is too long: {len(value)} characters, at most "
                f"{PARTITION_VALUE_LIMIT}"
            )
    if len(name) > PARTITION_NAME_LIMIT:
        raise ValueTooLongError(
            f"Partition name '{preview(name)}' is too long: {len(name)} characters, at most {PARTITION_NAME_LIMIT}"
        )


def normalize(name: str) -> str:
    return name.lower()


def compile_pattern(pattern: str | None) -> JavaRegex | None:
    """Hive's ``*``/``|`` pattern as a regular expression matched by RE2 in linear time (each alternative a
    Java regular expression, as Hive's ``matches`` reads it); ``None`` or ``*`` matches everything. Where the
    alternatives do not make a valid pattern, only ``*`` is special in them.

    Raises:
        PatternError: the pattern is too large for RE2 even with its characters taken literally.
    """
    if pattern is None or pattern.strip() in ("", "*"):
        return None
    alternatives = [p.strip().replace("*", ".*") for p in pattern.split("|")]
    try:
        return compile_java("(?i)" + "|".join(f"(?:{a})" for a in alternatives))
    except PatternError:
        escaped = [escape(p.strip()).replace(r"\*", ".*") for p in pattern.split("|")]
        return compile_java("(?i)" + "|".join(f"(?:{a})" for a in escaped))


def filter_names(names: Iterable[str], pattern: str | None) -> list[str]:
    regex = compile_pattern(pattern)
    return [n for n in names if regex is None or regex.matches(n)]
