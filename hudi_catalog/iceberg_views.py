"""Iceberg views of Hudi tables as a front end sees them: how a server keeps them (``ViewSettings``, from
``serve``'s options), what building or refreshing one did (``ViewResult``) and what expiring its snapshots did
(``ExpiryResult``). ``services.iceberg_views`` builds and keeps the views."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

VIEW_PARAM = "hudi.iceberg.view"
"""On a Hudi table: the name of its Iceberg view (in the same database); the view is kept while it is set."""
DEFAULT_SUFFIX = "_iceberg"
"""A new view's name is its table's name and this suffix, unless given another."""


@dataclass(frozen=True)
class ViewSettings:
    """How a server keeps views.

    Attributes:
        all_tables: every Hudi table gets a view at its next completed instant (``serve --iceberg-views``);
            otherwise only tables that have one (``hudi.iceberg.view``) are kept.
        suffix: a new view's name is the table's name and this suffix.
        metadata_root: where new views write their metadata: ``<root>/<database>/<table>``; ``None``: under
            each table's base path.
    """

    all_tables: bool = False
    suffix: str = DEFAULT_SUFFIX
    metadata_root: str | None = None


@dataclass(frozen=True)
class ViewResult:
    """What building or refreshing a view did.

    Attributes:
        view: the view table's name.
        metadata_location: its current metadata file (``None`` before its first version).
        applied: the last instant it took.
        snapshots_added: the Iceberg snapshots this call added (their ids are the instants' times).
        manifests_written: the manifests this call wrote; the view's other manifests were reused.
        skipped: reason -> files left out of the view by the instants this call took.
        error: why the view stopped before an instant, if it did.
        snapshots_expired: the snapshots the cleans this call took expired (their files may be gone).
        files_deleted: the view's own files no version lists any more, deleted once this version was published
            (manifest lists and manifests of expired snapshots, metadata files out of the metadata log).
    """

    view: str
    metadata_location: str | None
    applied: str | None
    snapshots_added: tuple[int, ...] = ()
    manifests_written: tuple[str, ...] = ()
    skipped: Mapping[str, int] = field(default_factory=dict)
    error: str | None = None
    snapshots_expired: tuple[int, ...] = ()
    files_deleted: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExpiryResult:
    """What expiring a view's snapshots did or, on a dry run, would do.

    Attributes:
        view: the view table's name.
        metadata_location: its current metadata file (the new version; on a dry run, or when nothing expired, the
            one it had).
        snapshots: ids of the snapshots expired (Hudi instant times), oldest first.
        manifest_lists: their manifest lists, deleted.
        manifests: the manifests no remaining snapshot lists, deleted.
        metadata_files: metadata files that dropped out of the metadata log, deleted.
        dry_run: nothing was written or deleted.
    """

    view: str
    metadata_location: str | None
    snapshots: tuple[int, ...] = ()
    manifest_lists: tuple[str, ...] = ()
    manifests: tuple[str, ...] = ()
    metadata_files: tuple[str, ...] = ()
    dry_run: bool = False


@dataclass(frozen=True)
class ViewSnapshot:
    """One snapshot of a view, as its metadata lists it: ``summary`` is Iceberg's snapshot summary (its
    ``operation`` and counts such as ``added-records``)."""

    snapshot_id: int
    timestamp_ms: int
    parent_id: int | None
    summary: Mapping[str, str]


@dataclass(frozen=True)
class ViewState:
    """A table's Iceberg view as its current metadata file gives it: the view table's name, that file, the
    current snapshot and every snapshot kept, oldest first."""

    view: str
    metadata_location: str
    current_snapshot_id: int | None
    snapshots: tuple[ViewSnapshot, ...]
