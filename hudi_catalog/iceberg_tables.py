"""Iceberg tables as a front end sees them (the Iceberg REST catalog): a loaded table, a table to create and
a change to commit. ``services.iceberg_tables`` keeps them, in the same tables Hive clients see.

An Iceberg table is a Hive table with ``table_type=ICEBERG`` and a ``metadata_location`` parameter, as
Iceberg's own Hive catalog registers it; Thrift and REST clients therefore share every table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class IcebergTable:
    """One version of an Iceberg table.

    Attributes:
        metadata_location: the metadata file of this version.
        metadata: that file's JSON object.
        read_only: a Hudi table's Iceberg view, which only the server itself changes.
    """

    database: str
    name: str
    metadata_location: str
    metadata: Mapping[str, Any]
    read_only: bool = False


@dataclass(frozen=True)
class NewIcebergTable:
    """A table to create: the spec's ``CreateTableRequest``, its JSON objects as they came.

    Attributes:
        location: where its files go; ``None``: ``<database location>/<name>``.
        staged: only its first metadata is made and returned; the table exists once a commit creates it.
    """

    name: str
    schema: Mapping[str, Any]
    partition_spec: Mapping[str, Any] | None = None
    write_order: Mapping[str, Any] | None = None
    location: str | None = None
    properties: Mapping[str, str] = field(default_factory=dict)
    staged: bool = False


@dataclass(frozen=True)
class TableChange:
    """One table's part of a commit: the spec's requirements and updates, as JSON objects."""

    database: str
    name: str
    requirements: Sequence[Mapping[str, Any]]
    updates: Sequence[Mapping[str, Any]]
