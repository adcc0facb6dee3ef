"""Iceberg views of Hudi tables as a front end sees them: how a server keeps them (``ViewSettings``, from
``serve``'s options) and what building or refreshing one did (``ViewResult``).
``services.iceberg_views`` builds and keeps the views."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

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
    """

    view: str
    metadata_location: str | None
    applied: str | None
    snapshots_added: tuple[int, ...] = ()
    manifests_written: tuple[str, ...] = ()
    skipped: Mapping[str, int] = field(default_factory=dict)
    error: str | None = None
