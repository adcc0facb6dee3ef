"""SQLAlchemy Core definitions of every catalog table.

The layout follows the Hudi metastore design (databases, tables, per-version schema rows, partitions with
their key values as rows, the timeline and the file snapshot) and adds what Hive Metastore clients need
beyond it: storage descriptors (inline in their table or partition row), functions. ``docs/storage.md``
describes each table.

The same definitions serve SQLite and MySQL/MariaDB. On MySQL every table is utf8mb4 with a binary
collation, so names and partition values compare case-sensitively, as in Hive.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Double,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    SmallInteger,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.dialects import mysql

from ..typed_keys import TYPED_KEY_LENGTH

SCHEMA_VERSION = 15
"""The version of this layout; ``store.migrations.MIGRATIONS`` upgrades older stores to it."""

metadata = MetaData()

_MYSQL_OPTIONS: dict[str, Any] = {"mysql_charset": "utf8mb4", "mysql_collate": "utf8mb4_bin", "mysql_engine": "InnoDB"}

Id = BigInteger().with_variant(Integer(), "sqlite")
"""Surrogate keys: BIGINT on MySQL, INTEGER (the rowid alias) on SQLite."""

LongText = Text().with_variant(mysql.LONGTEXT(), "mysql", "mariadb")
LongBlob = LargeBinary().with_variant(mysql.LONGBLOB(), "mysql", "mariadb")
MediumBlob = LargeBinary().with_variant(mysql.MEDIUMBLOB(), "mysql", "mariadb")

NAME = 128
"""Hive's limit for database, table, column and function names."""
PARTITION_NAME = 750
"""Long enough for Hive's 767-byte partition names while (tbl_id, part_name) stays a valid InnoDB key."""
KEY_VALUE = 750
TIMESTAMP = 17
"""Hudi instant times: ``yyyyMMddHHmmssSSS``."""
LOCATION_KEY = 512
"""The leading characters of a location kept in ``location_key``, the indexed column that prefix queries on
locations range over (a whole location may be longer than an index entry can be on MySQL and PostgreSQL)."""


def _location_columns() -> list[Column]:
    """What the server knows of a database's, table's or partition's location besides the location itself
    (``hudi_catalog.store.locations``)."""
    return [
        Column("location_key", String(LOCATION_KEY), doc="the location's first LOCATION_KEY characters, indexed"),
        Column(
            "made_location",
            Text,
            doc="the location whose directory the server made (or moved there) for this object; the object's "
            "directory is the server's to delete or move only while this equals its location",
        ),
    ]


def _id(name: str, **kwargs) -> Column:
    return Column(name, Id, primary_key=True, autoincrement=True, **kwargs)


def _params_table(name: str, owner: str, owner_table: str) -> Table:
    return Table(
        name,
        metadata,
        Column(owner, Id, ForeignKey(f"{owner_table}.{owner}", ondelete="CASCADE"), nullable=False),
        Column("param_key", String(256), nullable=False),
        Column("param_value", LongText),
        PrimaryKeyConstraint(owner, "param_key"),
        **_MYSQL_OPTIONS,
    )


schema_version = Table(
    "schema_version",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("version", Integer, nullable=False),
    **_MYSQL_OPTIONS,
)

# Hive 3's catalogs: namespaces of databases ("hive" is the default one, made at start)
catalogs = Table(
    "catalogs",
    metadata,
    Column("name", String(NAME), primary_key=True),
    Column("description", Text),
    Column("location_uri", Text, doc="NULL for hive: the server's warehouse root"),
    Column("create_time", BigInteger, nullable=False, default=0),
    **_MYSQL_OPTIONS,
)

