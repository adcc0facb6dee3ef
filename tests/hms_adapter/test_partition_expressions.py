"""The calls that take Hive's serialized partition expressions, on every store, through a Thrift socket.

The expressions are bytes Hive 4.0.1's ``SerializationUtilities`` wrote (``benchmarks/java/HiveExpressions.java``
prints them); ``tests/java/test_hive_expressions.py`` checks these calls against Apache Hive Metastore 4.0.1
through Hive 4's own client. Here: what each call answers, and what bad or unsupported expressions get.
"""

from __future__ import annotations

import base64

import pytest
from thriftpy2.thrift import TApplicationException

from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_database, make_partition, make_table

DS_IS_B = base64.b64decode(
    "AQBvcmcuYXBhY2hlLmhhZG9vcC5oaXZlLnFsLnBsYW4uRXhwck5vZGVHZW5lcmljRnVuY0Rlc+MBAQFqYXZhLnV0aWwuQXJyYXlMaXP0AQMBAm9y"
    "Zy5hcGFjaGUuaGFkb29wLmhpdmUucWwucGxhbi5FeHByTm9kZUNvbHVtbkRlc+MBAWTzAQABgnQBA29yZy5hcGFjaGUuaGFkb29wLmhpdmUuc2Vy"
    "ZGUyLnR5cGVpbmZvLlByaW1pdGl2ZVR5cGVJbmbvAQFzdHJpbucBBG9yZy5hcGFjaGUuaGFkb29wLmhpdmUucWwucGxhbi5FeHByTm9kZUNvbnN0"
    "YW50RGVz4wEBAwcDAYJiAQVvcmcuYXBhY2hlLmhhZG9vcC5oaXZlLnFsLnVkZi5nZW5lcmljLkdlbmVyaWNVREZPUEVxdWHsAQABAgGCPQFFUVVB"
    "zAEGb3JnLmFwYWNoZS5oYWRvb3AuaW8uQm9vbGVhbldyaXRhYmzlAQAAAQMBAWJvb2xlYe4="
)
"""``ds = 'b'``."""
N_BELOW_3 = base64.b64decode(
    "AQBvcmcuYXBhY2hlLmhhZG9vcC5oaXZlLnFsLnBsYW4uRXhwck5vZGVHZW5lcmljRnVuY0Rlc+MBAQFqYXZhLnV0aWwuQXJyYXlMaXP0AQMBAm9y"
    "Zy5hcGFjaGUuaGFkb29wLmhpdmUucWwucGxhbi5FeHByTm9kZUNvbHVtbkRlc+MBAYJuAQABgnQBA29yZy5hcGFjaGUuaGFkb29wLmhpdmUuc2Vy"
    "ZGUyLnR5cGVpbmZvLlByaW1pdGl2ZVR5cGVJbmbvAQFpbvQBBG9yZy5hcGFjaGUuaGFkb29wLmhpdmUucWwucGxhbi5FeHByTm9kZUNvbnN0YW50"
    "RGVz4wEBAwcCBgEFb3JnLmFwYWNoZS5oYWRvb3AuaGl2ZS5xbC51ZGYuZ2VuZXJpYy5HZW5lcmljVURGT1BMZXNzVGhh7gEAAQMBgjwBTEVTUyBU"
    "SEHOAQZvcmcuYXBhY2hlLmhhZG9vcC5pby5Cb29sZWFuV3JpdGFibOUBAAABAwEBYm9vbGVh7g=="
)
"""``n < 3``."""
UPPER_DS_IS_B = base64.b64decode(
    "AQBvcmcuYXBhY2hlLmhhZG9vcC5oaXZlLnFsLnBsYW4uRXhwck5vZGVHZW5lcmljRnVuY0Rlc+MBAQFqYXZhLnV0aWwuQXJyYXlMaXP0AQMBAAEB"
    "AQGCAQJvcmcuYXBhY2hlLmhhZG9vcC5oaXZlLnFsLnBsYW4uRXhwck5vZGVDb2x1bW5EZXPjAAEBZPMBAAGCdAEDb3JnLmFwYWNoZS5oYWRvb3Au"
    "aGl2ZS5zZXJkZTIudHlwZWluZm8uUHJpbWl0aXZlVHlwZUluZu8BAXN0cmlu5wEEb3JnLmFwYWNoZS5oYWRvb3AuaGl2ZS5xbC51ZGYuZ2VuZXJp"
    "Yy5HZW5lcmljVURGVXBwZfIBAAEDCQEFb3JnLmFwYWNoZS5oYWRvb3AuaGl2ZS5xbC5wbGFuLkV4cHJOb2RlQ29uc3RhbnREZXPjAQEDCQMBgkIB"
    "Bm9yZy5hcGFjaGUuaGFkb29wLmhpdmUucWwudWRmLmdlbmVyaWMuR2VuZXJpY1VERk9QRXF1YewBAAECAYI9AUVRVUHMAQdvcmcuYXBhY2hlLmhh"
    "ZG9vcC5pby5Cb29sZWFuV3JpdGFibOUBAAABAwEBYm9vbGVh7g=="
)
"""``upper(ds) = 'B'``: a function this server does not evaluate."""
DATA_COLUMN = base64.b64decode(
    "AQBvcmcuYXBhY2hlLmhhZG9vcC5oaXZlLnFsLnBsYW4uRXhwck5vZGVHZW5lcmljRnVuY0Rlc+MBAQFqYXZhLnV0aWwuQXJyYXlMaXP0AQMBAm9y"
    "Zy5hcGFjaGUuaGFkb29wLmhpdmUucWwucGxhbi5FeHByTm9kZUNvbHVtbkRlc+MBAW5hbeUBAAGCdAEDb3JnLmFwYWNoZS5oYWRvb3AuaGl2ZS5z"
    "ZXJkZTIudHlwZWluZm8uUHJpbWl0aXZlVHlwZUluZu8BAXN0cmlu5wEEb3JnLmFwYWNoZS5oYWRvb3AuaGl2ZS5xbC5wbGFuLkV4cHJOb2RlQ29u"
    "c3RhbnREZXPjAQEDBwMBgngBBW9yZy5hcGFjaGUuaGFkb29wLmhpdmUucWwudWRmLmdlbmVyaWMuR2VuZXJpY1VERk9QRXF1YewBAAECAYI9AUVR"
    "VUHMAQZvcmcuYXBhY2hlLmhhZG9vcC5pby5Cb29sZWFuV3JpdGFibOUBAAABAwEBYm9vbGVh7g=="
)
"""``name = 'x'``: a data column, which no partition key is."""
NOT_AN_EXPRESSION = [b"", b"\x01", b"\x01\x00not a class name", DS_IS_B[:-3], DS_IS_B + b"\x00", bytes(range(256))]

