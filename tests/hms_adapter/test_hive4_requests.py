"""Hive 4's request forms of the common database, table and partition calls, through the Hive 4 client
PyIceberg ships (``hive_metastore``: Apache Thrift code of Hive 4's IDL). That client predates
``create_database_req``, ``alter_database_req`` and ``drop_table_req``: those go through the project's IDL
(``client``), whose field ids of these structs are Hive 4's."""

from __future__ import annotations

import pytest
from hive_metastore import ttypes as hive4

from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_partition, make_table

PARQUET = {
    "inputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
    "outputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
    "serdeInfo": hive4.SerDeInfo(serializationLib="org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"),
}


def _table(db: str, name: str) -> hive4.Table:
    return hive4.Table(
        tableName=name,
        dbName=db,
        owner="alice",
        tableType="EXTERNAL_TABLE",
        parameters={"EXTERNAL": "TRUE"},
        sd=hive4.StorageDescriptor(cols=[hive4.FieldSchema("id", "bigint", None)], **PARQUET),
        partitionKeys=[hive4.FieldSchema("ds", "string", None)],
    )


def test_database_requests(hive4_metastore, client):
    client.create_database_req(
        hive.CreateDatabaseRequest(
            databaseName="h4",
            description="made by Hive 4",
            parameters={"k": "v"},
            ownerName="alice",
            ownerType=hive.PrincipalType.USER,
            catalogName="hive",
        )
    )
    made = hive4_metastore.get_database_req(hive4.GetDatabaseRequest(name="h4", catalogName="hive"))
    assert (made.name, made.description, made.parameters, made.ownerName) == (
        "h4",
        "made by Hive 4",
        {"k": "v"},
        "alice",
    )
    assert made.locationUri.endswith("/h4.db")
    changed = client.get_database("h4")
    changed.parameters = {"k": "w"}
    client.alter_database_req(hive.AlterDatabaseRequest(oldDbName="h4", newDb=changed))
    assert hive4_metastore.get_database_req(hive4.GetDatabaseRequest(name="h4")).parameters == {"k": "w"}
    hive4_metastore.drop_database_req(
        hive4.DropDatabaseRequest(name="h4", ignoreUnknownDb=False, deleteData=True, cascade=False)
    )
    with pytest.raises(hive4.NoSuchObjectException):
        hive4_metastore.get_database_req(hive4.GetDatabaseRequest(name="h4"))
    hive4_metastore.drop_database_req(
        hive4.DropDatabaseRequest(name="h4", ignoreUnknownDb=True, deleteData=True, cascade=False)
    )
    with pytest.raises(hive4.NoSuchObjectException):
        hive4_metastore.drop_database_req(
            hive4.DropDatabaseRequest(name="h4", ignoreUnknownDb=False, deleteData=True, cascade=False)
        )


def test_table_and_partition_requests(hive4_metastore, client, tmp_path):
    client.create_database_req(hive.CreateDatabaseRequest(databaseName="h4"))
    table = _table("h4", "t")
    table.sd.location = f"file:{tmp_path / 't'}"
    hive4_metastore.create_table_req(hive4.CreateTableRequest(table=table))
    with pytest.raises(hive4.AlreadyExistsException):
        hive4_metastore.create_table_req(hive4.CreateTableRequest(table=table))
    assert [
        f.name for f in hive4_metastore.get_fields_req(hive4.GetFieldsRequest(dbName="h4", tblName="t")).fields
    ] == ["id"]
    assert [
        f.name for f in hive4_metastore.get_schema_req(hive4.GetSchemaRequest(dbName="h4", tblName="t")).fields
    ] == ["id", "ds"]

    partition = hive4.Partition(
        values=["2024-01-01"],
        dbName="h4",
        tableName="t",
        parameters={},
        sd=hive4.StorageDescriptor(cols=table.sd.cols, **PARQUET),
    )
    hive4_metastore.add_partitions([partition])
    found = hive4_metastore.get_partition_req(
        hive4.GetPartitionRequest(dbName="h4", tblName="t", partVals=["2024-01-01"])
    ).partition
    assert (found.values, found.sd.location) == (["2024-01-01"], f"file:{tmp_path / 't'}/ds=2024-01-01")
    with pytest.raises(hive4.NoSuchObjectException):
        hive4_metastore.get_partition_req(hive4.GetPartitionRequest(dbName="h4", tblName="t", partVals=["x"]))

    # with constraints, in Hive 4's layout
    hive4_metastore.create_table_req(
        hive4.CreateTableRequest(
            table=_table("h4", "with_pk"),
            primaryKeys=[hive4.SQLPrimaryKey("h4", "with_pk", "id", 1, "pk", True, False, True)],
        )
    )
    assert [
        k.pk_name
        for k in hive4_metastore.get_primary_keys(
            hive4.PrimaryKeysRequest(db_name="h4", tbl_name="with_pk")
        ).primaryKeys
    ] == ["pk"]
    client.drop_table_req(hive.DropTableRequest(dbName="h4", tableName="with_pk", deleteData=False))

    client.drop_table_req(hive.DropTableRequest(dbName="h4", tableName="t", deleteData=False))
    assert hive4_metastore.get_all_tables("h4") == []
    with pytest.raises(hive.NoSuchObjectException):
        client.drop_table_req(hive.DropTableRequest(dbName="h4", tableName="t", deleteData=False))


