"""Requests of a few dozen bytes that declare more than they hold: lists and maps of 2^31 ``VOID`` or
``STOP`` elements, nested declarations, counts beyond ``--max-message-size``. Sent raw, as a hostile client
would, over buffered and framed transports, binary and compact protocols, and inside SASL frames: each is
refused before any work (its connection closed by the server long before its read timeout, one WARNING
line, no traceback), costs the server about the CPU a plain call does (no more than ``FACTOR`` times it), and
other clients' calls are answered throughout.

The cost is compared with a control (the same number of plain calls, each on a connection of its own)
measured in the server's CPU time on the same machine, not with a fixed number of milliseconds: walking a
declared 2^31 elements would cost seconds, a refusal costs what reading a few bytes does."""

from __future__ import annotations

import os
import struct
import time

import pytest

from tests.hms_adapter.serve_process import (  # noqa: F401  (serve_process: a fixture)
    CLOSE_SECONDS,
    closed_by_server,
    frame,
    sasl_plain,
    serve_process,
    timed,
)
from tests.support.servers import write_passwords

BINARY_CALL = struct.pack(">I", 0x80010001) + struct.pack(">I", 14) + b"get_partitions" + struct.pack(">i", 1)
COMPACT_CALL = bytes([0x82, 0x21, 1, 14]) + b"get_partitions"
READ_TIMEOUT = ["--read-timeout", str(10 * CLOSE_SECONDS)]
"""A read timeout far above the wait for a close: a connection closed within that wait was refused, not
waited out."""
ROUNDS = 5
FACTOR = 10
"""How many times a plain call's CPU a refusal may cost the server (it costs less: no catalog read)."""
TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")
"""What the server's CPU time is counted in (``/proc/PID/stat``): a measure is one tick off at each end."""

HOSTILE = {
    "binary": {
        # the 38 bytes: an unknown field, a list of 2^31 - 1 VOID elements
        "void-list": BINARY_CALL + struct.pack(">bhbi", 15, 9, 1, 2**31 - 1) + b"\x00",
        "void-map": BINARY_CALL + struct.pack(">bhbbi", 13, 9, 1, 1, 2**31 - 1) + b"\x00",
        "nested-lists": BINARY_CALL + struct.pack(">bhbi", 15, 9, 15, 10**6) + struct.pack(">bi", 1, 2**31 - 1) * 8,
        "stop-list": BINARY_CALL + struct.pack(">bhbi", 15, 1, 0, 2**31 - 1) + b"\x00",
        "beyond-the-budget": BINARY_CALL + struct.pack(">bhbi", 15, 9, 12, 2**31 - 1) + b"\x00",
    },
    "compact": {
        "stop-list": COMPACT_CALL + bytes([0x19, 0xF0, 0xFF, 0xFF, 0xFF, 0xFF, 0x07, 0x00]),
        "unknown-elements": COMPACT_CALL + bytes([0x19, 0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0x07, 0x00]),
        "nested-lists": COMPACT_CALL
        + bytes([0x19, 0xF9, 0xC0, 0x84, 0x3D])
        + bytes([0xF9, 0xFF, 0xFF, 0xFF, 0x7F]) * 8,
        "beyond-the-budget": COMPACT_CALL + bytes([0x19, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 0x07, 0x00]),
    },
}


def _attack(served, messages: dict[str, bytes], wrap, prepare=lambda sock: None, other=None) -> dict[str, float]:
    """Send each hostile message on a connection of its own, ``ROUNDS`` times; each is closed by the server
    (within ``CLOSE_SECONDS``, far below its read timeout), and ``other`` (a client's call) is answered after
    each. Returns the figures, for the record: the slowest refusal and other call, CPU per request."""
    figures = {"refused_s": 0.0, "other_call_s": 0.0}
    cpu_before = served.cpu_seconds()
    for _ in range(ROUNDS):
        for name, message in messages.items():
            sock = served.connect()
            prepare(sock)
            started = time.perf_counter()
            sock.sendall(wrap(message))
            assert closed_by_server(sock, within=CLOSE_SECONDS), name
            figures["refused_s"] = max(figures["refused_s"], time.perf_counter() - started)
            sock.close()
            if other is not None:
                figures["other_call_s"] = max(figures["other_call_s"], timed(other))
    figures["cpu_ms_per_request"] = (served.cpu_seconds() - cpu_before) * 1000 / (ROUNDS * len(messages))
    return figures


def _plain_calls_cpu_ms(served, client_of, count: int) -> float:
    """The server's CPU time in ms per plain call (``get_all_databases``), each on a new connection as each
    hostile message is."""
    cpu_before = served.cpu_seconds()
    for _ in range(count):
        client = client_of()
        assert client.get_all_databases() == ["default"]
        client.close()
    return (served.cpu_seconds() - cpu_before) * 1000 / count


@pytest.mark.parametrize("protocol", ["binary", "compact"])
@pytest.mark.parametrize("transport", ["buffered", "framed"])
def test_declarations_beyond_the_bytes_are_refused_before_any_work(serve_process, transport, protocol):  # noqa: F811
    served = serve_process("--transport", transport, "--protocol", protocol, *READ_TIMEOUT)
    client = served.client(transport, protocol)
    assert client.get_all_databases() == ["default"]

    def other() -> None:
        assert client.get_all_databases() == ["default"]

    count = ROUNDS * len(HOSTILE[protocol])
    plain_ms = _plain_calls_cpu_ms(served, lambda: served.client(transport, protocol), count)
    figures = _attack(served, HOSTILE[protocol], frame if transport == "framed" else bytes, other=other)
    print(transport, protocol, figures, f"plain call: {plain_ms:.2f} ms of CPU")
    # accept, read, refuse, close: less than a call that reads the catalog; walking 2^31 items, seconds
    assert figures["cpu_ms_per_request"] <= FACTOR * plain_ms + 4 * TICK_MS / count, (figures, plain_ms)
    log = served.log_text()
    assert log.count("WARNING") >= 5 * len(HOSTILE[protocol]), log
    assert "Traceback" not in log and "ERROR" not in log, log
    assert client.get_all_databases() == ["default"]


def test_inside_sasl_frames_too(serve_process, tmp_path):  # noqa: F811
    passwords = tmp_path / "passwords"
    write_passwords(passwords, {"alice": "s3cret-alice"})
    served = serve_process(
        "--auth", "password", "--password-file", str(passwords), "--allow-plaintext-passwords", *READ_TIMEOUT
    )
    other = served.connect()
    sasl_plain(other, "alice", "s3cret-alice")
    call = frame(struct.pack(">II", 0x80010001, 17) + b"get_all_databases" + struct.pack(">i", 1) + b"\x00")

    def other_call() -> None:  # get_all_databases, answered in a SASL frame
        other.sendall(call)
        length = struct.unpack(">I", other.recv(4))[0]
        answer = b""
        while len(answer) < length:
            answer += other.recv(length - len(answer))
        assert b"default" in answer

    other_call()
    figures = _attack(
        served, HOSTILE["binary"], frame, lambda sock: sasl_plain(sock, "alice", "s3cret-alice"), other_call
    )
    print("sasl", figures)
    log = served.log_text()
    assert "over the maximum message size" in log and "element type 1" in log, log
    assert "Traceback" not in log and "ERROR" not in log, log
