"""SIGKILL of the server in the middle of ``add_partitions`` batches of 1,000, on SQLite and on MariaDB: after a
restart on the same catalog database every batch is all there or all absent, every acknowledged batch is
there, and the server serves on."""

from __future__ import annotations

import random
import signal
import subprocess
import threading
import time

import pytest
from thriftpy2.rpc import make_client

from tests.conftest import hive
from tests.support.servers import READY_SECONDS, free_port, serve_command, wait_for_port

BATCH = 1000
KILLS = 3


def _serve(db_url: str, warehouse: str, port: int, log) -> subprocess.Popen:
    process = subprocess.Popen(
        serve_command(port, db_url=db_url, warehouse=warehouse),
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    wait_for_port(port, process)  # a restart after SIGKILL may first recover the store: the ceiling allows it
    return process


def _load(port: int, first_batch: int, acknowledged: list[int], stop: threading.Event) -> None:
    """Send batches until the server dies; record the ones it acknowledged."""
    try:
        client = make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=60_000)
        batch = first_batch
        while not stop.is_set():
            parts = [
                hive.Partition(values=[f"{batch:04d}", f"{i:04d}"], dbName="crash", tableName="t", parameters={})
                for i in range(BATCH)
            ]
            client.add_partitions(parts)
            acknowledged.append(batch)
            batch += 1
    except Exception:  # the server was killed under this call
        return


@pytest.mark.parametrize("store", ["sqlite", "mysql"])
def test_a_server_killed_mid_batch_leaves_each_batch_whole_or_absent(store, request, tmp_path):
    db_url = f"sqlite:///{tmp_path / 'c.db'}" if store == "sqlite" else request.getfixturevalue("mysql_db_url")
    warehouse, port = str(tmp_path / "wh"), free_port()
    log = open(tmp_path / "server.log", "w")
    rng = random.Random(20261125)
    process = _serve(db_url, warehouse, port, log)
    acknowledged: list[int] = []
    try:
        setup = make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=60_000)
        setup.create_database(hive.Database(name="crash", parameters={}))
        sd = hive.StorageDescriptor(
            cols=[hive.FieldSchema(name="x", type="int")], parameters={}, serdeInfo=hive.SerDeInfo(parameters={})
        )
        setup.create_table(
            hive.Table(
                tableName="t",
                dbName="crash",
                sd=sd,
                parameters={},
                partitionKeys=[hive.FieldSchema(name="a", type="string"), hive.FieldSchema(name="b", type="string")],
                tableType="EXTERNAL_TABLE",
            )
        )
        setup.close()
        for round_ in range(KILLS):
            stop = threading.Event()
            loader = threading.Thread(target=_load, args=(port, round_ * 1000, acknowledged, stop))
            before = len(acknowledged)
            loader.start()
            # the kill lands while later batches are in flight: after the round's first acknowledged batch (a
            # loaded MariaDB can take longer than a fixed pause for it), then a random moment
            deadline = time.monotonic() + READY_SECONDS  # only a ceiling: the loop ends at the batch
            while len(acknowledged) == before and loader.is_alive() and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(rng.uniform(0.0, 1.2))
            process.send_signal(signal.SIGKILL)
            process.wait(30)
            stop.set()
            loader.join(60)
            process = _serve(db_url, warehouse, port, log)

        client = make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=60_000)
        names = client.get_partition_names("crash", "t", -1)
        client.close()
    finally:
        process.terminate()
        process.wait(30)
        log.close()
    per_batch: dict[int, int] = {}
    for name in names:
        batch = int(name.split("/")[0].split("=")[1])
        per_batch[batch] = per_batch.get(batch, 0) + 1
    assert all(count == BATCH for count in per_batch.values()), "a batch was half-written"
    assert set(acknowledged) <= set(per_batch), "an acknowledged batch is missing"
    assert len(acknowledged) >= KILLS
