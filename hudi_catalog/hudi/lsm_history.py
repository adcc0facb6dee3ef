"""The archived timeline of table versions 8 and later: Hudi 1.x's LSM timeline history in
``<timeline>/history`` (``.hoodie/timeline/history`` by default).

``_version_`` names the latest snapshot ``<N>``; ``manifest_<N>`` is JSON listing the live parquet files
(``{"files": [{"fileName": ..., "fileLen": ...}]}``), whose rows are ``HoodieLSMTimelineInstant`` records:
``instantTime``, ``completionTime``, ``action`` and ``metadata``, the completed instant file's bytes.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator

import pyarrow.parquet as pq
from pyarrow import fs as pafs

from ..errors import HudiMetadataError
from ..model import Action, InstantState
from .instant_files import InstantFile, instant_file_name
from .properties import TableConfig
from .storage import join, list_dir, read_file

log = logging.getLogger(__name__)

VERSION_FILE = "_version_"
_MANIFEST = re.compile(r"manifest_(\d+)")
_COLUMNS = ["instantTime", "completionTime", "action", "metadata"]


def read_lsm_history(fs: pafs.FileSystem, base_path: str, config: TableConfig) -> Iterator[tuple[InstantFile, bytes]]:
    """Each instant of the latest LSM snapshot with its metadata, in the order of the manifest's files
    (sorted by name) and their rows. An instant's ``file_name`` is
    ``<history dir>/<parquet file>#<its completed file name>``.

    Raises:
        HudiMetadataError: the manifest, or a parquet file it lists, is missing or malformed.
        StorageError: the file system failed.
    """
    history = join(base_path, config.history_dir)
    version = _snapshot_version(fs, history)
    if version is None:
        return
    manifest_path = f"{history}/manifest_{version}"
    try:
        manifest = json.loads(read_file(fs, manifest_path, missing=f"{manifest_path}: manifest not found"))
        file_names = sorted(entry["fileName"] for entry in manifest.get("files") or [])
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        raise HudiMetadataError(f"{manifest_path}: malformed LSM timeline manifest: {e}") from e
    for file_name in file_names:
        path = f"{history}/{file_name}"
        container = f"{config.history_dir}/{file_name}"
        for row in _parquet_rows(fs, path):
            requested, completion, action_name = row["instantTime"], row["completionTime"], row["action"]
            if not requested or not action_name:
                raise HudiMetadataError(f"{path}: archived instant without instantTime or action")
            try:
                action = Action(action_name)
            except ValueError:
                log.warning("%s: skipping archived instant %s of unknown action %r", path, requested, action_name)
                continue
            name = instant_file_name(requested, action, InstantState.COMPLETED, config.version, completion)
            yield (
                InstantFile(requested, action, InstantState.COMPLETED, completion, f"{container}#{name}"),
                row["metadata"] or b"",
            )


def _snapshot_version(fs: pafs.FileSystem, history: str) -> int | None:
    """The latest snapshot: ``_version_``, or else the highest ``manifest_<N>``; ``None`` if there is none."""
    version_path = f"{history}/{VERSION_FILE}"
    try:
        with fs.open_input_stream(version_path) as stream:
            return int(stream.read().decode("utf-8").strip())
    except (FileNotFoundError, ValueError):  # UnicodeDecodeError is a ValueError
        log.debug("%s: missing or unreadable, falling back to the manifest listing", version_path)
    versions = [int(m.group(1)) for info in list_dir(fs, history) if (m := _MANIFEST.fullmatch(info.base_name))]
    return max(versions, default=None)


def _parquet_rows(fs: pafs.FileSystem, path: str) -> list[dict]:
    try:
        with fs.open_input_file(path) as source:
            return pq.ParquetFile(source).read(columns=_COLUMNS).to_pylist()
    except FileNotFoundError as e:
        raise HudiMetadataError(f"{path}: LSM timeline file listed in the manifest is missing") from e
    except (OSError, ValueError, KeyError) as e:  # pyarrow reports corrupt parquet as OSError/ArrowInvalid
        raise HudiMetadataError(f"{path}: unreadable LSM timeline file: {e}") from e
