"""Clients that start a request, or a SASL negotiation, and stop sending hold their own connection only:
with more of them than ``--threads``, other clients' calls (and new clients, authenticated or not) are
answered while the stalled ones wait (before the read timeout drops any of them), and the stalled ones are
dropped after ``--read-timeout``, an unfinished negotiation after the negotiation timeout.

"Answered while they wait", not "answered within so many seconds": were the stalled requests holding the
server's threads, no other call would be answered before the read timeout dropped some of them."""

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
    CLOSE_SECONDS,
    SASL_START,
    closed_by_server,
    frame,
    sasl_message,
    sasl_plain,
    serve_process,
    still_open,
)
from tests.support.servers import write_passwords

THREADS = 4
STALLED = 3 * THREADS
READ_TIMEOUT = 5
"""``--read-timeout`` of the servers: the other clients' calls are made within it (on an idle machine they
take milliseconds), the stalled connections are dropped after it."""
STRICT_CALL = struct.pack(">I", 0x80010001)
HALF_A_NAME = STRICT_CALL + struct.pack(">I", 9) + b"get_t"
HALF_A_LIST = STRICT_CALL + struct.pack(">I", 14) + b"get_partitions" + struct.pack(">ibhbi", 1, 15, 9, 11, 1000)
GET_ALL_DATABASES = STRICT_CALL + struct.pack(">I", 17) + b"get_all_databases" + struct.pack(">i", 1) + b"\x00"


def _answered_while_stalled(calls, stalled, rounds: int = 2) -> None:
    """Each of ``calls`` is made ``rounds`` times (each must answer), and every ``stalled`` connection is still
    open after them: they were answered while the stalled ones held their connections."""
    for _ in range(rounds):
        for call in calls:
            call()
    assert all(still_open(sock) for sock in stalled), "the calls were answered only once stalled ones were dropped"


def _databases(client) -> None:
    assert client.get_all_databases() == ["default"]


def _stall(served, first_bytes: list[bytes], prepare=lambda sock: None):
    socks = []
    for index in range(STALLED):
        sock = served.connect()
        prepare(sock)
        sock.sendall(first_bytes[index % len(first_bytes)])
        socks.append(sock)
    time.sleep(0.2)  # the server has read what they sent
    return socks


def _dropped(socks) -> None:
    """The server closes every one of ``socks`` (``CLOSE_SECONDS`` only bounds a hang)."""
    for sock in socks:
        assert closed_by_server(sock, within=CLOSE_SECONDS)
        sock.close()


def test_half_sent_requests_hold_no_thread(serve_process):  # noqa: F811
    served = serve_process("--threads", str(THREADS), "--read-timeout", str(READ_TIMEOUT))
    framed = serve_process("--threads", str(THREADS), "--read-timeout", str(READ_TIMEOUT), "--transport", "framed")
    client, framed_client = served.client(), framed.client("framed")
    stalled = _stall(served, [HALF_A_NAME, HALF_A_LIST]) + _stall(
        framed, [struct.pack(">I", 100) + HALF_A_NAME, frame(GET_ALL_DATABASES)[:-3]]
    )
    _answered_while_stalled(
        [
            lambda: _databases(client),
            lambda: _databases(framed_client),
            lambda: _databases(served.client()),  # a new client too
            lambda: _databases(framed.client("framed")),
        ],
        stalled,
    )
    _dropped(stalled)
    dropped = f"did not arrive within {READ_TIMEOUT} s"
    assert dropped in served.log_text() and dropped in framed.log_text()
    assert client.get_all_databases() == ["default"] and framed_client.get_all_databases() == ["default"]


def test_unfinished_negotiations_hold_no_thread(serve_process, tmp_path):  # noqa: F811
    passwords = tmp_path / "passwords"
    write_passwords(passwords, {"alice": "s3cret-alice"})
    served = serve_process(
        "--threads",
        str(THREADS),
        "--read-timeout",
        str(READ_TIMEOUT),
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
    _answered_while_stalled([call, new_client], stalled)
    _dropped(stalled)
    assert f"did not arrive within {READ_TIMEOUT} s" in served.log_text()
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
        limits=ServingLimits(read_timeout=10 * CLOSE_SECONDS, threads=2),  # not the read timeout's close
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        sock.sendall(sasl_message(SASL_START, b"PLAIN"))
        started = time.monotonic()
        assert closed_by_server(sock, within=CLOSE_SECONDS)  # the negotiation timeout's, not the read timeout's
        assert time.monotonic() - started > 0.9  # not before it
    finally:
        server.stop()
        thread.join(10)
        catalog.close()
