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
SLICE_STATISTICS = frozenset({"numFiles", "totalSize", "numRows"})
"""The basic statistics this server derives from a Hudi table's latest file slices, whatever it is given."""
FAST_STATISTICS = frozenset({"numFiles", "totalSize", "numFilesErasureCoded"})
"""What a Hive Metastore computes from a folder's files when it is given a table or partition without them."""
HUDI_TABLE_VERSION = "hoodie.table.version"
"""Among a table's parameters on this server: its statistics derive from its file slices."""
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


def form(value: Any, ignored: frozenset[str] = frozenset()) -> Any:
    """``value`` (a Thrift struct, list, map or scalar) as plain values, without the fields a metastore sets
    itself, the table parameters it sets (``transient_lastDdlTime``), the copy's own marker, or the
    parameters ``ignored``."""
    if isinstance(value, TPayload):
        return {
            name: form(field, ignored)
            for name, field in sorted(vars(value).items())
            if field is not None and name not in _SET_BY_THE_METASTORE
        }
    if isinstance(value, dict):
        skipped = (DDL_TIME, COPY_MARKER, *ignored)
        return {str(k): form(v, ignored) for k, v in sorted(value.items()) if k not in skipped}
    if isinstance(value, (list, tuple)):
        return [form(v, ignored) for v in value]
    return value


def same(source: Any, target: Any, ignored: frozenset[str] = frozenset()) -> bool:
    """Whether the target holds what the source does (but the parameters ``ignored``)."""
    return next(differences(form(source, ignored), form(target, ignored)), None) is None


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


def computed_by_target(source: Any, target: Any) -> frozenset[str]:
    """The fast statistics the target added to an object the source has without them (it listed the folder,
    as Hive Metastore does): not a difference a copy writes back, so that a re-run does not alter them again."""
    source_params, target_params = source.parameters or {}, target.parameters or {}
    return frozenset(k for k in FAST_STATISTICS if k in target_params and k not in source_params)
