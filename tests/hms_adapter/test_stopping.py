"""``serve`` stopped by SIGTERM while clients work: the calls under way finish and are answered, requests not
whole yet are not waited for, and a call still running at ``--graceful-timeout`` is left to roll back as the
process exits instead of holding the exit."""

from __future__ import annotations

import signal
import socket
import sqlite3
import struct
import subprocess
import threading
import time

import pytest
from thriftpy2.rpc import make_client
from thriftpy2.transport import TTransportException

from hms_adapter.cli_options import LOG_LEVEL_ENV
from tests.conftest import hive
from tests.support.servers import free_port, serve_command, wait_for_port

DRAINED = "hms_adapter.server: stopped"
LEFT_RUNNING = "calls still running after"


def _serve(tmp_path, *options: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    process = subprocess.Popen(
        serve_command(port, db_url=f"sqlite:///{tmp_path / 'c.db'}", warehouse=tmp_path / "wh", extra=options),
        stdout=open(tmp_path / "server.log", "w"),
        stderr=subprocess.STDOUT,
    )
    wait_for_port(port, process, log=tmp_path / "server.log")
    return process, port


def _client(port: int):
    return make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=600_000)


def _stop(process: subprocess.Popen, tmp_path, within: float) -> str:
    """SIGTERM, then the exit code (must be 0) and the log. ``within``: seconds the exit may take at most, far
    more than a loaded machine needs and far less than waiting for what the server must not wait for."""
    process.send_signal(signal.SIGTERM)
    try:
        assert process.wait(timeout=within) == 0
    finally:
        if process.poll() is None:
            process.kill()
    return (tmp_path / "server.log").read_text()


def test_refused_filters_under_way_are_answered_and_the_server_stops(tmp_path):
    """Four clients send 5.6 MB filters over the term limit back to back; SIGTERM comes while they do. Each
    call under way is answered (refused, as it would be), none is left running, and the exit does not wait
    for the clients' next requests."""
    process, port = _serve(tmp_path)
    setup = _client(port)
    setup.create_database(hive.Database(name="big", locationUri=f"file://{tmp_path}/big", parameters={}))
    sd = hive.StorageDescriptor(cols=[hive.FieldSchema("a", "string", "")], serdeInfo=hive.SerDeInfo(), parameters={})
    table = hive.Table(dbName="big", tableName="t", sd=sd, partitionKeys=[hive.FieldSchema("ds", "string", "")])
    setup.create_table(table)
    refused, cut, stopping = [0] * 4, [0] * 4, threading.Event()

    def refuse_in_a_loop(index: int) -> None:
        text = "ds in (" + ", ".join(f'"x{index}_{j:07d}"' for j in range(400_000)) + ")"
        client = _client(port)
        while not stopping.is_set():
            try:
                client.get_partitions_by_filter("big", "t", text, -1)
            except hive.MetaException as error:
                assert "terms, over the limit" in error.message
                refused[index] += 1
            except (TTransportException, OSError):  # the server closed the connection: it is stopping
                cut[index] += 1
                return

    clients = [threading.Thread(target=refuse_in_a_loop, args=(i,)) for i in range(4)]
    for thread in clients:
        thread.start()
    deadline = time.monotonic() + 300
    while sum(refused) < 8 and time.monotonic() < deadline:
        time.sleep(0.1)
    log = _stop(process, tmp_path, within=120)
    stopping.set()
    for thread in clients:
        thread.join(60)
    assert sum(refused) >= 8
    assert DRAINED in log and LEFT_RUNNING not in log
    assert "Traceback" not in log


def test_a_request_still_arriving_is_not_waited_for(tmp_path):
    """Half of a large request sent, the rest never: the stop drops it at once, however long
    ``--read-timeout`` and ``--graceful-timeout`` would let it take."""
    process, port = _serve(tmp_path, "--read-timeout", "3600", "--graceful-timeout", "3600")
    assert _client(port).get_all_databases() == ["default"]
    with socket.create_connection(("127.0.0.1", port)) as half:
        name = b"get_database"
        head = struct.pack(">iI", -2147418111, len(name)) + name + struct.pack(">i", 1)  # a strict binary call
        half.sendall(head + struct.pack(">bhi", 11, 1, 5_000_000) + b"x" * 1_000_000)  # 1 MB of a 5 MB name
        log = _stop(process, tmp_path, within=120)
    assert DRAINED in log and LEFT_RUNNING not in log


def test_a_call_running_past_the_graceful_timeout_does_not_hold_the_exit(tmp_path):
    """A write waiting for SQLite's write lock (held by another process here) at SIGTERM: after
    ``--graceful-timeout`` the server exits without it, the client sees its connection end, and nothing of
    the write is in the catalog."""
    process, port = _serve(tmp_path, "--graceful-timeout", "1")
    client = _client(port)
    holder = sqlite3.connect(tmp_path / "c.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    outcome: list[BaseException] = []

    def blocked_write() -> None:
        try:
            client.create_database(hive.Database(name="blocked", locationUri=f"file://{tmp_path}/b", parameters={}))
        except BaseException as error:  # noqa: BLE001  # what the client saw, asserted below
            outcome.append(error)

    writer = threading.Thread(target=blocked_write)
    writer.start()
    deadline = time.monotonic() + 120
    while "create_database started" not in _calls_seen(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.1)
    log = _stop(process, tmp_path, within=60)  # the write would wait 120 s for the lock
    writer.join(60)
    holder.execute("ROLLBACK")
    holder.close()
    assert "stopped with 1 calls still running after 1 s (--graceful-timeout)" in log
    assert len(outcome) == 1 and isinstance(outcome[0], (TTransportException, OSError)), outcome
    done = sqlite3.connect(tmp_path / "c.db")
    assert done.execute("SELECT count(*) FROM db WHERE name = 'blocked'").fetchone() == (0,)
    done.close()


def _calls_seen(tmp_path) -> str:
    return (tmp_path / "server.log").read_text()


@pytest.fixture(autouse=True)
def _debug_log(monkeypatch):
    """At DEBUG the server logs each call as it starts, which the last test waits for."""
    monkeypatch.setenv(LOG_LEVEL_ENV, "DEBUG")
