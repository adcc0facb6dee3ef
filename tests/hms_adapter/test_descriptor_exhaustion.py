"""Running out of descriptors: under a 1,024 open-files limit ``serve`` fits ``--max-connections`` to it at
start (logged), so 1,100 connections find the surplus closed, not the server dead (one process or two
workers); and ``accept`` failing with ``EMFILE`` is waited out and logged, never fatal."""

from __future__ import annotations

import logging
import resource
import socket
import threading
import time

import pytest

from hms_adapter.server import ServingLimits
from hms_adapter.serving import make_server
from hudi_catalog import Catalog
from tests.hms_adapter.serve_process import closed_by_server, serve_process  # noqa: F401  (a fixture)

LIMIT = 1024
CONNECTIONS = 1100


@pytest.fixture
def many_files():
    """This test process may hold some thousands of sockets (both ends of the in-process test's)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 4 * CONNECTIONS if hard == resource.RLIM_INFINITY else min(hard, 4 * CONNECTIONS)
    if wanted < 2 * CONNECTIONS + 100:
        pytest.skip(f"the hard open-files limit ({hard}) is too low for this test")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (LIMIT, LIMIT))


@pytest.mark.parametrize("workers", [1, 2])
def test_more_connections_than_descriptors_leave_the_server_serving(serve_process, many_files, workers):  # noqa: F811
    served = serve_process("--workers", str(workers), preexec_fn=_limited)
    held = []
    try:
        for _ in range(CONNECTIONS):
            held.append(socket.create_connection(("127.0.0.1", served.port), timeout=10))
        time.sleep(1.0)
        assert served.process.poll() is None
        log = served.log_text()
        assert "--max-connections lowered from 8192 to 768" in log, log
        assert "exited" not in log and "Traceback" not in log, log
        for sock in held[:300]:  # some leave: a new client is served
            sock.close()
        time.sleep(0.5)
        started = time.monotonic()
        assert served.client().get_all_databases() == ["default"]
        print(f"{workers} worker(s): a new client's call {time.monotonic() - started:.3f} s after 1,100 connections")
    finally:
        for sock in held:
            sock.close()
    assert served.process.poll() is None
    assert served.client().get_all_databases() == ["default"]


def test_accept_failing_with_emfile_is_waited_out(tmp_path, many_files, caplog):
    """The server in this process, its limit not fitted: connections wait in the backlog while descriptors
    are out, the failure is logged (not once per try), and they are served when descriptors are free."""
    catalog = Catalog.open(f"sqlite:///{tmp_path / 'c.db'}", str(tmp_path / "wh"))
    server = make_server(catalog, "127.0.0.1", 0, limits=ServingLimits(max_connections=10_000, threads=4))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    clients = [socket.socket() for _ in range(200)]  # their descriptors first: only the server runs out
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    spare = 40
    try:
        with caplog.at_level(logging.WARNING, logger="hms_adapter.server"):
            highest = max(sock.fileno() for sock in clients)
            resource.setrlimit(resource.RLIMIT_NOFILE, (highest + spare, hard))
            for sock in clients:
                sock.settimeout(10)
                sock.connect(("127.0.0.1", server.port))
            time.sleep(2.0)
            assert thread.is_alive()
            failures = [r for r in caplog.records if "cannot accept connections" in r.getMessage()]
            assert 1 <= len(failures) <= 2, [r.getMessage() for r in failures]
            for sock in clients[:150]:  # descriptors free again: the waiting connections are taken
                sock.close()
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
            time.sleep(1.5)
            assert thread.is_alive()
            for sock in clients[150:]:
                sock.sendall(b"\x80\x01\x00\x01\x00\x00\x00\x11get_all_databases\x00\x00\x00\x01\x00")
                assert sock.recv(4) == b"\x80\x01\x00\x02"
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        for sock in clients:
            sock.close()
        server.stop()
        thread.join(10)
        catalog.close()
