"""Iceberg v2 metadata of a Hudi table: the read-optimized view of its base files as an Iceberg table that
Iceberg readers load from its metadata JSON (see docs/iceberg.md).

The builder takes plain inputs (:class:`TableInfo`, :class:`InstantChanges`); :func:`build_view` derives
them from a Hudi table on storage and builds the view from scratch.
"""

from .builder import (
    BLOCKED_PROPERTY,
    DEFAULT_METADATA_DIR,
    SKIPPED_PROPERTY,
    ViewBuilder,
    ViewUpdate,
    discard_update,
    remove_expired,
    update_view,
)
from .changes import InstantChanges, TableInfo
from .errors import IcebergViewError, MissingDataFileError, SchemaEvolutionError, ViewMetadataError
from .expiry import MAX_SNAPSHOT_AGE_MS_DEFAULT, MIN_SNAPSHOTS_TO_KEEP_DEFAULT, Expired
from .hudi_source import (
    build_view,
    completed_changes,
    completion_order,
    expire_view,
    instant_changes,
    table_info,
    take_changes,
    with_create_schema,
)
from .table_metadata import TableMetadata, latest_metadata, load_metadata
from .uri_files import uri_file_system

__all__ = [
    "BLOCKED_PROPERTY",
    "DEFAULT_METADATA_DIR",
    "MAX_SNAPSHOT_AGE_MS_DEFAULT",
    "MIN_SNAPSHOTS_TO_KEEP_DEFAULT",
    "SKIPPED_PROPERTY",
    "Expired",
    "IcebergViewError",
    "InstantChanges",
    "MissingDataFileError",
    "SchemaEvolutionError",
    "TableInfo",
    "TableMetadata",
    "ViewBuilder",
    "ViewMetadataError",
    "ViewUpdate",
    "build_view",
    "completed_changes",
    "completion_order",
    "discard_update",
    "expire_view",
    "instant_changes",
    "latest_metadata",
    "load_metadata",
    "remove_expired",
    "table_info",
    "take_changes",
    "with_create_schema",
    "update_view",
    "uri_file_system",
]
