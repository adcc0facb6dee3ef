"""Print docs/compatibility.md: the status of every Hive Metastore method on hudi-metastore.

A method is ``served`` when ``hms_adapter.handler.MetastoreHandler`` defines it; every other method of the
IDL, and every Hive 4 method the IDL does not have, is answered with Thrift's ``UNKNOWN_METHOD``.

Usage:
    python tools/compatibility.py > docs/compatibility.md
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NamedTuple

import thriftpy2

from hms_adapter.handler import MetastoreHandler
from hms_adapter.idl import IDL_DIR

HIVE4_METHODS = Path(__file__).resolve().parents[1] / "thrift" / "hive4_methods.txt"

SERVED = "served"
UNKNOWN = "UNKNOWN_METHOD"
FB303_NOTE = "fb303 FacebookService"
HIVE2_ONLY_NOTE = "not in Hive 4 (Hive 2 only)"
HIVE4_ONLY_NOTE = "not in IDL (Hive 4 only)"
OWN_NOTE = "this server's own, for `hudi-metastore copy` ([migration.md](migration.md)); not in Hive"
OWN_PREFIX = "hudi_"

INTRO = """\
# Hive Metastore compatibility

This page is generated: `python tools/compatibility.py > docs/compatibility.md` regenerates it, and
`tests/test_compatibility_doc.py` fails when it is out of date.

## Wire compatibility

- The IDL (`thrift/hive_metastore.thrift`, `thrift/fb303.thrift`) follows the Hive 2.3.10 wire layout:
  field ids, names, types and defaults come from the Thrift classes of `hive-metastore-2.3.10.jar`
  (`required` is kept only where Hive has it).
- Fields, enum values and methods that Hive 3.x and 4.x added are merged in with their Hive 3/4 ids (tagged
  `hive3/4` in the IDL). Every field added to a Hive 2.3.10 struct is optional, so clients of any of these
  versions can omit it.
- Catalogs (Hive 3): `hive` is the default one; `create_catalog` makes others. A call works in the catalog
  it names: an `@<catalog>#<database>` name (Hive 3+ clients), or the `catName`/`catalogName` field of a
  request struct (or of a struct inside it); without either, in `hive`. Objects are returned with the name
  of their catalog. Locks and transactions name databases without a catalog.
- `Table` field 16 is `string catName` in Hive 2.3.10 but `CreationMetadata creationMetadata` in Hive 3/4,
  which moved `catName` to field 17. The 2.3.10 layout is kept: field 17 is exposed as `hive3CatName`, and
  the server fills both. A reader that meets a field of an unexpected type skips it. The other conflicts
  (`GetOpenTxnsResponse`, `InsertEventRequestData`, `AddDynamicPartitions`, `LockComponent`) are listed
  in the IDL header. `GetOpenTxnsResponse.open_txns` is sent twice by `get_open_txns`, as Hive 2.3's
  `set` and as Hive 3+'s `list`, so that clients of both read it, and as a `list` by Hive 4's
  `get_open_txns_req` (see [locks.md](locks.md)). `add_dynamic_partitions` reads its request in Hive 2.3's
  and in Hive 3+'s layout of `AddDynamicPartitions` (3+ inserted `writeid` as field 2), told apart by the
  type of field 2.
- Transports: buffered (default) or framed; protocols: binary (default) or compact (`hudi-metastore serve
  --transport/--protocol`).

## Errors

