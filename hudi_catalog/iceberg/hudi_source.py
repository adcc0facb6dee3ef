"""The builder's inputs from a Hudi table on storage: its ``hoodie.properties`` and the completed instants of
its timeline (archived, then active), decoded with :mod:`hudi_catalog.hudi`; and the view built from scratch.

Per completed instant:

- commit, deltacommit, replacecommit (clustering and insert overwrite included): the base files its write
  statistics name, per partition, and the file groups it replaced. Log files (MERGE_ON_READ) are left out with
  their reason: the view is the read-optimized one, base files only;
- clean: the earliest instant it retained (or its own time, when it deleted files and names none), so the view
  expires the snapshots whose files it may have deleted;
- every other action (rollback, savepoint, indexing, restore) changes no completed instant's base files and is
  passed over. (A rollback undoes a commit that never completed; a restore that removes completed commits needs
  the view rebuilt from scratch.)

Instants are applied in completion order (the order Iceberg's linear history can express), falling back to
requested time where the timeline does not record completion times.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace

from pyarrow import fs as pafs

from ..hudi.active_timeline import list_instants, read_instant
from ..hudi.archived_timeline import read_archived_instants
from ..hudi.file_names import BaseFileName
from ..hudi.instant_files import InstantFile
from ..hudi.metadata import CleanMetadata, CommitMetadata, InstantMetadata, decode_instant
from ..hudi.properties import CREATE_SCHEMA, FIRST_LAYOUT_2_VERSION, PARTITION_FIELDS, TableConfig, read_table_config
from ..model import Action
from .builder import ViewBuilder, ViewUpdate, remove_expired
from .changes import InstantChanges, TableInfo
from .errors import IcebergViewError, MissingDataFileError, ViewMetadataError
from .expiry import merge_expired_writes
from .partitions import values_are_columns
from .table_metadata import latest_metadata

log = logging.getLogger(__name__)

LOG_FILES_SKIPPED = "log files: the view is the read-optimized view of a MERGE_ON_READ table (base files only)"


def table_info(config: TableConfig, base_path: str) -> TableInfo:
    """What the view needs of a table's ``hoodie.properties``."""
    raw_fields = [f.strip() for f in (config.raw.get(PARTITION_FIELDS) or "").split(",") if f.strip()]
    return TableInfo(
        base_path=base_path,
        partition_fields=tuple(config.partition_fields),
        partition_values_are_columns=values_are_columns(config.key_generator, raw_fields),
        meta_fields=config.populate_meta_fields,
        timeline_timezone=config.timeline_timezone,
        name=config.name,
    )


def instant_changes(instant: InstantFile, metadata: InstantMetadata) -> InstantChanges | None:
    """The changes of one completed instant, or ``None`` when it changes no base file of the view."""
    completion = instant.completion_time or instant.requested_time
    if isinstance(metadata, CommitMetadata) and instant.action.writes_data:
        added: dict[str, list[str]] = {}
        opened: dict[str, list[str]] = {}
        logs = 0
        for stat in metadata.write_stats:
            if stat.is_log:
                logs += 1
            elif (name := BaseFileName.try_parse(stat.file_name)) is not None:
                added.setdefault(stat.partition_path, []).append(stat.file_name)
                if stat.prev_commit is None:
                    opened.setdefault(stat.partition_path, []).append(name.file_id)
        return InstantChanges(
            instant_time=instant.requested_time,
            action=instant.action.value,
            completion_time=completion,
            added_base_files={p: tuple(names) for p, names in added.items()},
            replaced_file_ids={p: tuple(ids) for p, ids in metadata.replaced_file_ids.items() if ids},
            new_file_groups={p: tuple(ids) for p, ids in opened.items()},
            schema=metadata.schema,
            operation=metadata.operation_type,
            skipped={LOG_FILES_SKIPPED: logs} if logs else {},
        )
    if isinstance(metadata, CleanMetadata) and instant.action is Action.CLEAN:
        retained = metadata.earliest_commit_to_retain
        if retained is None and (metadata.deleted_files or metadata.deleted_partitions):
            retained = instant.requested_time
        return InstantChanges(instant.requested_time, instant.action.value, completion, earliest_retained=retained)
    return None


def completed_changes(fs: pafs.FileSystem, base_path: str, config: TableConfig) -> list[InstantChanges]:
    """The changes of every completed instant of the table (archived and active), in completion order.

    The first write's schema falls back to ``hoodie.table.create.schema`` when its commit recorded none.

    Raises:
        HudiMetadataError: an instant file or archive cannot be decoded.
        StorageError: the file system failed.
    """
    decoded: list[tuple[InstantFile, InstantMetadata]] = [
        (instant, decode_instant(instant, data, config.version))
        for instant, data in read_archived_instants(fs, base_path, config)
        if _relevant(instant)
    ]
    for instant in list_instants(fs, base_path, config):
        if _relevant(instant):
            data = read_instant(fs, base_path, config, instant)
            decoded.append((instant, decode_instant(instant, data, config.version)))
    decoded.sort(key=lambda pair: completion_order(pair[0], config.version))
    changes = [c for c in (instant_changes(i, m) for i, m in decoded) if c is not None]
    return [c for c in with_create_schema(changes, config) if c is not None]


