"""The storage-reading half of registering a Hudi table from its storage (``hudi-metastore import``).

1. ``timeline_entries`` lists the timeline: each instant's files, archived instants with their bytes;
2. ``decode_entry`` reads an instant's files, decodes its latest state and checks the others whole, into a
   ``DecodedInstant``: the bytes the catalog keeps and the completed metadata the snapshot applies.

The single-process import and the Spark import (which decodes in Spark tasks) both use these; the writing
half is ``hudi_catalog.services.hudi_import.HudiImporter``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field, replace

import pyarrow.fs as pafs

from ..errors import HudiMetadataError, StorageError
from ..instant_times import is_instant_time
from ..model import Instant, InstantState
from .active_timeline import list_instants, read_instant
from .archived_timeline import read_archived_instants
from .instant_files import InstantFile
from .metadata import (
    CommitMetadata,
    InstantMetadata,
    RestoreMetadata,
    RollbackMetadata,
    check_instant,
    decode_instant,
)
from .properties import TableConfig, read_table_config
from .storage import open_path

STATE_RANK = {state: rank for rank, state in enumerate(InstantState)}
"""Requested < inflight < completed: an instant's later state replaces an earlier one."""


@dataclass(frozen=True)
class TableSource:
    """A Hudi table on storage: its file system, base path (within it), table config, and its location as
    engines name it (the URI given, ``s3a://lake/t``; ``file:/abs/path`` for a local path)."""

    fs: pafs.FileSystem
    base: str
    config: TableConfig
    location: str

    @classmethod
    def open(cls, path: str) -> TableSource:
        fs, base = open_path(path)
        location = path.rstrip("/") if "://" in path or path.startswith("file:") else f"file:{base}"
        with naming_errors(location if "://" in path else base, base):
            return cls(fs, base, read_table_config(fs, base), location)

    def naming_errors(self) -> AbstractContextManager[None]:
        """A block whose storage and metadata errors name the table's files by its location (below)."""
        return naming_errors(self.location if "://" in self.location else self.base, self.base)


@contextmanager
def naming_errors(location: str, base: str) -> Iterator[None]:
    """Errors of reading a table raised in the block name its files as the user named the table: an object
    store's file system speaks of ``bucket/t/.hoodie/...``, the error of ``s3a://bucket/t/.hoodie/...``."""
    try:
        yield
    except (StorageError, HudiMetadataError) as error:
        message = str(error.args[0]) if error.args else ""
        if location != base and location not in message:
            error.args = (message.replace(base, location, 1) if base in message else f"{location}: {message}",)
        raise


@dataclass(frozen=True)
class TimelineEntry:
    """One instant as the timeline lists it: its latest state and the file of each state. Archived states
    come with their bytes (the archive was read to list them); active ones are read by ``read``."""

    instant: Instant
    files: dict[InstantState, InstantFile]
    archived: dict[InstantState, bytes] = field(default_factory=dict)

    def read(self, fs: pafs.FileSystem, base: str, config: TableConfig) -> dict[InstantState, bytes]:
        """The bytes of each state."""
        return {
            state: self.archived[state] if state in self.archived else read_instant(fs, base, config, file)
            for state, file in self.files.items()
        }


@dataclass(frozen=True)
class DecodedInstant:
    """An instant as the import writes it: the bytes of each state (kept by the catalog) and its completed
    metadata decoded for the snapshot (``None`` while pending), without the writer's schema, which only
    ``has_schema`` records (the table's columns come from the latest instant that has one)."""

    instant: Instant
    metadata: dict[InstantState, bytes]
    completed: InstantMetadata | None
    has_schema: bool

    @property
    def file_count(self) -> int:
        return len(self.completed.write_stats) if isinstance(self.completed, CommitMetadata) else 0

    @property
    def removes_instants(self) -> bool:
        """A rollback or restore: applying it deletes instants, so a batch writes nothing after it first."""
        return isinstance(self.completed, (RollbackMetadata, RestoreMetadata))


def timeline_entries(fs: pafs.FileSystem, base: str, config: TableConfig, archived: bool = True) -> list[TimelineEntry]:
    """Every instant of the table (archived ones first), in timeline order, in its latest state; without
    ``archived``, those of the active timeline only (a listing of one folder, the archive unread)."""
    states: dict[str, dict[InstantState, tuple[InstantFile, bytes | None]]] = defaultdict(dict)
    for file, data in read_archived_instants(fs, base, config) if archived else []:
        states[file.requested_time][file.state] = (file, data)
    for file in list_instants(fs, base, config):
        states[file.requested_time][file.state] = (file, None)
    entries = []
    for requested_time in sorted(states):
        by_state = states[requested_time]
        pending = [f for s, (f, _) in by_state.items() if s is not InstantState.COMPLETED]
        last_state = max(by_state, key=STATE_RANK.__getitem__)
        last_file = by_state[last_state][0]
        # a completed compaction or clustering is written as commit/replacecommit: its plan names it
        action = pending[0].action if pending else last_file.action
        instant = Instant(requested_time, action, last_state, last_file.completion_time)
        entries.append(
            TimelineEntry(
                instant,
                {s: f for s, (f, _) in by_state.items()},
                {s: data for s, (_, data) in by_state.items() if data is not None},
            )
        )
    return entries


def decode_entry(entry: TimelineEntry, metadata: dict[InstantState, bytes], table_version: int) -> DecodedInstant:
    """Decode an instant's latest state and check the others whole (``metadata``: the bytes ``entry.read``
    gave): a corrupt file of any state fails here, before anything is written.

    Raises:
        HudiMetadataError: a state cannot be decoded, or the instant time is malformed; the message starts
            with the instant's file name.
    """
    instant = entry.instant
    if not is_instant_time(instant.requested_time):
        raise HudiMetadataError(
            f"{entry.files[instant.state].file_name}: {instant.requested_time!r} is not an "
            "instant time (yyyyMMddHHmmssSSS)"
        )
    completed = None
    for state, data in metadata.items():
        file = InstantFile.of(replace(instant, state=state), table_version)
        if state is instant.state:
            decoded = decode_instant(file, data, table_version)
            completed = decoded if state is InstantState.COMPLETED else None
        else:  # a state the instant has left: kept and served as bytes, never decoded, so only checked whole
            check_instant(file, data, table_version)
    if isinstance(completed, CommitMetadata):
        return DecodedInstant(instant, metadata, replace(completed, extra={}), bool(completed.schema))
    return DecodedInstant(instant, metadata, completed, False)