db = Table(
    "db",
    metadata,
    _id("db_id"),
    Column("cat_name", String(NAME), nullable=False, default="hive", server_default="hive"),
    Column("name", String(NAME), nullable=False),
    Column("description", Text),
    Column("location_uri", Text),
    Column("managed_location_uri", Text),
    Column("owner_name", String(NAME)),
    Column("owner_type", String(10)),
    Column("create_time", BigInteger, nullable=False, default=0),
    *_location_columns(),
    Column(
        "revision",
        BigInteger,
        nullable=False,
        default=0,
        doc="raised by every change of the database or its parameters: what its cached model is keyed on",
    ),
    UniqueConstraint("cat_name", "name", name="uniq_db_name"),
    Index("idx_db_location_key", "location_key"),
    **_MYSQL_OPTIONS,
)

db_params = _params_table("db_params", "db_id", "db")


def _storage_descriptor_columns() -> list[Column]:
    """The storage descriptor of a table or a partition, kept in the row that owns it.

    Lists and maps Hive never queries by (serde and descriptor parameters, bucket and sort columns, skewed
    info) are JSON text, so one row holds the whole descriptor and a read needs no join.
    """
    return [
        Column("location", Text),
        Column("input_format", Text),
        Column("output_format", Text),
        Column("is_compressed", Boolean, nullable=False, default=False),
        Column("num_buckets", Integer, nullable=False, default=-1),
        Column("is_stored_as_sub_dirs", Boolean, nullable=False, default=False),
        Column("serde_name", String(NAME)),
        Column("serde_lib", Text),
        Column("serde_params", LongText, doc="JSON object of the serde parameters"),
        Column("serde_extra", Text, doc="JSON object: description, serializer/deserializer class, type"),
        Column("sd_params", LongText, doc="JSON object of the storage descriptor parameters"),
        Column("bucket_cols", Text, doc="JSON list of bucket column names"),
        Column("sort_cols", Text, doc="JSON list of [column, order] pairs"),
        Column("skewed_info", LongText, doc="JSON object, null when the data is not skewed"),
        Column("schema_version", Integer, nullable=False, doc="the version of the table's schema rows"),
    ]


tbl = Table(
    "tbl",
    metadata,
    _id("tbl_id"),
    Column("db_id", Id, ForeignKey("db.db_id"), nullable=False),
    Column("name", String(NAME), nullable=False),
    Column("owner_name", String(NAME)),
    Column("owner_type", String(10)),
    Column("create_time", BigInteger, nullable=False, default=0),
    Column("last_access_time", BigInteger, nullable=False, default=0),
    Column("retention", Integer, nullable=False, default=0),
    Column("tbl_type", String(32), nullable=False),
    Column("view_original_text", LongText),
    Column("view_expanded_text", LongText),
    Column("is_rewrite_enabled", Boolean, nullable=False, default=False),
    *_storage_descriptor_columns(),
    # raised by every change of the row, its parameters or its schema: the key of the table read cache
    Column("revision", BigInteger, nullable=False, default=0),
    # raised by every change of the table's partitions: the key of the partition read cache
    Column("partitions_revision", BigInteger, nullable=False, default=0),
    *_location_columns(),
    UniqueConstraint("db_id", "name", name="uniq_tbl"),
    Index("idx_tbl_location_key", "location_key"),
    **_MYSQL_OPTIONS,
)

tbl_params = _params_table("tbl_params", "tbl_id", "tbl")

schema = Table(
    "schema",
    metadata,
    Column("tbl_id", Id, ForeignKey("tbl.tbl_id", ondelete="CASCADE"), nullable=False),
    Column("version", Integer, nullable=False),
    Column("position", Integer, nullable=False, doc="order among the data columns, or the partition keys"),
    Column("is_partition_col", Boolean, nullable=False),
    Column("name", String(767), nullable=False),
    Column("type", LongText, nullable=False),
    Column("comment", Text),
    PrimaryKeyConstraint("tbl_id", "version", "is_partition_col", "position"),
    **_MYSQL_OPTIONS,
)

