"""Snapshot expiry: which of the view's snapshots go, what its metadata keeps of them, which of the view's own
files no version lists any more once the metadata without them is published, and how writes a clean expires are
taken without the files it deleted (:func:`merge_expired_writes`).

A Hudi clean deletes the files of the slices older than its earliest retained commit, so the view's snapshots of
the instants before it point at files that may be gone: the clean expires them (``ViewBuilder.apply``). An
operator expires more on request, as Iceberg's ``expire_snapshots(older_than, retain_last)`` does
(:func:`snapshots_to_expire`; ``hudi-metastore iceberg DB.TABLE --expire-snapshots``). Either way:

- an expired snapshot leaves ``snapshots``, ``snapshot-log`` and every ref other than ``main`` that pointed at it
  (``main`` is the current snapshot, which never expires);
- its manifest list, and the manifests that no snapshot left lists, are deleted, and so are the metadata files
  that drop out of ``metadata-log`` (``table_metadata.next_version``), but only once the version without them
  is published (a version that loses its compare-and-set deletes none of them), and only files of the view's
  metadata folder named as the view names them (:func:`delete_expired`): never a data file, never a file
  another writer put there.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from pyarrow import fs as pafs

from ..filesystems import READS_AT_ONCE, is_local
from ..hudi.file_names import BaseFileName
from ..model import Action
from .changes import InstantChanges
from .errors import ViewMetadataError
from .manifests import manifest_list_paths

log = logging.getLogger(__name__)

MAX_SNAPSHOT_AGE_MS_DEFAULT = 5 * 24 * 3600 * 1000
"""Iceberg's ``history.expire.max-snapshot-age-ms``: ``expire_snapshots`` without ``older_than`` expires the
snapshots older than this."""
MIN_SNAPSHOTS_TO_KEEP_DEFAULT = 1
"""Iceberg's ``history.expire.min-snapshots-to-keep``: ``expire_snapshots`` without ``retain_last`` keeps this
many of the newest snapshots whatever their age."""
_VIEW_FILE = re.compile(
    r"snap-\d+-[0-9a-f-]{36}\.avro"
    r"|manifest-[0-9a-z.]+-\d+(-[0-9a-f-]{36})?\.avro"
    r"|\d{5,}-[0-9a-f-]{36}\.metadata\.json"
)
"""The names the view gives its manifest lists, manifests (with a uuid since it rewrites none in place) and
metadata files."""


@dataclass(frozen=True)
class Expired:
    """What a new metadata version no longer holds: the snapshots it expired and the files to delete once it is
    published.

    Attributes:
        snapshots: ids of the snapshots expired.
        manifest_lists: their manifest lists.
        manifests: the manifests only they listed.
        metadata_files: metadata files that dropped out of ``metadata-log``.
    """

    snapshots: tuple[int, ...] = ()
    manifest_lists: tuple[str, ...] = ()
    manifests: tuple[str, ...] = ()
    metadata_files: tuple[str, ...] = ()

    @property
    def files(self) -> tuple[str, ...]:
        return self.manifest_lists + self.manifests + self.metadata_files


def snapshots_to_expire(data: dict[str, Any], older_than_ms: int, retain_last: int) -> list[int]:
    """The snapshots Iceberg's ``expire_snapshots(older_than, retain_last)`` expires: those whose timestamp is
    before ``older_than_ms``, except the ``retain_last`` newest of the current snapshot's history (the current
    one always) and those a ref (a branch or tag) points at.

    >>> data = {"current-snapshot-id": 3, "refs": {"main": {"snapshot-id": 3, "type": "branch"}}, "snapshots": [
    ...     {"snapshot-id": 1, "timestamp-ms": 10}, {"snapshot-id": 2, "timestamp-ms": 20, "parent-snapshot-id": 1},
    ...     {"snapshot-id": 3, "timestamp-ms": 30, "parent-snapshot-id": 2}]}
    >>> snapshots_to_expire(data, 25, 1), snapshots_to_expire(data, 25, 2), snapshots_to_expire(data, 99, 1)
    ([1, 2], [1], [1, 2])
    """
    by_id = {s["snapshot-id"]: s for s in data.get("snapshots", [])}
    kept = {ref["snapshot-id"] for ref in data.get("refs", {}).values()}
    current = by_id.get(data.get("current-snapshot-id"))
    for _ in range(max(1, retain_last)):
        if current is None:
            break
        kept.add(current["snapshot-id"])
        current = by_id.get(current.get("parent-snapshot-id"))
    return [
        snapshot_id
        for snapshot_id, snapshot in by_id.items()
        if snapshot_id not in kept and int(snapshot["timestamp-ms"]) < older_than_ms
    ]


def drop_snapshots(data: dict[str, Any], snapshot_ids: Iterable[int]) -> list[dict[str, Any]]:
    """Remove the snapshots ``snapshot_ids`` from the metadata ``data``: from ``snapshots``, ``snapshot-log`` and
    the refs other than ``main`` that point at them; the current snapshot stays whatever is asked. Returns the
    snapshots removed."""
    dropped = set(snapshot_ids) - {data.get("current-snapshot-id")}
    removed = [s for s in data["snapshots"] if s["snapshot-id"] in dropped]
    if not removed:
        return []
    data["snapshots"] = [s for s in data["snapshots"] if s["snapshot-id"] not in dropped]
    data["snapshot-log"] = [e for e in data.get("snapshot-log", []) if e["snapshot-id"] not in dropped]
    data["refs"] = {
        name: ref for name, ref in data.get("refs", {}).items() if name == "main" or ref["snapshot-id"] not in dropped
    }
    return removed


def merge_expired_writes(
    changes: Sequence[InstantChanges | None],
) -> tuple[list[InstantChanges | None], dict[int, int]]:
    """``changes`` (in the order the view takes them) with each write that a later clean among them expires
    merged into the next write the clean keeps, its own place left ``None``.

    A clean deletes the file versions only the commits before its earliest retained one read, so a view that
    takes those commits after the clean (a rebuild from the timeline, a view catching up) could not read their
    files; it need not: their snapshots would be expired by the clean it is about to take. The write they merge
    into lists, per file group, its newest version up to that write (which the clean kept, since reads as of the
    retained commits need it), without the file groups replaced meanwhile: the state of the table as of that
    write, reading no file the clean deleted. The last write before a clean is never merged (the current
    snapshot never expires).

    Returns the changes, and for each write that took others the position of the first of them (none of them
    is taken until it is).

    >>> w = lambda t, files: InstantChanges(t, "commit", t, added_base_files={"p": files})
    >>> clean = InstantChanges("5", "clean", "5", earliest_retained="3")
    >>> merged, first = merge_expired_writes([w("1", ("g1_0-1-1_1.parquet",)), w("2", ("g1_0-1-1_2.parquet",)),
    ...     w("3", ("g2_0-1-1_3.parquet",)), clean])
    >>> [c and (c.instant_time, dict(c.added_base_files)) for c in merged[:3]], first
    ([None, None, ('3', {'p': ('g1_0-1-1_2.parquet', 'g2_0-1-1_3.parquet')})], {2: 0})
    """
    merged = list(changes)
    first: dict[int, int] = {}
    for position, clean in enumerate(merged):
        if clean is None or clean.action != Action.CLEAN.value or clean.earliest_retained is None:
            continue  # a clean that names no earliest retained instant deleted nothing (instant_changes)
        writes = [p for p in range(position) if (c := merged[p]) is not None and c.action != Action.CLEAN.value]
        retained = clean.earliest_retained
        doomed = {p for p in writes[:-1] if (c := merged[p]) is not None and c.instant_time < retained}
        into: dict[int, list[int]] = {}
        for p in sorted(doomed):
            target = next(q for q in writes if q > p and q not in doomed)
            into.setdefault(target, []).append(p)
        for target, sources in into.items():
            merged[target] = _merged([c for p in [*sources, target] if (c := merged[p]) is not None])
            first[target] = min([first.get(p, p) for p in sources] + [first.get(target, target)])
            for p in sources:
                merged[p] = None
                first.pop(p, None)
    return merged, first


def _merged(changes: list[InstantChanges]) -> InstantChanges:
    """Consecutive writes as one, the last one's: per file group its newest base file, the groups replaced
    meanwhile gone (see :func:`merge_expired_writes`)."""
    added: dict[str, dict[str, str]] = {}  # partition -> file id (or name) -> newest name
    replaced: dict[str, set[str]] = {}
    opened: dict[str, set[str]] = {}
    skipped: dict[str, int] = {}
    for change in changes:
        for partition, ids in change.replaced_file_ids.items():
            replaced.setdefault(partition, set()).update(ids)
            for file_id in ids:
                added.get(partition, {}).pop(file_id, None)
        for partition, names in change.added_base_files.items():
            for name in names:
                parsed = BaseFileName.try_parse(name)
                added.setdefault(partition, {})[parsed.file_id if parsed is not None else name] = name
        for partition, ids in change.new_file_groups.items():
            opened.setdefault(partition, set()).update(ids)
        for reason, count in change.skipped.items():
            skipped[reason] = skipped.get(reason, 0) + count
    last = changes[-1]
    return replace(
        last,
        added_base_files={p: tuple(sorted(names.values())) for p, names in added.items() if names},
        replaced_file_ids={p: tuple(sorted(ids)) for p, ids in replaced.items() if ids},
        new_file_groups={p: tuple(sorted(ids)) for p, ids in opened.items() if ids},
        schema=next((c.schema for c in reversed(changes) if c.schema), None),
        skipped=skipped,
    )


def unreferenced_files(
    fs: pafs.FileSystem, removed: Sequence[dict[str, Any]], kept: Sequence[dict[str, Any]]
) -> tuple[list[str], list[str]]:
    """The manifest lists of the ``removed`` snapshots, and the manifests they list that no ``kept`` snapshot
    lists. A kept snapshot's list that cannot be read keeps every manifest (what it lists is unknown); a removed
    snapshot's that cannot be read gives none of its manifests."""
    lists = [s["manifest-list"] for s in removed]
    if not lists:
        return [], []
    seen: dict[bytes, list[str]] = {}
    listed_by_kept = _read_lists(fs, [s["manifest-list"] for s in kept], seen)
    if any(paths is None for paths in listed_by_kept):
        log.warning("a manifest list of a kept snapshot cannot be read: no manifest of the expired ones is deleted")
        return lists, []
    referenced = {path for paths in listed_by_kept for path in paths or ()}
    candidates: dict[str, None] = {}
    for paths in _read_lists(fs, lists, seen):
        for path in paths or ():
            if path not in referenced:
                candidates[path] = None
    return lists, list(candidates)


