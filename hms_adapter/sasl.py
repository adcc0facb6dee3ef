"""Thrift's SASL transport on the server side, as Hive Metastore speaks it with ``hive.metastore.sasl.enabled``
(Kerberos GSSAPI and delegation tokens by DIGEST-MD5) and Hive 4 with ``metastore.authentication`` (PLAIN).

Negotiation messages are a status byte, a 4-byte length and a payload: the client sends ``START`` with the
mechanism's name, then ``OK`` (or ``COMPLETE``) messages with its responses; the server answers each with a
challenge, ``OK`` while the mechanism goes on and ``COMPLETE`` when it is done, or ``BAD`` and closes. After
it every message is a frame, a 4-byte length and the bytes; when the mechanism negotiated integrity or
privacy (quality of protection ``auth-int`` or ``auth-conf``), each frame's bytes are wrapped by it.

A mechanism (``SaslMechanism``) is made per connection by the factory registered for its name.
"""

from __future__ import annotations

import enum
import io
import logging
import socket
import struct
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, NoReturn, Protocol

if TYPE_CHECKING:
    from .channel import Channel

log = logging.getLogger(__name__)

START, OK, BAD, ERROR, COMPLETE = 1, 2, 3, 4, 5
MAX_NEGOTIATION_BYTES = 64 * 1024
"""The largest negotiation payload accepted (Kerberos tickets with group data stay far below)."""
MAX_NEGOTIATION_STEPS = 8
NEGOTIATION_TIMEOUT_SECONDS = 30.0
MAX_FRAME_BYTES = 1 << 30


class SaslRefused(Exception):
    """The client's negotiation failed (bad mechanism, bad credentials, malformed): it was told and the
    connection is to be closed."""


class Qop(enum.IntFlag):
    """SASL's qualities of protection, with the bits GSSAPI's security layer negotiation uses."""

    AUTH = 1
    AUTH_INT = 2
    AUTH_CONF = 4

    @classmethod
    def parse(cls, text: str) -> Qop:
        """``auth,auth-int,auth-conf`` (any non-empty subset) as flags; ``ValueError`` on anything else."""
        names = {"auth": cls.AUTH, "auth-int": cls.AUTH_INT, "auth-conf": cls.AUTH_CONF}
        flags = cls(0)
        for name in (part.strip() for part in text.split(",")):
            if name not in names:
                raise ValueError(f"unknown quality of protection {name!r} (auth, auth-int, auth-conf)")
            flags |= names[name]
        return flags

    def names(self) -> list[str]:
        return [
            name
            for flag, name in ((Qop.AUTH, "auth"), (Qop.AUTH_INT, "auth-int"), (Qop.AUTH_CONF, "auth-conf"))
            if flag & self
        ]


class SecurityLayer(Protocol):
    """Integrity or privacy of the frames after negotiation."""

    def wrap(self, data: bytes) -> bytes: ...

    def unwrap(self, data: bytes) -> bytes: ...


class SaslMechanism(Protocol):
    """The server side of one mechanism for one connection."""

    complete: bool
    principal: str | None
    """Who authenticated, once ``complete``."""
    user: str | None
    """The principal's user name (``auth_to_local``'s short name), once ``complete``."""
    method: str
    """Hadoop's name of the authentication method: ``KERBEROS``, ``TOKEN``, ``PASSWORD``."""

    @property
    def security_layer(self) -> SecurityLayer | None:
        """The frames' protection, once ``complete`` (None for ``auth``). Read-only here, so that a mechanism
        may declare the one layer type it makes."""

    def evaluate(self, response: bytes) -> bytes | None:
        """The challenge answering the client's ``response``; ``SaslRefused`` when it fails."""


MechanismFactories = Mapping[bytes, Callable[[], SaslMechanism]]


class SaslServerTransport:
    """The framed byte stream of one authenticated connection (``read``/``write``/``flush`` for Thrift's
    buffered transport on top)."""

    def __init__(self, sock: socket.socket | Channel) -> None:
        self.sock = sock
        self.layer: SecurityLayer | None = None
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

    def _refuse(self, reason: str) -> NoReturn:
        try:
            self._send(BAD, reason.encode())
        except OSError:
            pass
        raise SaslRefused(reason)

    def authenticate(self, mechanisms: MechanismFactories) -> SaslMechanism:
        """Run the negotiation with the mechanism the client names; returns it, complete. Raises
        ``SaslRefused`` (the client was told why, in general terms)."""
        self.sock.settimeout(NEGOTIATION_TIMEOUT_SECONDS)
        try:
            status, name = self._message()
            if status != START:
                self._refuse(f"expected a START message, got status {status}")
            factory = mechanisms.get(name)
            if factory is None:
                offered = ", ".join(sorted(m.decode() for m in mechanisms))
                self._refuse(f"unsupported SASL mechanism {name[:32]!r}: this server takes {offered}")
            mechanism = factory()
            for _ in range(MAX_NEGOTIATION_STEPS):
                status, response = self._message()
                if status not in (OK, COMPLETE):
                    self._refuse(f"expected a response, got status {status}")
                try:
                    challenge = mechanism.evaluate(response)
                except SaslRefused as refused:
                    self._refuse(str(refused))
                if mechanism.complete:
                    self._send(COMPLETE, challenge or b"")
                    self.layer = mechanism.security_layer
                    return mechanism
                self._send(OK, challenge or b"")
            self._refuse("too many negotiation steps")
        except (TimeoutError, struct.error) as error:
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
        frame = self._read_exactly(length)
        self._rbuf = io.BytesIO(self.layer.unwrap(frame) if self.layer else frame)
        return self._rbuf.read(size)

    def buffered(self) -> bool:
        """Whether decoded bytes of a frame are waiting to be read."""
        with self._rbuf.getbuffer() as frame:
            return self._rbuf.tell() < frame.nbytes

    def write(self, data: bytes) -> None:
        self._wbuf.append(bytes(data))

    def flush(self) -> None:
        payload = b"".join(self._wbuf)
        self._wbuf = []
        if payload:
            if self.layer:
                payload = self.layer.wrap(payload)
            self.sock.sendall(struct.pack(">I", len(payload)) + payload)

    def is_open(self) -> bool:
        return True

    def close(self) -> None:
        self.sock.close()