VALUES = [[ds, n] for ds in ("a", "b", "__HIVE_DEFAULT_PARTITION__") for n in ("1", "3", "10")]


@pytest.fixture
def table(client, tmp_path):
    client.create_database(make_database("px", location=f"file:{tmp_path}/px.db"))
    keys = cols("ds:string", "n:int")
    client.create_table(
        make_table("px", "t", partition_keys=keys, table_type="EXTERNAL_TABLE", location=f"file:{tmp_path}/t")
    )
    client.add_partitions(
        [make_partition("px", "t", values, location=f"file:{tmp_path}/t/{'/'.join(values)}") for values in VALUES]
    )
    return client


def _request(expr: bytes, **options) -> hive.PartitionsByExprRequest:
    return hive.PartitionsByExprRequest(dbName="px", tblName="t", expr=expr, **options)


def test_expressions_choose_partitions_in_every_call(table):
    found = table.get_partitions_by_expr(_request(DS_IS_B))
    assert [p.values for p in found.partitions] == [["b", "1"], ["b", "10"], ["b", "3"]]
    assert found.hasUnknownPartitions is False
    assert table.get_partition_names_req(_request(N_BELOW_3)) == [
        "ds=__HIVE_DEFAULT_PARTITION__/n=1",
        "ds=a/n=1",
        "ds=b/n=1",
    ]
    (spec,) = table.get_partitions_spec_by_expr(_request(N_BELOW_3, maxParts=2)).partitionsSpec
    assert [p.values for p in spec.partitionList.partitions] == [["__HIVE_DEFAULT_PARTITION__", "1"], ["a", "1"]]
    trimmed = table.get_partitions_by_expr(_request(DS_IS_B, skipColumnSchemaForPartition=True))
    assert [p.sd.cols for p in trimmed.partitions] == [[], [], []]

    dropped = table.drop_partitions_req(
        hive.DropPartitionsRequest(
            dbName="px",
            tblName="t",
            parts=hive.RequestPartsSpec(
                exprs=[hive.DropPartitionsExpr(expr=DS_IS_B), hive.DropPartitionsExpr(expr=N_BELOW_3)]
            ),
            deleteData=False,
            ifExists=False,
        )
    )
    assert sorted(p.values for p in dropped.partitions) == [
        ["__HIVE_DEFAULT_PARTITION__", "1"],
        ["a", "1"],
        ["b", "1"],
        ["b", "10"],
        ["b", "3"],
    ]
    assert table.get_partition_names("px", "t", -1) == [
        "ds=__HIVE_DEFAULT_PARTITION__/n=10",
        "ds=__HIVE_DEFAULT_PARTITION__/n=3",
        "ds=a/n=10",
        "ds=a/n=3",
    ]
    with pytest.raises(hive.NoSuchObjectException, match="Some partitions to drop are missing"):
        table.drop_partitions_req(
            hive.DropPartitionsRequest(
                dbName="px",
                tblName="t",
                parts=hive.RequestPartsSpec(exprs=[hive.DropPartitionsExpr(expr=DS_IS_B)]),
                ifExists=False,
            )
        )


