"""Reading a Hudi table's own metadata from storage: ``hoodie.properties``, the timeline's instant files
(active and archived), their contents, and the table schema as Hive columns.

Everything reads through a ``pyarrow.fs.FileSystem`` and a base path; nothing here writes.
"""

from .avro_schema import META_COLUMNS, hive_columns
from .instants import (
    ACTIONS,
    InstantFile,
    State,
    instant_file_name,
    list_archived_instants,
    list_instants,
    parse_instant_file_name,
    read_archived_instants,
    read_instant,
)
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
    decode_instant,
    is_log_file_name,
    latest_schema,
    parse_base_file_name,
    parse_log_file_name,
)
from .properties import TableConfig, read_table_config

__all__ = [
    "ACTIONS",
    "META_COLUMNS",
    "CleanMetadata",
    "CleanPlan",
    "ClusteringPlan",
    "CommitMetadata",
    "CompactionPlan",
    "IndexingMetadata",
    "InstantFile",
    "InstantMetadata",
    "PlannedSlice",
    "RestoreMetadata",
    "RestorePlan",
    "RollbackMetadata",
    "RollbackPlan",
    "SavepointMetadata",
    "State",
    "TableConfig",
    "WriteStat",
    "decode_instant",
    "hive_columns",
    "instant_file_name",
    "is_log_file_name",
    "latest_schema",
    "list_archived_instants",
    "list_instants",
    "parse_base_file_name",
    "parse_instant_file_name",
    "parse_log_file_name",
    "read_archived_instants",
    "read_instant",
    "read_table_config",
]
