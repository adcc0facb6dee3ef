"""Thrift frames fuzzed with a fixed seed on both ports (the Hive Metastore port and Hudi's metaserver port):
random bytes, calls of served methods with random or mistyped fields, truncated real calls, and lengths
declared far beyond what follows. Each goes on a connection of its own, whose end the client then closes.
The server stays up and keeps answering, answers a whole message with a Thrift message (a reply, or a
typed exception: a declared one or ``TApplicationException``), its threads stay bounded, and nothing in
its log is a traceback (a handler tripping over a missing argument is the client's bad input).

``HMS_FUZZ_FRAMES`` sets how many frames per port (default 300); ``HMS_FUZZ_SEED`` the seed (default 20261125).
"""

from __future__ import annotations

import os
import random
import socket
import struct
import subprocess
from pathlib import Path

import pytest
from thriftpy2.protocol import TBinaryProtocol
from thriftpy2.rpc import make_client
from thriftpy2.thrift import TType
from thriftpy2.transport import TMemoryBuffer

from hms_adapter.handler import MetastoreHandler
from hms_adapter.idl import metaserver
from hms_adapter.metaserver import MetaserverHandler
from tests.conftest import hive
from tests.support.servers import free_port, serve_command, wait_for_port

FRAMES = int(os.environ.get("HMS_FUZZ_FRAMES", "300"))
SEED = int(os.environ.get("HMS_FUZZ_SEED", "20261125"))
STRICT_CALL = 0x80010001
TYPES = [
    TType.BOOL,
    TType.BYTE,
    TType.DOUBLE,
    TType.I16,
    TType.I32,
    TType.I64,
    TType.STRING,
    TType.STRUCT,
    TType.MAP,
    TType.SET,
    TType.LIST,
]


def _served(service, handler) -> list[str]:
    return sorted(m for m in service.thrift_services if callable(getattr(handler, m, None)))


def _value(rng: random.Random, ttype: int, depth: int) -> bytes:
    """Random bytes of a value of ``ttype`` (sometimes lying about lengths)."""
    if ttype in (TType.BOOL, TType.BYTE):
        return struct.pack(">b", rng.randint(-128, 127))
    if ttype == TType.DOUBLE:
        return struct.pack(">d", rng.uniform(-1e9, 1e9))
    if ttype == TType.I16:
        return struct.pack(">h", rng.randint(-32768, 32767))
    if ttype == TType.I32:
        return struct.pack(">i", rng.randint(-(2**31), 2**31 - 1))
    if ttype == TType.I64:
        return struct.pack(">q", rng.randint(-(2**63), 2**63 - 1))
    if ttype == TType.STRING:
        text = rng.choice([b"", b"default", b"t", bytes(rng.randrange(256) for _ in range(rng.randint(0, 40)))])
        length = len(text) if rng.random() < 0.9 else rng.choice([2**31 - 1, -1, len(text) + 1000])
        return struct.pack(">i", length) + text
    if depth > 3:
        return b"\x00"
    if ttype == TType.STRUCT:
        return _struct(rng, depth + 1)
    count = rng.choice([0, 1, 2, 3, rng.randint(0, 2**31 - 1)])
    if ttype == TType.MAP:
        key, value = rng.choice(TYPES), rng.choice(TYPES)
        body = b"".join(_value(rng, key, depth + 1) + _value(rng, value, depth + 1) for _ in range(min(count, 3)))
        return struct.pack(">bbi", key, value, count) + body
    element = rng.choice(TYPES)
    return struct.pack(">bi", element, count) + b"".join(_value(rng, element, depth + 1) for _ in range(min(count, 3)))


def _struct(rng: random.Random, depth: int = 0) -> bytes:
    fields = []
    for _ in range(rng.randint(0, 5)):
        ttype = rng.choice(TYPES)
        fields.append(
            struct.pack(">bh", ttype, rng.choice([1, 2, 3, 4, rng.randint(-5, 40)])) + _value(rng, ttype, depth)
        )
    return b"".join(fields) + (b"\x00" if rng.random() < 0.95 else b"")


