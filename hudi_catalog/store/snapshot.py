"""Queries on ``files``, ``replaced_file_group`` and ``tbl_version``: the file snapshot of Hudi tables.

A ``files`` row is one data file (base or log) of a partition (``part_id``; NULL for unpartitioned tables),
with the file group it belongs to and ``instant_ts``, the requested time of the instant whose completion
added it. Cleaned files stay as rows with ``is_deleted``; files of rolled-back instants are removed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from sqlalchemy import (
    BindParameter,
    Connection,
    Select,
    and_,
    bindparam,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)

from ..model import Action, InstantState
from . import schema
from .batches import chunks
from .instants import ACTION_CODES, STATE_CODES

_f = schema.files.c
_r = schema.replaced_file_group.c
_v = schema.tbl_version.c
_p = schema.partitions.c

NO_PARTITION = 0
"""``replaced_file_group.part_id`` of unpartitioned tables (its key cannot hold NULL)."""

COMPLETED = STATE_CODES[InstantState.COMPLETED]

PENDING, APPLIED = 0, 1
"""``tbl_version.snapshot_status``: completed but not applied yet (asynchronous sync), or in the snapshot."""


def _in_partition(part_id: int | None):
    return _f.part_id.is_(None) if part_id is None else _f.part_id == part_id


def partition_ids_by_path(conn: Connection, tbl_id: int, paths: Iterable[str]) -> dict[str, int]:
    """``{hudi partition path: part_id}`` of the paths that exist."""
    found: dict[str, int] = {}
    for chunk in chunks(sorted(set(paths))):
        rows = conn.execute(select(_p.hudi_path, _p.part_id).where(_p.tbl_id == tbl_id, _p.hudi_path.in_(chunk)))
        found.update({r.hudi_path: r.part_id for r in rows})
    return found


def paths_of(conn: Connection, part_ids: Iterable[int]) -> dict[int, str]:
    """``{part_id: hudi partition path}`` of those partitions that have one."""
    found: dict[int, str] = {}
    for chunk in chunks(sorted(set(part_ids))):
        rows = conn.execute(select(_p.part_id, _p.hudi_path).where(_p.part_id.in_(chunk), _p.hudi_path.is_not(None)))
        found.update({r.part_id: r.hudi_path for r in rows})
    return found


def set_paths(conn: Connection, paths: dict[int, str]) -> None:
    """Give partitions their Hudi partition path (``{part_id: path}``)."""
    if paths:
        conn.execute(
            update(schema.partitions).where(_p.part_id == bindparam("pid")).values(hudi_path=bindparam("path")),
            [{"pid": part_id, "path": path} for part_id, path in paths.items()],
        )


def partition_paths(conn: Connection, tbl_id: int) -> list[str]:
    """The Hudi partition paths of the table, sorted."""
    rows = conn.execute(select(_p.hudi_path).where(_p.tbl_id == tbl_id, _p.hudi_path.is_not(None)))
    return sorted(r.hudi_path for r in rows)


_IN_PARTITIONS = select(_f.file_row_id, _f.part_id, _f.name).where(
    _f.tbl_id == bindparam("table_id"),
    _f.part_id.in_(bindparam("partition_ids", expanding=True)),
    _f.name.in_(bindparam("names", expanding=True)),
)
"""The prebuilt lookup of named files in some partitions: built and compiled once, it costs the bulk writes
no Python per call. Names and partitions are crossed, so a name also stored in another of the partitions
comes back too and is told apart by its partition."""
_UNPARTITIONED = select(_f.file_row_id, _f.name).where(
    _f.tbl_id == bindparam("table_id"), _f.part_id.is_(None), _f.name.in_(bindparam("names", expanding=True))
)
_SET_SIZE = update(schema.files).where(_f.file_row_id == bindparam("row_id")).values(size=bindparam("new_size"))
_MARK_DELETED = (
    update(schema.files).where(_f.file_row_id.in_(bindparam("row_ids", expanding=True))).values(is_deleted=True)
)


@dataclass
class _FileChange:
    """What the buffered changes do to one file (a partition's file name)."""

    row: dict | None = None
    """The row its first addition inserts if the file is not stored yet."""
    size: int = 0
    """The size of its latest addition."""
    deleted: bool = False
    """A deletion came: a stored file is marked deleted."""
    deleted_after_add: bool = False
    """A deletion came after the first addition: a file not stored yet is inserted deleted."""


@dataclass
class FileChanges:
    """Additions and deletions of files, in the order instants make them, folded per file and written in bulk
    by ``flush``, with the rows applying each one at once would leave: a file added that is stored already (a
    log file appended to again) keeps its row and takes the latest size; a deletion (a clean) marks a stored
    file deleted; a file added, then deleted before the flush is inserted deleted."""

    tbl_id: int
    _changes: dict[tuple[int | None, str], _FileChange] = field(default_factory=dict)

    def add(self, files: Iterable[dict]) -> None:
        """``{part_id, name, file_id, instant_ts, size, num_rows}`` rows of files written."""
        for f in files:
            change = self._changes.setdefault((f["part_id"], f["name"]), _FileChange())
            if change.row is None:
                change.row = f
            change.size = f["size"]

    def mark_deleted(self, part_id: int | None, names: Iterable[str]) -> None:
        """Cleaned files: still known (their instants stay on the timeline), never listed again."""
        for name in names:
            change = self._changes.setdefault((part_id, name), _FileChange())
            change.deleted = True
            change.deleted_after_add = change.row is not None

    def flush(self, conn: Connection) -> None:
        """Write the changes buffered so far (a lookup of the stored files per partition, then one statement
        per kind of change) and forget them."""
        if not self._changes:
            return
        stored = self._stored(conn)
        sizes = [
            {"row_id": row_id, "new_size": self._changes[key].size}
            for key, row_id in stored.items()
            if self._changes[key].row is not None
        ]
        if sizes:
            conn.execute(_SET_SIZE, sizes)
        deleted = sorted(row_id for key, row_id in stored.items() if self._changes[key].deleted)
        for chunk in chunks(deleted):
            conn.execute(_MARK_DELETED, {"row_ids": chunk})
        new_rows = [
            {**change.row, "tbl_id": self.tbl_id, "size": change.size, "is_deleted": change.deleted_after_add}
            for key, change in self._changes.items()
            if change.row is not None and key not in stored
        ]
        if new_rows:
            conn.execute(insert(schema.files), new_rows)
        self._changes.clear()

    def _stored(self, conn: Connection) -> dict[tuple[int | None, str], int]:
        """``{(part_id, name): file_row_id}`` of the changed files that are stored: a few statements for a
        commit, whatever the number of partitions it touches (its files in order, a chunk at a time)."""
        stored: dict[tuple[int | None, str], int] = {}
        unpartitioned = sorted(name for part_id, name in self._changes if part_id is None)
        for names in chunks(unpartitioned):
            rows = conn.execute(_UNPARTITIONED, {"table_id": self.tbl_id, "names": names})
            stored.update({(None, name): row_id for row_id, name in rows})
        partitioned = sorted((part_id, name) for part_id, name in self._changes if part_id is not None)
        for chunk in chunks(partitioned):
            part_ids = sorted({part_id for part_id, _ in chunk})
            names = sorted({name for _, name in chunk})
            found = conn.execute(_IN_PARTITIONS, {"table_id": self.tbl_id, "partition_ids": part_ids, "names": names})
            stored.update({(p, name): row_id for row_id, p, name in found if (p, name) in self._changes})
        return stored


def forget_replacements(conn: Connection, tbl_id: int, instant_times: Collection[str]) -> None:
    """Un-hide the file groups that rolled-back instants replaced."""
    if instant_times:
        conn.execute(
            delete(schema.replaced_file_group).where(_r.tbl_id == tbl_id, _r.instant_ts.in_(list(instant_times)))
        )


def remove_named_files(conn: Connection, tbl_id: int, part_id: int | None, names: Collection[str]) -> None:
    """Forget files a rollback deleted from storage."""
    for chunk in chunks(sorted(names)):
        conn.execute(delete(schema.files).where(_f.tbl_id == tbl_id, _in_partition(part_id), _f.name.in_(chunk)))


def replace_file_groups(
    conn: Connection, tbl_id: int, groups: Iterable[tuple[int | None, str]], instant_ts: str
) -> None:
    rows: list[dict[str, Any]] = [
        {
            "tbl_id": tbl_id,
            "part_id": NO_PARTITION if part_id is None else part_id,
            "file_id": file_id,
            "instant_ts": instant_ts,
        }
        for part_id, file_id in set(groups)
    ]
    by_partition: dict[int, list[str]] = {}
    for row in rows:
        by_partition.setdefault(row["part_id"], []).append(row["file_id"])
    # one IN list per partition, in chunks: a term per group would exceed SQLite's expression depth
    for part_id, file_ids in by_partition.items():
        for chunk in chunks(sorted(file_ids)):
            conn.execute(
                delete(schema.replaced_file_group).where(
                    _r.tbl_id == tbl_id, _r.part_id == part_id, _r.file_id.in_(chunk)
                )
            )
    for row_chunk in chunks(rows):
        conn.execute(insert(schema.replaced_file_group), row_chunk)


class FileRecord(NamedTuple):
    """A file not cleaned: ``completion_ts`` is the completion time of the instant that added it (``None``
    while it is not completed), ``replaced_ts`` the instant that replaced its file group, if any."""

    part_id: int | None
    name: str
    file_id: str
    instant_ts: str
    size: int
    num_rows: int | None
    completion_ts: str | None
    replaced_ts: str | None


def live_files(conn: Connection, tbl_id: int, part_ids: Collection[int | None]) -> list[FileRecord]:
    """The files not cleaned in the given partitions."""
    i, r = schema.instant.c, _r
    writer = and_(i.tbl_id == _f.tbl_id, i.ts == _f.instant_ts, i.state == COMPLETED)
    replaced = and_(
        r.tbl_id == _f.tbl_id, r.part_id == func.coalesce(_f.part_id, NO_PARTITION), r.file_id == _f.file_id
    )
    query = (
        select(
            _f.part_id,
            _f.name,
            _f.file_id,
            _f.instant_ts,
            _f.size,
            _f.num_rows,
            func.coalesce(i.completion_ts, i.ts).label("completion_ts"),
            r.instant_ts.label("replaced_ts"),
        )
        .select_from(schema.files.outerjoin(schema.instant, writer).outerjoin(schema.replaced_file_group, replaced))
        .where(_f.tbl_id == tbl_id, _f.is_deleted.is_(False))
    )
    rows: list[FileRecord] = []
    for chunk in chunks([p for p in part_ids if p is not None]):
        rows += [FileRecord._make(row) for row in conn.execute(query.where(_f.part_id.in_(chunk)))]
    if None in part_ids:
        rows += [FileRecord._make(row) for row in conn.execute(query.where(_f.part_id.is_(None)))]
    return rows


def _partition_files_query(partitioned: bool) -> Select:
    """The prebuilt read of the latest slices of one partition, found by its Hudi path (``:path``; none: the
    unpartitioned table's): its files not cleaned, each with the completion time of its writer and the
    instant that replaced its group, and the number of pending compactions of the table. The file columns
    are those of ``idx_files_group``, which covers the read."""
    i, pending, r = schema.instant.c, schema.instant.alias("pending").c, _r
    table_id: BindParameter[int] = bindparam("table_id")
    pending_compactions = (
        select(func.count())
        .where(
            pending.tbl_id == table_id,
            pending.state != COMPLETED,
            or_(
                pending.action == ACTION_CODES[Action.COMPACTION], pending.action == ACTION_CODES[Action.LOGCOMPACTION]
            ),
        )
        .scalar_subquery()
    )
    writer = and_(i.tbl_id == _f.tbl_id, i.ts == _f.instant_ts, i.state == COMPLETED)
    replaced = and_(
        r.tbl_id == _f.tbl_id,
        r.part_id == (_f.part_id if partitioned else NO_PARTITION),
        r.file_id == _f.file_id,
    )
    files = schema.files.join(schema.partitions, _p.part_id == _f.part_id) if partitioned else schema.files
    where = [_p.tbl_id == table_id, _p.hudi_path == bindparam("path")] if partitioned else [_f.part_id.is_(None)]
    return (
        select(
            _f.name,
            _f.file_id,
            _f.instant_ts,
            func.coalesce(i.completion_ts, i.ts).label("completion_ts"),
            r.instant_ts.label("replaced_ts"),
            pending_compactions.label("pending_compactions"),
        )
        .select_from(files.outerjoin(schema.instant, writer).outerjoin(schema.replaced_file_group, replaced))
        .where(_f.tbl_id == table_id, _f.is_deleted.is_(False), *where)
    )


_PARTITION_FILES, _UNPARTITIONED_FILES = _partition_files_query(True), _partition_files_query(False)


class PartitionFileRecord(NamedTuple):
    """A file not cleaned of one partition, as ``partition_files`` reads it: ``completion_ts`` and
    ``replaced_ts`` as in ``FileRecord``, ``pending_compactions`` the number of the table's compactions and log
    compactions not completed."""

    name: str
    file_id: str
    instant_ts: str
    completion_ts: str | None
    replaced_ts: str | None
    pending_compactions: int


def partition_files(conn: Connection, tbl_id: int, path: str) -> list[PartitionFileRecord]:
    """The files not cleaned of the partition with Hudi path ``path`` (``""``: the unpartitioned table), in
    one prebuilt statement. Empty too when there is no such partition."""
    if path:
        rows = conn.execute(_PARTITION_FILES, {"table_id": tbl_id, "path": path})
    else:
        rows = conn.execute(_UNPARTITIONED_FILES, {"table_id": tbl_id})
    return [PartitionFileRecord._make(row) for row in rows]


class AddedFileRecord(NamedTuple):
    """A file and the instant that added it."""

    part_id: int | None
    name: str
    file_id: str
    instant_ts: str
    size: int


def files_added_between(conn: Connection, tbl_id: int, begin: str, end: str) -> list[AddedFileRecord]:
    """The files added by instants in ``(begin, end]``."""
    query = (
        select(_f.part_id, _f.name, _f.file_id, _f.instant_ts, _f.size)
        .where(_f.tbl_id == tbl_id, _f.instant_ts > begin, _f.instant_ts <= end)
        .order_by(_f.part_id, _f.file_id, _f.name)
    )
    return [AddedFileRecord._make(row) for row in conn.execute(query)]


def record_version(conn: Connection, tbl_id: int, instant_ts: str, now: int, status: int = APPLIED) -> bool:
    """Record a completed instant as applied (or pending); False if it was recorded before (applying is
    idempotent)."""
    if conn.execute(select(func.count()).where(_v.tbl_id == tbl_id, _v.version == instant_ts)).scalar_one():
        return False
    conn.execute(
        insert(schema.tbl_version).values(tbl_id=tbl_id, version=instant_ts, snapshot_status=status, create_time=now)
    )
    return True


class PendingVersionRecord(NamedTuple):
    """A completed instant (``version``, its requested time) of table ``tbl_id`` not applied yet."""

    tbl_id: int
    version: str


def pending_versions(conn: Connection) -> list[PendingVersionRecord]:
    """Every completed instant not applied yet, in completion order per table."""
    i = schema.instant.c
    query = (
        select(_v.tbl_id, _v.version)
        .select_from(schema.tbl_version.outerjoin(schema.instant, and_(i.tbl_id == _v.tbl_id, i.ts == _v.version)))
        .where(_v.snapshot_status == PENDING)
        .order_by(_v.tbl_id, func.coalesce(i.completion_ts, _v.version), _v.version)
    )
    return [PendingVersionRecord._make(row) for row in conn.execute(query)]


def claim_pending(conn: Connection, tbl_id: int, instant_ts: str) -> bool:
    """Mark a pending version applied, if it still is pending: the caller then applies it in the same
    transaction. False when another syncer got there first, or a rollback removed it."""
    claimed = conn.execute(
        update(schema.tbl_version)
        .where(_v.tbl_id == tbl_id, _v.version == instant_ts, _v.snapshot_status == PENDING)
        .values(snapshot_status=APPLIED)
    )
    return claimed.rowcount == 1


def forget_applied(conn: Connection, tbl_id: int, instant_times: Collection[str]) -> None:
    if instant_times:
        conn.execute(delete(schema.tbl_version).where(_v.tbl_id == tbl_id, _v.version.in_(list(instant_times))))


def record_versions(
    conn: Connection, tbl_id: int, instant_times: Sequence[str], now: int, status: int = APPLIED
) -> set[str]:
    """``record_version`` for many instants in one insert; returns those not recorded before."""
    known: set[str] = set()
    for chunk in chunks(sorted(set(instant_times))):
        known.update(conn.execute(select(_v.version).where(_v.tbl_id == tbl_id, _v.version.in_(chunk))).scalars())
    new = [ts for ts in dict.fromkeys(instant_times) if ts not in known]
    if new:
        conn.execute(
            insert(schema.tbl_version),
            [{"tbl_id": tbl_id, "version": ts, "snapshot_status": status, "create_time": now} for ts in new],
        )
    return set(new)
