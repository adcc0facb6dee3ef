"""``serve --audit-log``: one line per call (time, principal, the user ``set_ugi`` claimed, client address,
method, object, the partition when the call names one, outcome), for failed calls too, and nothing but object names from the arguments."""

from __future__ import annotations

import subprocess

from thriftpy2.rpc import make_client

from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_partition, make_table
from tests.support.servers import free_port, serve_command, wait_for_port


def test_every_call_is_one_line_of_the_audit_log(tmp_path):
    port, audit = free_port(), tmp_path / "audit.log"
    process = subprocess.Popen(
        serve_command(
            port, db_url=f"sqlite:///{tmp_path / 'c.db'}", warehouse=tmp_path / "wh", extra=["--audit-log", str(audit)]
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_port(port, process)
        client = make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=10_000)
        client.set_ugi("alice", ["staff"])
        client.create_database(hive.Database(name="shop", parameters={"secret.token": "s3cr3t"}))
        client.create_table(make_table("shop", "orders", columns=cols("id:bigint")))
        try:
            client.get_table("shop", "missing")
        except hive.NoSuchObjectException:
            pass
        client.get_table_req(hive.GetTableRequest(dbName="@hive#shop", tblName="orders"))
        client.create_table(make_table("shop", "sales", columns=cols("id:bigint"), partition_keys=cols("day")))
        client.add_partition(make_partition("shop", "sales", ["2024-01-01"]))
        client.get_partition("shop", "sales", ["2024-01-01"])
        client.get_partition_by_name("shop", "sales", "day=2024-01-01")
        local_port = client._iprot.trans.sock.getsockname()[1]
        client.close()
    finally:
        process.terminate()
        process.wait(30)
    lines = [dict(field.split("=", 1) for field in line.split("\t")) for line in audit.read_text().splitlines()]
    assert [(l["method"], l["object"], l["outcome"], l["ugi"]) for l in lines] == [
        ("set_ugi", "alice", "ok", "alice"),
        ("create_database", "shop", "ok", "alice"),
        ("create_table", "shop.orders", "ok", "alice"),
        ("get_table", "shop.missing", "NoSuchTableError", "alice"),
        ("get_table_req", "shop.orders", "ok", "alice"),
        ("create_table", "shop.sales", "ok", "alice"),
        ("add_partition", "shop.sales", "ok", "alice"),
        ("get_partition", "shop.sales", "ok", "alice"),
        ("get_partition_by_name", "shop.sales", "ok", "alice"),
    ]
    assert [l.get("partition") for l in lines[-3:]] == ["[2024-01-01]", "[2024-01-01]", "day=2024-01-01"]
    assert all("partition" not in l for l in lines[:-3])
    assert {l["principal"] for l in lines} == {"anonymous"}
    assert {l["client"] for l in lines} == {f"127.0.0.1:{local_port}"}
    assert "s3cr3t" not in audit.read_text()