partitions = Table(
    "partitions",
    metadata,
    _id("part_id"),
    Column("tbl_id", Id, ForeignKey("tbl.tbl_id", ondelete="CASCADE"), nullable=False),
    Column("part_name", String(PARTITION_NAME), nullable=False),
    Column("create_time", BigInteger, nullable=False, default=0),
    Column("last_access_time", BigInteger, nullable=False, default=0),
    *_storage_descriptor_columns(),
    Column(
        "revision",
        Integer,
        nullable=False,
        default=0,
        server_default="0",
        doc="raised by every change of the partition; a cached encoding is only stored for the revision it was "
        "made from",
    ),
    Column(
        "encoded",
        MediumBlob,
        nullable=True,
        doc="the partition as a front end last encoded it for the wire (opaque to the catalog); NULL when "
        "the partition changed since",
    ),
    Column(
        "hudi_path",
        String(PARTITION_NAME),
        nullable=True,
        doc="the Hudi partition path (relative to the table) of partitions a Hudi timeline created",
    ),
    *_location_columns(),
    UniqueConstraint("tbl_id", "part_name", name="uniq_partition"),
    Index("idx_partition_hudi_path", "tbl_id", "hudi_path"),
    Index("idx_partition_location_key", "location_key"),
    **_MYSQL_OPTIONS,
)

partition_params = _params_table("partition_params", "part_id", "partitions")

partition_key_val = Table(
    "partition_key_val",
    metadata,
    Column("part_id", Id, ForeignKey("partitions.part_id", ondelete="CASCADE"), nullable=False),
    Column("tbl_id", Id, nullable=False),
    Column("key_index", SmallInteger, nullable=False),
    Column("key_name", String(767), nullable=False),
    Column("key_val", String(KEY_VALUE), nullable=False, doc="the value as the client gave it"),
    Column(
        "typed_val",
        String(TYPED_KEY_LENGTH),
        nullable=True,
        doc="order-preserving key of numeric, date and timestamp values (hudi_catalog.typed_keys)",
    ),
    PrimaryKeyConstraint("part_id", "key_index"),
    Index("idx_pkv_lookup", "tbl_id", "key_index", "key_val", "part_id"),
    Index("idx_pkv_typed", "tbl_id", "key_index", "typed_val", "part_id"),
    **_MYSQL_OPTIONS,
)

functions = Table(
    "functions",
    metadata,
    _id("func_id"),
    Column("db_id", Id, ForeignKey("db.db_id"), nullable=False),
    Column("name", String(NAME), nullable=False),
    Column("class_name", Text),
    Column("owner_name", String(NAME)),
    Column("owner_type", String(10)),
    Column("create_time", BigInteger, nullable=False, default=0),
    Column("func_type", Integer, nullable=False, default=1),
    Column("resource_uris", Text, doc="JSON list of [type, uri] pairs"),
    UniqueConstraint("db_id", "name", name="uniq_func"),
    **_MYSQL_OPTIONS,
)

# The Hudi timeline and file snapshot. They are created with the schema so that one layout version covers
# the whole store; the timeline and snapshot services fill them.

tbl_timestamp = Table(
    "tbl_timestamp",
    metadata,
    Column("tbl_id", Id, ForeignKey("tbl.tbl_id", ondelete="CASCADE"), primary_key=True, autoincrement=False),
    Column("ts", String(TIMESTAMP), nullable=False, doc="the last instant time handed out"),
    **_MYSQL_OPTIONS,
)

instant = Table(
    "instant",
    metadata,
    _id("instant_id"),
    Column("tbl_id", Id, ForeignKey("tbl.tbl_id", ondelete="CASCADE"), nullable=False),
    Column("ts", String(TIMESTAMP), nullable=False, doc="requested (begin) time"),
    Column("completion_ts", String(TIMESTAMP)),
    Column("action", SmallInteger, nullable=False),
    Column("state", SmallInteger, nullable=False),
    Column("duration", Integer, nullable=False, default=0, doc="heartbeat lease in seconds"),
    Column("start_ts", BigInteger, nullable=False, default=0, doc="last heartbeat, epoch seconds"),
    UniqueConstraint("tbl_id", "ts", name="uniq_inst_ts"),
    Index("idx_inst_state", "tbl_id", "state", "ts", "action"),
    **_MYSQL_OPTIONS,
)

