"""Clients that start a request, or a SASL negotiation, and stop sending hold their own connection only:
with more of them than ``--threads``, other clients' calls (and new clients, authenticated or not) are
answered at once, and the stalled ones are dropped after ``--read-timeout``, an unfinished negotiation
after the negotiation timeout."""

from __future__ import annotations

import socket
import struct
import threading
import time

from hms_adapter import server as server_module
from hms_adapter.passwords import PasswordFile, PlainMechanism
from hms_adapter.server import ServingLimits
from hms_adapter.serving import make_server
from hudi_catalog import Catalog
from tests.hms_adapter.serve_process import (  # noqa: F401  (serve_process: a fixture)
    SASL_START,
    closed_by_server,
    frame,
    sasl_message,
    sasl_plain,
    serve_process,
    timed,
)
from tests.support.servers import write_passwords

THREADS = 4
STALLED = 3 * THREADS
STRICT_CALL = struct.pack(">I", 0x80010001)
HALF_A_NAME = STRICT_CALL + struct.pack(">I", 9) + b"get_t"
HALF_A_LIST = STRICT_CALL + struct.pack(">I", 14) + b"get_partitions" + struct.pack(">ibhbi", 1, 15, 9, 11, 1000)
GET_ALL_DATABASES = STRICT_CALL + struct.pack(">I", 17) + b"get_all_databases" + struct.pack(">i", 1) + b"\x00"


def _slowest(calls, rounds: int = 10) -> float:
    return max(timed(call) for _ in range(rounds) for call in calls)


def _stall(served, first_bytes: list[bytes], prepare=lambda sock: None):
    socks = []
    for index in range(STALLED):
        sock = served.connect()
        prepare(sock)
        sock.sendall(first_bytes[index % len(first_bytes)])
        socks.append(sock)
    time.sleep(0.2)  # the server has read what they sent
    return socks


def _dropped_after(socks, seconds: float) -> float:
    """Seconds until the server closed every one of ``socks`` (each within ``seconds``)."""
    started = time.monotonic()
    for sock in socks:
        assert closed_by_server(sock, within=seconds - (time.monotonic() - started))
        sock.close()
    return time.monotonic() - started


def test_half_sent_requests_hold_no_thread(serve_process):  # noqa: F811
    served = serve_process("--threads", str(THREADS), "--read-timeout", "2")
    framed = serve_process("--threads", str(THREADS), "--read-timeout", "2", "--transport", "framed")
    client, framed_client = served.client(), framed.client("framed")
    stalled = _stall(served, [HALF_A_NAME, HALF_A_LIST]) + _stall(
        framed, [struct.pack(">I", 100) + HALF_A_NAME, frame(GET_ALL_DATABASES)[:-3]]
    )
    slowest = _slowest(
        [
            client.get_all_databases,
            framed_client.get_all_databases,
            lambda: served.client().get_all_databases(),  # a new client too
            lambda: framed.client("framed").get_all_databases(),
        ]
    )
    print(f"{len(stalled)} stalled requests; slowest other call {slowest:.3f} s")
    assert slowest < 0.5
    assert _dropped_after(stalled, 4.5) > 1.0
    assert "did not arrive within 2 s" in served.log_text() and "did not arrive within 2 s" in framed.log_text()
    assert client.get_all_databases() == ["default"] and framed_client.get_all_databases() == ["default"]


def test_unfinished_negotiations_hold_no_thread(serve_process, tmp_path):  # noqa: F811
    passwords = tmp_path / "passwords"
    write_passwords(passwords, {"alice": "s3cret-alice"})
    served = serve_process(
        "--threads",
        str(THREADS),
        "--read-timeout",
        "2",
        "--auth",
        "password",
        "--password-file",
        str(passwords),
        "--allow-plaintext-passwords",
    )
    authenticated = served.connect()
    sasl_plain(authenticated, "alice", "s3cret-alice")

    def call() -> None:
        authenticated.sendall(frame(GET_ALL_DATABASES))
        length = struct.unpack(">I", authenticated.recv(4))[0]
        answer = b""
        while len(answer) < length:
            answer += authenticated.recv(length - len(answer))

    def new_client() -> None:
        sock = served.connect()
        sasl_plain(sock, "alice", "s3cret-alice")
        sock.close()

    stalled = _stall(served, [b"\x01", sasl_message(SASL_START, b"PLAIN") + b"\x02\x00"])
    slowest, login = _slowest([call]), timed(new_client)
    print(f"{len(stalled)} stalled negotiations; slowest call {slowest:.3f} s, a new authentication {login:.3f} s")
    assert slowest < 0.5 and login < 1.0
    assert _dropped_after(stalled, 4.5) > 1.0
    assert "did not arrive within 2 s" in served.log_text()
    assert "Traceback" not in served.log_text()


def test_an_unfinished_negotiation_is_dropped_after_the_negotiation_timeout(tmp_path, monkeypatch):
    """Each message whole, but the negotiation never finishes (the client sent its START only)."""
    monkeypatch.setattr(server_module, "NEGOTIATION_TIMEOUT_SECONDS", 1.0)
    write_passwords(tmp_path / "passwords", {"alice": "s3cret-alice"})
    passwords = PasswordFile(str(tmp_path / "passwords"))
    catalog = Catalog.open(f"sqlite:///{tmp_path / 'c.db'}", str(tmp_path / "wh"))
    server = make_server(
        catalog,
        "127.0.0.1",
        0,
        sasl={b"PLAIN": lambda: PlainMechanism(passwords)},
        limits=ServingLimits(read_timeout=60, threads=2),
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        sock.sendall(sasl_message(SASL_START, b"PLAIN"))
        started = time.monotonic()
        assert closed_by_server(sock, within=3)
        assert 0.9 < time.monotonic() - started < 2.5
    finally:
        server.stop()
        thread.join(10)
        catalog.close()
