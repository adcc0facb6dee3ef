"""What a call names, read once from its arguments, in each of the shapes Hive's calls use; the catalog
scope, authorization and the audit log all take this one answer."""

from __future__ import annotations

import pytest

from hms_adapter.access_rules import rule_of, target_of
from hms_adapter.audit import object_of_call
from hms_adapter.call_target import CallTarget, target_of_call
from hms_adapter.handler import MetastoreHandler
from hms_adapter.idl import hive
from hudi_catalog.authorization import GLOBAL, SecuredObject


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["sales", "orders"], CallTarget(None, "sales", "orders")),
        (["@spark#sales", "orders", None], CallTarget("spark", "@spark#sales", "orders")),
        (["sales", ["2024"], True], CallTarget(None, "sales", None)),
        (
            [hive.GetTableRequest(dbName="sales", tblName="orders", catName="hive")],
            CallTarget("hive", "sales", "orders"),
        ),
        ([hive.DropDatabaseRequest(name="@spark#sales", deleteData=False)], CallTarget("spark", "@spark#sales", None)),
        ([hive.Database(name="sales", locationUri="file:/w/sales")], CallTarget(None, "sales", None)),
        (
            [hive.AddPartitionsRequest(dbName="sales", tblName="orders", parts=[hive.Partition(catName="c")])],
            CallTarget("c", "sales", "orders"),
        ),
        (
            [[hive.Partition(dbName="sales", tableName="orders", values=["1"])], None],
            CallTarget(None, "sales", "orders"),
        ),
        ([hive.PartitionsStatsRequest(dbName="@hive#", tblName="orders")], CallTarget("hive", "@hive#", "orders")),
        ([7, None], CallTarget(None, None, None)),
        ([], CallTarget(None, None, None)),
    ],
)
def test_a_call_names_its_catalog_database_and_table(args, expected):
    assert target_of_call(args) == expected


def test_authorization_and_the_audit_log_name_the_same_object():
    call = target_of_call([hive.GetTableRequest(dbName="@spark#Sales", tblName="orders")])
    assert target_of(rule_of(MetastoreHandler.get_table_req), call) == SecuredObject.of_table("Sales", "orders")
    assert object_of_call("get_table_req", [], call) == "Sales.orders"
    assert target_of(rule_of(MetastoreHandler.get_database_req), call) == SecuredObject.of_database("Sales")
    assert target_of(rule_of(MetastoreHandler.get_all_databases), call) is GLOBAL


def test_a_whole_catalog_names_no_database():
    call = target_of_call(["@hive#", "orders"])
    assert (call.catalog, call.database) == ("hive", None)
    assert target_of(rule_of(MetastoreHandler.get_table), call) is None  # refused: there is no table to check
    assert object_of_call("get_table", [], call) == "@hive#.orders"
    assert object_of_call("get_all_functions", [], target_of_call([])) == "-"


def test_a_setting_is_audited_by_its_key_never_its_value():
    args = ["hive.metastore.partition.name.whitelist.pattern", "s3cr3t"]
    assert (
        object_of_call("setMetaConf", args, target_of_call(args)) == "hive.metastore.partition.name.whitelist.pattern"
    )
    assert object_of_call("setOption", ["k", "s3cr3t"], target_of_call(["k", "s3cr3t"])) == "k"


def _named_call(method: str, *values) -> CallTarget:
    """The target of ``method`` called with ``values``, its arguments named as the IDL names them."""
    args = getattr(hive.ThriftHiveMetastore, f"{method}_args")(*values)
    names = [spec[1] for spec in args.thrift_spec.values()]
    return target_of_call([getattr(args, name) for name in names], names)


@pytest.mark.parametrize(
    ("method", "values", "partition"),
    [
        ("get_partition", ("sales", "orders", ["2024", "01"]), "[2024,01]"),
        ("drop_partition", ("sales", "orders", ["2024", "01"], True), "[2024,01]"),
        ("get_partitions_ps", ("sales", "orders", ["2024"], -1), "[2024]"),
        ("get_partition_by_name", ("sales", "orders", "y=2024/m=01"), "y=2024/m=01"),
        ("get_partition_column_statistics", ("sales", "orders", "y=2024/m=01", "amount"), "y=2024/m=01"),
        ("alter_partition", ("sales", "orders", hive.Partition(values=["2024", "02"])), "[2024,02]"),
        ("add_partition", (hive.Partition(dbName="sales", tableName="orders", values=["2024", "03"]),), "[2024,03]"),
        (
            "get_partition_req",
            (hive.GetPartitionRequest(dbName="sales", tblName="orders", partVals=["2024", "04"]),),
            "[2024,04]",
        ),
        (
            "update_partition_column_statistics",
            (
                hive.ColumnStatistics(
                    statsDesc=hive.ColumnStatisticsDesc(
                        isTblLevel=False, dbName="sales", tableName="orders", partName="y=2024/m=05"
                    )
                ),
            ),
            "y=2024/m=05",
        ),
        # a third string that is not a partition: a filter, a column
        ("get_partitions_by_filter", ("sales", "orders", "y = '2024'", -1), None),
        ("get_table_column_statistics", ("sales", "orders", "amount"), None),
        ("get_partitions", ("sales", "orders", -1), None),
    ],
)
def test_a_call_names_its_partition_by_values_or_by_name(method, values, partition):
    target = _named_call(method, *values)
    assert (target.database, target.table, target.describe_partition()) == ("sales", "orders", partition)
