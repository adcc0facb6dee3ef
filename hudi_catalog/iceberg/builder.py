"""The Iceberg view of a Hudi table, kept one completed instant at a time.

Each completed write instant (commit, deltacommit, replacecommit, clustering) becomes one snapshot whose id is
the instant time and whose timestamp is its completion time. A clean becomes none (it changes no live file)
but expires the snapshots of the instants before its earliest retained one, whose files it may have deleted
(``expiry.py``: their manifest lists and the manifests only they listed are deleted once the version without
them is published).

Each manifest lists files of one Hudi partition: all of them, or, in a partition of more than
``MANIFEST_TARGET_FILES`` files, those whose file group id hashes to its bucket. An instant rewrites the
manifests of the file groups it touched (their files added, superseded or replaced: live files as
``EXISTING``, copied as bytes, the ones it removed as ``DELETED``) and the manifest list's blocks of the
partitions it touched; every other manifest is reused by path. An instant that only opens new file groups in a
partition appends a manifest there instead (see :data:`APPENDED_MANIFESTS_MAX`). Nothing of the previous
metadata is changed: manifests and manifest lists get new names, and the new metadata version is written last.
"""

from __future__ import annotations

import bisect
import copy
import hashlib
import itertools
import json
import logging
import uuid
import zlib
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from pyarrow import fs as pafs

from ..filesystems import READS_AT_ONCE, is_local
from ..hudi.file_names import BaseFileName
from .avro_file import Block
from .changes import InstantChanges, TableInfo
from .errors import IcebergViewError, SchemaEvolutionError
from .expiry import (
    Expired,
    delete_expired,
    drop_snapshots,
    merge_expired_writes,
    snapshots_to_expire,
    unreferenced_files,
)
from .manifest_codec import ManifestEntry, entry_header
from .manifests import (
    DELETED,
    EXISTING,
    AddedFile,
    Carried,
    ListedManifest,
    ManifestFormat,
    ManifestList,
    added_entry,
    added_file,
    encode_partition,
    manifest_file,
    manifest_format,
    read_manifest,
    read_manifest_list,
    read_manifest_records,
    write_manifest,
    write_manifest_list,
)
from .metadata_files import make_folder
from .parquet_footer import FileMetrics, Footer, FooterLayout, read_footer
from .partitions import PartitionSpec, partition_spec
from .schema import Schema, can_promote, iceberg_schema, name_mapping
from .table_metadata import (
    DELETE_AFTER_COMMIT,
    DELETE_AFTER_COMMIT_DEFAULT,
    PREVIOUS_VERSIONS_MAX,
    PREVIOUS_VERSIONS_MAX_DEFAULT,
    TableMetadata,
    latest_metadata,
    new_table_metadata,
    next_version,
    write_metadata,
)

log = logging.getLogger(__name__)

_FOOTERS_AT_ONCE = 128
"""Footers read one after another before their entries are encoded: a few at a time, not all of an instant's
(a parsed footer takes from a few KB to hundreds with its key-values), and not one (reading a footer then
encoding it, file by file, was 20% slower)."""
DEFAULT_METADATA_DIR = ".hoodie/.iceberg_metadata"
"""The view's metadata folder, relative to the table's base path (see docs/iceberg.md for why there)."""
SKIPPED_PROPERTY = "hudi.iceberg.skipped"
"""JSON object: reason -> number of files left out of the view so far."""
PARTITIONING_PROPERTY = "hudi.iceberg.partitioning"
"""Why the view cannot prune by the Hudi partition columns, when it cannot."""
BLOCKED_PROPERTY = "hudi.iceberg.blocked"
"""JSON object ``{"instant": ..., "reason": ...}``: the first instant the view could not take; it stays at the
snapshot before it and takes no later instant until rebuilt."""
NAME_MAPPING_PROPERTY = "schema.name-mapping.default"
PARQUET_EXTENSION = "parquet"
MANIFEST_TARGET_FILES = 256
"""A partition's files are spread over ``2**level`` manifests by a hash of their file group id, ``level`` the
smallest that keeps each at about this many files: a commit rewrites the manifests of the file groups it
touched, a few hundred entries each, however large the partition."""
APPENDED_MANIFESTS_MAX = 8
"""An instant that only opens new file groups in a partition (a fast append) writes their entries to a manifest
of their own, the partition's other manifests untouched; a partition holds at most this many such manifests:
the next instant that touches it otherwise, or that would add one more, merges them into its bucket manifests
(as Iceberg's ``commit.manifest-merge.enabled`` with a ``min-count-to-merge``, per partition)."""
MANIFEST_LIST_SLOTS = 64
"""The manifest list is written in blocks, one per slot (a hash of a manifest's partition): a commit re-encodes
the blocks of the partitions it touched and copies the others as they are."""
_FILE_IDS_SEARCHED = 16
_NOT_PARQUET = "{ext} base files: the view lists Parquet base files only"


