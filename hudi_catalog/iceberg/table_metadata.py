"""The view's table metadata files: ``<5-digit version>-<uuid>.metadata.json`` in the metadata folder, the
newest named by ``version-hint.text`` (as Iceberg's Hadoop tables do, so path-based readers find it).

A new version is written as a new file, never over an old one: the previous metadata stays as it was until a
new version is complete, and a failure before that leaves nothing a reader can see.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from dataclasses import dataclass
from typing import Any

from pyarrow import fs as pafs

from .errors import ViewMetadataError
from .metadata_files import make_folder, write_file

log = logging.getLogger(__name__)

VERSION_HINT = "version-hint.text"
PREVIOUS_VERSIONS_MAX = "write.metadata.previous-versions-max"
"""Table property: the entries ``metadata-log`` keeps (older versions drop out of it)."""
PREVIOUS_VERSIONS_MAX_DEFAULT = 100
"""Iceberg's default of ``write.metadata.previous-versions-max``."""
DELETE_AFTER_COMMIT = "write.metadata.delete-after-commit.enabled"
"""Table property: whether a metadata file is deleted once it drops out of ``metadata-log`` (after the version
that dropped it is published)."""
DELETE_AFTER_COMMIT_DEFAULT = True
"""The view's default, where Iceberg's is ``false``: the view writes a metadata file per Hudi commit, and only
its own writer ever reads an old one (the log's, for time travel by metadata file), so the files past the log
are deleted rather than left to grow with the table's history (docs/iceberg.md, "Metadata growth")."""
_METADATA_FILE = re.compile(r"(\d+)-[0-9a-f-]+\.metadata\.json")


@dataclass(frozen=True)
class TableMetadata:
    """One version of the view's metadata: the JSON object, its file and version number."""

    location: str
    version: int
    data: dict[str, Any]


def metadata_file_path(metadata_dir: str, version: int) -> str:
    return f"{metadata_dir}/{version:05d}-{uuid.uuid4()}.metadata.json"


def load_metadata(fs: pafs.FileSystem, path: str) -> TableMetadata:
    """The metadata in the file at ``path``.

    Raises:
        ViewMetadataError: the file is missing, not JSON, or not named as a metadata file.
    """
    match = _METADATA_FILE.fullmatch(path.rsplit("/", 1)[-1])
    if match is None:
        raise ViewMetadataError(f"{path}: not a table metadata file name")
    try:
        with fs.open_input_stream(path) as stream:
            data = json.loads(stream.read())
    except FileNotFoundError as e:
        raise ViewMetadataError(f"{path} not found") from e
    except (OSError, ValueError) as e:
        raise ViewMetadataError(f"cannot read {path}: {e}") from e
    if not isinstance(data, dict) or data.get("format-version") != 2:
        raise ViewMetadataError(f"{path}: not Iceberg v2 table metadata")
    return TableMetadata(path, int(match[1]), data)


def latest_metadata(fs: pafs.FileSystem, metadata_dir: str) -> TableMetadata | None:
    """The newest metadata in ``metadata_dir`` (the highest version there); ``None`` when there is none.

    Raises:
        ViewMetadataError: the newest metadata file cannot be read.
    """
    try:
        infos = fs.get_file_info(pafs.FileSelector(metadata_dir, allow_not_found=True))
    except OSError as e:
        raise ViewMetadataError(f"cannot list {metadata_dir}: {e}") from e
    versions: dict[int, list[str]] = {}
    for info in infos:
        match = _METADATA_FILE.fullmatch(info.base_name)
        if match is not None and info.type == pafs.FileType.File:
            versions.setdefault(int(match[1]), []).append(info.path)
    if not versions:
        return None
    newest = max(versions)
    if len(versions[newest]) > 1:
        raise ViewMetadataError(f"{metadata_dir}: {len(versions[newest])} metadata files of version {newest}")
    return load_metadata(fs, versions[newest][0])


def write_metadata(fs: pafs.FileSystem, metadata_dir: str, data: dict[str, Any], version: int) -> TableMetadata:
    """Write ``data`` as metadata version ``version``, then point ``version-hint.text`` at it."""
    path = metadata_file_path(metadata_dir, version)
    make_folder(fs, metadata_dir)
    write_file(fs, path, json.dumps(data, indent=2).encode("utf-8"))
    write_file(fs, f"{metadata_dir}/{VERSION_HINT}", str(version).encode("ascii"))
    log.info("wrote Iceberg metadata %s", path)
    return TableMetadata(path, version, data)


def new_table_metadata(table_uuid: str, location: str, properties: dict[str, str]) -> dict[str, Any]:
    """The metadata of a view with no schema, spec or snapshot yet (the first instant fills them in)."""
    return {
        "format-version": 2,
        "table-uuid": table_uuid,
        "location": location,
        "last-sequence-number": 0,
        "last-updated-ms": 0,
        "last-column-id": 0,
        "current-schema-id": 0,
        "schemas": [],
        "default-spec-id": 0,
        "partition-specs": [],
        "last-partition-id": 999,
        "default-sort-order-id": 0,
        "sort-orders": [{"order-id": 0, "fields": []}],
        "properties": dict(properties),
        "current-snapshot-id": -1,
        "refs": {},
        "snapshots": [],
        "snapshot-log": [],
        "metadata-log": [],
    }


def next_version(previous: TableMetadata, data: dict[str, Any]) -> list[str]:
    """Append ``previous`` to ``data``'s metadata log, which keeps its newest ``write.metadata.previous-versions-max``
    entries (100 by default); returns the metadata files that dropped out of it and are to be deleted once
    ``data`` is published (none unless ``write.metadata.delete-after-commit.enabled``, true by default here).

    >>> old = TableMetadata("m/00002-a.metadata.json", 2, {"last-updated-ms": 2, "metadata-log": [
    ...     {"timestamp-ms": 1, "metadata-file": "m/00001-b.metadata.json"}]})
    >>> data = {"properties": {PREVIOUS_VERSIONS_MAX: "1"}}
    >>> next_version(old, data), [e["metadata-file"] for e in data["metadata-log"]]
    (['m/00001-b.metadata.json'], ['m/00002-a.metadata.json'])
    """
    properties = data.get("properties", {})
    keep = max(1, property_as_int(properties, PREVIOUS_VERSIONS_MAX, PREVIOUS_VERSIONS_MAX_DEFAULT))
    entry = {"timestamp-ms": previous.data["last-updated-ms"], "metadata-file": previous.location}
    log_entries = list(previous.data.get("metadata-log", [])) + [entry]
    data["metadata-log"] = log_entries[-keep:]
    if not property_as_bool(properties, DELETE_AFTER_COMMIT, DELETE_AFTER_COMMIT_DEFAULT):
        return []
    kept = {e["metadata-file"] for e in data["metadata-log"]}
    return [e["metadata-file"] for e in log_entries[:-keep] if e["metadata-file"] not in kept]


def property_as_int(properties: dict[str, str], key: str, default: int) -> int:
    """A table property as an integer; ``default`` when absent or not one."""
    try:
        return int(properties[key])
    except (KeyError, ValueError):
        return default


def property_as_bool(properties: dict[str, str], key: str, default: bool) -> bool:
    """A table property as a boolean (``true``/``false``, any case); ``default`` when absent or neither."""
    value = str(properties.get(key, "")).strip().lower()
    return {"true": True, "false": False}.get(value, default)
