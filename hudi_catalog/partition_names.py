"""Hive partition names: ``k1=v1/k2=v2`` with Hive's path escaping.

Hive escapes control characters and ``"#%'*/:=?\\{[]^`` plus DEL as ``%XX`` (upper-case hex) in both keys
and values, writes an empty or missing value as ``__HIVE_DEFAULT_PARTITION__``, and lower-cases key names.

Example:
    >>> make_partition_name(["ds", "hr"], ["2024-01-01", "10:00"])
    'ds=2024-01-01/hr=10%3A00'
    >>> partition_name_to_values("ds=2024-01-01/hr=10%3A00")
    ['2024-01-01', '10:00']
"""

from __future__ import annotations

from collections.abc import Sequence

from .errors import InvalidObjectError, InvalidPartitionValueError, NoSuchObjectError
from .java_regex import PatternError, compile_java
from .names import preview

DEFAULT_PARTITION_NAME = "__HIVE_DEFAULT_PARTITION__"

_ESCAPED = frozenset(
    [chr(c) for c in range(0, 32)] + list("\"#%'*/:=?\\{[]^") + [chr(127)]
)  # as Hive's FileUtils.charToEscape: every char below ' ' (NUL included), then the list


def escape_path_name(value: str | None) -> str:
    """Escape one key or value the way Hive's ``FileUtils.escapePathName`` does."""
    if not value:
        return DEFAULT_PARTITION_NAME
    return "".join(f"%{ord(ch):02X}" if ch in _ESCAPED else ch for ch in value)


def unescape_path_name(text: str) -> str:
    """Undo ``escape_path_name``; a ``%`` not followed by two hex digits stays as it is."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "%" and _is_hex(text[i + 1 : i + 3]):
            out.append(chr(int(text[i + 1 : i + 3], 16)))
            i += 3
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _is_hex(pair: str) -> bool:
    return len(pair) == 2 and all(c in "0123456789abcdefABCDEF" for c in pair)


def make_partition_name(keys: list[str], values: list[str]) -> str:
    """Render a partition name from key names and values (one value per key, in order)."""
    if len(keys) != len(values):
        raise InvalidObjectError(f"Invalid partition key & values; keys {keys}, values {values}")
    return "/".join(f"{escape_path_name(key.lower())}={escape_path_name(value)}" for key, value in zip(keys, values))


def partition_name_to_spec(name: str) -> dict[str, str]:
    """Parse ``k1=v1/k2=v2`` into an ordered ``{key: value}`` dict, unescaping both sides."""
    spec: dict[str, str] = {}
    if not name:
        return spec
    for component in name.split("/"):
        key, sep, value = component.partition("=")
        if not sep or not key:
            raise InvalidObjectError(f"Invalid partition name {name!r}")
        spec[unescape_path_name(key)] = unescape_path_name(value)
    return spec


def partition_name_to_values(name: str) -> list[str]:
    """The values of a partition name, in order."""
    return list(partition_name_to_spec(name).values())


def values_for_keys(keys: list[str], name: str) -> list[str]:
    """The values of ``name`` ordered by ``keys``; every key must be named exactly once."""
    spec = {k.lower(): v for k, v in partition_name_to_spec(name).items()}
    if set(spec) != {k.lower() for k in keys}:
        raise NoSuchObjectError(f"partition {name} does not match the partition keys {keys}")
    return [spec[k.lower()] for k in keys]


def check_partition_values(values: Sequence[str], pattern: str | None) -> None:
    """Raise ``InvalidPartitionValueError`` (Hive's words) for a value ``pattern`` does not match whole."""
    if not pattern:
        return
    try:
        regex = compile_java(pattern)  # RE2: linear in the value, whatever the client set
    except PatternError as error:
        raise InvalidPartitionValueError(
            f"Invalid whitelist pattern '{preview(pattern)}' (hive.metastore.partition.name.whitelist.pattern): {error}"
        ) from None
    for value in values:
        if not regex.matches(value or ""):
            raise InvalidPartitionValueError(
                f"Partition value '{value}' contains a character not matched by whitelist pattern '{pattern}'.  "
                "(configure with hive.metastore.partition.name.whitelist.pattern)"
            )
