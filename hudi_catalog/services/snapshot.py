"""The file snapshot of Hudi tables: completed instants applied to ``files``, and the file slices readers need.

Applying an instant runs inside the transaction that completes it (``TimelineService.transition``) or
imports it, so a reader sees all of its changes or none. ``tbl_version`` records every applied instant, which
makes applying idempotent: an instant applied twice (an import re-run) changes nothing the second time.

In asynchronous mode completing an instant only records it as pending in ``tbl_version``; ``sync_pending``
(run by a background thread of the server) applies pending instants in completion order, one transaction
each, so writers do not wait for the snapshot. Pending rows survive restarts; the snapshot then lags the
timeline until they are applied, and still never shows half an instant.

- commit, deltacommit, compaction, logcompaction, replacecommit, clustering: the files of the write stats
  are added (creating their partitions); replaced file groups are hidden from then on.
- clean: the deleted files are marked deleted.
- rollback, restore: the files the rollback deleted are forgotten, the log files it appended rollback
  blocks to are added (they stay on storage, and readers skip the rolled-back blocks), and the rolled-back
  instants leave the timeline.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from posixpath import basename

from sqlalchemy import Connection

from ..errors import HudiMetadataError, NoSuchObjectError, NoSuchTableError
from ..hudi.file_names import LogFileName, data_file_instant
from ..hudi.file_slices import DataFile, FileSlice, latest_file_slices
from ..hudi.instant_files import InstantFile
from ..hudi.metadata import (
    CleanMetadata,
    CommitMetadata,
    CompactionPlan,
    DecodedCompletion,
    InstantMetadata,
    RestoreMetadata,
    RollbackMetadata,
    decode_instant,
)
from ..hudi.partition_paths import partition_values
from ..hudi.properties import COPY_ON_WRITE, TABLE_TYPE, table_version
from ..hudi.slice_stats import empty_statistics, moved_by, paths_changed, slice_statistics
from ..model import WRITE_ACTIONS, Action, Instant, InstantState, Partition, TableKeys
from ..names import normalize
from ..partition_names import make_partition_name
from ..store import instants as instant_store
from ..store import params, schema
from ..store import partitions as partition_store
from ..store import snapshot as snapshot_store
from ..store import tables as table_store
from ..store.snapshot import FileRecord, PartitionFileRecord
from .context import ServiceContext
from .partitions import create_partitions, default_location, partition_storage

log = logging.getLogger(__name__)


class SnapshotService:
    def __init__(self, ctx: ServiceContext, asynchronous: bool = False) -> None:
        self.ctx = ctx
        self.asynchronous = asynchronous

    # -- applying instants --------------------------------------------------------------------------

    @staticmethod
    def table_version(table: TableKeys) -> int:
        return table_version(table.hudi_version)

    def instant_completed(
        self, conn: Connection, table: TableKeys, instant: Instant, metadata: bytes
    ) -> DecodedCompletion | None:
        """Apply a completed instant to the snapshot in the completing transaction (in asynchronous mode:
        check that it decodes and leave it pending); returns its metadata as decoded, ``None`` when the
        snapshot had it already.

        Raises:
            HudiMetadataError: the metadata cannot be decoded, or names a partition the table cannot have;
                the message names the instant.
        """
        if self.asynchronous:
            decoded = self._decode(table, instant, metadata)  # refuse what could never apply
            snapshot_store.record_version(
                conn, table.id, instant.requested_time, self.ctx.now(), snapshot_store.PENDING
            )
            return decoded
        if not snapshot_store.record_version(conn, table.id, instant.requested_time, self.ctx.now()):
            return None
        decoded = self._decode(table, instant, metadata)
        self._apply_all(conn, table, [(instant, decoded.metadata)])
        return decoded

    def sync_pending(self) -> int:
        """Apply every instant that completed in asynchronous mode and is not applied yet; returns how many."""
        with self.ctx.store.read() as conn:
            pending = snapshot_store.pending_versions(conn)
        applied = 0
        for tbl_id, instant_time in pending:
            with self.ctx.store.write() as conn:
                row = table_store.row_by_id(conn, tbl_id, lock=True)
                if row is None or not snapshot_store.claim_pending(conn, tbl_id, instant_time):
                    continue
                table = table_store.get_keys(conn, row.db_name, row.name)
                instant = instant_store.find(conn, tbl_id, instant_time, lock=True)
                if instant is None:  # rolled back and removed before it was applied
                    snapshot_store.forget_applied(conn, tbl_id, [instant_time])
                    continue
                metadata = instant_store.read_metadata(
                    conn, tbl_id, instant_time, instant.action, InstantState.COMPLETED
                )
                self._apply_all(conn, table, [(instant, self._decode(table, instant, metadata or b"").metadata)])
                applied += 1
        if applied:
            log.info("applied %d pending instants to the snapshot", applied)
        return applied

    def _decode(self, table: TableKeys, instant: Instant, metadata: bytes) -> DecodedCompletion:
        version = self.table_version(table)
        return DecodedCompletion(version, decode_instant(InstantFile.of(instant, version), metadata, version))

    def instants_decoded(
        self, conn: Connection, table: TableKeys, completed: Sequence[tuple[Instant, InstantMetadata]]
    ) -> None:
        """``instant_completed`` for completed instants already decoded (an import writing a batch), in
        timeline order, in the caller's transaction: their versions are recorded in one statement, and those
        not recorded before are applied together (in asynchronous mode: left pending). The caller ends a
        batch after any rollback or restore, whose applying removes instants."""
        status = snapshot_store.PENDING if self.asynchronous else snapshot_store.APPLIED
        new = snapshot_store.record_versions(
            conn, table.id, [i.requested_time for i, _ in completed], self.ctx.now(), status
        )
        if not self.asynchronous:
            self._apply_all(conn, table, [(i, decoded) for i, decoded in completed if i.requested_time in new])

    def _apply_all(
        self, conn: Connection, table: TableKeys, completed: Sequence[tuple[Instant, InstantMetadata]]
    ) -> None:
        """Apply decoded completed instants in order as one change: the partitions they name are looked up
        together, their file changes folded and written in bulk, the statistics refreshed once."""
        changes = _Changes(snapshot_store.FileChanges(table.id))
        self._look_up(conn, table, changes, {p for _, d in completed for p in _paths_named(d) if p})
        for instant, decoded in completed:
            self._apply_decoded(conn, table, changes, instant, decoded)
        changes.files.flush(conn)
        self._refresh_statistics(conn, table, set().union(*(paths_changed(d) for _, d in completed)))

    def _apply_decoded(
        self, conn: Connection, table: TableKeys, changes: _Changes, instant: Instant, decoded: InstantMetadata
    ) -> None:
        version = self.table_version(table)
        if isinstance(decoded, CommitMetadata) and instant.action in WRITE_ACTIONS:
            self._apply_writes(conn, table, changes, instant, decoded)
        elif isinstance(decoded, CleanMetadata):
            ids = self._partitions(conn, table, changes, decoded.deleted_files, instant)
            unknown = sorted(p for p in decoded.deleted_files if p and p not in ids)
            # a clean deletes files of completed writes: a partition the catalog lacks was dropped (its files
            # went with it) when those writes are instants of this table; otherwise the metadata is not ours
            unproven = [p for p in unknown if not self._written_here(conn, table, decoded.deleted_files[p])]
            if unproven:
                raise HudiMetadataError(
                    f"{InstantFile.of(instant, version).file_name}: clean of partitions "
                    f"{unproven} that {table.qualified_name} does not have"
                )
            for path, names in decoded.deleted_files.items():
                if path not in unknown:
                    changes.files.mark_deleted(ids.get(path), names)
        elif isinstance(decoded, RollbackMetadata):
            self._roll_back(conn, table, changes, instant, decoded)
        elif isinstance(decoded, RestoreMetadata):
            for rollback in decoded.rollbacks:
                self._roll_back(conn, table, changes, instant, rollback)
            self._forget_instants(conn, table, decoded.rolled_back_instants)
        log.debug("%s: applied %s %s", table.qualified_name, instant.action, instant.requested_time)

    def _apply_writes(
        self, conn: Connection, table: TableKeys, changes: _Changes, instant: Instant, commit: CommitMetadata
    ) -> None:
        # files written create their partitions; replacing the groups of a partition the catalog no longer has
        # (a delete_partition applied after the partition was dropped) changes nothing
        ids = self._partitions(
            conn, table, changes, {s.partition_path for s in commit.write_stats}, instant, create=True
        )
        ids.update(self._partitions(conn, table, changes, set(commit.replaced_file_ids) - set(ids), instant))
        changes.files.add(
            {
                "part_id": ids.get(s.partition_path),
                "name": basename(s.path),
                "file_id": s.file_id,
                "instant_ts": instant.requested_time,
                "size": s.file_size,
                "num_rows": None if s.is_log else s.num_writes,
            }
            for s in commit.write_stats
            if s.path
        )
        if commit.replaced_file_ids:
            snapshot_store.replace_file_groups(
                conn,
                table.id,
                [
                    (ids.get(path), file_id)
                    for path, file_ids in commit.replaced_file_ids.items()
                    for file_id in file_ids
                    if not path or path in ids
                ],
                instant.requested_time,
            )

    def _roll_back(
        self, conn: Connection, table: TableKeys, changes: _Changes, instant: Instant, rollback: RollbackMetadata
    ) -> None:
        # log files stay on storage: those the rolled-back write left and those given rollback blocks
        kept_logs = [
            (path, basename(name))
            for logs in (rollback.failed_commit_log_files, rollback.appended_log_files)
            for path, names in logs.items()
            for name in names
        ]
        paths = set(rollback.deleted_files) | {path for path, _ in kept_logs}
        ids = self._partitions(conn, table, changes, paths, instant)
        changes.files.flush(conn)  # the files it removes may be ones the instants before it added
        for path, names in rollback.deleted_files.items():
            if not path or path in ids:
                snapshot_store.remove_named_files(conn, table.id, ids.get(path), [basename(n) for n in names])
        changes.files.add(
            {  # none in partitions the catalog does not have (dropped)
                "part_id": ids.get(path),
                "name": name,
                "file_id": LogFileName.parse(name).file_id,
                "instant_ts": instant.requested_time,
                "size": rollback.log_file_sizes.get(name, 0),
                "num_rows": None,
            }
            for path, name in kept_logs
            if not path or path in ids
        )
        snapshot_store.forget_replacements(conn, table.id, rollback.rolled_back_instants)
        self._forget_instants(conn, table, rollback.rolled_back_instants)

    @staticmethod
    def _forget_instants(conn: Connection, table: TableKeys, times: list[str]) -> None:
        """Rolled-back instants leave the timeline and the applied list, as Hudi deletes their files."""
        snapshot_store.forget_applied(conn, table.id, times)
        instant_store.delete_instants(conn, table.id, times)

    def _partitions(
        self,
        conn: Connection,
        table: TableKeys,
        changes: _Changes,
        paths: Iterable[str],
        instant: Instant,
        create: bool = False,
    ) -> dict[str, int]:
        """``{path: part_id}`` for Hudi partition paths (``""``: the unpartitioned table, no id); with
        ``create``, partitions not known yet are added, with directories under the table's location."""
        paths = {p for p in paths if p}
        if paths and not table.partition_keys:
            raise HudiMetadataError(
                f"{instant.requested_time}.{instant.action}: partitions {sorted(paths)} in unpartitioned table "
                f"{table.qualified_name}"
            )
        self._look_up(conn, table, changes, paths)
        ids = {p: changes.partition_ids[p] for p in paths if p in changes.partition_ids}
        missing = sorted(paths - ids.keys())
        if missing and create:
            added = self._add_partitions(conn, table, missing, instant)
            changes.partition_ids.update(added)
            changes.missing_partitions -= added.keys()
            ids.update(added)
        elif missing:
            log.info(
                "%s: %s %s names unknown partitions %s",
                table.qualified_name,
                instant.action,
                instant.requested_time,
                missing,
            )
        return ids

    @staticmethod
    def _look_up(conn: Connection, table: TableKeys, changes: _Changes, paths: set[str]) -> None:
        """Look up the ids of those partition paths not looked up yet in this change, in one query."""
        unseen = paths - changes.partition_ids.keys() - changes.missing_partitions
        if unseen and table.partition_keys:
            found = snapshot_store.partition_ids_by_path(conn, table.id, unseen)
            changes.partition_ids.update(found)
            changes.missing_partitions |= unseen - found.keys()

    @staticmethod
    def _written_here(conn: Connection, table: TableKeys, names: list[str]) -> bool:
        """Whether every named data file was written by a completed instant of the table."""
        try:
            written = {data_file_instant(name) for name in names}
        except HudiMetadataError:
            return False
        return bool(written) and written <= set(instant_store.completion_times(conn, table.id, written))

    def _add_partitions(self, conn: Connection, table: TableKeys, paths: list[str], instant: Instant) -> dict:
        """Give Hudi partition paths their partitions. A partition of the same Hive name that has no Hudi path
        yet (added through HMS, by hive sync, before the instant was applied) is that partition: it takes the
        path and keeps its Hive metadata. The others are created (``create_partitions``, as every partition
        is) at ``<table location>/<path>``, and the table's views get them all."""
        row = table_store.get_row(conn, table.database, table.name)
        model = self.ctx.table_model(conn, row)
        keys = [k.name for k in table.partition_keys]
        named: dict[str, Partition] = {}
        named_paths: dict[str, str] = {}
        for path in paths:
            try:
                values = partition_values(path, keys)
            except HudiMetadataError as error:
                raise HudiMetadataError(f"{instant.requested_time}.{instant.action}: {error}") from error
            name = make_partition_name(keys, values)
            if name in named_paths:
                raise HudiMetadataError(
                    f"{instant.requested_time}.{instant.action}: partition paths "
                    f"{named_paths[name]!r} and {path!r} are both partition {name}"
                )
            sd = partition_storage(model, None, default_location(model, path))
            named[name] = Partition(table.database, table.name, values, sd=sd)
            named_paths[name] = path
        existing = partition_store.ids_by_name(conn, table.id, named_paths)
        taken = snapshot_store.paths_of(conn, existing.values())
        if taken:
            part_id, path = next(iter(taken.items()))
            name = next(n for n, i in existing.items() if i == part_id)
            raise HudiMetadataError(
                f"{instant.requested_time}.{instant.action}: partition path "
                f"{named_paths[name]!r} is partition {name}, which has path {path!r}"
            )
        # not encoded now: the statistics refresh of the same commit changes them (and drops encodings)
        created = create_partitions(
            self.ctx, conn, row, model, named, self.ctx.now(), present=existing, views=True, encoded=False
        )
        by_name = {**existing, **{name: part_id for name, (part_id, _) in created.items()}}
        snapshot_store.set_paths(conn, {part_id: named_paths[name] for name, part_id in by_name.items()})
        return {named_paths[name]: part_id for name, part_id in by_name.items()}

    # -- reads --------------------------------------------------------------------------------------

    def partition_paths(self, database: str, table: str) -> list[str]:
        """The Hudi partition paths of the table (``[""]`` for an unpartitioned table with files)."""
        with self.ctx.store.read() as conn:
            keys = table_store.get_keys(conn, normalize(database), normalize(table))
            if not keys.partition_keys:
                return [""] if snapshot_store.live_files(conn, keys.id, [None]) else []
            return snapshot_store.partition_paths(conn, keys.id)

    def latest_file_slices(
        self, database: str, table: str, partition: str | None = None, as_of: str | None = None
    ) -> dict[str, list[FileSlice]]:
        """The latest file slice of every file group, by partition path (``partition``: only that one),
        as Hudi's file system view defines it; ``as_of`` an instant time for time travel."""
        with self.ctx.store.read() as conn:
            keys = table_store.get_keys(conn, normalize(database), normalize(table))
            if partition is not None:
                return {partition: self._partition_slices(conn, keys, partition, as_of)}
            paths = snapshot_store.partition_paths(conn, keys.id) if keys.partition_keys else [""]
            ids = snapshot_store.partition_ids_by_path(conn, keys.id, [p for p in paths if p])
            slices, _ = self._slices(conn, keys, {ids.get(p): p for p in paths}, as_of)
        result: dict[str, list[FileSlice]] = {p: [] for p in paths}
        for file_slice in slices:
            result[file_slice.partition_path].append(file_slice)
        return result

    def _partition_slices(self, conn: Connection, keys: TableKeys, path: str, as_of: str | None) -> list[FileSlice]:
        """The latest slices of one partition (a reader's call, hence its own path): its files, their writers
        and replacements in one statement; the pending compactions only when there are any."""
        rows = snapshot_store.partition_files(conn, keys.id, path)
        if not rows and path and not snapshot_store.partition_ids_by_path(conn, keys.id, [path]):
            raise NoSuchObjectError(f"partition {path} not found in {keys.qualified_name}")
        version = self.table_version(keys)
        pending = self._pending_compactions(conn, keys, version) if rows and rows[0].pending_compactions else {}
        return self._slices_of(conn, keys, rows, [path] * len(rows), pending, as_of)

    def _slices(
        self, conn: Connection, keys: TableKeys, path_of: Mapping[int | None, str], as_of: str | None = None
    ) -> tuple[list[FileSlice], dict[tuple[str, str], FileRecord]]:
        """The latest file slices of the partitions ``path_of`` names (``{part_id: path}``; None: the
        unpartitioned table), and their live file rows by ``(path, name)``."""
        rows = snapshot_store.live_files(conn, keys.id, list(path_of))
        paths = [path_of.get(r.part_id, "") for r in rows]
        pending = self._pending_compactions(conn, keys, self.table_version(keys))
        slices = self._slices_of(conn, keys, rows, paths, pending, as_of)
        return slices, {(path, r.name): r for path, r in zip(paths, rows)}

    def _slices_of(
        self,
        conn: Connection,
        keys: TableKeys,
        rows: Sequence[FileRecord | PartitionFileRecord],
        paths: Sequence[str],
        pending: Mapping[tuple[str, str], str],
        as_of: str | None,
    ) -> list[FileSlice]:
        """The latest file slices of file rows (``name, file_id, instant_ts, completion_ts, replaced_ts``)
        in the partitions ``paths`` gives, row by row."""
        files = [DataFile(path, r.name) for path, r in zip(paths, rows)]
        replaced = {(path, r.file_id): r.replaced_ts for path, r in zip(paths, rows) if r.replaced_ts}
        # completion times of the instants these files and replacements name, not of the whole timeline:
        # the file rows bring their writers'; the rest (a v6 log's base instant, a replacement) is looked up
        completion_times = {r.instant_ts: r.completion_ts for r in rows if r.completion_ts is not None}
        # a name holding "_<its writer>." names its writer (the instant sits before the only dot of a base file
        # name, before ".log" in a log file's): only the others are parsed
        named = {data_file_instant(r.name) for r in rows if f"_{r.instant_ts}." not in r.name}
        named |= set(replaced.values())
        written = {r.instant_ts for r in rows}
        if named - written:
            completion_times.update(instant_store.completion_times(conn, keys.id, named - written))
        return latest_file_slices(
            files,
            completion_times,
            self.table_version(keys),
            as_of=as_of,
            pending_compactions=pending,
            replaced_file_groups=replaced,
        )

    def _refresh_statistics(self, conn: Connection, keys: TableKeys, paths: set[str]) -> None:
        """Hive's basic statistics of the changed partitions (and of the table) from their latest file
        slices: ``numFiles`` and ``totalSize`` count base and log files, ``numRows`` (COPY_ON_WRITE tables
        only) adds up the records of the base files; the table's change by as much as its partitions'."""
        if not paths:
            return
        if keys.partition_keys:
            ids = snapshot_store.partition_ids_by_path(conn, keys.id, [p for p in paths if p])
            path_of: dict[int | None, str] = {part_id: path for path, part_id in ids.items()}
        else:
            path_of = {None: ""}
        if not path_of:
            return
        row = table_store.row_by_id(conn, keys.id)
        if row is None:
            raise NoSuchTableError(f"Table {keys.qualified_name} does not exist")
        table = self.ctx.table_model(conn, row)
        slices, files = self._slices(conn, keys, path_of)
        copy_on_write = table.parameters.get(TABLE_TYPE) == COPY_ON_WRITE
        found = slice_statistics(slices, files, copy_on_write)
        totals = {path: found.get(path, empty_statistics(copy_on_write)) for path in path_of.values()}
        if not keys.partition_keys:
            table_store.write_parameters(conn, keys.id, {**table.parameters, **totals[""]})
            return
        old = params.read_params_of(conn, schema.partition_params, list(ids.values()))
        partition_store.write_parameters(
            conn, keys.id, {part_id: {**old.get(part_id, {}), **totals[path]} for path, part_id in ids.items()}
        )
        table_store.write_parameters(
            conn,
            keys.id,
            {
                **table.parameters,
                **moved_by(table.parameters, [old.get(part_id, {}) for part_id in ids.values()], list(totals.values())),
            },
        )

    @staticmethod
    def _pending_compactions(conn: Connection, table: TableKeys, version: int) -> Mapping[tuple[str, str], str]:
        """``{(partition path, file id): compaction time}`` of the compactions planned and not completed."""
        pending = {}
        for instant in instant_store.listing(
            conn,
            table.id,
            states=[InstantState.REQUESTED, InstantState.INFLIGHT],
            actions=[Action.COMPACTION, Action.LOGCOMPACTION],
        ):
            data = instant_store.read_metadata(
                conn, table.id, instant.requested_time, instant.action, InstantState.REQUESTED
            )
            requested = replace(instant, state=InstantState.REQUESTED)
            plan = decode_instant(InstantFile.of(requested, version), data or b"", version)
            if isinstance(plan, CompactionPlan):
                for op in plan.operations:
                    pending[(op.partition_path, op.file_id)] = instant.requested_time
        return pending

    def live_files(self, database: str, table: str, partition: str) -> list[str]:
        """Names of every data file of a partition that no clean has removed, of every slice and file group
        (what a cleaner chooses from), sorted."""
        with self.ctx.store.read() as conn:
            keys = table_store.get_keys(conn, normalize(database), normalize(table))
            part_id = None
            if partition:
                part_id = snapshot_store.partition_ids_by_path(conn, keys.id, [partition]).get(partition)
            if partition and part_id is None:
                raise NoSuchObjectError(f"partition {partition} not found in {keys.qualified_name}")
            return sorted(r.name for r in snapshot_store.live_files(conn, keys.id, [part_id]))

    def files_changed(self, database: str, table: str, begin: str, end: str) -> list[tuple[str, str, str, str]]:
        """``(partition path, file id, file name, instant)`` of the files that instants in ``(begin, end]``
        added (the instant is the requested time of the one that added it)."""
        with self.ctx.store.read() as conn:
            keys = table_store.get_keys(conn, normalize(database), normalize(table))
            rows = snapshot_store.files_added_between(conn, keys.id, begin, end)
            paths: dict[int | None, str] = {
                pid: path
                for path, pid in snapshot_store.partition_ids_by_path(
                    conn, keys.id, snapshot_store.partition_paths(conn, keys.id)
                ).items()
            }
        return [(paths.get(r.part_id, ""), r.file_id, r.name, r.instant_ts) for r in rows]


@dataclass
class _Changes:
    """The snapshot changes of instants applied together: their file changes, folded until written, and the
    partition ids looked up so far (paths found missing too, so each path is looked up once)."""

    files: snapshot_store.FileChanges
    partition_ids: dict[str, int] = field(default_factory=dict)
    missing_partitions: set[str] = field(default_factory=set)


def _paths_named(decoded: InstantMetadata) -> set[str]:
    """The partition paths whose ids applying the instant needs: those it changes, and those a clean cleans."""
    return set(decoded.deleted_files) if isinstance(decoded, CleanMetadata) else paths_changed(decoded)
