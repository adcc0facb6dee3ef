"""Flink's Hive catalog, replayed: the calls its ``HiveCatalog`` makes through Hive 3.1's metastore client
(apache/flink-connector-hive ``HiveCatalog``, ``HiveShimV310``, ``HiveStatsUtil``), which names databases
``@hive#<db>`` and sets ``catName`` "hive" on requests.

Listing: ``get_databases("@hive#")``, ``get_all_tables("@hive#db")``, views with ``get_tables_by_type(
"@hive#db", null, "VIRTUAL_VIEW")``. Loading a table: ``get_table_req`` (catName "hive"), then
``get_not_null_constraints`` (catName "hive") and ``get_primary_keys`` (catName filled in by the client),
of which it keeps RELY constraints. Creating one with a primary key: ``create_table_with_constraints``.
Statistics: table parameters for row counts and sizes; column statistics through ``get_table_statistics_req``
/ ``update_table_column_statistics`` (catName on the descriptor) and, for partitions,
``get_partitions_statistics_req`` / ``update_partition_column_statistics``.
"""

from __future__ import annotations

from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_table


def test_a_table_with_constraints_and_statistics_as_flink_uses_it(client):
    client.create_database(hive.Database(name="fl", parameters={}))
    table = make_table("fl", "users", columns=cols("id:bigint", "name:string"), partition_keys=cols("dt:string"))
    table.catName = "hive"
    client.create_table_with_constraints(
        table,
        [
            hive.SQLPrimaryKey(
                table_db="fl",
                table_name="users",
                column_name="id",
                key_seq=1,
                pk_name="pk_users",
                enable_cstr=False,
                validate_cstr=False,
                rely_cstr=True,
                catName="hive",
            )
        ],
        [],
        [],
        [
            hive.SQLNotNullConstraint(
                catName="hive",
                table_db="fl",
                table_name="users",
                column_name="name",
                nn_name="nn_name",
                enable_cstr=False,
                validate_cstr=False,
                rely_cstr=True,
            )
        ],
        [],
        [],
    )
    client.add_partition(hive.Partition(dbName="fl", tableName="users", values=["2024-05-01"]))

    assert client.get_databases("@hive#") == ["default", "fl"]
    assert client.get_all_tables("@hive#fl") == ["users"]
    assert client.get_tables_by_type("@hive#fl", None, "VIRTUAL_VIEW") == []
    loaded = client.get_table_req(hive.GetTableRequest(dbName="fl", tblName="users", catName="hive")).table
    assert [c.name for c in loaded.sd.cols] == ["id", "name"]
    not_null = client.get_not_null_constraints(
        hive.NotNullConstraintsRequest(catName="hive", db_name="fl", tbl_name="users")
    ).notNullConstraints
    assert [(c.column_name, c.rely_cstr) for c in not_null] == [("name", True)]
    [pk] = client.get_primary_keys(hive.PrimaryKeysRequest(db_name="fl", tbl_name="users", catName="hive")).primaryKeys
    assert (pk.column_name, pk.pk_name, pk.rely_cstr) == ("id", "pk_users", True)

    desc = hive.ColumnStatisticsDesc(isTblLevel=True, dbName="fl", tableName="users", catName="hive")
    name_stats = hive.ColumnStatisticsObj(
        "name",
        "string",
        hive.ColumnStatisticsData(
            stringStats=hive.StringColumnStatsData(maxColLen=12, avgColLen=6.0, numNulls=0, numDVs=30)
        ),
    )
    client.update_table_column_statistics(hive.ColumnStatistics(statsDesc=desc, statsObj=[name_stats]))
    found = client.get_table_statistics_req(
        hive.TableStatsRequest(dbName="fl", tblName="users", colNames=["id", "name"], catName="hive")
    )
    assert [(o.colName, o.statsData.stringStats.numDVs) for o in found.tableStats] == [("name", 30)]

    part_desc = hive.ColumnStatisticsDesc(
        isTblLevel=False, dbName="fl", tableName="users", partName="dt=2024-05-01", catName="hive"
    )
    client.update_partition_column_statistics(hive.ColumnStatistics(statsDesc=part_desc, statsObj=[name_stats]))
    by_partition = client.get_partitions_statistics_req(
        hive.PartitionsStatsRequest(
            dbName="fl", tblName="users", colNames=["name"], partNames=["dt=2024-05-01"], catName="hive"
        )
    ).partStats
    assert list(by_partition) == ["dt=2024-05-01"] and by_partition["dt=2024-05-01"][0].colName == "name"
