"""Makes Apache Hive Metastore 2.3.10 (the reference peer) create its whole schema before engines use it.

The peer runs without Hive's schema scripts (the pyspark wheel lacks them): DataNucleus creates each table
when its class is first used (``datanucleus.schema.autoCreateAll``). When an engine's concurrent calls are
the first to use a class, one connection's ``ALTER TABLE ... ADD CONSTRAINT ... FOREIGN KEY`` waits on
MariaDB for the metadata lock another connection's open transaction holds on the referenced table, and the
metastore never answers (seen with Presto's first CREATE TABLE, whose retries all timed out). One client
touching every class in turn, before the engine starts, leaves nothing to create later.
"""

from __future__ import annotations

import time

from thriftpy2.rpc import make_client

from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_database, make_table

DATABASE = "peer_schema_warm_up"
ROLE = "peer_schema_warm_up_role"


def _stats(table: str, part_name: str | None) -> object:
    desc = hive.ColumnStatisticsDesc(
        isTblLevel=part_name is None, dbName=DATABASE, tableName=table, partName=part_name, lastAnalyzed=0
    )
    data = hive.ColumnStatisticsData(longStats=hive.LongColumnStatsData(lowValue=1, highValue=2, numNulls=0, numDVs=2))
    return hive.ColumnStatistics(statsDesc=desc, statsObj=[hive.ColumnStatisticsObj("id", "bigint", data)])


def _grant(ref: object, user: str) -> object:
    info = hive.PrivilegeGrantInfo("SELECT", int(time.time()), "admin", hive.PrincipalType.ROLE, False)
    return hive.PrivilegeBag([hive.HiveObjectPrivilege(ref, user, hive.PrincipalType.USER, info)])


def create_peer_schema(host: str, port: int) -> None:
    """Use every metastore class an engine session reaches (databases, tables with partition keys, buckets
    and sort columns, partitions, column statistics, roles, privileges of every object kind, functions,
    constraints), then drop what was made."""
    client = make_client(hive.ThriftHiveMetastore, host, port, timeout=300_000)
    try:
        client.create_database(make_database(DATABASE))
        table = make_table(DATABASE, "t", columns=cols("id:bigint"), partition_keys=cols("p:string"))
        table.sd.bucketCols, table.sd.numBuckets = ["id"], 2
        table.sd.sortCols = [hive.Order("id", 1)]
        client.create_table(table)
        client.add_partition(hive.Partition(values=["1"], dbName=DATABASE, tableName="t", sd=table.sd, parameters={}))
        client.update_table_column_statistics(_stats("t", None))
        client.update_partition_column_statistics(_stats("t", "p=1"))
        client.get_primary_keys(hive.PrimaryKeysRequest(DATABASE, "t"))
        client.get_foreign_keys(hive.ForeignKeysRequest(None, None, DATABASE, "t"))
        client.create_role(hive.Role(ROLE, 0, "admin"))
        client.grant_role(ROLE, "warm_up", hive.PrincipalType.USER, "admin", hive.PrincipalType.ROLE, False)
        refs = [
            hive.HiveObjectRef(hive.HiveObjectType.GLOBAL, None, None, None, None),
            hive.HiveObjectRef(hive.HiveObjectType.DATABASE, DATABASE, None, None, None),
            hive.HiveObjectRef(hive.HiveObjectType.TABLE, DATABASE, "t", None, None),
            hive.HiveObjectRef(hive.HiveObjectType.PARTITION, DATABASE, "t", ["1"], None),
            hive.HiveObjectRef(hive.HiveObjectType.COLUMN, DATABASE, "t", None, "id"),
            hive.HiveObjectRef(hive.HiveObjectType.COLUMN, DATABASE, "t", ["1"], "id"),
        ]
        for ref in refs:
            client.grant_privileges(_grant(ref, "warm_up"))
        client.create_function(
            hive.Function("f", DATABASE, "java.lang.Object", "admin", hive.PrincipalType.USER, 0, 1, [])
        )
        client.drop_function(DATABASE, "f")
        client.drop_role(ROLE)
        client.drop_table(DATABASE, "t", True)
        client.drop_database(DATABASE, True, True)
    finally:
        client.close()
