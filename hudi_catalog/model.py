"""Plain data types of the catalog: databases, tables, partitions, functions.

They carry everything a Hive Metastore client can store, in Python names, and no protocol types. Times are
seconds since the epoch, as Hive keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from enum import Enum
from typing import NamedTuple

MANAGED_TABLE = "MANAGED_TABLE"
EXTERNAL_TABLE = "EXTERNAL_TABLE"
VIRTUAL_VIEW = "VIRTUAL_VIEW"
MATERIALIZED_VIEW = "MATERIALIZED_VIEW"

VIEW_OF_PARAM = "hudi.metastore.view.of"
"""Set on the ``_ro``/``_rt`` tables of a MERGE_ON_READ table to the name of the table that owns the timeline:
they get every partition the owner gets, as Hudi's hive sync keeps them alike."""

USER = "USER"
ROLE = "ROLE"
GROUP = "GROUP"

EXPECTED_KEY = "expected_parameter_key"
EXPECTED_VALUE = "expected_parameter_value"
"""Environment properties of an alter that applies only while the table's parameter ``EXPECTED_KEY`` still
has the value ``EXPECTED_VALUE`` (Hive 4; Iceberg's commits without a Hive lock rely on them)."""


@dataclass
class Column:
    """One column: name, Hive type string and comment."""

    name: str
    type: str
    comment: str | None = None


@dataclass
class SerDe:
    """The serializer/deserializer of a storage descriptor."""

    name: str | None = None
    serialization_lib: str | None = None
    parameters: dict[str, str] = field(default_factory=dict)
    description: str | None = None
    serializer_class: str | None = None
    deserializer_class: str | None = None
    serde_type: int | None = None


@dataclass
class SortColumn:
    """A sort column of a bucketed table; ``order`` is 1 for ascending, 0 for descending."""

    column: str
    order: int


@dataclass
class SkewedInfo:
    """Skewed columns, their skewed values and the locations of the skewed value lists."""

    column_names: list[str] = field(default_factory=list)
    column_values: list[list[str]] = field(default_factory=list)
    value_locations: list[tuple[list[str], str]] = field(default_factory=list)


@dataclass
class StorageDescriptor:
    """Where and how a table's or a partition's data is stored."""

    columns: list[Column] = field(default_factory=list)
    location: str | None = None
    input_format: str | None = None
    output_format: str | None = None
    compressed: bool = False
    num_buckets: int = -1
    serde: SerDe = field(default_factory=SerDe)
    bucket_columns: list[str] = field(default_factory=list)
    sort_columns: list[SortColumn] = field(default_factory=list)
    parameters: dict[str, str] = field(default_factory=dict)
    skewed_info: SkewedInfo | None = None
    stored_as_sub_directories: bool = False


@dataclass
class DatabaseCatalog:
    """A namespace of databases (Hive 3's catalog); ``hive`` is the default one."""

    name: str
    description: str | None = None
    location: str | None = None
    create_time: int = 0


@dataclass
class Database:
    """A database (namespace) of tables and functions."""

    name: str
    description: str | None = None
    location: str | None = None
    parameters: dict[str, str] = field(default_factory=dict)
    owner_name: str | None = None
    owner_type: str | None = None
    create_time: int = 0
    managed_location: str | None = None


@dataclass
class Table:
    """A table or view; ``partition_keys`` are its partition columns in order."""

    database: str
    name: str
    owner: str | None = None
    owner_type: str | None = None
    create_time: int = 0
    last_access_time: int = 0
    retention: int = 0
    sd: StorageDescriptor = field(default_factory=StorageDescriptor)
    partition_keys: list[Column] = field(default_factory=list)
    parameters: dict[str, str] = field(default_factory=dict)
    view_original_text: str | None = None
    view_expanded_text: str | None = None
    table_type: str = MANAGED_TABLE
    temporary: bool = False
    rewrite_enabled: bool = False
    id: int | None = None

    @property
    def qualified_name(self) -> str:
        return f"{self.database}.{self.name}"


@dataclass(frozen=True)
class TableKeys:
    """What reading a table's partitions needs of the table: its id, names and partition keys."""

    id: int
    database: str
    name: str
    partition_keys: list[Column]
    hudi_version: int | None
    """The Hudi table version (``hoodie.table.version``) of a Hudi table; ``None`` for others."""
    partitions_revision: int
    """``tbl.partitions_revision`` as read: the key of the partition read cache."""

    @property
    def qualified_name(self) -> str:
        return f"{self.database}.{self.name}"


@dataclass
class Partition:
    """One partition of a table: its values in partition-key order and its own storage descriptor."""

    database: str
    table: str
    values: list[str]
    sd: StorageDescriptor = field(default_factory=StorageDescriptor)
    parameters: dict[str, str] = field(default_factory=dict)
    create_time: int = 0
    last_access_time: int = 0


class UnencodedPartition(NamedTuple):
    """A partition read for a front end that caches wire encodings, with none cached yet: its model to encode
    and the revision to cache the encoding for (see ``PartitionService.save_encodings``). A tuple: lists of
    them are long."""

    part_id: int
    revision: int
    partition: Partition


@dataclass
class ResourceUri:
    """A jar, file or archive a function needs; ``kind`` is JAR, FILE or ARCHIVE."""

    kind: str
    uri: str


@dataclass
class Function:
    """A permanent user-defined function."""

    database: str
    name: str
    class_name: str
    owner_name: str | None = None
    owner_type: str | None = USER
    create_time: int = 0
    function_type: int = 1
    resource_uris: list[ResourceUri] = field(default_factory=list)


@dataclass
class TableMeta:
    """The short description of a table returned by table-meta listings."""

    database: str
    name: str
    table_type: str
    comment: str | None = None
    owner: str | None = None
    owner_type: str | None = None