@dataclass(frozen=True)
class ViewUpdate:
    """What :meth:`ViewBuilder.commit` wrote.

    Attributes:
        metadata: the new metadata version, or the previous one when nothing changed (``None`` if none).
        snapshots_added: ids of the snapshots added.
        manifests_written: paths of the manifests written; the others of the current snapshot were reused.
        skipped: reason -> files left out by the instants applied.
        error: why the view stopped before an instant (see :meth:`ViewBuilder.block`), if it did.
        expired: the snapshots this version expired and the files to delete once it is published
            (:func:`remove_expired`).
        lists_written: paths of the manifest lists written (those of snapshots expired since among them).
    """

    metadata: TableMetadata | None
    snapshots_added: tuple[int, ...]
    manifests_written: tuple[str, ...]
    skipped: dict[str, int]
    error: IcebergViewError | None = None
    expired: Expired = Expired()
    lists_written: tuple[str, ...] = ()

    @property
    def properties(self) -> dict[str, str]:
        return dict(self.metadata.data["properties"]) if self.metadata else {}


@dataclass
class _Partition:
    """One manifest's entries while an instant is applied: decoded ones, then ones copied as they were."""

    entries: list[ManifestEntry] = field(default_factory=list)
    carried: Carried = field(default_factory=Carried)
    added_files: int = 0
    deleted_files: int = 0
    added_records: int = 0
    deleted_records: int = 0
    added_size: int = 0
    removed_size: int = 0


