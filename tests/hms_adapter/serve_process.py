"""A real ``hudi-metastore serve`` process for the tests of hostile and careless clients: started with the
options a test names, with its log, its CPU time, raw sockets and Thrift clients to it, and SASL PLAIN
spoken byte by byte as a hostile client would."""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from thriftpy2.protocol import TCompactProtocolFactory, TCyBinaryProtocolFactory
from thriftpy2.rpc import make_client
from thriftpy2.transport import TCyBufferedTransportFactory, TCyFramedTransportFactory

from tests.conftest import hive
from tests.support.servers import free_port, serve_command, wait_for_port

SASL_START, SASL_OK, SASL_COMPLETE = 1, 2, 5
CLOSE_SECONDS = 120
"""How long a test waits for the server to close a connection it should close: only a ceiling against a
hang (a loaded machine may take seconds). Why it closed is the log's to say, and a test that needs the
close to come before a timeout of the server's sets that timeout well above this."""


@dataclass
class Served:
    process: subprocess.Popen
    port: int
    log: Path

    def log_text(self) -> str:
        return self.log.read_text()

    def cpu_seconds(self) -> float:
        """User and system CPU time the server process (all its threads) used so far."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=10)

    def client(self, transport: str = "buffered", protocol: str = "binary"):
        return make_client(
            hive.ThriftHiveMetastore,
            "127.0.0.1",
            self.port,
            timeout=20_000,
            trans_factory=TCyFramedTransportFactory() if transport == "framed" else TCyBufferedTransportFactory(),
            proto_factory=TCyBinaryProtocolFactory() if protocol == "binary" else TCompactProtocolFactory(),
        )


@pytest.fixture
def serve_process(tmp_path) -> Iterator[Callable[..., Served]]:
    """``serve_process(*options, preexec_fn=None)``: a started server on a free port of 127.0.0.1 (SQLite
    catalog, no metaserver); stopped after the test."""
    started: list[subprocess.Popen] = []

    def start(*options: str, preexec_fn: Callable[[], None] | None = None) -> Served:
        port, log = free_port(), tmp_path / f"server-{len(started)}.log"
        command = serve_command(port, db_url=f"sqlite:///{tmp_path / 'c.db'}", warehouse=tmp_path / "wh", extra=options)
        with open(log, "w") as out:
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, preexec_fn=preexec_fn)
        started.append(process)
        wait_for_port(port, process, log=log)
        return Served(process, port, log)

    yield start
    for process in started:
        process.terminate()
        process.wait(30)


def closed_by_server(sock: socket.socket, within: float) -> bool:
    """Whether the server closes ``sock`` within ``within`` seconds (answers it sent first are read past)."""
    deadline = time.monotonic() + within
    try:
        while True:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            if sock.recv(65536) == b"":
                return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def still_open(sock: socket.socket) -> bool:
    """Whether the server has not closed ``sock`` by now (looked at without waiting; an answer it sent is
    read past)."""
    timeout = sock.gettimeout()
    sock.setblocking(False)
    try:
        while True:
            if sock.recv(65536) == b"":
                return False
    except BlockingIOError:
        return True
    except ConnectionResetError:
        return False
    finally:
        sock.settimeout(timeout)


def sasl_message(status: int, payload: bytes) -> bytes:
    return struct.pack(">BI", status, len(payload)) + payload


def sasl_plain(sock: socket.socket, user: str, password: str) -> None:
    """Authenticate ``sock`` with SASL PLAIN, as Thrift's SASL client sends it."""
    sock.sendall(sasl_message(SASL_START, b"PLAIN") + sasl_message(SASL_OK, f"\0{user}\0{password}".encode()))
    status, length = struct.unpack(">BI", _read(sock, 5))
    _read(sock, length)
    assert status == SASL_COMPLETE, status


def _read(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        assert chunk, "closed by the server"
        data += chunk
    return data


def frame(message: bytes) -> bytes:
    """A frame of the framed transport, or of SASL once negotiated: its length and its bytes."""
    return struct.pack(">I", len(message)) + message


def timed(call: Callable[[], object]) -> float:
    """Seconds ``call`` took."""
    started = time.perf_counter()
    call()
    return time.perf_counter() - started