def _call_bytes(service, method: str) -> bytes:
    """A real call of ``method`` with default (mostly empty) arguments."""
    buffer = TMemoryBuffer()
    protocol = TBinaryProtocol(buffer)
    protocol.write_message_begin(method, 1, 7)
    getattr(service, method + "_args")().write(protocol)
    protocol.write_message_end()
    return buffer.getvalue()


def _frame(rng: random.Random, service, methods: list[str]) -> tuple[str, bytes]:
    kind = rng.choice(["bytes", "fields", "truncated", "oversized", "whole"])
    method = rng.choice(methods)
    header = struct.pack(">Ii", STRICT_CALL, len(method)) + method.encode() + struct.pack(">i", rng.randint(0, 99))
    if kind == "bytes":
        return kind, bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
    if kind == "fields":
        return kind, header + _struct(rng)
    real = _call_bytes(service, method)
    if kind == "truncated":
        return kind, real[: rng.randint(1, max(1, len(real) - 1))]
    if kind == "oversized":
        return kind, struct.pack(">Ii", STRICT_CALL, rng.choice([2**31 - 1, 2**30, 5_000_000])) + b"get_"
    return kind, real


def _exchange(port: int, payload: bytes) -> bytes:
    """Send, end our side, and read what the server answers until it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        try:
            sock.sendall(payload)
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            return b""
        chunks = []
        try:
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        except (TimeoutError, ConnectionResetError):
            pass
        return b"".join(chunks)


def _threads(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("Threads:")))


@pytest.fixture
def server(tmp_path):
    port, metaserver_port = free_port(), free_port()
    log = tmp_path / "server.log"
    process = subprocess.Popen(
        serve_command(
            port,
            metaserver_port=metaserver_port,
            db_url=f"sqlite:///{tmp_path / 'c.db'}",
            warehouse=tmp_path / "wh",
            extra=["--threads", "8"],
        ),
        stdout=open(log, "w"),
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_for_port(port, process, log=log)
        wait_for_port(metaserver_port, process, log=log)
        yield process, port, metaserver_port, log
    finally:
        process.terminate()
        process.wait(30)


@pytest.mark.parametrize("port_name", ["hive", "metaserver"])
def test_fuzzed_frames_leave_the_server_up_and_answering(server, port_name):
    process, hive_port, metaserver_port, log = server
    service, handler = (
        (hive.ThriftHiveMetastore, MetastoreHandler)
        if port_name == "hive"
        else (metaserver.ThriftHoodieMetaserver, MetaserverHandler)
    )
    port = hive_port if port_name == "hive" else metaserver_port
    methods = _served(service, handler)
    rng = random.Random(f"{SEED}-{port_name}")
    kinds: dict[str, int] = {}
    for i in range(FRAMES):
        kind, payload = _frame(rng, service, methods)
        answer = _exchange(port, payload)
        kinds[kind] = kinds.get(kind, 0) + 1
        if answer:  # an answer is a Thrift message: a reply or an exception
            (version,) = struct.unpack(">I", answer[:4])
            assert version & 0xFFFF0000 == 0x80010000 and version & 0xFF in (2, 3), (kind, payload[:60], answer[:60])
        if i % 250 == 0:
            client = make_client(hive.ThriftHiveMetastore, "127.0.0.1", hive_port, timeout=10_000)
            assert client.get_all_databases() == ["default"]
            client.close()
    assert process.poll() is None
    assert _threads(process.pid) < 40
    client = make_client(hive.ThriftHiveMetastore, "127.0.0.1", hive_port, timeout=10_000)
    assert client.get_all_databases() == ["default"]
    client.close()
    assert set(kinds) == {"bytes", "fields", "truncated", "oversized", "whole"}
    text = log.read_text()
    assert "Traceback" not in text, "every fuzzed frame is a typed error or a closed connection, not a crash"
