"""Reading a Hudi table's own metadata from storage: ``hoodie.properties``, the timeline's instant files
(active and archived), their contents, and the table schema as Hive columns.

Everything reads through a ``pyarrow.fs.FileSystem`` and a base path; nothing here writes.
"""

from .active_timeline import list_instants, read_instant
from .archived_timeline import list_archived_instants, read_archived_instants
from .avro_schema import META_COLUMNS, hive_columns
from .file_names import BaseFileName, LogFileName
from .instant_files import InstantFile, instant_file_name, parse_instant_file_name
from .metadata import (
    CleanMetadata,
    CleanPlan,
    ClusteringPlan,
    CommitMetadata,
    CompactionPlan,
    IndexingMetadata,
    InstantMetadata,
    PlannedSlice,
    RestoreMetadata,
    RestorePlan,
    RollbackMetadata,
    RollbackPlan,
    SavepointMetadata,
    WriteStat,
    check_instant,
    decode_instant,
    latest_schema,
)
from .properties import TableConfig, read_table_config

__all__ = [
    "META_COLUMNS",
    "BaseFileName",
    "CleanMetadata",
    "CleanPlan",
    "ClusteringPlan",
    "CommitMetadata",
    "CompactionPlan",
    "IndexingMetadata",
    "InstantFile",
    "InstantMetadata",
    "LogFileName",
    "PlannedSlice",
    "RestoreMetadata",
    "RestorePlan",
    "RollbackMetadata",
    "RollbackPlan",
    "SavepointMetadata",
    "TableConfig",
    "WriteStat",
    "check_instant",
    "decode_instant",
    "hive_columns",
    "instant_file_name",
    "latest_schema",
    "list_archived_instants",
    "list_instants",
    "parse_instant_file_name",
    "read_archived_instants",
    "read_instant",
    "read_table_config",
]
