"""Dropping with ``deleteData`` deletes only inside the warehouse root and the ``--data-root`` directories:
sentinel directories elsewhere (named as a database's, a table's or a partition's location, reached through
``..`` or through a symbolic link inside the warehouse) survive every drop, whose metadata goes all the same
and whose log says why the files stay. Truncating such a table is refused before anything changes."""

from __future__ import annotations

import os
import subprocess

import pytest
from thriftpy2.rpc import make_client

from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_database, make_partition, make_table
from tests.support.servers import free_port, serve_command, wait_for_port


@pytest.fixture
def served(tmp_path):
    warehouse, data_root, port = tmp_path / "warehouse", tmp_path / "lake", free_port()
    data_root.mkdir()
    log = tmp_path / "server.log"
    process = subprocess.Popen(
        serve_command(
            port, db_url=f"sqlite:///{tmp_path / 'c.db'}", warehouse=warehouse, extra=["--data-root", str(data_root)]
        ),
        stdout=open(log, "w"),
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_for_port(port, process, log=log)
        client = make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=30_000)
        yield client, warehouse, data_root, log
        client.close()
    finally:
        process.terminate()
        process.wait(30)


def _sentinel(path) -> None:
    path.mkdir(parents=True)
    (path / "precious.txt").write_text("keep me")


def test_data_outside_the_roots_survives_every_drop(served, tmp_path):
    client, warehouse, data_root, log = served
    elsewhere = tmp_path / "elsewhere"
    db_dir, table_dir, part_dir, dotted = (elsewhere / n for n in ("db", "table", "part", "dotted"))
    for folder in (db_dir, table_dir, part_dir, dotted):
        _sentinel(folder)
    client.create_database(make_database("sales", location=f"file:{db_dir}"))
    client.create_table(make_table("sales", "orders", location=f"file:{table_dir}"))
    client.create_database(make_database("web"))
    client.create_table(make_table("web", "hits", partition_keys=cols("ds:string")))
    client.add_partition(make_partition("web", "hits", ["1"], location=f"file:{part_dir}"))
    client.add_partition(make_partition("web", "hits", ["2"]))  # in the warehouse
    client.create_table(make_table("web", "escape", location=f"file:{warehouse}/web.db/../../elsewhere/dotted"))
    link = warehouse / "web.db" / "linked"
    os.symlink(db_dir, link)
    client.create_table(make_table("web", "linked", location=f"file:{link}"))
    client.create_table(make_table("web", "in_lake", location=f"file:{data_root}/in_lake"))
    (data_root / "in_lake" / "data.txt").write_text("may go")

    client.drop_partition("web", "hits", ["1"], True)
    client.drop_table("sales", "orders", True)
    client.drop_table("web", "escape", True)
    client.drop_table("web", "linked", True)
    client.drop_table("web", "in_lake", True)
    client.drop_database("sales", True, True)
    client.drop_database("web", True, True)

    assert client.get_all_databases() == ["default"]
    for folder in (db_dir, table_dir, part_dir, dotted):
        assert (folder / "precious.txt").read_text() == "keep me", folder
    assert not (data_root / "in_lake").exists()  # inside a --data-root
    assert not (warehouse / "web.db" / "hits").exists()  # inside the warehouse
    text = log.read_text()
    assert f"not deleting file:{part_dir}: the server did not make it for this object" in text
    assert f"not deleting file:{db_dir}" in text


def test_truncating_data_outside_the_roots_is_refused(served, tmp_path):
    client, _warehouse, _data_root, _log = served
    outside = tmp_path / "outside"
    _sentinel(outside)
    client.create_table(make_table("default", "ext", location=f"file:{outside}"))
    client.alter_table("default", "ext", client.get_table("default", "ext"))
    with pytest.raises(hive.MetaException, match="not the metastore's to delete"):
        client.truncate_table("default", "ext", None)
    assert (outside / "precious.txt").read_text() == "keep me"