instant_meta = Table(
    "instant_meta",
    metadata,
    _id("meta_id"),
    Column("tbl_id", Id, ForeignKey("tbl.tbl_id", ondelete="CASCADE"), nullable=False),
    Column("ts", String(TIMESTAMP), nullable=False),
    Column("action", SmallInteger, nullable=False),
    Column("state", SmallInteger, nullable=False),
    Column("data", LongBlob),
    UniqueConstraint("tbl_id", "ts", "action", "state", name="uniq_inst_meta"),
    **_MYSQL_OPTIONS,
)

replaced_file_group = Table(
    "replaced_file_group",
    metadata,
    Column("tbl_id", Id, ForeignKey("tbl.tbl_id", ondelete="CASCADE"), nullable=False),
    Column("part_id", Id, nullable=False, doc="0 for unpartitioned tables"),
    Column("file_id", String(128), nullable=False),
    Column("instant_ts", String(TIMESTAMP), nullable=False, doc="the replacecommit or clustering that replaced it"),
    PrimaryKeyConstraint("tbl_id", "part_id", "file_id"),
    **_MYSQL_OPTIONS,
)

tbl_version = Table(
    "tbl_version",
    metadata,
    Column("tbl_id", Id, ForeignKey("tbl.tbl_id", ondelete="CASCADE"), nullable=False),
    Column("version", String(TIMESTAMP), nullable=False, doc="the instant applied to the snapshot"),
    Column("snapshot_status", SmallInteger, nullable=False, default=0),
    Column("create_time", BigInteger, nullable=False, default=0),
    PrimaryKeyConstraint("tbl_id", "version"),
    **_MYSQL_OPTIONS,
)

files = Table(
    "files",
    metadata,
    _id("file_row_id"),
    Column("tbl_id", Id, ForeignKey("tbl.tbl_id", ondelete="CASCADE"), nullable=False),
    Column("part_id", Id, ForeignKey("partitions.part_id", ondelete="CASCADE"), nullable=True),
    Column("name", String(512), nullable=False),
    Column("file_id", String(128), nullable=False, doc="the Hudi file group id"),
    Column("instant_ts", String(TIMESTAMP), nullable=False, doc="the instant that wrote the file"),
    Column("size", BigInteger, nullable=False, default=0),
    Column(
        "num_rows",
        BigInteger,
        nullable=True,
        doc="records in a base file (its write's numWrites); NULL for log files and files of rollbacks",
    ),
    Column("is_deleted", Boolean, nullable=False, default=False),
    UniqueConstraint("tbl_id", "part_id", "name", name="uniq_file"),
    Index("idx_files_group", "tbl_id", "part_id", "file_id", "instant_ts", "name", "is_deleted"),
    Index("idx_files_instant", "tbl_id", "instant_ts"),
    **_MYSQL_OPTIONS,
)

# Hive's locks and transactions (the HMS lock and transaction calls). Objects are named, not referenced by id,
# because Hive grants locks on databases, tables and partitions that need not exist.

# Counters shared by every server on the database (lock ids, transaction ids); the "lock" row is also the
# mutex that serialises lock grants.
id_sequence = Table(
    "id_sequence",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("next_value", BigInteger, nullable=False),
    **_MYSQL_OPTIONS,
)

SEQUENCES = ("lock", "txn", "notification", "token", "token_key")

hive_txn = Table(
    "hive_txn",
    metadata,
    Column("txn_id", BigInteger, primary_key=True, autoincrement=False),
    Column("state", String(1), nullable=False, doc="o open, a aborted, c committed (kept for a while)"),
    Column("started_ms", BigInteger, nullable=False),
    Column("last_heartbeat_ms", BigInteger, nullable=False),
    Column("heartbeat_count", Integer, nullable=False, default=0),
    Column("user_name", String(NAME), nullable=False),
    Column("host_name", String(NAME), nullable=False),
    Column("agent_info", String(NAME)),
    Column("txn_type", SmallInteger, nullable=False, default=0),
    Column(
        "has_writes",
        Boolean,
        nullable=False,
        default=False,
        doc="took a write lock or a write id: kept after an abort, so readers skip what it wrote",
    ),
    Index("idx_txn_state", "state"),
    **_MYSQL_OPTIONS,
)

