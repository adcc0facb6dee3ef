// Hudi metaserver wire contract (Python side) + our snapshot extension.
//
// Wire facts (service/method names, field ids, types, requiredness, enum
// values, exception ids per method) mirror Apache Hudi's metaserver IDL:
//   repo apache/hudi, module hudi-platform-service/hudi-metaserver,
//   file src/main/thrift/hudi-metaserver.thrift (commit 41283bc3).
// Client usage confirmed against hudi-metaserver-client
//   (HoodieMetaserverClientImp, HoodieTableMetaserverClient, EntityConversions).
// Hudi's Java client talks TBinaryProtocol over a plain (unframed) TSocket.
//
// Field *names* are not on the wire; ids and types are. Keep ids stable.

namespace java org.apache.hudi.metaserver.thrift
namespace py hudi_metaserver_thrift

// ---------------------------------------------------------------------------
// Tables
// ---------------------------------------------------------------------------

struct FieldSchema {
  1: string name,
  2: string type,
  3: string comments
}

struct Table {
  1: string tableName,
  2: string databaseName,   // older Hudi revisions named this dbName (same id/type)
  3: string owner,
  4: i64 createTime,
  5: string location,
  6: string tableType,      // "COPY_ON_WRITE" / "MERGE_ON_READ"
  7: list<FieldSchema> partitionKeys,
  8: map<string, string> parameters,
  // hudi-metastore addition (not in upstream Hudi; stock clients skip it):
  // the data columns (Hive types, Hudi meta columns first, partition keys
  // excluded), as getTable answers them. Ignored by createTable.
  9: optional list<FieldSchema> columns
}

// ---------------------------------------------------------------------------
// Timeline
// ---------------------------------------------------------------------------

// Instant actions; numbering matches Hudi's thrift TAction.
enum TAction {
  COMMIT = 1,
  DELTACOMMIT = 2,
  CLEAN = 3,
  ROLLBACK = 4,
  SAVEPOINT = 5,
  REPLACECOMMIT = 6,
  COMPACTION = 7,
  RESTORE = 8,
  // hudi-metastore additions, for actions newer than the upstream enum
  CLUSTERING = 9,
  LOGCOMPACTION = 10,
  INDEXING = 11
}

// Instant states; numbering matches Hudi's thrift TState.
enum TState {
  REQUESTED = 1,
  INFLIGHT = 2,
  COMPLETED = 3,
  NIL = 4
}

struct THoodieInstant {
  1: string timestamp,
  2: TAction action,
  3: TState state
}

// NB: id 3 is intentionally unused (upstream skips it).
struct HoodieInstantChangeResult {
  1: bool success,
  2: optional THoodieInstant instant,
  4: optional string msg
}

// ---------------------------------------------------------------------------
// Errors (each carries a single message string at id 1)
// ---------------------------------------------------------------------------

exception MetaserverStorageException {
  1: string message
}

exception MetaserverException {
  1: string message
}

exception NoSuchObjectException {
  1: string message
}

exception AlreadyExistException {
  1: string message
}

// ---------------------------------------------------------------------------
// Snapshot extension types (ours; not part of upstream Hudi)
// ---------------------------------------------------------------------------

// One file group's slice. Paths are relative to the table base path;
// `partition` is "" for non-partitioned tables.
struct THoodieFileSlice {
  1: string partition,
  2: string fileId,
  3: string baseInstant,
  4: optional string baseFile,   // absent for log-only slices (MOR)
  5: list<string> logFiles
}

// A partition of a Hudi table: its path relative to the table base path
// ("" for non-partitioned tables) and its values in partition-key order,
// as the catalog holds them.
struct THoodiePartition {
  1: string path,
  2: list<string> values
}

// ---------------------------------------------------------------------------
// Service
// ---------------------------------------------------------------------------

