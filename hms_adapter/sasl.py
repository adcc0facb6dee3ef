"""Thrift's SASL transport on the server side, with the PLAIN mechanism (``serve --auth password``), as Hive
Metastore 4 offers it (``metastore.authentication`` CONFIG/LDAP) and Hive's and Python's SASL clients speak.

Negotiation messages are a status byte, a 4-byte length and a payload: the client sends ``START`` with the
mechanism, then ``OK`` (or ``COMPLETE``) with PLAIN's ``authzid NUL user NUL password``; the server answers
``COMPLETE``, or ``BAD`` and closes. After it, every message is a frame: a 4-byte length and the bytes
(PLAIN has no integrity or privacy layer: use TLS under it).
"""

from __future__ import annotations

import io
import logging
import socket
import struct

from .passwords import PasswordFile

log = logging.getLogger(__name__)

START, OK, BAD, ERROR, COMPLETE = 1, 2, 3, 4, 5
MAX_NEGOTIATION_BYTES = 64 * 1024
"""The largest negotiation payload accepted (PLAIN's are a few dozen bytes)."""
NEGOTIATION_TIMEOUT_SECONDS = 30.0
MAX_FRAME_BYTES = 1 << 30


class SaslRefused(Exception):
    """The client's negotiation failed (bad mechanism, bad credentials, malformed): it was told and the
    connection is to be closed."""


class SaslServerTransport:
    """The framed byte stream of one authenticated connection (``read``/``write``/``flush`` for Thrift's
    buffered transport on top)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._rbuf = io.BytesIO()
        self._wbuf: list[bytes] = []

    def _read_exactly(self, size: int) -> bytes:
        chunks, remaining = [], size
        while remaining:
            chunk = self.sock.recv(min(remaining, 1 << 20))
            if not chunk:
                raise ConnectionError("the client closed the connection")
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)

    def _message(self) -> tuple[int, bytes]:
        status, length = struct.unpack(">BI", self._read_exactly(5))
        if length > MAX_NEGOTIATION_BYTES:
            self._refuse(f"negotiation message of {length} bytes is too large")
        return status, self._read_exactly(length)

    def _send(self, status: int, payload: bytes) -> None:
        self.sock.sendall(struct.pack(">BI", status, len(payload)) + payload)

    def _refuse(self, reason: str) -> None:
        try:
            self._send(BAD, reason.encode())
        except OSError:
            pass
        raise SaslRefused(reason)

    def authenticate_plain(self, passwords: PasswordFile) -> str:
        """Run the negotiation; returns the authenticated user. Raises ``SaslRefused``."""
        self.sock.settimeout(NEGOTIATION_TIMEOUT_SECONDS)
        try:
            status, mechanism = self._message()
            if status != START:
                self._refuse(f"expected a START message, got status {status}")
            if mechanism != b"PLAIN":
                self._refuse(f"unsupported SASL mechanism {mechanism[:32]!r}: this server takes PLAIN")
            status, response = self._message()
            if status not in (OK, COMPLETE):
                self._refuse(f"expected the PLAIN response, got status {status}")
            parts = response.split(b"\0")
            if len(parts) != 3:
                self._refuse("malformed PLAIN response")
            authzid, user, password = (p.decode("utf-8", "replace") for p in parts)
            if (authzid and authzid != user) or not passwords.check(user, password):
                self._refuse("authentication failed")  # the same answer for a wrong user and a wrong password
            self._send(COMPLETE, b"")
            return user
        except (struct.error, socket.timeout) as error:
            raise SaslRefused(f"negotiation broken off: {error}") from error
        finally:
            self.sock.settimeout(None)

    # -- the framed stream --------------------------------------------------------------------------

    def read(self, size: int) -> bytes:
        """Up to ``size`` bytes, as a socket reads: what is left of the current frame, else the next one's."""
        data = self._rbuf.read(size)
        if data:
            return data
        length = struct.unpack(">I", self._read_exactly(4))[0]
        if length > MAX_FRAME_BYTES:
            raise ConnectionError(f"frame of {length} bytes is too large")
        self._rbuf = io.BytesIO(self._read_exactly(length))
        return self._rbuf.read(size)

    def write(self, data: bytes) -> None:
        self._wbuf.append(bytes(data))

    def flush(self) -> None:
        payload = b"".join(self._wbuf)
        self._wbuf = []
        if payload:
            self.sock.sendall(struct.pack(">I", len(payload)) + payload)

    def is_open(self) -> bool:
        return True

    def close(self) -> None:
        self.sock.close()
