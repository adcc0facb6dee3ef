"""The builder's plain inputs: what it needs to know of a Hudi table, and what one completed instant changed.

They name files and partitions only, never the catalog's store or Hudi's own metadata classes, so a caller that
knows an instant's changes some other way (the catalog's snapshot tables, a metaserver commit) can feed them in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class TableInfo:
    """A Hudi table as the view needs it.

    Attributes:
        base_path: the table's base path; data file paths in the view are ``<base_path>/<partition>/<name>``.
        partition_fields: Hudi's partition fields, in path order (empty when unpartitioned).
        partition_values_are_columns: whether the key generator writes the partition columns' own values into
            the path (see :func:`hudi_catalog.iceberg.partitions.values_are_columns`).
        meta_fields: whether the data files carry the ``_hoodie_*`` columns.
        timeline_timezone: ``UTC`` or ``LOCAL``: the zone instant times are written in.
        name: the table's name, recorded in the view's properties.
    """

    base_path: str
    partition_fields: tuple[str, ...] = ()
    partition_values_are_columns: bool = True
    meta_fields: bool = True
    timeline_timezone: str = "UTC"
    name: str | None = None


@dataclass(frozen=True)
class InstantChanges:
    """What one completed Hudi instant changed in the table's base files.

    Attributes:
        instant_time: the instant's (requested) time; it is also the view's snapshot id.
        action: the completed action (``commit``, ``deltacommit``, ``replacecommit``, ``clustering``, ``clean``).
        completion_time: when it completed (an instant time); the snapshot's timestamp.
        added_base_files: partition path -> names of the base files it wrote (a file of a file group the view
            already lists supersedes that group's older version).
        replaced_file_ids: partition path -> ids of the file groups it replaced (insert overwrite, clustering).
        new_file_groups: partition path -> ids of the file groups its base files opened (Hudi's ``prevCommit``
            is ``null``): the view lists no older file of theirs, so a partition where the instant only opened
            file groups takes them as a fast append. A file group left out is treated as possibly existing.
        schema: the writer's Avro schema (JSON text), if the instant recorded one.
        operation: Hudi's operation type (``upsert``, ``insert_overwrite``, ``cluster``, ...), if recorded.
        earliest_retained: a clean: the earliest instant whose files the clean kept; snapshots of earlier
            instants are expired, since their files may be gone.
        skipped: reason -> number of files the caller left out of ``added_base_files`` (log files, ...).
    """

    instant_time: str
    action: str
    completion_time: str
    added_base_files: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    replaced_file_ids: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    new_file_groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    schema: str | None = None
    operation: str | None = None
    earliest_retained: str | None = None
    skipped: Mapping[str, int] = field(default_factory=dict)