class ViewBuilder:
    """Applies instants to a view in memory (writing manifests and manifest lists as it goes), then commits
    them as one new metadata version.

    Args:
        fs: the file system of the table and the metadata folder.
        table: the Hudi table.
        metadata_dir: the view's metadata folder (default ``<base path>/.hoodie/.iceberg_metadata``).
        previous: the view's current metadata; ``None`` starts a new view.
        table_uuid: a new view's ``table-uuid`` (default: derived from the base path, so a rebuilt view keeps it).
    """

    def __init__(
        self,
        fs: pafs.FileSystem,
        table: TableInfo,
        metadata_dir: str | None = None,
        previous: TableMetadata | None = None,
        table_uuid: str | None = None,
    ) -> None:
        self._fs = fs
        self._table = table
        self._base = table.base_path.rstrip("/")
        self._dir = (metadata_dir or f"{self._base}/{DEFAULT_METADATA_DIR}").rstrip("/")
        self._previous = previous
        self._last = previous
        if previous is not None:
            self._data = copy.deepcopy(previous.data)
        else:
            properties = {"gc.enabled": "false", "hudi.base-path": self._base}
            if table.name:
                properties["hudi.table.name"] = table.name
            self._data = new_table_metadata(
                table_uuid or str(uuid.uuid5(uuid.NAMESPACE_URL, self._base)), self._base, properties
            )
        self._snapshots_added: list[int] = []
        self._manifests_written: list[str] = []
        self._lists_written: list[str] = []
        self._expired: list[dict[str, Any]] = []
        self._skipped: dict[str, int] = {}
        self._changed = False
        self._error: IcebergViewError | None = None

    @property
    def metadata_dir(self) -> str:
        return self._dir

    def replaces(self, existing: TableMetadata | None) -> None:
        """Build a new view over ``existing`` (the folder's current version, when rebuilding from scratch): its
        table uuid is kept and the new metadata becomes its next version."""
        if existing is None or self._previous is not None:
            return
        self._last = existing
        self._data["table-uuid"] = existing.data["table-uuid"]
        self._changed = True

    def block(self, instant_time: str, error: IcebergViewError) -> None:
        """Record that ``instant_time`` could not be applied (see :data:`BLOCKED_PROPERTY`)."""
        self._set_property(BLOCKED_PROPERTY, json.dumps({"instant": instant_time, "reason": str(error)}))
        self._error = error

    def set_schema(self, avro_schema_json: str) -> None:
        """Give a view without snapshots its schema and partition spec (a table with no completed write yet).

        Raises:
            SchemaEvolutionError: the schema cannot be expressed or evolved to in Iceberg.
        """
        schema, evolved = self._instant_schema(avro_schema_json)
        if evolved:
            self._adopt_schema(schema)
        self._spec_for(schema)

    # -- applying instants -------------------------------------------------------------------------------

    def apply(self, changes: InstantChanges) -> None:
        """Apply one completed instant.

        Every footer is read before anything is written, so a missing base file leaves no trace.

        Raises:
            MissingDataFileError: a base file the instant added cannot be read.
            SchemaEvolutionError: its schema cannot be expressed or evolved to in Iceberg.
            IcebergViewError: a partition path that does not fit the partition fields, no schema to start from.
            StorageError-like ``OSError``: writing manifests failed.
        """
        blocked = self._data["properties"].get(BLOCKED_PROPERTY)
        if blocked is not None:
            raise IcebergViewError(
                f"{self._base}: the Iceberg view stopped before an instant it could not take: {blocked}"
            )
        if changes.action == "clean":
            self._expire_before(changes)
            return
        snapshot_id = int(changes.instant_time)
        if any(s["snapshot-id"] == snapshot_id for s in self._data["snapshots"]):
            log.info("%s: instant %s is already in the Iceberg view", self._base, changes.instant_time)
            return
        schema, evolved = self._instant_schema(changes.schema)
        new_files = self._read_files(self._parquet_files(changes), schema)
        if evolved:
            self._adopt_schema(schema)
        spec = self._spec_for(schema)
        manifests = manifest_format(schema, spec)
        sequence = int(self._data["last-sequence-number"]) + 1
        make_folder(self._fs, self._dir)
        partitions = sorted(set(new_files) | {p for p, ids in changes.replaced_file_ids.items() if ids})
        listed = self._current_list()
        slots = {_slot(_partition_key(path)) for path in partitions}
        current = {slot: {str(_manifest_key(m.path)): m for m in listed.manifests(slot)} for slot in slots}
        by_partition: dict[str, dict[str, ListedManifest]] = {}
        for in_slot in current.values():
            for key, listed_manifest in in_slot.items():
                by_partition.setdefault(_ManifestKey.parse(key).partition, {})[key] = listed_manifest
        written: dict[str, ListedManifest] = {}
        dropped: set[str] = set()
        totals = _Partition()
        changed_partitions = 0
        for path in partitions:
            mine = by_partition.get(_partition_key(path), {})
            values = spec.values(path, list(self._table.partition_fields))
            context = _PartitionContext(path, values, encode_partition(manifests, values), manifests, snapshot_id)
            files = new_files.get(path, {})
            replaced: set[str] = set()
            if self._appends(path, mine, files, changes):
                parts = {str(_ManifestKey.appended(_partition_key(path), snapshot_id)): self._added(context, files)}
            else:
                parts, replaced = self._rewrite_partition(context, mine, files, changes)
            dropped |= replaced
            changed_partitions += 1 if parts else 0
            for key, part in parts.items():
                manifest = f"{self._dir}/manifest-{key}-{snapshot_id}-{uuid.uuid4()}.avro"  # never reused
                length = write_manifest(self._fs, manifest, part.entries, part.carried, manifests)
                written[key] = manifest_file(
                    manifest, length, spec, values, part.entries, part.carried, snapshot_id, sequence
                )
                self._manifests_written.append(manifest)
                _accumulate(totals, part)
        self._add_snapshot(
            changes,
            snapshot_id,
            sequence,
            _next_list(listed, current, written, dropped),
            totals,
            changed_partitions,
            schema,
        )

    @staticmethod
    def _appends(
        path: str, mine: dict[str, ListedManifest], files: dict[str, AddedFile], changes: InstantChanges
    ) -> bool:
        """Whether the instant's files in partition ``path`` go to a manifest of their own (a fast append): it
        only opened new file groups there, the partition has manifests already, and fewer than
        :data:`APPENDED_MANIFESTS_MAX` appended ones."""
        new_groups = set(changes.new_file_groups.get(path, ()))
        return (
            bool(files)
            and bool(mine)
            and not changes.replaced_file_ids.get(path)
            and all(_file_id(name) in new_groups for name in files)
            and sum(1 for key in mine if _ManifestKey.parse(key).is_appended) < APPENDED_MANIFESTS_MAX
        )

    def _rewrite_partition(
        self,
        context: _PartitionContext,
        mine: dict[str, ListedManifest],
        new_files: dict[str, AddedFile],
        changes: InstantChanges,
    ) -> tuple[dict[str, _Partition], set[str]]:
        """A touched partition's new manifests (by key, those with entries) and the keys of those of its
        current manifests (``mine``) they replace. The partition's files are spread over ``2**level``
        manifests by a hash of their file group id; only the manifests of the file groups the instant touched
        are rewritten, with the files of the partition's appended manifests merged in, unless the partition has
        grown past its level, when all of them are spread anew (once per doubling)."""
        path = context.partition_path
        partition = _partition_key(path)
        keys = {key: _ManifestKey.parse(key) for key in mine}
        appended = [key for key, parsed in keys.items() if parsed.is_appended]
        level_now = max((parsed.level for parsed in keys.values() if not parsed.is_appended), default=0)
        live = sum(m.live_files for m in mine.values())
        # the files it lists now (a new partition: the ones added), not counting this instant's: a new file
        # that supersedes its group's older version adds none, and telling which do would mean reading all
        level = max(level_now, _level_for(live if mine else len(new_files)))
        merged = [entry for key in appended for entry in self._live_entries(mine[key], context)]
        new_ids = {name: _file_id(name) or name for name in new_files}
        touched = set(new_ids.values()) | set(changes.replaced_file_ids.get(path, ()))
        touched |= {_file_id(entry.file_path) or entry.file_path for entry in merged}
        if level == level_now:
            buckets = {_bucket(file_id, level) for file_id in touched}
        else:
            buckets = set(range(1 << level))
        replaced = set(appended) | {
            key
            for key, parsed in keys.items()
            if not parsed.is_appended and (parsed.bucket in buckets or level != level_now)
        }
        entries: dict[int, list[ManifestEntry]] = {bucket: [] for bucket in buckets}
        carried: dict[int, list[ListedManifest]] = {bucket: [] for bucket in buckets}
        for entry in merged:
            entries[_bucket(_file_id(entry.file_path) or entry.file_path, level)].append(entry)
        for key in sorted(replaced - set(appended)):
            if level == level_now:  # its entries stay in its bucket: copied, not decoded
                carried[keys[key].bucket].append(mine[key])
                continue
            for entry in self._live_entries(mine[key], context):
                entries[_bucket(_file_id(entry.file_path) or entry.file_path, level)].append(entry)
        added: dict[int, dict[str, AddedFile]] = {bucket: {} for bucket in buckets}
        for name, new in new_files.items():
            added[_bucket(new_ids[name], level)][name] = new
        parts: dict[str, _Partition] = {}
        for bucket in sorted(buckets):
            part = self._rewrite(context, entries[bucket], carried[bucket], added[bucket], changes)
            if part.entries or part.carried.records:
                parts[str(_ManifestKey(partition, level, bucket))] = part
        return parts, replaced

    def _parquet_files(self, changes: InstantChanges) -> list[tuple[str, str]]:
        for reason, count in changes.skipped.items():
            self._skipped[reason] = self._skipped.get(reason, 0) + count
        files = []
        for partition, names in changes.added_base_files.items():
            for name in names:
                extension = name.rsplit(".", 1)[-1].lower()
                if extension == PARQUET_EXTENSION:
                    files.append((partition, name))
                else:
                    reason = _NOT_PARQUET.format(ext=extension)
                    self._skipped[reason] = self._skipped.get(reason, 0) + 1
        return files

    def _rewrite(
        self,
        context: _PartitionContext,
        live: list[ManifestEntry],
        carried_from: list[ListedManifest],
        new_files: dict[str, AddedFile],
        changes: InstantChanges,
    ) -> _Partition:
        """A manifest's entries: the files added, the ``live`` ones and those of the manifests ``carried_from``
        kept, the ones removed deleted."""
        path_of = context.partition_path
        new_paths = {self._file_path(path_of, name) for name in new_files}
        removed_ids = set(changes.replaced_file_ids.get(path_of, ())) | {_file_id(n) for n in new_files}
        part = self._added(context, new_files)
        for manifest in carried_from:
            live.extend(self._carry(manifest, context, removed_ids, part.carried))
        for entry in live:
            if not _may_have_file_id(entry.file_path, removed_ids):
                part.entries.append(entry)
                continue
            if entry.file_path in new_paths:
                continue  # written again by this instant: the new entry replaces it
            if _file_id(entry.file_path) in removed_ids:
                entry.status = DELETED
                entry.snapshot_id = context.snapshot_id
                part.deleted_files += 1
                part.deleted_records += entry.record_count
                part.removed_size += entry.file_size
            part.entries.append(entry)
        return part

    def _carry(
        self, manifest: ListedManifest, context: _PartitionContext, removed_ids: set[str | None], carried: Carried
    ) -> list[ManifestEntry]:
        """Copy the live entries of ``manifest`` into ``carried`` as ``EXISTING``, their inherited ids and
        sequence numbers explicit, without decoding them; returns, decoded, those that may be of a file group in
        ``removed_ids`` (the caller decides what becomes of them)."""
        counts = manifest.counts
        files = counts.added_files_count + counts.existing_files_count
        rows = counts.added_rows_count + counts.existing_rows_count
        decoder, records = read_manifest_records(self._fs, manifest.path, context.manifests, context.partition)
        few = None not in removed_ids and len(removed_ids) <= _FILE_IDS_SEARCHED
        suspects = _records_naming(records, removed_ids) if few else None
        decoded = []
        fields_before, header, unchanged = None, b"", False
        for index, raw in enumerate(records):
            fields, end = decoder.header(raw)
            if fields[0] == DELETED:
                continue
            if suspects is not None:
                suspect = index in suspects
            else:
                suspect = _may_have_file_id(decoder.file_path(raw, end), removed_ids)
            if suspect:
                entry = _existing(decoder.decode(raw), counts.sequence_number, counts.added_snapshot_id)
                decoded.append(entry)
                files -= 1
                rows -= entry.record_count
                continue
            if fields is not fields_before:
                _, snapshot_id, sequence, file_sequence = fields_before = fields
                header = entry_header(
                    EXISTING,
                    counts.added_snapshot_id if snapshot_id is None else snapshot_id,
                    counts.sequence_number if sequence is None else sequence,
                    counts.sequence_number if file_sequence is None else file_sequence,
                )
                unchanged = header == raw[:end]
            carried.records.append(raw if unchanged else header + raw[end:])
        carried.add(files, rows, counts.min_sequence_number)
        return decoded

    def _added(self, context: _PartitionContext, new_files: dict[str, AddedFile]) -> _Partition:
        """The ``ADDED`` entries of a partition's new files, in name order."""
        part = _Partition()
        for name in sorted(new_files):
            added = new_files[name]
            path = self._file_path(context.partition_path, name)
            part.entries.append(added_entry(path, context.partition, added, context.snapshot_id))
            part.added_files += 1
            part.added_records += added.record_count
            part.added_size += added.file_size
        return part

    def _read_files(self, files: list[tuple[str, str]], schema: Schema) -> dict[str, dict[str, AddedFile]]:
        """``partition path -> name -> AddedFile`` of an instant's new Parquet files: each footer read, checked
        against ``schema`` (once per Parquet schema) and let go, so that memory holds a few hundred bytes a file.

        Raises:
            MissingDataFileError: a file cannot be read.
            SchemaEvolutionError: a file stores a column as a type the schema's cannot be read from.
        """
        metrics = FileMetrics(schema)
        checked: set[FooterLayout] = set()
        new_files: dict[str, dict[str, AddedFile]] = {}
        for start in range(0, len(files), _FOOTERS_AT_ONCE):
            chunk = files[start : start + _FOOTERS_AT_ONCE]
            footers = self._footers([self._file_path(*key) for key in chunk])
            for (partition_path, name), footer in zip(chunk, footers, strict=True):
                if footer.layout not in checked:
                    _check_files(schema, [(footer.path, footer.layout.top_level_types)])
                    checked.add(footer.layout)
                new_files.setdefault(partition_path, {})[name] = added_file(footer, metrics.of(footer))
        return new_files

    def _footers(self, paths: list[str]) -> list[Footer]:
        """The footers of ``paths``, in order: one after another on a local disk, ``READS_AT_ONCE`` at a time
        from an object store (each read waits for the store)."""
        if is_local(self._fs) or len(paths) < 2:
            return [read_footer(self._fs, path) for path in paths]
        with ThreadPoolExecutor(READS_AT_ONCE, thread_name_prefix="iceberg-view-footers") as pool:
            return list(pool.map(lambda path: read_footer(self._fs, path), paths))

    def _live_entries(self, manifest: ListedManifest, context: _PartitionContext) -> list[ManifestEntry]:
        """A reused manifest's live entries as ``EXISTING``, their inherited ids and sequence numbers explicit."""
        counts = manifest.counts
        return [
            _existing(entry, counts.sequence_number, counts.added_snapshot_id)
            for entry in read_manifest(self._fs, manifest.path, context.manifests, context.partition)
            if entry.status != DELETED
        ]

    # -- schema and spec ---------------------------------------------------------------------------------

    def _current_schema(self) -> Schema | None:
        for data in self._data["schemas"]:
            if data["schema-id"] == self._data["current-schema-id"]:
                return Schema.from_json(data, int(self._data["last-column-id"]))
        return None

    def _instant_schema(self, avro_json: str | None) -> tuple[Schema, bool]:
        """The schema of an instant's files, and whether it is a new one: the current one, or one evolved to the
        instant's Avro schema (kept by the view only once the instant's files are read: ``_adopt_schema``)."""
        current = self._current_schema()
        if avro_json is None:
            if current is None:
                raise IcebergViewError(f"{self._base}: no table schema to start the Iceberg view from")
            return current, False
        schema = iceberg_schema(
            avro_json,
            schema_id=1 + max((s["schema-id"] for s in self._data["schemas"]), default=-1),
            previous=current,
            last_column_id=int(self._data["last-column-id"]),
            meta_fields=True,  # files hold the _hoodie_* columns even where the table does not populate them
        )
        if current is not None and schema.same_fields(current):
            return current, False
        return schema, True

    def _adopt_schema(self, schema: Schema) -> None:
        self._data["schemas"].append(schema.to_json())
        self._data["current-schema-id"] = schema.schema_id
        self._data["last-column-id"] = schema.last_column_id
        schemas = [Schema.from_json(data, schema.last_column_id) for data in self._data["schemas"]]
        self._set_property(NAME_MAPPING_PROPERTY, json.dumps(name_mapping(schemas)))
        self._changed = True

    def _spec_for(self, schema: Schema) -> PartitionSpec:
        table = self._table
        spec, reason = partition_spec(
            schema, list(table.partition_fields), table.partition_values_are_columns, table.meta_fields
        )
        existing = self._data["partition-specs"]
        if not existing:
            self._data["partition-specs"] = [spec.to_json()]
            self._data["last-partition-id"] = spec.last_partition_id
            self._set_property(PARTITIONING_PROPERTY, reason)
        elif existing[0]["fields"] != spec.to_json()["fields"]:
            new_fields = spec.to_json()["fields"]
            raise SchemaEvolutionError(
                f"{self._base}: the partition spec would change from {existing[0]['fields']} to {new_fields}"
            )
        return spec

    # -- snapshots ---------------------------------------------------------------------------------------

    def _current_list(self) -> ManifestList:
        """The current snapshot's manifest list (empty when there is none)."""
        snapshot = self._snapshot(self._data["current-snapshot-id"])
        if snapshot is None:
            return ManifestList({}, None)
        return read_manifest_list(
            self._fs, snapshot["manifest-list"], lambda path: _slot(_manifest_key(path).partition)
        )

    def _snapshot(self, snapshot_id: int) -> dict[str, Any] | None:
        return next((s for s in self._data["snapshots"] if s["snapshot-id"] == snapshot_id), None)

    def _add_snapshot(
        self,
        changes: InstantChanges,
        snapshot_id: int,
        sequence: int,
        manifests: ManifestList,
        totals: _Partition,
        changed_partitions: int,
        schema: Schema,
    ) -> None:
        parent = self._snapshot(self._data["current-snapshot-id"])
        manifest_list = f"{self._dir}/snap-{snapshot_id}-{uuid.uuid4()}.avro"
        parent_id = parent["snapshot-id"] if parent is not None else None
        write_manifest_list(self._fs, manifest_list, manifests, snapshot_id, parent_id, sequence)
        self._lists_written.append(manifest_list)
        timestamp = max(_epoch_millis(changes.completion_time, self._table.timeline_timezone), _timestamp(parent))
        snapshot: dict[str, Any] = {
            "snapshot-id": snapshot_id,
            "sequence-number": sequence,
            "timestamp-ms": timestamp,
            "manifest-list": manifest_list,
            "summary": _summary(changes, totals, changed_partitions, parent),
            "schema-id": schema.schema_id,
        }
        if parent is not None:
            snapshot["parent-snapshot-id"] = parent["snapshot-id"]
        data = self._data
        data["snapshots"].append(snapshot)
        data["snapshot-log"].append({"timestamp-ms": timestamp, "snapshot-id": snapshot_id})
        data["current-snapshot-id"] = snapshot_id
        data["refs"] = {**data.get("refs", {}), "main": {"snapshot-id": snapshot_id, "type": "branch"}}
        data["last-sequence-number"] = sequence
        data["last-updated-ms"] = max(int(data["last-updated-ms"]), timestamp)
        self._snapshots_added.append(snapshot_id)
        self._changed = True
        log.info("%s: Iceberg snapshot %s (%s)", self._base, snapshot_id, snapshot["summary"]["operation"])

    def _expire_before(self, changes: InstantChanges) -> None:
        """A clean: expire the snapshots of instants before its earliest retained one (not the current one)."""
        retained = changes.earliest_retained
        if retained is None:
            return
        expired = self._drop(
            s["snapshot-id"] for s in self._data["snapshots"] if s["summary"]["hudi.instant-time"] < retained
        )
        if not expired:
            return
        completed = _epoch_millis(changes.completion_time, self._table.timeline_timezone)
        self._data["last-updated-ms"] = max(int(self._data["last-updated-ms"]), completed)
        log.info("%s: clean %s expired %d Iceberg snapshots", self._base, changes.instant_time, len(expired))

    def expire(self, older_than_ms: int, retain_last: int) -> tuple[int, ...]:
        """Expire snapshots as Iceberg's ``expire_snapshots(older_than, retain_last)``: those older than
        ``older_than_ms`` (epoch milliseconds), but for the ``retain_last`` newest (at least the current one)
        and those a ref other than ``main`` holds. Returns their ids; :meth:`expired_files` tells what goes with
        them, :meth:`commit` writes the version without them."""
        return self._drop(snapshots_to_expire(self._data, older_than_ms, retain_last))

    def _drop(self, snapshot_ids: Iterable[int]) -> tuple[int, ...]:
        removed = drop_snapshots(self._data, snapshot_ids)
        if removed:
            self._expired.extend(removed)
            self._changed = True
        return tuple(s["snapshot-id"] for s in removed)

    def expired_files(self) -> Expired:
        """The snapshots expired so far and the files that go with them (their manifest lists, the manifests no
        remaining snapshot lists, the metadata file the next version's log drops): what :meth:`commit` would
        report, without writing anything. Reads the manifest lists of the expired and the remaining snapshots."""
        lists, manifests = unreferenced_files(self._fs, self._expired, self._data["snapshots"])
        dropped: list[str] = []
        if self._changed and self._last is not None:  # the log of the version commit would write
            dropped = next_version(self._last, {"properties": self._data["properties"]})
        return Expired(tuple(s["snapshot-id"] for s in self._expired), tuple(lists), tuple(manifests), tuple(dropped))

    # -- committing --------------------------------------------------------------------------------------

    def commit(self) -> ViewUpdate:
        """Write the new metadata version (nothing if no instant changed the view)."""
        if self._skipped:
            recorded = json.loads(self._data["properties"].get(SKIPPED_PROPERTY, "{}"))
            for reason, count in self._skipped.items():
                recorded[reason] = recorded.get(reason, 0) + count
            self._set_property(SKIPPED_PROPERTY, json.dumps(recorded, sort_keys=True))
            self._changed = True
        metadata = self._last
        expired = Expired()
        if self._changed:
            version = 1 if self._last is None else self._last.version + 1
            properties = self._data["properties"]  # the metadata log's bounds, written down for readers to see
            properties.setdefault(PREVIOUS_VERSIONS_MAX, str(PREVIOUS_VERSIONS_MAX_DEFAULT))
            properties.setdefault(DELETE_AFTER_COMMIT, str(DELETE_AFTER_COMMIT_DEFAULT).lower())
            expired = self.expired_files()
            if self._last is not None:
                next_version(self._last, self._data)
            metadata = write_metadata(self._fs, self._dir, self._data, version)
        return ViewUpdate(
            metadata,
            tuple(self._snapshots_added),
            tuple(self._manifests_written),
            dict(self._skipped),
            self._error,
            expired,
            tuple(self._lists_written),
        )

    # -- helpers -----------------------------------------------------------------------------------------

    def _file_path(self, partition_path: str, name: str) -> str:
        return f"{self._base}/{partition_path}/{name}" if partition_path else f"{self._base}/{name}"

    def _set_property(self, key: str, value: str | None) -> None:
        properties = self._data["properties"]
        if value is None:
            if properties.pop(key, None) is not None:
                self._changed = True
        elif properties.get(key) != value:
            properties[key] = value
            self._changed = True


