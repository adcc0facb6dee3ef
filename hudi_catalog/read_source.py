"""What ``read_table`` asks of a catalog, and its answer from a ``Catalog`` in this process.

``CatalogSource`` is the whole interface: the table, its partitions pruned by a WHERE clause (with their Hudi
paths and values), the latest file slices (also as of an instant), the file groups that instants in a range
wrote to, and the latest completed write. ``LocalCatalogSource`` answers it from a ``Catalog``; the HMS
adapter answers it over the metaserver protocol (``hms_adapter.metaserver_client.MetaserverSource``) and
serves ``partitions`` to remote readers through this same class, so both sides prune alike.

This module imports neither pyspark nor thriftpy2: the server uses it without Spark installed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from .catalog import Catalog
from .hudi.file_slices import FileSlice
from .hudi.partition_paths import partition_values
from .hudi.properties import TABLE_TYPE
from .model import WRITE_ACTIONS, Column, InstantState


@dataclass(frozen=True)
class HudiTableInfo:
    """A table as the reader needs it: where it is, its Hudi type and its columns (Hive types)."""

    database: str
    name: str
    location: str | None
    columns: tuple[Column, ...]
    """The data columns, Hudi's ``_hoodie_*`` meta columns first, partition keys excluded."""
    partition_keys: tuple[Column, ...]
    parameters: Mapping[str, str] = field(default_factory=dict)

    @property
    def qualified_name(self) -> str:
        return f"{self.database}.{self.name}"

    @property
    def table_type(self) -> str | None:
        """``COPY_ON_WRITE``, ``MERGE_ON_READ``, or ``None`` for a table that is not a Hudi table."""
        return self.parameters.get(TABLE_TYPE)


@dataclass(frozen=True)
class PartitionInfo:
    """A partition of a Hudi table: its path relative to the table (``""`` when unpartitioned) and its
    values in partition-key order, as the catalog holds them."""

    path: str
    values: tuple[str, ...]


@runtime_checkable
class CatalogSource(Protocol):
    """The catalog calls of a metastore-driven read. Names are as the catalog takes them (any case)."""

    def table(self, database: str, table: str) -> HudiTableInfo:
        """The table. Raises ``NoSuchObjectError`` when it does not exist."""
        ...

    def partitions(self, database: str, table: str, where: str | None) -> list[PartitionInfo]:
        """Partitions that hold Hudi files and may hold rows matching ``where`` (an engine's WHERE clause;
        never fewer than the true set; all when ``None``); an unpartitioned table has the one partition
        ``""``. Raises ``InvalidFilterError`` when ``where`` is not SQL."""
        ...

    def latest_file_slices(
        self, database: str, table: str, paths: Sequence[str] | None, as_of: str | None
    ) -> list[FileSlice]:
        """The latest file slice of every file group of the partitions at ``paths`` (every partition when
        ``None``), as of instant time ``as_of`` (the latest completed state when ``None``)."""
        ...

    def file_groups_changed(self, database: str, table: str, begin: str, end: str) -> set[tuple[str, str]]:
        """``(partition path, file id)`` of the file groups that completed instants in ``(begin, end]``
        (requested times) added files to."""
        ...

    def latest_commit(self, database: str, table: str) -> str | None:
        """The requested time of the latest completed write instant; ``None`` when there is none."""
        ...


class LocalCatalogSource:
    """``CatalogSource`` over a ``Catalog`` in this process."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def table(self, database: str, table: str) -> HudiTableInfo:
        found = self.catalog.tables.get(database, table)
        return HudiTableInfo(
            found.database,
            found.name,
            found.sd.location,
            tuple(found.sd.columns),
            tuple(found.partition_keys),
            dict(found.parameters),
        )

    def partitions(self, database: str, table: str, where: str | None) -> list[PartitionInfo]:
        found = self.catalog.tables.get(database, table)
        if not found.partition_keys:
            return [PartitionInfo("", ())]
        keys = [k.name for k in found.partition_keys]
        # the snapshot created these partitions from their Hudi paths with partition_values: same values here
        paths = {tuple(partition_values(p, keys)): p for p in self.catalog.snapshot.partition_paths(database, table)}
        chosen = self.catalog.partitions.by_where(database, table, where or "")
        return [PartitionInfo(paths[values], values) for values in (tuple(p.values) for p in chosen) if values in paths]

    def latest_file_slices(
        self, database: str, table: str, paths: Sequence[str] | None, as_of: str | None
    ) -> list[FileSlice]:
        if paths is None:
            by_path = self.catalog.snapshot.latest_file_slices(database, table, as_of=as_of)
            return [s for found in by_path.values() for s in found]
        return [
            s
            for path in paths
            for s in self.catalog.snapshot.latest_file_slices(database, table, path, as_of=as_of).get(path, [])
        ]

    def file_groups_changed(self, database: str, table: str, begin: str, end: str) -> set[tuple[str, str]]:
        return {
            (path, file_id) for path, file_id, _, _ in self.catalog.snapshot.files_changed(database, table, begin, end)
        }

    def latest_commit(self, database: str, table: str) -> str | None:
        completed = self.catalog.timeline.instants(
            database, table, states=[InstantState.COMPLETED], actions=sorted(WRITE_ACTIONS)
        )
        return max((i.requested_time for i in completed), default=None)