def test_hive_4_partition_request_forms(client):
    client.create_database(hive.Database(name="rq"))
    client.create_table(make_table("rq", "t", columns=cols("id:bigint", "v:string"), partition_keys=cols("d:string")))
    client.append_partition_req(hive.AppendPartitionsRequest(dbName="rq", tableName="t", partVals=["1"]))
    client.append_partition_req(hive.AppendPartitionsRequest(dbName="rq", tableName="t", name="d=2"))
    client.append_partition_req(hive.AppendPartitionsRequest(dbName="rq", tableName="t", name="d=3"))
    assert client.fetch_partition_names_req(hive.PartitionsRequest(dbName="rq", tblName="t", maxParts=2)) == [
        "d=1",
        "d=2",
    ]
    part = client.get_partition("rq", "t", ["1"])
    part.parameters["k"] = "v"
    part.sd.cols = []
    client.alter_partitions_req(
        hive.AlterPartitionsRequest(
            dbName="rq",
            tableName="t",
            partitions=[part],
            skipColumnSchemaForPartition=True,
            partitionColSchema=cols("id:bigint", "v:string"),
        )
    )
    altered = client.get_partition("rq", "t", ["1"])
    assert altered.parameters["k"] == "v" and [c.name for c in altered.sd.cols] == ["id", "v"]
    renamed = client.get_partition("rq", "t", ["2"])
    renamed.values = ["20"]
    client.rename_partition_req(
        hive.RenamePartitionRequest(dbName="rq", tableName="t", partVals=["2"], newPart=renamed)
    )
    assert client.drop_partition_req(hive.DropPartitionRequest(dbName="rq", tblName="t", partName="d=3"))
    assert client.drop_partition_req(
        hive.DropPartitionRequest(dbName="rq", tblName="t", partVals=["1"], deleteData=True)
    )
    assert client.get_partition_names("rq", "t", -1) == ["d=20"]
    assert client.partition_name_has_valid_characters(["a b", "ü"], True) is True
    client.flushCache()


def test_empty_parameter_key_patterns_are_no_patterns(client, tmp_path):
    """Hive 4's client sends ``includeParamKeyPattern=""`` and ``excludeParamKeyPattern=""`` by default, which
    Hive Metastore 4 reads as no pattern. A client reading partitions that way and writing them back (as Hive
    does for statistics and DDL) must find every parameter where it was."""
    client.create_database(hive.Database(name="kp"))
    client.create_table(make_table("kp", "t", partition_keys=cols("k:string")))
    params = {"numRows": "7", "owner.note": "x", "spark.sql.sources.provider": "parquet"}
    for value in ("a", "b"):
        client.add_partition(make_partition("kp", "t", [value], params=params))
    unset = {"includeParamKeyPattern": "", "excludeParamKeyPattern": ""}

    def by_filter():
        return client.get_partitions_by_filter_req(
            hive.GetPartitionsByFilterRequest(catName="hive", dbName="kp", tblName="t", filter='k = "a"', **unset)
        )

    def by_names():
        return client.get_partitions_by_names_req(
            hive.GetPartitionsByNamesRequest(db_name="kp", tbl_name="t", names=["k=a", "k=b"], **unset)
        ).partitions

    def with_specs():
        request = hive.GetPartitionsRequest(
            dbName="kp", tblName="t", projectionSpec=hive.GetProjectionsSpec(fieldList=[], **unset)
        )
        [spec] = client.get_partitions_with_specs(request).partitionSpec
        return spec.partitionList.partitions

    for read in (by_filter, by_names, with_specs):
        assert all(params.items() <= p.parameters.items() for p in read()), read.__name__
    client.alter_partitions("kp", "t", by_names())  # written back as read
    for read in (by_filter, by_names, with_specs):
        assert all(params.items() <= p.parameters.items() for p in read()), read.__name__
    # a pattern that is set still trims
    [trimmed] = client.get_partitions_by_filter_req(
        hive.GetPartitionsByFilterRequest(dbName="kp", tblName="t", filter='k = "a"', includeParamKeyPattern="numR%")
    )
    assert trimmed.parameters == {"numRows": "7"}


def test_what_hiveserver2_4_asks_as_it_starts_and_drops_a_database(client):
    """No runtime statistics, no compactions; the materialized views to rewrite with; what a reader and a
    writer of a transactional table report; and the tables of a database by pattern (``DROP DATABASE ...
    CASCADE``)."""
    assert client.get_runtime_stats(hive.GetRuntimeStatsRequest(maxWeight=10, maxCreateTime=0)) == []
    assert client.get_all_materialized_view_objects_for_rewriting() == []
    assert client.show_compact(hive.ShowCompactRequest()).compacts == []
    client.add_write_ids_to_min_history(7, {"hs2.t": 3})
    assert client.get_latest_txnid_in_conflict(7) == 0
    client.update_transaction_statistics(
        hive.UpdateTransactionalStatsRequest(tableId=1, insertCount=2, updatedCount=0, deletedCount=0)
    )
    client.create_database(hive.Database(name="hs2"))
    view = make_table("hs2", "mv", table_type="MATERIALIZED_VIEW")
    view.viewOriginalText = view.viewExpandedText = "select 1"
    client.create_table(view)
    assert client.get_all_materialized_view_objects_for_rewriting() == []  # rewriting is off
    view.rewriteEnabled = True
    client.create_table(view.__class__(**{**view.__dict__, "tableName": "mv2"}))
    assert [t.tableName for t in client.get_all_materialized_view_objects_for_rewriting()] == ["mv2"]
    for name in ("a1", "a2", "b1"):
        client.create_table(make_table("hs2", name))
    found = client.get_table_objects_by_name_req(hive.GetTablesRequest(dbName="hs2", tablesPattern="a*"))
    assert sorted(t.tableName for t in found.tables) == ["a1", "a2"]
    everything = client.get_table_objects_by_name_req(hive.GetTablesRequest(dbName="hs2", tablesPattern="*"))
    assert len(everything.tables) == 5
    with pytest.raises(hive.InvalidOperationException, match="cannot find null tables"):
        client.get_table_objects_by_name_req(hive.GetTablesRequest(dbName="hs2"))