@pytest.mark.parametrize("expr", [UPPER_DS_IS_B, DATA_COLUMN, *NOT_AN_EXPRESSION])
def test_what_cannot_be_evaluated_makes_readers_fall_back_and_drops_refuse(table, expr):
    """Reads answer ``UNKNOWN_METHOD``, on which Hive's client prunes in its own memory; a list of names and a
    drop have no such fallback and are refused with a ``MetaException``; nothing is dropped."""
    for call in (table.get_partitions_by_expr, table.get_partitions_spec_by_expr):
        with pytest.raises(TApplicationException) as raised:
            call(_request(expr))
        assert raised.value.type == TApplicationException.UNKNOWN_METHOD
    with pytest.raises(hive.MetaException):
        table.get_partition_names_req(_request(expr))
    request = hive.DropPartitionsRequest(
        dbName="px",
        tblName="t",
        parts=hive.RequestPartsSpec(exprs=[hive.DropPartitionsExpr(expr=DS_IS_B), hive.DropPartitionsExpr(expr=expr)]),
    )
    with pytest.raises(hive.MetaException):
        table.drop_partitions_req(request)
    assert len(table.get_partition_names("px", "t", -1)) == len(VALUES)
    assert table.get_partitions_by_expr(_request(DS_IS_B)).partitions  # the connection serves on


def test_an_expression_on_a_missing_table_is_no_such_object(table):
    with pytest.raises(hive.NoSuchObjectException):
        table.get_partitions_by_expr(hive.PartitionsByExprRequest(dbName="px", tblName="nope", expr=DS_IS_B))


def test_msck_drops_the_partitions_its_specs_name(table):
    """With ``MsckPartitionExpressionProxy`` set on the connection, HiveServer2's ``MSCK REPAIR TABLE`` sends
    partition specs as text in place of expressions; they are dropped by name, in one transaction."""
    table.setMetaConf("metastore.expression.proxy", "org.apache.hadoop.hive.metastore.MsckPartitionExpressionProxy")
    specs = [b"(ds='a' AND n='1') OR (ds='b' AND n='3')", b"(ds='__HIVE_DEFAULT_PARTITION__' AND n='10')"]
    request = hive.DropPartitionsRequest(
        dbName="px",
        tblName="t",
        parts=hive.RequestPartsSpec(exprs=[hive.DropPartitionsExpr(expr=spec) for spec in specs]),
        deleteData=False,
    )
    dropped = table.drop_partitions_req(request)
    assert sorted(p.values for p in dropped.partitions) == [
        ["__HIVE_DEFAULT_PARTITION__", "10"],
        ["a", "1"],
        ["b", "3"],
    ]
    assert len(table.get_partition_names("px", "t", -1)) == len(VALUES) - 3
    request.parts = hive.RequestPartsSpec(exprs=[hive.DropPartitionsExpr(expr=b"ds=a")])
    with pytest.raises(hive.MetaException, match="Invalid partition specification"):
        table.drop_partitions_req(request)