hive_lock = Table(
    "hive_lock",
    metadata,
    Column("lock_id", BigInteger, nullable=False),
    Column("component", Integer, nullable=False, doc="the component's position in its request, from 1"),
    Column("txn_id", BigInteger, nullable=False, default=0, doc="0 for a lock outside a transaction"),
    Column("db_name", String(NAME), nullable=False),
    Column("tbl_name", String(NAME)),
    Column("part_name", String(PARTITION_NAME)),
    Column("state", SmallInteger, nullable=False, doc="LockState: 1 acquired, 2 waiting"),
    Column("lock_type", SmallInteger, nullable=False, doc="LockType: 1 shared read, 2 shared write, ..."),
    Column("last_heartbeat_ms", BigInteger, nullable=False),
    Column("acquired_at_ms", BigInteger),
    Column("heartbeat_count", Integer, nullable=False, default=0),
    Column("user_name", String(NAME), nullable=False),
    Column("host_name", String(NAME), nullable=False),
    Column("agent_info", String(NAME)),
    Column("blocked_by_lock", BigInteger),
    Column("blocked_by_component", Integer),
    PrimaryKeyConstraint("lock_id", "component"),
    Index("idx_lock_db", "db_name"),
    Index("idx_lock_txn", "txn_id"),
    **_MYSQL_OPTIONS,
)

next_write_id = Table(
    "next_write_id",
    metadata,
    Column("db_name", String(NAME), nullable=False),
    Column("tbl_name", String(NAME), nullable=False),
    Column("next_value", BigInteger, nullable=False),
    PrimaryKeyConstraint("db_name", "tbl_name"),
    **_MYSQL_OPTIONS,
)

txn_write_id = Table(
    "txn_write_id",
    metadata,
    Column("db_name", String(NAME), nullable=False),
    Column("tbl_name", String(NAME), nullable=False),
    Column("write_id", BigInteger, nullable=False),
    Column("txn_id", BigInteger, nullable=False),
    PrimaryKeyConstraint("db_name", "tbl_name", "write_id"),
    UniqueConstraint("txn_id", "db_name", "tbl_name", name="uniq_txn_write"),
    **_MYSQL_OPTIONS,
)

# Table constraints (Hive's KEY_CONSTRAINTS): one row per constrained column; names are unique per database.
tbl_constraint = Table(
    "tbl_constraint",
    metadata,
    _id("constraint_id"),
    Column("db_id", Id, ForeignKey("db.db_id", ondelete="CASCADE"), nullable=False),
    Column("name", String(NAME), nullable=False),
    Column("position", Integer, nullable=False),
    Column("kind", String(16), nullable=False, doc="ConstraintKind"),
    Column("tbl_id", Id, ForeignKey("tbl.tbl_id", ondelete="CASCADE"), nullable=False),
    Column("column_name", String(NAME)),
    Column(
        "parent_tbl_id", Id, ForeignKey("tbl.tbl_id", ondelete="CASCADE"), doc="the referenced table of a foreign key"
    ),
    Column("parent_column", String(NAME)),
    Column("parent_key_name", String(NAME)),
    Column("update_rule", SmallInteger, nullable=False, default=0),
    Column("delete_rule", SmallInteger, nullable=False, default=0),
    Column("enable_cstr", Boolean, nullable=False, default=False),
    Column("validate_cstr", Boolean, nullable=False, default=False),
    Column("rely_cstr", Boolean, nullable=False, default=False),
    Column("value", Text, doc="a default constraint's value or a check constraint's expression"),
    UniqueConstraint("db_id", "name", "position", name="uniq_constraint_name"),
    Index("idx_constraint_tbl", "tbl_id", "kind"),
    Index("idx_constraint_parent", "parent_tbl_id"),
    **_MYSQL_OPTIONS,
)