def with_create_schema(changes: Sequence[InstantChanges | None], config: TableConfig) -> list[InstantChanges | None]:
    """``changes`` (``None``: an instant that changes nothing the view shows) with the first write's schema
    taken from ``hoodie.table.create.schema`` when its commit recorded none."""
    changes = list(changes)
    create_schema = config.raw.get(CREATE_SCHEMA) or None
    first_write = next((n for n, c in enumerate(changes) if c is not None and c.action != Action.CLEAN.value), None)
    if first_write is not None and create_schema and (found := changes[first_write]) is not None:
        if found.schema is None:
            changes[first_write] = replace(found, schema=create_schema)
    return changes


def take_changes(
    builder: ViewBuilder, changes: Sequence[InstantChanges | None], block_on_missing_file: bool = True
) -> tuple[int, IcebergViewError | None]:
    """Apply ``changes`` in order (``None``: an instant that changes nothing the view shows) up to the first
    one the view cannot take; returns how many were taken and why it stopped, if it did. Writes that a clean
    among them expires are taken as part of the next write the clean keeps (``expiry.merge_expired_writes``):
    the files the clean deleted are never read.

    An error blocks the view before that instant (``hudi.iceberg.blocked``), except a base file that cannot
    be read when not ``block_on_missing_file``: a refresh stops there, and the next one tries again (from the
    first write merged into the one it stopped at, or one after it: none of them was taken)."""
    changes, first = merge_expired_writes(changes)
    for taken, change in enumerate(changes):
        if change is None:
            continue
        try:
            builder.apply(change)
        except IcebergViewError as error:
            if block_on_missing_file or not isinstance(error, MissingDataFileError):
                builder.block(change.instant_time, error)
            return min([taken] + [source for target, source in first.items() if target >= taken]), error
    return len(changes), None


def build_view(
    fs: pafs.FileSystem, base_path: str, metadata_dir: str | None = None, table_uuid: str | None = None
) -> ViewUpdate:
    """Build the Iceberg view of the table at ``base_path`` from scratch: one snapshot per completed write.

    A view already in ``metadata_dir`` is replaced by a new metadata version (its table uuid kept). An instant
    the view cannot take stops it at the snapshot before: the update's ``error`` and the view's
    ``hudi.iceberg.blocked`` property say which and why. The snapshots the timeline's cleans expired are not
    kept, and their files are deleted once the version is written (no catalog registers this view).

    Raises:
        HudiMetadataError: the table's metadata cannot be read.
    """
    config = read_table_config(fs, base_path)
    builder = ViewBuilder(fs, table_info(config, base_path), metadata_dir, table_uuid=table_uuid)
    builder.replaces(latest_metadata(fs, builder.metadata_dir))
    changes = completed_changes(fs, base_path, config)
    create_schema = config.raw.get(CREATE_SCHEMA)
    if not any(c.action != Action.CLEAN.value for c in changes) and create_schema:
        builder.set_schema(create_schema)
    taken, error = take_changes(builder, changes)
    if error is not None:
        log.warning("%s: the Iceberg view stops before instant %s: %s", base_path, changes[taken].instant_time, error)
    update = builder.commit()
    remove_expired(fs, update)
    return update


def expire_view(
    fs: pafs.FileSystem,
    base_path: str,
    older_than_ms: int,
    retain_last: int,
    metadata_dir: str | None = None,
    dry_run: bool = False,
) -> ViewUpdate:
    """Expire snapshots of the view in ``metadata_dir`` of the table at ``base_path`` (a view registered nowhere,
    as :func:`build_view` writes it) as Iceberg's ``expire_snapshots(older_than, retain_last)``
    (:meth:`ViewBuilder.expire`), commit the version without them and delete their files. ``dry_run``: the
    update's ``expired`` says what would go; nothing is written or deleted.

    Raises:
        ViewMetadataError: no view there, or its metadata cannot be read.
    """
    table = TableInfo(base_path)
    folder = ViewBuilder(fs, table, metadata_dir).metadata_dir
    previous = latest_metadata(fs, folder)
    if previous is None:
        raise ViewMetadataError(f"{folder}: no Iceberg view there (`hudi-metastore iceberg {base_path}` builds one)")
    builder = ViewBuilder(fs, table, folder, previous)
    builder.expire(older_than_ms, retain_last)
    if dry_run:
        return ViewUpdate(previous, (), (), {}, expired=builder.expired_files())
    update = builder.commit()
    remove_expired(fs, update)
    return update


def _relevant(instant: InstantFile) -> bool:
    return instant.is_completed and (instant.action.writes_data or instant.action is Action.CLEAN)


def completion_order(instant: InstantFile, table_version: int) -> tuple[str, str]:
    """The key that sorts completed instants in the order the view takes them: completion order where the
    timeline records completion times (table version 8 on), else requested order."""
    if table_version >= FIRST_LAYOUT_2_VERSION and instant.completion_time:
        return instant.completion_time, instant.requested_time
    return instant.requested_time, instant.requested_time
