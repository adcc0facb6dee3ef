"""``serve``'s serving limits against what clients can make a server hold: 5,000 idle connections, more
connections than ``--max-connections``, connections idle past ``--idle-timeout``, requests that start and
stall (``--read-timeout``), and messages declaring more than ``--max-message-size``. The server's threads
and memory stay bounded and other clients' calls are answered throughout. Waits end on what the server does
(it closes a connection, logs why, answers again), each with a generous ceiling against a hang, and no
fixed pause stands in for one."""

from __future__ import annotations

import socket
import struct
import subprocess
import time
from pathlib import Path

import pytest
from thriftpy2.rpc import make_client

from tests.conftest import hive
from tests.hms_adapter.serve_process import CLOSE_SECONDS, still_open
from tests.support.servers import READY_SECONDS, free_port, serve_command, wait_until

LONG_READ_TIMEOUT = ["--read-timeout", str(10 * CLOSE_SECONDS)]
"""For a test of a refusal: a connection closed within ``CLOSE_SECONDS`` was refused, not waited out."""

STRICT_CALL = struct.pack(">I", 0x80010001)


@pytest.fixture
def serve(tmp_path):
    started = []

    def start(*options: str):
        port, log = free_port(), tmp_path / f"server-{len(started)}.log"
        process = subprocess.Popen(
            serve_command(port, db_url=f"sqlite:///{tmp_path / 'c.db'}", warehouse=tmp_path / "wh", extra=options),
            stdout=open(log, "w"),
            stderr=subprocess.STDOUT,
            text=True,
        )
        started.append(process)
        # the line it prints once it listens, not a probe's connection: one that would count towards
        # --max-connections until the server saw it closed
        wait_until(lambda: "listening on thrift://" in log.read_text(), "its line saying it listens", process, log=log)
        return process, port, log

    yield start
    for process in started:
        process.terminate()
        process.wait(30)


def _client(port: int):
    return make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=20_000)


def _status(pid: int) -> dict[str, int]:
    """Threads and resident memory (KiB) of a process."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    return {"threads": int(fields["Threads"]), "rss_kib": int(fields["VmRSS"].split()[0])}


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    """Whether the server closes ``sock`` within ``within`` seconds."""
    sock.settimeout(within)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def _connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=10)


def test_thousands_of_idle_connections_hold_no_threads(serve):
    process, port, _log = serve("--threads", "16")
    client = _client(port)
    client.create_database(hive.Database(name="busy", parameters={}))
    before = _status(process.pid)
    idle = [_connect(port) for _ in range(5000)]
    try:
        deadline = time.monotonic() + READY_SECONDS  # only a ceiling: the loop ends once they are gone
        for _ in range(3):  # a call on a new connection is served while they wait
            other = _client(port)
            assert other.get_database("busy").name == "busy"
            other.close()
        while time.monotonic() < deadline and _status(process.pid)["threads"] > before["threads"] + 16:
            time.sleep(0.2)
        during = _status(process.pid)
        assert client.get_all_databases() == ["busy", "default"]
    finally:
        for sock in idle:
            sock.close()
    assert during["threads"] <= before["threads"] + 16, (before, during)
    assert during["rss_kib"] - before["rss_kib"] < 100 * 1024, (before, during)  # under 20 KiB a connection


def _answers(port: int) -> bool:
    """Whether a new client's call is answered (not closed at once for want of room)."""
    try:
        client = _client(port)
        try:
            return client.get_all_databases() == ["default"]
        finally:
            client.close()
    except Exception:  # closed by the server: a transport error of thriftpy2's, or the socket's
        return False


def test_connections_beyond_the_maximum_are_closed_at_once(serve):
    process, port, log = serve("--max-connections", "20", *LONG_READ_TIMEOUT)
    held = [_connect(port) for _ in range(20)]
    try:
        extra = _connect(port)
        assert _closed_by_server(extra, within=CLOSE_SECONDS)
        assert "the maximum (--max-connections)" in log.read_text()
        assert all(still_open(sock) for sock in held), "the twenty within the maximum are kept"
    finally:
        for sock in held:
            sock.close()
    wait_until(lambda: _answers(port), "a new client answered once the others left", process, log=log)


def test_idle_connections_are_closed_and_busy_ones_kept(serve):
    process, port, log = serve("--idle-timeout", "3")
    idle, busy = _connect(port), _client(port)
    started = time.monotonic()
    # a call every 0.2 s (never idle for the 3 s) until the idle connection is closed, however long that takes
    wait_until(lambda: busy.get_all_databases() == ["default"] and not still_open(idle), "the idle one closed", process)
    assert time.monotonic() - started > 2.5, "closed before it was idle for --idle-timeout"
    assert busy.get_all_databases() == ["default"]
    assert "idle for" in log.read_text()


@pytest.mark.parametrize(
    "stalled",
    [
        # a call that declares a list of a million table names, then sends nothing more
        STRICT_CALL
        + struct.pack(">I", 25)
        + b"get_table_objects_by_name"
        + struct.pack(">i", 1)
        + struct.pack(">bh", 11, 1)
        + struct.pack(">I", 7)
        + b"default"
        + struct.pack(">bhbI", 15, 2, 11, 10**6),
        # half a method name
        STRICT_CALL + struct.pack(">I", 9) + b"get_t",
    ],
    ids=["huge-list", "half-a-name"],
)
def test_a_request_that_stalls_is_dropped(serve, stalled):
    _process, port, log = serve("--read-timeout", "1")
    sock = _connect(port)
    sock.sendall(stalled)
    other = _client(port)
    assert other.get_all_databases() == ["default"]  # answered while the other one stalls
    assert _closed_by_server(sock, within=CLOSE_SECONDS)
    assert "did not arrive within 1 s" in log.read_text()  # dropped for the read timeout
    assert other.get_all_databases() == ["default"]


def test_a_message_declaring_more_than_the_maximum_is_refused_before_it_is_read(serve):
    process, port, log = serve("--max-message-size", "1000000", *LONG_READ_TIMEOUT)
    before = _status(process.pid)
    socks = []
    for _ in range(20):  # twenty method names of 1 GiB each, announced and never sent
        sock = _connect(port)
        sock.sendall(STRICT_CALL + struct.pack(">I", 1 << 30) + b"x" * 100)
        socks.append(sock)
    for sock in socks:
        assert _closed_by_server(sock, within=CLOSE_SECONDS)
    assert "over the maximum message size of 1000000" in log.read_text()
    big = _connect(port)  # sent, not only declared: refused once past the limit
    big.sendall(STRICT_CALL + struct.pack(">I", 3_000_000))
    try:
        big.sendall(b"y" * 3_000_000)
    except (BrokenPipeError, ConnectionResetError):
        pass
    assert _closed_by_server(big, within=CLOSE_SECONDS)
    assert _status(process.pid)["rss_kib"] - before["rss_kib"] < 50 * 1024
    assert _client(port).get_all_databases() == ["default"]
