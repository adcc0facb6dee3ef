"""Hudi partition paths as Hive partition values.

Hudi writes a partition as a relative path: ``k1=v1/k2=v2`` with hive-style partitioning, else the bare
values ``v1/v2``. Timestamp-based key generators may write one field as several segments (``2024/01/31``),
which stays one value. Values are unescaped as Hive escapes path names (``%2F`` for ``/``).

Example:
    >>> partition_values("city=san_francisco", ["city"])
    ['san_francisco']
    >>> partition_values("2024/01/31", ["ts_str"])
    ['2024/01/31']
    >>> partition_values("10/300", ["byteField", "shortField"])
    ['10', '300']
    >>> partition_values("byteField=10/shortField=300", ["bytefield", "shortfield"])
    ['10', '300']

Key names match in any case, as Hive's column names do: a table registered in Apache Hive Metastore has its
partition keys in lower case, while Hudi writes the paths with its partition fields as they are.
"""

from __future__ import annotations

from ..errors import HudiMetadataError
from ..partition_names import unescape_path_name


def partition_values(path: str, keys: list[str]) -> list[str]:
    """The values of partition ``path`` for partition ``keys`` (in order)."""
    segments = path.split("/")
    if len(segments) == len(keys):
        return [unescape_path_name(_value_of(segment, key)) for segment, key in zip(segments, keys)]
    if len(keys) == 1 and "=" not in path:
        return [unescape_path_name(path)]
    raise HudiMetadataError(f"partition path {path!r} does not match the partition fields {keys}")


def _value_of(segment: str, key: str) -> str:
    name, equals, value = segment.partition("=")
    return value if equals and name.lower() == key.lower() else segment