def _check_files(schema: Schema, stored: list[tuple[str, dict[str, str]]]) -> None:
    """Raise if a file stores a top-level column as a type the schema's type cannot be read from.

    Raises:
        SchemaEvolutionError: naming the file, the column and both types.
    """
    types = {f["name"]: f["type"] for f in schema.fields}
    for path, columns in stored:
        for col, files_type in columns.items():
            wanted = types.get(col)
            if isinstance(wanted, str) and not can_promote(files_type, wanted):
                raise SchemaEvolutionError(
                    f"{path}: column {col} is stored as {files_type}, the table schema makes it {wanted}"
                )


def _accumulate(totals: _Partition, part: _Partition) -> None:
    totals.added_files += part.added_files
    totals.deleted_files += part.deleted_files
    totals.added_records += part.added_records
    totals.deleted_records += part.deleted_records
    totals.added_size += part.added_size
    totals.removed_size += part.removed_size


def _summary(
    changes: InstantChanges, totals: _Partition, changed_partitions: int, parent: dict[str, Any] | None
) -> dict[str, str]:
    if changes.action == "clustering" or changes.operation == "cluster":
        operation = "replace"
    elif totals.deleted_files and totals.added_files:
        operation = "overwrite"
    elif totals.deleted_files:
        operation = "delete"
    else:
        operation = "append"
    before = parent["summary"] if parent is not None else {}

    def total(key: str, delta: int) -> str:
        return str(int(before.get(key, "0")) + delta)

    summary = {
        "operation": operation,
        "added-data-files": str(totals.added_files),
        "deleted-data-files": str(totals.deleted_files),
        "added-records": str(totals.added_records),
        "deleted-records": str(totals.deleted_records),
        "added-files-size": str(totals.added_size),
        "removed-files-size": str(totals.removed_size),
        "changed-partition-count": str(changed_partitions),
        "total-data-files": total("total-data-files", totals.added_files - totals.deleted_files),
        "total-records": total("total-records", totals.added_records - totals.deleted_records),
        "total-files-size": total("total-files-size", totals.added_size - totals.removed_size),
        "total-delete-files": "0",
        "total-position-deletes": "0",
        "total-equality-deletes": "0",
        "hudi.instant-time": changes.instant_time,
        "hudi.action": changes.action,
        "hudi.completion-time": changes.completion_time,
    }
    if changes.operation:
        summary["hudi.operation"] = changes.operation
    return summary