- A catalog error (`hudi_catalog.errors`) is answered in the method's declared exception slot
  (`hms_adapter/errors.py`). Each error has a preferred list of Hive exceptions, and the first one the
  method declares is used:

  | catalog error | Hive exceptions, in order of preference |
  |---|---|
  | `NoSuchTableError` | `NoSuchObjectException`, `UnknownTableException`, `MetaException` |
  | `NoSuchDatabaseError` | `NoSuchObjectException`, `UnknownDBException`, `MetaException` |
  | `NoSuchObjectError` (partitions, functions) | `NoSuchObjectException`, `MetaException` |
  | `AlreadyExistsError` | `AlreadyExistsException`, `MetaException` |
  | `ValueTooLongError` (a value longer than its field, [below](#name-and-value-limits)) | `InvalidObjectException`, `InvalidInputException`, `InvalidOperationException`, `MetaException` |
  | `InvalidObjectError` | `InvalidObjectException`, `MetaException` |
  | `InvalidOperationError` | `InvalidOperationException`, `MetaException` |
  | `UnknownColumnError` (statistics of a column the table lacks) | `MetaException` (Hive's type and wording) |
  | `InvalidInputError` (malformed statistics, statistics of the wrong kind) | `InvalidInputException`, `InvalidObjectException`, `MetaException` |
  | any other error (`InvalidFilterError`, `StorageError`, unexpected ones) | `MetaException` |

  A few handler methods pick a different exception where Hive does (for example `get_fields` answers
  `UnknownTableException`, `alter_partition` answers `InvalidOperationException`).
- When the method declares none of the candidates, the answer is a `TApplicationException` of type
  `INTERNAL_ERROR` carrying the error message. An error never closes the connection.
- A message names what the client sent (its names, values and locations) and never the server's own
  internals: the catalog database's host, tables, constraints and SQL, and file system error texts, are
  logged by the server, not sent ([security.md](security.md#what-an-error-tells-a-client)). An error the
  catalog does not name (a defect) answers `MetaException` "Internal error in the metastore (reference
  R in its log)", where Hive Metastore would send the Java exception's text.

### Name and value limits

Hive's limits hold on every store (`hudi_catalog/names.py`), with Hive's exceptions and words; Hive itself
checks only the characters of a name (`MetaStoreUtils.validateName`) and leaves lengths to its schema's
columns, so on MySQL it fails with the database's raw `Data too long` and on Derby or PostgreSQL with their
own text, where this server answers the same typed error on SQLite, MariaDB and PostgreSQL:

| what | limit | refused with |
|---|---|---|
| database, table, function, catalog name | 128 characters (Hive's `DBS.NAME`) | `InvalidObjectException` "`<name>` is not a valid database name" / "... is not a valid object name" (`alter_table`: `InvalidOperationException`) |
| column name | 767 characters (`COLUMNS_V2.COLUMN_NAME`) | `InvalidObjectException` "Invalid column name: ..." (`alter_table`: `InvalidOperationException`) |
| partition key name | 128 characters (`PARTITION_KEYS.PKEY_NAME`) | `InvalidObjectException` "Invalid partition column name: ..." |
| partition value | 256 characters (`PARTITION_KEY_VALS.PART_KEY_VAL`) | `InvalidObjectException` "Partition value '...' is too long: N characters, at most 256" (`rename_partition`: `InvalidOperationException`) |
| partition name (`k1=v1/k2=v2`, escaped) | 750 characters (Hive: 767 bytes of latin1; 750 keep the unique key within InnoDB's limit in utf8mb4) | as a partition value |
| any other text a client sends into a column of fixed width (owner, role, principal, grantor, serde and constraint names, parameter keys, table types, lock and transaction users, hosts and agents, statistics' column names, ...) | the column's width in `hudi_catalog/store/schema.py` (mostly 128 or 256 characters); `TEXT` columns (descriptions, locations, formats, comments) 65,535 bytes of UTF-8, as MySQL's `TEXT` | `ValueTooLongError`: "The `<field>` '...' is too long: N characters, at most W", checked before any SQL (`hudi_catalog/store/widths.py`) |

Values that are `LONGTEXT` on MySQL (parameter values, column types, view texts, event messages) have no
limit of their own beyond `--max-message-size`. Tested by `tests/hms_adapter/test_names_and_messages.py`
and `tests/hudi_catalog/test_widths.py`.

A call that lists partitions (`get_partitions`, `get_partitions_ps`, `get_partitions_by_filter`, their
request forms, `get_partitions_with_specs`) and would answer more than `--max-batch-partitions` (100,000; a
`max_parts` at or below it is answered) is refused with Hive's `hive.metastore.limit.partition.request`
`MetaException` ("Number of partitions scanned (=N) on table 'db.t' exceeds limit (=L). ..."), naming the
server's option instead of Hive's setting. Hive leaves that limit off by default and builds the whole
answer (about 600 MB for a million partitions); engines list such tables by filter or by name. Partition
names are not limited, as in Hive. Tested by `tests/hms_adapter/test_large_requests.py` and, through Hive's
Java client, `tests/hms_adapter/test_scale_bench.py`.
- A method that is not served, or that the IDL does not know, is answered with a `TApplicationException`
  of type `UNKNOWN_METHOD` and the message `Invalid method name: '<name>'`, as Hive Metastore does.

## What `served` means

`served` means `MetastoreHandler` defines the method and the processor dispatches it. A few served methods
are deliberately partial: the calls that take Hive's serialized expressions evaluate the functions
[below](#hives-serialized-expressions), `get_partitions_by_filter` and its siblings evaluate comparisons,
`LIKE`, `IN`, `BETWEEN`, `AND`/`OR`/`NOT` (the full grammar is the partition pruning work; `LIKE` patterns
are read as the client's Hive version reads them, [pruning.md](pruning.md#like); they,
name patterns and the partition value whitelist are Java regular expressions matched by RE2 in linear time,
so backreferences, lookaround, atomic groups and possessive quantifiers answer `MetaException`: see
[pruning.md](pruning.md#where-re2-differs-from-java)), `shutdown` and
`reinitialize` are accepted and ignored, and the fb303 counters and options are empty. `setMetaConf` and
`getMetaConf` take the eight keys Hive 4 lets a connection change, each with or without its `hive.` prefix
(others: `MetaException` "Invalid configuration key ..."); values hold for the connection;
`hive.metastore.partition.name.whitelist.pattern` and `hive.metastore.disallow.incompatible.col.type.changes`
change what its calls accept, and `metastore.expression.proxy` set to `MsckPartitionExpressionProxy` (as
HiveServer2's `MSCK REPAIR TABLE` does) makes `drop_partitions_req` read its expressions as the partition
specs MSCK writes; the others are kept and answered with no effect here. `show_compact` answers an empty
queue (no compactor here), `get_runtime_stats` and `get_all_materialized_view_objects_for_rewriting` empty
lists (HiveServer2 4 asks both as it starts).

## Hive's serialized expressions

HiveServer2 prunes partitions with the expression its planner made, serialized by Hive's
`SerializationUtilities` (Kryo 5 with its class for Hive 4, Kryo 3 without for Hive 2 and 3):
`get_partitions_spec_by_expr` (HiveServer2 4's pruning), `get_partitions_by_expr` (Hive 2/3),
`get_partition_names_req` (`SHOW PARTITIONS ... WHERE`) and `drop_partitions_req` by expression (`ALTER TABLE
... DROP PARTITION (k < v)`). This server decodes those trees in Python (`hudi_catalog/pruning/kryo.py`,
`hive_expressions.py`: the classes' layouts, bounded by `--max-filter-length` in bytes, `--max-filter-terms`
in nodes, and 128 nested objects) and turns them into the same SQL as filter strings
(`expression_filter.py`): comparisons, `<=>`, `IN`, `BETWEEN`, `IS [NOT] NULL` (the default partition),
`LIKE` (Hive's wildcards), `AND`/`OR`/`NOT`, over keys of every primitive type. Where Apache Hive Metastore
evaluates an expression in memory (one holding `NOT` or `<=>`, which its filter language lacks), a string
key's default partition is NULL here too, as there.

What it cannot evaluate exactly (another function such as `upper(ds)` or a cast of a key, a comparison with
NULL, a class it does not read, bytes that are not an expression):

| call | Hive Metastore 4.0.1 (with `hive-exec`) | this server |
|---|---|---|
| `get_partitions_by_expr`, `get_partitions_spec_by_expr` | evaluates it with Hive's functions | `TApplicationException` `UNKNOWN_METHOD`: Hive's client turns it into `IncompatibleMetastoreException`, on which HiveServer2 lists the partitions and prunes them itself (same partitions, more transfer) |
| `get_partition_names_req` | the names | `MetaException` saying what it cannot evaluate: HiveServer2 has no fallback for it |
| `drop_partitions_req` | drops them | `MetaException`; nothing is dropped (its parts are one transaction) |

`tests/java/test_hive_expressions.py` checks the decoder against Hive's own serializer (Hive 4.0.1 and 3.1.3,
300 generated expressions each, every key type) and sends generated expressions through Hive 4's
`HiveMetaStoreClient` (`listPartitionsByExpr`, `listPartitionsSpecByExpr`, `listPartitionNames`,
`dropPartitions`) to this server on SQLite, MariaDB and PostgreSQL and to Hive Metastore 4.0.1 run, as a
Hive distribution runs it, with `hive-exec` on its classpath: the answers are the same partitions, and the
expressions above fall back or are refused as the table says. A standalone Hive Metastore 4.0.1 without
`hive-exec` cannot decode them at all (its default expression proxy refuses every one).

## Trino 476 beside Hive Metastore 2.3.10

`tests/engines/test_trino_hive.py` runs one Trino 476 session of its Hive connector (DDL, DML, pruned
SELECTs, ANALYZE and SHOW STATS, ALTER, RENAME, DELETE of partitions, views, `information_schema`,
`system.metadata`, the partition procedures, DROP, and `sql-standard` roles and grants as two users) on
this server and on Hive Metastore 2.3.10, and the answers are equal. What differs, on purpose:

- **Location spelling.** Hive Metastore qualifies a location through Hadoop's `Path` and hands it out as
  `file:/x`; this server keeps the spelling it was given or made (`file:///x` under `--warehouse
  file:///...`). Both name the same folder, and Trino reads and writes them alike (the test compares
  locations with the warehouse replaced by a placeholder).
- **Data of dropped objects.** Both delete the folders of a dropped managed table, partition or schema;
  Hive Metastore wherever they lie, this server only inside its warehouse and its `--data-root` folders
  ([security.md](security.md#data-deletion)). A schema created `WITH (location = ...)` elsewhere keeps its folder unless
  that place is a data root (the test makes its parent one).
- **`transactional=false`.** Trino sends it with every `CREATE TABLE`. Both drop it at `create_table` (any
  case of key or value), so neither `SHOW TBLPROPERTIES` nor Trino's `$properties` shows it. An
  `alter_table` that adds it to a table without it is refused by 2.3.10 ("TBLPROPERTIES with
  'transactional'='true' cannot be unset") and taken here, the key dropped again, as Hive 4 does; both refuse
  to make a transactional table non-transactional, with that message. Tables stored by an earlier version
  of this server may still hold `transactional=false`; their next alter drops it.
- **Transactional tables.** Hive Metastore 2.3 refuses `transactional=true` on a table without buckets
  ("The table must be bucketed and stored using an ACID compliant format (such as ORC)") and has no write
  ids, which Trino's ACID writes need (`allocate_table_write_ids` is a Hive 3 call). This server takes
  them as Hive 3 does: Trino's INSERT, UPDATE and SELECT of an unpartitioned `transactional=true` ORC table
  run in a metastore transaction with a lock and write ids, and so does an INSERT into a partitioned one,
  which names the partitions it wrote with `add_dynamic_partitions` (a Hive 3 request layout; see
  [locks.md](locks.md)) before it commits.
- **Order of grants.** `SHOW GRANTS` lists the same rows in another order (the test sorts).

Found by the session and fixed: `get_config_value("metastore.txn.timeout")` (Trino asks it with no default
before a transactional write, to heartbeat at half the timeout) answered no value, a missing result that
Trino retried ten times and then failed the statement on; the server now answers `hive.txn.timeout` and
`metastore.txn.timeout` with its `--txn-timeout` (`300s` by default), as Hive 3's `MetastoreConf` does.

## Against Hive Metastore 4.0.1

Apache Hive Metastore 4.0.1 (the newest 4.x whose standalone server is on Maven Central) runs beside 2.3.10
as a second reference: `benchmarks/hive4.py` assembles it from Maven Central (its binary distribution, and
Hadoop 3.3.6 beside it), and `python benchmarks/peer.py --version 4.0.1` starts it on a MariaDB database of
its own with the schema of its own MySQL script. `tests/hms_adapter/test_hive4_reference.py` runs a session of
the request calls Hive 4's clients make (`create_table_req`, `get_table_req`, `add_partitions_req`,
`get_partitions_by_names_req`, `get_partitions_ps_with_auth_req`, `get_partitions_by_filter`,
`alter_table_req`, `update_table_column_statistics_req` and `get_table_statistics_req` with `engine`,
`drop_partitions_req`, `get_table_meta`, `get_database_req`, drops) against both; the answers are equal
but for these:

| call | Hive Metastore 4.0.1 | this server | why |
|---|---|---|---|
| `get_table` | `TApplicationException` `UNKNOWN_METHOD`: Hive 4 removed it | the table | Hive 2 and 3 clients (Spark's, Hudi's, Trino's) call it |
| `get_table_req` of a missing table | `NoSuchObjectException` "hive.db.t table not found" | "db.t table not found" | Hive 2.3's wording, which clients of both match on its end |
| `get_database_req` of a database created without an owner | the caller is its owner, `ownerType` `USER` | no owner, `ownerType` `USER` | Hive 2.3.10's behaviour (it stores `USER` when the client gives no type, as for hive sync's databases), kept |
| `get_table_req` | `catName` unset | `catName` `hive` | the catalog of the table, as Hive 3 answers |

Found by real clients beside 4.0.1 and fixed, each with a test:

- **Empty parameter key patterns.** Hive 4's client sends `includeParamKeyPattern=""` and
  `excludeParamKeyPattern=""` by default on the request forms of its partition reads
  (`listPartitionsByFilter`, `getPartitionsByNames`, `getPartitionsWithSpecs`); 4.0.1 reads `""` as no pattern.
  This server read it as a pattern matching nothing, answered partitions without parameters, and a client
  writing them back (`alter_partitions`) erased them. The "no fast statistics on partitions added by Hive
  4's client" difference listed before was this fault: those partitions now answer as on 4.0.1.
- **`LIKE` in partition filters.** 4.0.1 takes SQL wildcards (`%`, `_`) beside `.` and `.*`, and reads
  `[...]` as text; Hive 2/3 read a Java regular expression. A connection that makes one of Hive 4's own calls
  gets 4.0.1's rule ([pruning.md](pruning.md#like), `serve --filter-like`).
- **`truncate_table`** zeroes only the statistics a table or partition has (`numRows` and `rawDataSize` are
  no longer added at 0 to a partition that had none), and truncates an external table whose
  `external.table.purge` is true, as 4.0.1 does, where the data is the server's to delete
  ([security.md](security.md#data-deletion)); other external tables are still refused ("Cannot truncate
  non-managed table t.").
- **Renaming a managed table** moves its partitions whatever the spelling of their locations (`file:/x`,
  `file:///x`, a trailing slash): Flink writes `file:/path` partitions under a `file:///path` table, which
  used to keep pointing at the old folder. Drops and moves compare locations by meaning everywhere.
- **Concurrent drops of sibling partitions** (Trino drops a `DELETE`'s partitions in parallel) left the
  emptied parent folder (`a=x` of `a=x/b=1..3`); which parents to delete is now decided after each drop
  commits, against the partitions that remain.

`tests/java/test_hive4_client.py` makes the calls of a HiveServer2 4 session through Hive 4's own Java client
(`HiveMetaStoreClient` of 4.0.1, `tests/java/Hive4Session.java`: catalogs, `getDatabase`, `createTable`,
`getTable`, `add_partitions`, `getPartitionsByNames`, `listPartitionsWithAuthInfo`, `listPartitionsByFilter`,
`getPartitionsWithSpecs`, `alter_table`, `getSchema`, column statistics with `engine`, `dropPartition`,
`getTableMeta`, a transaction's `addWriteNotificationLog` and `addWriteNotificationLogInBatch`, drops) against
both. Besides the owner and message differences above, its answers differ in (a table's `writeId` 0, an
unset `temporary` and `TableMeta`'s owner are now answered as 4.0.1 answers them):

| call | Hive Metastore 4.0.1 | this server |
|---|---|---|
| `get_partitions_with_specs` | the shared-descriptor form (`PartitionSpecWithSharedSD`, paths relative to the table) | the composing form (`PartitionListComposingSpec`, whole partitions), which Hive's `PartitionSpecProxy` reads as well, with whole partitions whatever the projection's field list; a `BY_NAMES` filter is applied here, while 4.0.1 answered every partition |
| `add_write_notification_log` of a missing partition | `TApplicationException` "Internal error processing add_write_notification_log" | `TApplicationException` naming the partition |
| the `ACID_WRITE` events of write notifications | none: 4.0.1's standalone server has no `DbNotificationListener` (it ships with HCatalog) | one per write, in the transaction of the call, which Hive 4's `JSONMessageDeserializer` reads (`getAcidWriteMessage`: database, table, partition, transaction, write id, files, the table and partition objects) |

HiveServer2 4's partition drops (`drop_partitions_req` by serialized expressions) and pruning
(`get_partitions_spec_by_expr`) are served: see [Hive's serialized expressions](#hives-serialized-expressions).
`get_partitions_with_specs` answers in the composing form, where 4.0.1 answers in the shared-descriptor form:
Hive's `PartitionSpecProxy`, through which every Hive client reads it, gives the same partitions from both.

### Locks, transactions, roles and grants

`tests/locks/test_lock_matrix.py` runs its table of lock and transaction cases (the compatibility matrix,
queueing, transactions, errors with their texts, `show_locks`, `get_open_txns_info`) against 4.0.1 too, a
reference beside 2.3.10 started once per test session, and `tests/locks/test_grants_against_hive.py` its
session of the role and grant calls. The cases still expect 2.3.10's answers; where 4.0.1 answers otherwise
the test says so (`HIVE_4_DIFFERENCES`, checked against 4.0.1's real answers):

| case | Hive Metastore 2.3.10 | Hive Metastore 4.0.1 | this server | why |
|---|---|---|---|---|
| a `SHARED_WRITE` beside an overlapping `SHARED_WRITE` (also behind a waiting one) | waits | granted | waits, as 2.3.10 | Hive 3+ lets writers share a table and refuses conflicting writes at commit by what they wrote; this server has no such check at commit, so it keeps writers apart |
| a later reader or writer behind a waiting `EXCLUSIVE`; a transaction's later lock behind another's waiting one | granted (readers can starve a writer) | waits | waits, as 4.0.1 | arrival order ([locks.md](locks.md#where-this-server-differs-from-hive-2310)) |
| names differing in case (`D.T`, `d.t`) | two objects | one | one, as 4.0.1 | Hive 3+ lower-cases names |
| Hive 2.3's order quirks (a request compared with older locks only, one at a time) | an exclusive lock granted beside another's read lock | waits | waits, as 4.0.1 | a locking client expects it |
| `lock` in a committed transaction | `NoSuchTxnException` | granted: a lock nothing releases | `NoSuchTxnException` | Hive 2.3.10's answer, which leaves no stray lock |
| `commit_txn` of a committed transaction | `NoSuchTxnException` | succeeds | succeeds, as 4.0.1 | a retried commit |
| `abort_txn`, `heartbeat` of a committed transaction | `NoSuchTxnException` "No such transaction txnid:N" | "Transaction txnid:N is already committed." / "No such txn: N" | "Transaction txnid:N is already committed." | the exception class is what clients go by |
| `get_open_txns` | `open_txns` a `set` | a `list` (Hive 3+'s layout, which a Hive 2.3 client skips) | both | see [Wire compatibility](#wire-compatibility) |
| `create_role` of `public` | `MetaException` "public role implictly exists. ..." | "... implicitly exists ..." | 2.3.10's text | no client matches it |

`EXCL_WRITE` (a Hive 3 type that 2.3.10 does not have) shares a table with `SHARED_READ` only, on 4.0.1 as
here. Everything else answers alike: the other error classes and texts, `show_locks`' elements and filters,
`get_open_txns_info` (`agentInfo` "Unknown", `heartbeatCount` 0), lock and transaction ids counted from 1, a
lock request without components (`INTERNAL_ERROR`), and the whole role and grant session. Hive 4.0.1's
`get_open_txns_req` fails (`INTERNAL_ERROR`, a `NullPointerException`) on a request without
`excludeTxnTypes` once a transaction is open; this server takes it without.

### Flink's Hive catalog

`tests/engines/test_flink_hive.py` runs a Flink 1.20 SQL session through its `HiveCatalog` (Hive 3.1.3's
client) against this server and against 4.0.1 ([engines.md](engines.md#flink)). Flink's answers are the same
but for one: Hive 4 turns a managed table created by a client that declares no capabilities (here a
Python client's `create_table_with_constraints`) into an external one with `external.table.purge`, which
Flink's `SHOW CREATE TABLE` shows; this server keeps it managed, as 2.3.10 does. A filter comparing a string
key with a number (`dt = 2021`) is refused by both with `MetaException` "Filtering is supported only on
partition keys of type string".

### Trino's Hive connector

`tests/engines/test_trino_hive.py` runs its Hive connector session (DDL, DML, pruned queries, statistics,
procedures) against 4.0.1 too, in the same Trino 476 beside the 2.3.10 catalogs. Hive Metastore 4 runs there
without its default metadata transformer (`metastore.metadata.transformer.class` blank), as a platform serving
Trino sets it: with it, the managed tables of a client that states no capabilities become insert-only
transactional or external tables, and Trino's inserts into them are refused or read back empty. The answers
are then the same but for one step: `ALTER TABLE ... DROP COLUMN` of a column before others, which 4.0.1
refuses (`hive.metastore.disallow.incompatible.col.type.changes` applies there to every table; Trino reports
`HIVE_METASTORE_ERROR`) and 2.3.10 and this server take.

Presto 0.287 and Hudi's hive sync still compare with 2.3.10 only: their clients (Hive 2's) call `get_table`,
which Hive 4 removed.

`python benchmarks/hmsbench.py --compare --peer-version 4.0.1` times both servers through Hive 4.0.1's
client ([performance.md](performance.md)).
"""


# why a method is not served, by method name (exact) or by a word in it; the first match wins
NOT_SERVED_REASONS: list[tuple[tuple[str, ...], str]] = [
    (("get_metastore_db_uuid",), "no database UUID is stored yet"),
    (
        ("refresh_privileges",),
        "HiveServer2's privilege synchronizer (an authorizer's policies copied into the "
        "metastore) is not served; grants are ([security.md](security.md#authorization))",
    ),
    (
        ("token", "master_key"),
        "the token store HiveServer2 keeps in a metastore (DBTokenStore): not served; the metastore's own "
        "delegation tokens are ([security.md](security.md#delegation-tokens))",
    ),
    (
        (
            "compact",
            "mark_cleaned",
            "mark_failed",
            "mark_refused",
            "submit_for_cleanup",
            "find_next_compact",
            "compactor",
            "cleanup",
            "seed_",
            "write_ids_to_min_history",
            "max_allocated_table_write_id",
            "latest_txnid_in_conflict",
            "repl_tbl_writeid_state",
            "set_hadoop_jobid",
            "write_notification_log",
            "write_event_info",
            "update_transaction_statistics",
        ),
        "ACID compaction and Hive's transactional writes: no compactor here ([locks.md](locks.md))",
    ),
    (("materializ", "creation_metadata"), "materialized views are not supported"),
    (("resource_plan", "wm_", "triggers_for"), "workload management is not supported"),
    (
        ("ischema", "schema_version", "schema_all_versions", "schema_latest_version", "schemas_by_cols", "serde"),
        "the schema registry is not supported",
    ),
    (("scheduled_query", "replication_metrics", "cm_recycle"), "scheduled queries and replication are not supported"),
    (("index",), "indexes were removed in Hive 3"),
    (("file_metadata",), "the file metadata (ORC footer) cache is not supported"),
    (("dataconnector",), "data connectors are not supported"),
    (("package", "stored_procedure"), "stored procedures are not supported"),
    (("_type",), "Hive's type registry is not supported"),
    (("exchange_partition",), "exchanging partitions between tables is not supported"),
    (("pspec", "partitions_with_specs", "get_partition_values"), "partition spec answers are not served yet"),
    (
        (
            "runtime_stats",
            "properties",
            "MarkedForEvent",
            "markPartition",
            "find_columns_with_stats",
            "translate_table_dryrun",
        ),
        "not used by the engines this server serves",
    ),
]


def not_served_reason(method: str) -> str:
    for words, reason in NOT_SERVED_REASONS:
        if method in words or any(word.lower() in method.lower() for word in words):
            return reason
    return ""


class Row(NamedTuple):
    method: str
    status: str
    note: str


def _idl_methods() -> tuple[list[str], set[str]]:
    """The methods of ``ThriftHiveMetastore`` (fb303's included) and the names of fb303's."""
    idl = thriftpy2.load(str(IDL_DIR / "hive_metastore.thrift"), module_name="hive_metastore_thrift")
    return list(idl.ThriftHiveMetastore.thrift_services), set(idl.fb303.FacebookService.thrift_services)


def _hive4_methods() -> list[str]:
    lines = HIVE4_METHODS.read_text(encoding="utf-8").splitlines()
    return [name for name in (line.strip() for line in lines) if name and not name.startswith("#")]


def _idl_row(name: str, fb303: set[str], hive4: set[str]) -> Row:
    status = SERVED if callable(getattr(MetastoreHandler, name, None)) else UNKNOWN
    if name.startswith(OWN_PREFIX):
        notes = [OWN_NOTE]
    else:
        notes = [FB303_NOTE] if name in fb303 else [] if name in hive4 else [HIVE2_ONLY_NOTE]
    if status == UNKNOWN and not_served_reason(name):
        notes.append(not_served_reason(name))
    return Row(name, status, "; ".join(notes))


def rows() -> list[Row]:
    """One row per method of the IDL and per Hive 4 method missing from it, ordered by name."""
    idl_methods, fb303 = _idl_methods()
    hive4 = _hive4_methods()
    hive4_names = set(hive4)
    result = [_idl_row(name, fb303, hive4_names) for name in idl_methods]
    result += [
        Row(name, UNKNOWN, "; ".join(filter(None, [HIVE4_ONLY_NOTE, not_served_reason(name)])))
        for name in dict.fromkeys(hive4)
        if name not in idl_methods
    ]
    return sorted(result, key=lambda row: (row.method.lower(), row.method))


def render() -> str:
    table = rows()
    served = sum(row.status == SERVED for row in table)
    missing = sum(row.note.startswith(HIVE4_ONLY_NOTE) for row in table)
    lines = [
        INTRO,
        "## Methods",
        "",
        f"{len(table)} methods: {served} `{SERVED}`, {len(table) - served} `{UNKNOWN}`, of which {missing} "
        "are Hive 4 methods that are not in the IDL.",
        "",
        "| method | status | note |",
        "|---|---|---|",
        *(f"| `{row.method}` | `{row.status}` | {row.note} |" for row in table),
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    sys.stdout.write(render())


if __name__ == "__main__":
    main()