class Action(str, Enum):
    """Every action of a Hudi timeline, by the name its instant files use."""

    COMMIT = "commit"
    DELTACOMMIT = "deltacommit"
    REPLACECOMMIT = "replacecommit"
    CLUSTERING = "clustering"
    COMPACTION = "compaction"
    LOGCOMPACTION = "logcompaction"
    CLEAN = "clean"
    ROLLBACK = "rollback"
    RESTORE = "restore"
    SAVEPOINT = "savepoint"
    INDEXING = "indexing"

    def __str__(self) -> str:
        return self.value

    @property
    def completed_as(self) -> Action:
        """The action a completed instant of this one is written (and listed) as.

        >>> Action.COMPACTION.completed_as, Action.CLEAN.completed_as
        (<Action.COMMIT: 'commit'>, <Action.CLEAN: 'clean'>)
        """
        return _COMPLETED_AS.get(self, self)

    @property
    def writes_data(self) -> bool:
        """Whether a completed instant of this action wrote data files (its metadata is a commit's)."""
        return self.completed_as in (Action.COMMIT, Action.DELTACOMMIT, Action.REPLACECOMMIT)


_COMPLETED_AS = {
    Action.COMPACTION: Action.COMMIT,
    Action.LOGCOMPACTION: Action.DELTACOMMIT,
    Action.CLUSTERING: Action.REPLACECOMMIT,
}

WRITE_ACTIONS = frozenset(action for action in Action if action.writes_data)
"""Actions whose completion writes data files: the latest of them is the table's latest commit."""


class InstantState(str, Enum):
    """Where an instant is in its life; each state keeps its own metadata bytes."""

    REQUESTED = "requested"
    INFLIGHT = "inflight"
    COMPLETED = "completed"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Instant:
    """One instant of a Hudi table's timeline.

    ``requested_time`` identifies it (Hudi's begin time); ``completion_time`` is set once it completed. A
    pending instant with a heartbeat has ``heartbeat_seconds`` > 0 and the epoch second of its last beat.
    """

    requested_time: str
    action: Action
    state: InstantState
    completion_time: str | None = None
    heartbeat_seconds: int = 0
    last_heartbeat: int = 0


@dataclass(frozen=True)
class InstantSummary:
    """What one instant did, read from its completed metadata (``TimelineService.summaries``): for a write,
    the files and records it wrote; for a clean or a rollback, the files it deleted; for a rollback or a
    restore, the instants it undid. ``None`` where the instant's metadata does not say (a pending instant);
    ``problem`` when the metadata could not be decoded."""

    instant: Instant
    operation: str | None = None
    files_written: int | None = None
    records_written: int | None = None
    records_deleted: int | None = None
    bytes_written: int | None = None
    files_deleted: int | None = None
    undid: tuple[str, ...] = ()
    problem: str | None = None


@dataclass(frozen=True)
class PendingInstant:
    """A requested or inflight instant of some table (``TimelineService.pending_table_services``)."""

    catalog: str
    database: str
    table: str
    instant: Instant


class ConstraintKind(str, Enum):
    PRIMARY_KEY = "PRIMARY_KEY"
    FOREIGN_KEY = "FOREIGN_KEY"
    UNIQUE = "UNIQUE"
    NOT_NULL = "NOT_NULL"
    DEFAULT = "DEFAULT"
    CHECK = "CHECK"


@dataclass
class TableConstraint:
    """One column of a table constraint (a key of several columns is several, by ``position``).

    Foreign keys name the referenced column (``parent_*``) and its primary key; default and check
    constraints carry their ``value`` (the default value or the check expression).
    """

    kind: ConstraintKind
    name: str | None
    database: str
    table: str
    column: str | None
    position: int = 1
    enable: bool = False
    validate: bool = False
    rely: bool = False
    value: str | None = None
    parent_database: str | None = None
    parent_table: str | None = None
    parent_column: str | None = None
    parent_key_name: str | None = None
    update_rule: int = 0
    delete_rule: int = 0


class StatsKind(str, Enum):
    """The kinds of Hive column statistics; each describes some column types (``column_stats.KINDS_OF_TYPE``)."""

    BOOLEAN = "boolean"
    LONG = "long"
    DOUBLE = "double"
    STRING = "string"
    BINARY = "binary"
    DECIMAL = "decimal"
    DATE = "date"
    TIMESTAMP = "timestamp"


@dataclass
class ColumnStats:
    """The statistics of one column of a table or partition.

    ``low``/``high``: ``int`` for long, date (days since the epoch) and timestamp (seconds since the epoch)
    statistics, ``float`` for double, ``decimal.Decimal`` for decimal; None when unknown. Which of the counts
    are set depends on the kind, as in Hive (``num_trues``/``num_falses`` for booleans, the lengths for
    strings and binaries). Bit vectors (the engine's NDV sketch) and histograms are kept as bytes, unread.
    """

    column: str
    column_type: str
    kind: StatsKind
    num_nulls: int = 0
    num_distinct: int | None = None
    low: int | float | Decimal | None = None
    high: int | float | Decimal | None = None
    num_trues: int | None = None
    num_falses: int | None = None
    max_length: int | None = None
    avg_length: float | None = None
    bit_vectors: bytes | None = None
    histogram: bytes | None = None


@dataclass
class ColumnStatsSet:
    """The column statistics of one table (``partition`` None) or one partition, as one engine computed
    them (Hive 4 keeps statistics per engine; older clients are all ``hive``)."""

    database: str
    table: str
    partition: str | None
    columns: list[ColumnStats]
    last_analyzed: int = 0
    engine: str = "hive"