@dataclass(frozen=True)
class _ManifestKey:
    """Which files a manifest lists, written into its name: a partition's (by a hash of its path), those of
    its file groups whose id hashes to ``bucket`` among ``2**level``; or, for a manifest appended by snapshot
    ``appended_by``, the file groups that snapshot opened in the partition."""

    partition: str
    level: int
    bucket: int
    appended_by: int | None = None

    @classmethod
    def appended(cls, partition: str, snapshot_id: int) -> _ManifestKey:
        return cls(partition, 0, 0, snapshot_id)

    @property
    def is_appended(self) -> bool:
        return self.appended_by is not None

    def __str__(self) -> str:
        if self.appended_by is not None:
            return f"{self.partition}.a.{self.appended_by}"
        return f"{self.partition}.{self.level}.{self.bucket}"

    @classmethod
    def parse(cls, key: str) -> _ManifestKey:
        partition, level, bucket = key.split(".")
        if level == "a":
            return cls.appended(partition, int(bucket))
        return cls(partition, int(level), int(bucket))


def _manifest_key(path: str) -> _ManifestKey:
    """The key in a manifest's name (``manifest-<key>-<snapshot id>-<uuid>.avro``)."""
    return _ManifestKey.parse(path.rsplit("/", 1)[-1].split("-")[1])


