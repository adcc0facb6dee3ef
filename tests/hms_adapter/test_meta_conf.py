"""``getMetaConf``/``setMetaConf``: the keys Hive lets a connection change, kept per connection; the
partition value whitelist and the column type check apply to that connection's calls only."""

from __future__ import annotations

import pytest

from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_table

PATTERN = "hive.metastore.partition.name.whitelist.pattern"
DISALLOW = "hive.metastore.disallow.incompatible.col.type.changes"


def test_settings_are_per_connection_and_apply_to_its_calls(server, client):
    other = server.client()
    client.create_database(hive.Database(name="mc"))
    client.create_table(make_table("mc", "t", columns=cols("id:int", "v:string"), partition_keys=cols("d:string")))
    assert client.getMetaConf(PATTERN) == "" and client.getMetaConf(DISALLOW) == "true"
    assert client.getMetaConf("hive.metastore.try.direct.sql") == "true"
    with pytest.raises(hive.MetaException, match="Invalid configuration key javax.jdo.option.ConnectionURL"):
        client.getMetaConf("javax.jdo.option.ConnectionURL")
    with pytest.raises(hive.MetaException, match="Invalid configuration key hive.metastore.uris"):
        client.setMetaConf("hive.metastore.uris", "thrift://elsewhere:9083")

    client.setMetaConf(PATTERN, "[a-z0-9-]*")
    assert client.getMetaConf(PATTERN) == "[a-z0-9-]*" and other.getMetaConf(PATTERN) == ""
    with pytest.raises(
        hive.MetaException,
        match=r"Partition value 'A B' contains a character not matched by "
        r"whitelist pattern '\[a-z0-9-\]\*'",
    ):
        client.add_partition(hive.Partition(dbName="mc", tableName="t", values=["A B"]))
    client.add_partition(hive.Partition(dbName="mc", tableName="t", values=["2024-01-01"]))
    other.add_partition(hive.Partition(dbName="mc", tableName="t", values=["A B"]))
    assert client.get_partition_names("mc", "t", -1) == ["d=2024-01-01", "d=A B"]

    table = client.get_table("mc", "t")
    table.sd.cols = cols("id:string", "v:int")
    with pytest.raises(hive.InvalidOperationException, match="incompatible"):
        other.alter_table("mc", "t", table)
    client.setMetaConf(DISALLOW, "false")
    client.alter_table("mc", "t", table)
    assert [c.type for c in other.get_table("mc", "t").sd.cols] == ["string", "int"]
    other.close()

    fresh = server.client()  # a new connection starts from the server's values
    assert fresh.getMetaConf(PATTERN) == ""
    fresh.close()


def test_hive4_keys_and_their_short_names(client):
    """Hive 3 and 4 take each key without its ``hive.`` prefix too, and 4 added two: HiveServer2's ``MSCK
    REPAIR TABLE`` sets ``metastore.expression.proxy`` before it drops partitions."""
    proxy = "org.apache.hadoop.hive.metastore.MsckPartitionExpressionProxy"
    assert client.getMetaConf("metastore.partition.order.expr") == "false"
    client.setMetaConf("metastore.expression.proxy", proxy)
    assert client.getMetaConf("hive.metastore.expression.proxy") == proxy
    client.setMetaConf("metastore.partition.name.whitelist.pattern", "[a-z]*")
    assert client.getMetaConf(PATTERN) == "[a-z]*"
    with pytest.raises(hive.MetaException, match="Invalid configuration key metastore.thrift.uris"):
        client.getMetaConf("metastore.thrift.uris")