# Column statistics (Hive's TAB_COL_STATS and PART_COL_STATS): one row per column and engine. Low and high
# values sit in the column of their kind: long, date (days) and timestamp (seconds) in ``long_*``, doubles in
# ``double_*``, decimals as their exact text in ``decimal_*``.


STATS_COLUMN_NAME = 256
"""Column names with statistics: short enough for the (owner, column, engine) key of InnoDB."""


def _column_stats_columns() -> list[Column]:
    return [
        Column("column_name", String(STATS_COLUMN_NAME), nullable=False),
        Column("engine", String(32), nullable=False, default="hive"),
        Column("column_type", String(767), nullable=False),
        Column("kind", String(16), nullable=False, doc="StatsKind"),
        Column("long_low", BigInteger),
        Column("long_high", BigInteger),
        Column("double_low", Double),
        Column("double_high", Double),
        Column("decimal_low", String(128)),
        Column("decimal_high", String(128)),
        Column("num_nulls", BigInteger, nullable=False, default=0),
        Column("num_distinct", BigInteger),
        Column("num_trues", BigInteger),
        Column("num_falses", BigInteger),
        Column("max_length", BigInteger),
        Column("avg_length", Double),
        Column("bit_vectors", LongBlob),
        Column("histogram", LongBlob),
        Column("last_analyzed", BigInteger, nullable=False, default=0),
    ]


tbl_col_stats = Table(
    "tbl_col_stats",
    metadata,
    Column("tbl_id", Id, ForeignKey("tbl.tbl_id", ondelete="CASCADE"), nullable=False),
    *_column_stats_columns(),
    PrimaryKeyConstraint("tbl_id", "column_name", "engine"),
    **_MYSQL_OPTIONS,
)

part_col_stats = Table(
    "part_col_stats",
    metadata,
    Column("part_id", Id, ForeignKey("partitions.part_id", ondelete="CASCADE"), nullable=False),
    Column("tbl_id", Id, nullable=False),
    *_column_stats_columns(),
    PrimaryKeyConstraint("part_id", "column_name", "engine"),
    Index("idx_part_col_stats_tbl", "tbl_id", "column_name"),
    **_MYSQL_OPTIONS,
)

# Notification events (Hive's NOTIFICATION_LOG): ids come from the ``notification`` counter, taken in the
# changing transaction, so they are gap-free and in commit order.
notification_log = Table(
    "notification_log",
    metadata,
    Column("event_id", BigInteger, primary_key=True, autoincrement=False),
    Column("event_time", BigInteger, nullable=False, doc="seconds since the epoch"),
    Column("event_type", String(32), nullable=False),
    Column("cat_name", String(NAME), nullable=False, default="hive"),
    Column("db_name", String(NAME)),
    Column("tbl_name", String(NAME)),
    Column("message", LongText, nullable=False),
    Column("message_format", String(16), nullable=False),
    Index("idx_notification_time", "event_time"),
    **_MYSQL_OPTIONS,
)

# Delegation tokens (get_delegation_token) and the master keys that sign them, as Hive's DBTokenStore keeps
# them in the metastore database, so that every server on the database verifies every token. Ids come from
# the ``token`` and ``token_key`` counters. A token's password is never stored: it is the HMAC of its
# identifier under its master key.
token_master_key = Table(
    "token_master_key",
    metadata,
    Column("key_id", Integer, primary_key=True, autoincrement=False),
    Column("secret", LargeBinary(64), nullable=False),
    Column("created", BigInteger, nullable=False, doc="milliseconds since the epoch"),
    Column("expires", BigInteger, nullable=False, doc="milliseconds since the epoch"),
    **_MYSQL_OPTIONS,
)