def _slot(partition_key: str) -> int:
    """The manifest list block of a partition's manifests."""
    return int(partition_key[:8], 16) % MANIFEST_LIST_SLOTS


@dataclass(frozen=True)
class _PartitionContext:
    """What the manifests of one partition touched by an instant are written with."""

    partition_path: str
    values: dict[str, Any]
    partition: bytes
    manifests: ManifestFormat
    snapshot_id: int


def _next_list(
    listed: ManifestList,
    current: dict[int, dict[str, ListedManifest]],
    written: dict[str, ListedManifest],
    dropped: set[str],
) -> ManifestList:
    """The new snapshot's manifest list: the blocks of the touched slots (``current``) re-encoded without the
    manifests ``dropped`` or left with no live file, with those ``written``; every other block as it was."""
    blocks = dict(listed.blocks)
    new_by_slot: dict[int, list[ListedManifest]] = {}
    for key, manifest in written.items():
        new_by_slot.setdefault(_slot(_ManifestKey.parse(key).partition), []).append(manifest)
    for slot, manifests in current.items():
        kept = [m for key, m in manifests.items() if key not in dropped and key not in written and m.live_files]
        blocks[slot] = Block.encode([m.raw for m in kept + new_by_slot.get(slot, [])])
    return ManifestList(blocks, listed.sync)


