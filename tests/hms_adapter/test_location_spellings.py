"""Locations compared by meaning, not by text, wherever the server decides whether one lies under another.

Flink and Hadoop write local locations as ``file:/path``; Hive's own warehouse and other clients as
``file:///path``; both name one directory. A managed table renamed must take its partitions with it whatever
their spelling, and a drop must clean up the folders it emptied. Concurrent drops of sibling partitions
(Trino drops the partitions of a ``DELETE`` in parallel) must leave no emptied parent folder behind.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from hudi_catalog.warehouse import Warehouse
from tests.hms_adapter.helpers import cols, make_database, make_partition, make_table, path_of


def _spell(path: Path, triple: bool) -> str:
    return f"file://{path}" if triple else f"file:{path}"


@pytest.mark.parametrize("table_triple", [True, False], ids=["table-file:///", "table-file:/"])
def test_a_renamed_managed_table_takes_partitions_of_any_spelling(client, warehouse, table_triple):
    """The table's folder moves with the partitions inside it, each pointing at the moved folder, and the
    rows read back where they were written."""
    db_dir = warehouse / "rn.db"
    client.create_database(make_database("rn", location=_spell(db_dir, table_triple)))
    client.create_table(make_table("rn", "orders", partition_keys=cols("region:string")))
    table_dir = path_of(client.get_table("rn", "orders").sd.location)
    for region, triple in (("eu", not table_triple), ("us", table_triple)):
        folder = table_dir / f"region={region}"
        folder.mkdir(parents=True)
        (folder / "part-0.parquet").write_text(region)
        client.add_partition(make_partition("rn", "orders", [region], location=_spell(folder, triple)))

    client.alter_table("rn", "orders", make_table("rn", "orders_v2", partition_keys=cols("region:string")))

    moved_dir = path_of(client.get_table("rn", "orders_v2").sd.location)
    assert moved_dir == db_dir / "orders_v2" and not table_dir.exists()
    located = {p.values[0]: path_of(p.sd.location) for p in client.get_partitions("rn", "orders_v2", -1)}
    assert located == {"eu": moved_dir / "region=eu", "us": moved_dir / "region=us"}
    for region, folder in located.items():
        assert (folder / "part-0.parquet").read_text() == region
    # written back whole, the partitions stay where they are
    client.alter_partitions("rn", "orders_v2", client.get_partitions("rn", "orders_v2", -1))
    assert {p.values[0]: path_of(p.sd.location) for p in client.get_partitions("rn", "orders_v2", -1)} == located


def test_dropping_a_partition_of_another_spelling_cleans_its_emptied_parent(client, warehouse):
    client.create_database(make_database("dp", location=_spell(warehouse / "dp.db", True)))
    client.create_table(make_table("dp", "t", partition_keys=cols("a:string", "b:string")))
    table_dir = path_of(client.get_table("dp", "t").sd.location)
    folder = table_dir / "a=x" / "b=1"
    folder.mkdir(parents=True)
    client.add_partition(make_partition("dp", "t", ["x", "1"], location=_spell(folder, False)))
    client.drop_partition("dp", "t", ["x", "1"], True)
    assert not (table_dir / "a=x").exists() and table_dir.is_dir()


def test_a_managed_drop_deletes_partitions_of_any_spelling_with_the_table(client, warehouse):
    client.create_database(make_database("dt", location=_spell(warehouse / "dt.db", False)))
    client.create_table(make_table("dt", "t", partition_keys=cols("k:string")))
    table_dir = path_of(client.get_table("dt", "t").sd.location)
    (table_dir / "k=1").mkdir(parents=True)
    client.add_partition(make_partition("dt", "t", ["1"], location=_spell(table_dir / "k=1", True)))
    client.drop_table("dt", "t", True)
    assert not table_dir.exists()


def test_concurrent_drops_of_sibling_partitions_leave_no_emptied_parent(server, client, warehouse):
    """Three clients drop ``a=x/b=1..3`` at the same moment, on several tables: each table's ``a=x`` goes,
    its other folders stay."""
    client.create_database(make_database("cd"))
    tables = [f"t{i}" for i in range(6)]
    for name in tables:
        client.create_table(make_table("cd", name, partition_keys=cols("a:string", "b:string")))
        for b in ("1", "2", "3"):
            client.add_partition(make_partition("cd", name, ["x", b]))
        client.add_partition(make_partition("cd", name, ["y", "1"]))
    clients = [server.client() for _ in range(3)]
    barrier = threading.Barrier(len(clients))
    errors: list[BaseException] = []

    def drop(c, b: str) -> None:
        try:
            for name in tables:
                barrier.wait(timeout=120)
                c.drop_partition("cd", name, ["x", b], True)
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)
            barrier.abort()

    threads = [threading.Thread(target=drop, args=(c, b)) for c, b in zip(clients, ("1", "2", "3"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    for c in clients:
        c.close()
    assert errors == []
    for name in tables:
        table_dir = warehouse / "cd.db" / name
        assert not (table_dir / "a=x").exists(), name
        assert (table_dir / "a=y" / "b=1").is_dir(), name
        assert [p.values for p in client.get_partitions("cd", name, -1)] == [["y", "1"]]


@pytest.mark.parametrize(
    ("location", "directory", "below"),
    [
        ("file:/w/t/a=x", "file:///w/t", "/a=x"),
        ("file:///w/t/", "file:/w/t", ""),
        ("file:/w/t2", "file:/w/t", None),
        ("hdfs://nn:8020/w/t/a=x/b=1/", "hdfs://nn:8020/w/t", "/a=x/b=1"),
        ("hdfs://nn:8020/w//t/./a=x", "hdfs://nn:8020/w/t/", "/a=x"),
        ("hdfs://other:8020/w/t/a=x", "hdfs://nn:8020/w/t", None),
        ("s3a://lake/w/t/a=x", "s3a://lake/w/t/", "/a=x"),
        ("s3a://lake/w/t", "s3a://lake/w/t", ""),
        ("s3a://other/w/t/a=x", "s3a://lake/w/t", None),
        ("s3a://lake/w/t/a=x", "s3://lake/w/t", "/a=x"),  # one bucket whichever S3 scheme names it
        ("s3n://lake/w/t", "s3a://lake/w/t/", ""),
        ("gs://lake/w/t/a=x", "s3://lake/w/t", None),
    ],
)
def test_below_compares_locations_by_meaning(location, directory, below):
    assert Warehouse.below(location, directory) == below