def _read_lists(fs: pafs.FileSystem, lists: list[str], seen: dict[bytes, list[str]]) -> list[list[str] | None]:
    """The manifest paths of each list (``None``: it cannot be read); from an object store several at a time."""

    def read(path: str) -> list[str] | None:
        try:
            return manifest_list_paths(fs, path, seen)
        except ViewMetadataError as e:
            log.warning("cannot read the manifest list %s: %s", path, e)
            return None

    if is_local(fs) or len(lists) < 2:
        return [read(path) for path in lists]
    with ThreadPoolExecutor(READS_AT_ONCE, thread_name_prefix="iceberg-view-expiry") as pool:
        return list(pool.map(read, lists))


def delete_expired(fs: pafs.FileSystem, metadata_dir: str, expired: Expired) -> list[str]:
    """Delete the files ``expired`` names, once the version that expired them is published; returns those
    deleted (or gone already). Only files directly in ``metadata_dir`` named as the view names its manifest
    lists, manifests and metadata files are touched; any other is left and logged. A file that cannot be
    deleted is only logged: no version lists it, and a reader of an older version fails as on any Iceberg table
    whose snapshots were expired."""
    folder = metadata_dir.rstrip("/")
    deleted = []
    for path in expired.files:
        folder_of, _, name = path.rpartition("/")
        if folder_of != folder or not _VIEW_FILE.fullmatch(name):
            log.warning("not deleting %s: not a file the Iceberg view wrote in %s", path, folder)
            continue
        try:
            fs.delete_file(path)
        except FileNotFoundError:
            pass
        except OSError as e:
            log.warning("cannot delete %s, which no version of the Iceberg view lists any more: %s", path, e)
            continue
        deleted.append(path)
    if expired.snapshots or deleted:
        log.info(
            "%s: expired %d Iceberg snapshots, deleted %d of their files",
            folder,
            len(expired.snapshots),
            len(deleted),
        )
    return deleted
