"""What of an object a copy carries, as plain values both sides can be compared on.

A metastore sets some fields itself when an object is written (creation and access times, its catalog's
name, ids, write ids, the time of the last DDL): those are left out, so an object copied as it is compares
equal, and a re-run finds exactly what changed. Everything else the source holds is kept: locations,
owners, parameters (statistics included), formats, view texts. ``differences`` lists where two forms differ,
by path, for ``--verify``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from thriftpy2.thrift import TPayload

COPY_MARKER = "hudi_metastore.copy.incomplete"
"""Set on a target table while its partitions and statistics are being copied; removed once all are."""
DDL_TIME = "transient_lastDdlTime"
"""The time of the last DDL, set by every metastore on every write: never compared."""

_SET_BY_THE_METASTORE = frozenset(
    {
        "createTime",
        "lastAccessTime",
        "catName",
        "hive3CatName",
        "catalogName",
        "writeId",
        "isStatsCompliant",
        "colStats",
        "accessType",
        "requiredReadCapabilities",
        "requiredWriteCapabilities",
        "id",
        "fileMetadata",
        "dictionary",
        "txnId",
        "privileges",
        "connector_name",
        "remote_dbname",
        "lastAnalyzed",
        "grantTime",
    }
)
"""Fields a metastore fills in itself (times, catalog names, ids) or that are copied by their own calls
(``privileges``: the grants are copied with ``grant_privileges``)."""
_UNKNOWN_TO_HIVE_2 = frozenset({"ownerType", "managedLocationUri", "type"})
"""Fields Hive 2.3 does not keep (``type``: Hive 4's kind of database): compared only when both sides have
them."""


def form(value: Any) -> Any:
    """``value`` (a Thrift struct, list, map or scalar) as plain values, without the fields a metastore sets
    itself, the table parameters it sets (``transient_lastDdlTime``) or the copy's own marker."""
    if isinstance(value, TPayload):
        return {
            name: form(field)
            for name, field in sorted(vars(value).items())
            if field is not None and name not in _SET_BY_THE_METASTORE
        }
    if isinstance(value, dict):
        return {str(k): form(v) for k, v in sorted(value.items()) if k not in (DDL_TIME, COPY_MARKER)}
    if isinstance(value, (list, tuple)):
        return [form(v) for v in value]
    return value


def same(source: Any, target: Any) -> bool:
    """Whether the target holds what the source does."""
    return next(differences(form(source), form(target)), None) is None


def differences(source: Any, target: Any, path: str = "") -> Iterator[str]:
    """Where two forms differ: ``path: source value != target value`` lines, parameters and fields by name."""
    if isinstance(source, dict) and isinstance(target, dict):
        for key in sorted(set(source) | set(target)):
            if key in _UNKNOWN_TO_HIVE_2 and (key not in source or key not in target):
                continue
            yield from differences(source.get(key), target.get(key), f"{path}.{key}" if path else key)
    elif isinstance(source, list) and isinstance(target, list) and len(source) == len(target):
        for index, (a, b) in enumerate(zip(source, target)):
            yield from differences(a, b, f"{path}[{index}]")
    elif source != target:
        yield f"{path}: {_short(source)} != {_short(target)}"


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