service ThriftHoodieMetaserver {

  // ----- upstream: tables -----

  void createDatabase(1: string db)
    throws (1: MetaserverStorageException o1,
            2: NoSuchObjectException o2,
            3: AlreadyExistException o3)

  void createTable(1: Table table)
    throws (1: MetaserverStorageException o1,
            2: NoSuchObjectException o2,
            3: AlreadyExistException o3,
            4: MetaserverException o4)

  Table getTable(1: string db, 2: string tb)
    throws (1: MetaserverStorageException o1,
            2: NoSuchObjectException o2)

  // ----- upstream: timeline -----

  // `num` limits how many instants are returned.
  list<THoodieInstant> listInstants(1: string db, 2: string tb, 3: i32 num)
    throws (1: MetaserverStorageException o1,
            2: NoSuchObjectException o2)

  // Empty binary means "no metadata".
  binary getInstantMetadata(1: string db, 2: string tb, 3: THoodieInstant instant)
    throws (1: MetaserverStorageException o1,
            2: NoSuchObjectException o2)

  string createNewInstantTime(1: string db, 2: string tb)
    throws (1: MetaserverStorageException o1,
            2: NoSuchObjectException o2)

  HoodieInstantChangeResult createNewInstantWithTime(1: string db, 2: string tb,
                                                     3: THoodieInstant instant,
                                                     4: optional binary content)
    throws (1: MetaserverStorageException o1,
            2: NoSuchObjectException o2)

  HoodieInstantChangeResult transitionInstantState(1: string db, 2: string tb,
                                                   3: THoodieInstant fromInstant,
                                                   4: THoodieInstant toInstant,
                                                   5: optional binary metadata)
    throws (1: MetaserverStorageException o1,
            2: NoSuchObjectException o2,
            3: MetaserverException o3)

  HoodieInstantChangeResult deleteInstant(1: string db, 2: string tb,
                                          3: THoodieInstant instant)
    throws (1: MetaserverStorageException o1,
            2: NoSuchObjectException o2)

  // ===========================================================================
  // ===== hudi-metastore snapshot extension (NOT in upstream Hudi) ============
  // Stock Hudi clients never call these; a stock Hudi server answers them with
  // TApplicationException(UNKNOWN_METHOD). Exception ids follow the upstream
  // convention: o1 storage failure, o2 unknown db/table, o3 bad request.
  // ===========================================================================

  // Relative partition paths of the table ("" for a non-partitioned table).
  list<string> listPartitions(1: string db, 2: string tb)
    throws (1: MetaserverStorageException o1,
            2: NoSuchObjectException o2)

  // Latest file slice per file group in `partition`, as of `asOfInstant`
  // (inclusive; latest completed instant when absent).
  // o3: asOfInstant is not an instant time.
  list<THoodieFileSlice> getLatestFileSlices(1: string db, 2: string tb,
                                             3: string partition,
                                             4: optional string asOfInstant)
    throws (1: MetaserverStorageException o1,
            2: NoSuchObjectException o2,
            3: MetaserverException o3)

  // Files written by completed instants in (beginInstant, endInstant]
  // (begin exclusive, end inclusive, like Hudi incremental queries).
  // Returns THoodieFileSlice (no separate struct): one entry per touched
  // file group, with baseFile set only if a new base file landed in the
  // range and logFiles listing only log files added in the range.
  // o3: begin > end or unknown instant.
  list<THoodieFileSlice> getFilesChanged(1: string db, 2: string tb,
                                         3: string beginInstant,
                                         4: string endInstant)
    throws (1: MetaserverStorageException o1,
            2: NoSuchObjectException o2,
            3: MetaserverException o3)

  // Partitions holding Hudi files that may hold rows matching `whereClause`,
  // an engine's WHERE clause over partition columns (never fewer than the
  // true set; every partition when absent or empty), pruned in the catalog.
  // Non-partitioned tables answer the one partition "".
  // o3: the clause is not SQL.
  list<THoodiePartition> listPartitionsByWhere(1: string db, 2: string tb,
                                               3: optional string whereClause)
    throws (1: MetaserverStorageException o1,
            2: NoSuchObjectException o2,
            3: MetaserverException o3)
}