delegation_token = Table(
    "delegation_token",
    metadata,
    Column("sequence_number", Integer, primary_key=True, autoincrement=False),
    Column("identifier", LargeBinary(1024), nullable=False, doc="Hadoop's serialized token identifier"),
    Column("owner", String(256), nullable=False),
    Column("renewer", String(256), nullable=False),
    Column("real_user", String(256), nullable=False),
    Column("issue_date", BigInteger, nullable=False, doc="milliseconds since the epoch"),
    Column("max_date", BigInteger, nullable=False, doc="milliseconds since the epoch"),
    Column("expires", BigInteger, nullable=False, doc="milliseconds since the epoch; renewals move it"),
    Column("master_key_id", Integer, ForeignKey("token_master_key.key_id"), nullable=False),
    Index("idx_delegation_token_expires", "expires"),
    **_MYSQL_OPTIONS,
)

# Roles, role membership and privilege grants (Hive's ROLES, ROLE_MAP and *_PRIVS tables). A grant's object
# refers to its database, table or partition row, so dropping the object drops its grants and renaming it
# keeps them; ``object_key`` names the object by those ids (``TABLE:12``) for the uniqueness of a grant.
# Principal and privilege names are stored as given (privileges upper case), principal types by name.
PRINCIPAL = 128

role = Table(
    "role",
    metadata,
    _id("role_id"),
    Column("name", String(NAME), nullable=False),
    Column("create_time", BigInteger, nullable=False, default=0),
    Column("owner_name", String(PRINCIPAL)),
    UniqueConstraint("name", name="uniq_role_name"),
    **_MYSQL_OPTIONS,
)

role_member = Table(
    "role_member",
    metadata,
    Column("role_id", Id, ForeignKey("role.role_id", ondelete="CASCADE"), nullable=False),
    Column("principal_name", String(PRINCIPAL), nullable=False),
    Column("principal_type", String(8), nullable=False),
    Column("grant_option", Boolean, nullable=False, default=False),
    Column("grant_time", BigInteger, nullable=False, default=0),
    Column("grantor", String(PRINCIPAL)),
    Column("grantor_type", String(8)),
    PrimaryKeyConstraint("role_id", "principal_type", "principal_name"),
    Index("idx_role_member_principal", "principal_type", "principal_name"),
    **_MYSQL_OPTIONS,
)

privilege_grant = Table(
    "privilege_grant",
    metadata,
    _id("grant_id"),
    Column("object_key", String(200), nullable=False),
    Column("object_type", String(10), nullable=False),
    Column("db_id", Id, ForeignKey("db.db_id", ondelete="CASCADE")),
    Column("tbl_id", Id, ForeignKey("tbl.tbl_id", ondelete="CASCADE")),
    Column("part_id", Id, ForeignKey("partitions.part_id", ondelete="CASCADE")),
    Column("column_name", String(NAME)),
    Column("principal_name", String(PRINCIPAL), nullable=False),
    Column("principal_type", String(8), nullable=False),
    Column("privilege", String(64), nullable=False),
    Column("grant_option", Boolean, nullable=False, default=False),
    Column("grant_time", BigInteger, nullable=False, default=0),
    Column("grantor", String(PRINCIPAL)),
    Column("grantor_type", String(8)),
    UniqueConstraint("object_key", "principal_type", "principal_name", "privilege", name="uniq_privilege_grant"),
    Index("idx_privilege_grant_principal", "principal_type", "principal_name"),
    Index("idx_privilege_grant_tbl", "tbl_id"),
    **_MYSQL_OPTIONS,
)


def _byte_order_on_postgresql() -> None:
    """Give every text column PostgreSQL's ``C`` collation: names and values then compare and sort by their
    bytes, as under MySQL's ``utf8mb4_bin`` and SQLite's default, whatever the database's locale."""
    for table in metadata.tables.values():
        for column in table.columns:
            if isinstance(column.type, String):
                pg_type = type(column.type)(length=column.type.length, collation="C")
                column.type = column.type.with_variant(pg_type, "postgresql")


_byte_order_on_postgresql()
