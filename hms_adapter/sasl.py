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
import logging
import struct
from collections.abc import Callable, Mapping
from typing import NoReturn, Protocol

log = logging.getLogger(__name__)

START, OK, BAD, ERROR, COMPLETE = 1, 2, 3, 4, 5
MAX_NEGOTIATION_BYTES = 64 * 1024
"""The largest negotiation payload accepted (Kerberos tickets with group data stay far below)."""
MAX_NEGOTIATION_STEPS = 8
NEGOTIATION_TIMEOUT_SECONDS = 30.0
"""A connection's negotiation must be complete this long after it connected."""


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


class ClientSocket(Protocol):
    """Where negotiation answers and frames go: a socket, or the server's ``channel.Channel`` around one."""

    def send(self, data: bytes) -> int: ...

    def sendall(self, data: bytes) -> None: ...

    def close(self) -> None: ...


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
    groups: tuple[str, ...]
    """The user's groups, where the mechanism's identities name them (the password file's); else none."""
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
    """One connection's SASL: the negotiation, one message at a time as the server has read it whole
    (``take_message``, ``negotiate``), then the frames of the answers (``write``/``flush`` for Thrift's
    buffered transport on top); the security layer also unwraps the requests' frames (``channel.Channel``).

    The server reads every message without waiting for missing bytes, so a client that stops half-way
    through its negotiation holds no serving thread; it is dropped ``NEGOTIATION_TIMEOUT_SECONDS`` after it
    connected."""

    def __init__(self, sock: ClientSocket, mechanisms: MechanismFactories) -> None:
        self.sock = sock
        self.layer: SecurityLayer | None = None
        self.mechanism: SaslMechanism | None = None
        """The client's mechanism once it named one; ``complete`` once negotiated."""
        self._mechanisms = mechanisms
        self._steps = 0
        self._wbuf: list[bytes] = []

    def take_message(self, received: bytearray) -> tuple[int, bytes] | None:
        """The negotiation message at the start of ``received``, taken out of it once whole; None while it is
        not. ``SaslRefused`` for one declaring more than ``MAX_NEGOTIATION_BYTES`` (the client is told so if
        its socket takes the answer at once: this runs in the thread that reads every connection)."""
        if len(received) < 5:
            return None
        status, length = struct.unpack_from(">BI", received)
        if length > MAX_NEGOTIATION_BYTES:
            reason = f"negotiation message of {length} bytes is too large"
            try:
                self.sock.send(struct.pack(">BI", BAD, len(reason)) + reason.encode())
            except OSError:
                pass
            raise SaslRefused(reason)
        if len(received) < 5 + length:
            return None
        payload = bytes(received[5 : 5 + length])
        del received[: 5 + length]
        return status, payload

    def negotiate(self, status: int, payload: bytes) -> bool:
        """One step: the client's message answered; whether the negotiation is complete (then ``mechanism``
        says who authenticated, and ``layer`` protects the frames). Raises ``SaslRefused`` (the client was
        told why, in general terms)."""
        if self.mechanism is None:
            if status != START:
                self._refuse(f"expected a START message, got status {status}")
            factory = self._mechanisms.get(payload)
            if factory is None:
                offered = ", ".join(sorted(m.decode() for m in self._mechanisms))
                self._refuse(f"unsupported SASL mechanism {payload[:32]!r}: this server takes {offered}")
            self.mechanism = factory()
            return False
        if status not in (OK, COMPLETE):
            self._refuse(f"expected a response, got status {status}")
        self._steps += 1
        if self._steps > MAX_NEGOTIATION_STEPS:
            self._refuse("too many negotiation steps")
        try:
            challenge = self.mechanism.evaluate(payload)
        except SaslRefused as refused:
            self._refuse(str(refused))
        if self.mechanism.complete:
            self._send(COMPLETE, challenge or b"")
            self.layer = self.mechanism.security_layer
            return True
        self._send(OK, challenge or b"")
        return False

    def _send(self, status: int, payload: bytes) -> None:
        self.sock.sendall(struct.pack(">BI", status, len(payload)) + payload)

    def _refuse(self, reason: str) -> NoReturn:
        try:
            self._send(BAD, reason.encode())
        except OSError:
            pass
        raise SaslRefused(reason)

    # -- the frames of the answers ------------------------------------------------------------------

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