def _level_for(files: int) -> int:
    """The smallest level at which ``files`` files spread over ``2**level`` manifests fill none past
    ``MANIFEST_TARGET_FILES``.

    >>> _level_for(256), _level_for(257), _level_for(1000)
    (0, 1, 2)
    """
    level = 0
    while files > MANIFEST_TARGET_FILES << level:
        level += 1
    return level


def _bucket(file_id: str, level: int) -> int:
    return zlib.crc32(file_id.encode("utf-8")) & ((1 << level) - 1)


def _partition_key(partition_path: str) -> str:
    """The key of a partition's manifests (in their names): a hash, since paths hold ``/`` and ``=``."""
    return hashlib.sha1(partition_path.encode("utf-8"), usedforsecurity=False).hexdigest()[:16]


def _existing(entry: ManifestEntry, sequence_number: int, snapshot_id: int) -> ManifestEntry:
    """A live entry carried into a new manifest: ``EXISTING``, with the sequence numbers and snapshot id it
    inherited from its manifest made explicit."""
    if entry.sequence_number is None:
        entry.sequence_number = sequence_number
    if entry.file_sequence_number is None:
        entry.file_sequence_number = sequence_number
    if entry.snapshot_id is None:
        entry.snapshot_id = snapshot_id
    entry.status = EXISTING
    return entry


def _records_naming(records: list[bytes], file_ids: set[str | None]) -> set[int]:
    """The indexes of the encoded entries whose bytes hold ``/<file id>_`` for one of ``file_ids``: every entry
    whose path is of one of them, and perhaps a few others (the caller checks the decoded path). One search of
    the manifest's bytes per file id, rather than one per entry."""
    data = b"".join(records)
    starts = list(itertools.accumulate((len(raw) for raw in records), initial=0))
    found = set()
    for file_id in file_ids:
        pattern = f"/{file_id}_".encode()
        pos = data.find(pattern)
        while pos != -1:
            found.add(bisect.bisect_right(starts, pos) - 1)
            pos = data.find(pattern, pos + 1)
    return found


def _may_have_file_id(path: str, file_ids: set[str | None]) -> bool:
    """Whether the file at ``path`` may be of one of ``file_ids``: a file id has no ``_``, so a base file's id is
    the text of its name before the first ``_`` (cheaper to test than parsing the name)."""
    name = path[path.rfind("/") + 1 :]
    return name[: name.find("_")] in file_ids or name in file_ids


def _file_id(path: str) -> str | None:
    parsed = BaseFileName.try_parse(path.rsplit("/", 1)[-1])
    return parsed.file_id if parsed is not None else None


def _timestamp(snapshot: dict[str, Any] | None) -> int:
    return int(snapshot["timestamp-ms"]) if snapshot is not None else 0


def _epoch_millis(instant_time: str, zone: str) -> int:
    """An instant time (``yyyyMMddHHmmss[SSS]``) in the table's zone as epoch milliseconds.

    >>> _epoch_millis("20240101000000123", "UTC")
    1704067200123
    """
    moment = datetime.strptime(instant_time[:14], "%Y%m%d%H%M%S")
    millis = int(instant_time[14:17] or 0)
    moment = moment.replace(tzinfo=timezone.utc) if zone == "UTC" else moment.astimezone()
    return int(moment.timestamp()) * 1000 + millis


def discard_update(fs: pafs.FileSystem, update: ViewUpdate) -> None:
    """Remove the files ``update`` wrote (its metadata file, manifest lists and manifests), once it has lost the
    race to register its version: no published version lists them, since every one of them has a name of its
    own (a uuid). The files it expired stay: the version that won lists them still. A file that cannot be
    removed is only logged.
    """
    metadata = update.metadata
    if metadata is None:
        return
    added = set(update.snapshots_added)
    lists = [s["manifest-list"] for s in metadata.data["snapshots"] if s["snapshot-id"] in added]
    lists += [path for path in update.lists_written if path not in lists]
    for path in [metadata.location, *lists, *update.manifests_written]:
        try:
            fs.delete_file(path)
        except FileNotFoundError:
            pass
        except OSError as e:
            log.warning("cannot remove %s, written by an Iceberg view update that lost its race: %s", path, e)
    log.info("removed the unpublished Iceberg metadata %s and the files it listed first", metadata.location)


def remove_expired(fs: pafs.FileSystem, update: ViewUpdate) -> tuple[str, ...]:
    """Delete the files ``update`` expired (manifest lists, manifests, metadata files out of the log), once its
    version is published: the version a catalog's compare-and-set took, or, for a view registered nowhere, the
    one just written. Returns the files deleted. See :func:`expiry.delete_expired`."""
    if update.metadata is None or not update.expired.files:
        return ()
    folder = update.metadata.location.rsplit("/", 1)[0]
    return tuple(delete_expired(fs, folder, update.expired))


def update_view(
    fs: pafs.FileSystem, table: TableInfo, changes: Iterable[InstantChanges], metadata_dir: str | None = None
) -> ViewUpdate:
    """Apply completed instants to the view in ``metadata_dir`` (starting one if there is none) and commit them
    as one new metadata version, then delete what it expired (no catalog registers this view: the version is
    published once written). On an error nothing is committed: the view stays at its last good snapshot.

    Raises:
        IcebergViewError: an instant the view cannot take (see :meth:`ViewBuilder.apply`).
    """
    builder = ViewBuilder(fs, table, metadata_dir)
    previous = latest_metadata(fs, builder.metadata_dir)
    if previous is not None:
        builder = ViewBuilder(fs, table, metadata_dir, previous)
    merged, _ = merge_expired_writes(list(changes))  # writes a clean among them expires: without its deleted files
    for change in merged:
        if change is not None:
            builder.apply(change)
    update = builder.commit()
    remove_expired(fs, update)
    return update
