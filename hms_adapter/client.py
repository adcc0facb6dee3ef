"""A Hive Metastore client for this server in each of its security modes (``hudi-metastore status`` uses it,
and so may a script): plain Thrift, TLS (``serve --tls-cert``, with a client certificate for ``--tls-ca``),
SASL PLAIN (``serve --auth password``) and Kerberos GSSAPI (``serve --auth kerberos``), SASL also over TLS.

```python
security = Security(auth="password", user="alice", password=..., tls_ca="ca.pem")
with connect("thrift://localhost:9083", security) as client:
    client.get_all_databases()
```

The client is thriftpy2's, on the repository's IDL, with the binary protocol on the buffered transport (the
server's defaults; SASL frames the messages itself). The SASL negotiation is the server's
(``hms_adapter/sasl.py``): ``START`` with the mechanism's name, then responses answered by challenges until
``COMPLETE``; then every message is a frame, wrapped by GSSAPI's security layer when one was chosen (the
strongest the server offers). Kerberos uses the current ticket cache (``kinit``; ``KRB5CCNAME``).
"""

from __future__ import annotations

import socket
import ssl
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal, Protocol
from urllib.parse import urlparse

from thriftpy2.protocol.binary import TBinaryProtocol
from thriftpy2.thrift import TClient

from .idl import hive
from .kerberos import HOST_PLACEHOLDER, GssapiLayer, _gssapi
from .sasl import BAD, COMPLETE, ERROR, OK, START, Qop, SecurityLayer

DEFAULT_SERVICE_PRINCIPAL = "hive/_HOST"
"""The server's principal as Hive's clients name it: ``_HOST`` is the URI's host, the realm the default one."""
MAX_BUFFER = 0xFFFFFF
"""The largest wrapped frame this client takes, as it tells a Kerberos server."""
NO_SASL_HINT = "the server requires SASL authentication: connect with --auth password or --auth kerberos"


class ClientError(Exception):
    """The connection could not be made or authenticated; the message says why, in one line."""


@dataclass(frozen=True)
class Security:
    """How to reach the server: its ``serve --auth`` mode and its TLS.

    ``auth``: ``none``, ``password`` (``user`` and ``password``) or ``kerberos`` (the ticket cache's
    principal, for ``kerberos_service_principal``). ``tls_ca``: speak TLS, verifying the server with these
    PEM CA certificates (a self-signed server certificate is its own CA); ``tls_cert`` and ``tls_key``: the
    client certificate for a server started with ``--tls-ca``."""

    auth: Literal["none", "password", "kerberos"] = "none"
    user: str | None = None
    password: str | None = None
    kerberos_service_principal: str = DEFAULT_SERVICE_PRINCIPAL
    tls_ca: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None


@contextmanager
def connect(uri: str, security: Security | None = None, timeout: float = 10.0) -> Iterator[TClient]:
    """A Hive Metastore client of ``thrift://host:port``, connected and authenticated; closed on leaving.
    ``timeout``: seconds for connecting and for each answer. ``ClientError`` when it cannot connect or
    authenticate; the calls raise thriftpy2's exceptions (and ``OSError``)."""
    security = security or Security()
    parsed = urlparse(uri)
    if parsed.scheme != "thrift" or not parsed.hostname or not parsed.port:
        raise ClientError(f"{uri}: expected thrift://host:port")
    host, port = parsed.hostname, parsed.port
    mechanism = _mechanism(security, host)
    context = _tls_context(security)
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
        if context is not None:
            sock = context.wrap_socket(sock, server_hostname=host)
    except ssl.SSLError as error:
        no_tls = error.reason in ("WRONG_VERSION_NUMBER", "UNEXPECTED_EOF_WHILE_READING")
        hint = " (is the server started with --tls-cert?)" if no_tls else ""
        raise ClientError(f"TLS with {host}:{port} failed{hint}: {error}") from error
    except OSError as error:
        raise ClientError(f"cannot connect to {host}:{port}: {error}") from error
    try:
        transport: _PlainTransport | _SaslTransport
        if mechanism is None:
            transport = _PlainTransport(sock)
        else:
            _negotiate(sock, mechanism)
            transport = _SaslTransport(sock, mechanism.layer)
        client = TClient(hive.ThriftHiveMetastore, TBinaryProtocol(transport))
        yield client
    finally:
        sock.close()


def _tls_context(security: Security) -> ssl.SSLContext | None:
    if bool(security.tls_cert) != bool(security.tls_key):
        raise ClientError("a client certificate needs both its certificate and its key (--tls-cert, --tls-key)")
    if security.tls_cert and not security.tls_ca:
        raise ClientError("a client certificate is presented over TLS only: give the CA too (--tls-ca)")
    if not security.tls_ca:
        return None
    try:
        context = ssl.create_default_context(cafile=security.tls_ca)
        if security.tls_cert and security.tls_key:
            context.load_cert_chain(security.tls_cert, security.tls_key)
    except (OSError, ssl.SSLError) as error:
        raise ClientError(f"cannot use the TLS files: {error}") from error
    return context


def _mechanism(security: Security, host: str) -> _Mechanism | None:
    if security.auth == "none":
        return None
    if security.auth == "password":
        if not security.user or security.password is None:
            raise ClientError("password authentication needs a user and a password")
        return _Plain(security.user, security.password)
    if security.auth == "kerberos":
        return _Gssapi(security.kerberos_service_principal.replace(HOST_PLACEHOLDER, host.lower()))
    raise ClientError(f"unknown authentication {security.auth!r} (none, password, kerberos)")


def _receive_some(sock: socket.socket, most: int, closed: str) -> bytes:
    """What one ``recv`` gives, up to ``most`` bytes; ``ClientError(closed)`` when the connection has ended
    (or was reset)."""
    try:
        chunk = sock.recv(most)
    except ConnectionResetError:
        chunk = b""
    if not chunk:
        raise ClientError(closed)
    return chunk


def _receive(sock: socket.socket, size: int, closed: str) -> bytes:
    """Exactly ``size`` bytes; ``ClientError(closed)`` when the connection ends (or is reset) first."""
    data = bytearray()
    while len(data) < size:
        data += _receive_some(sock, size - len(data), closed)
    return bytes(data)


_RECEIVE_SIZE = 65_536


class _PlainTransport:
    """Thrift's buffered transport on the socket: an answer arrives in as few ``recv`` calls as the socket
    allows, not one per field. A server expecting SASL answers a plain call with a SASL refusal (status
    ``BAD``), which is told as such rather than as a malformed answer."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._writes: list[bytes] = []
        self._received = bytearray()
        self._answered = False

    def read(self, size: int) -> bytes:
        while len(self._received) < size:
            self._received += _receive_some(
                self._sock,
                max(_RECEIVE_SIZE, size - len(self._received)),
                "the server closed the connection without answering (a server with TLS needs --tls-ca; "
                "one with --auth, the same --auth)",
            )
        data = bytes(self._received[:size])
        del self._received[:size]
        if not self._answered and data[:1] in (bytes([BAD]), bytes([ERROR])):
            raise ClientError(NO_SASL_HINT)
        self._answered = True
        return data

    def write(self, data: bytes) -> None:
        self._writes.append(bytes(data))

    def flush(self) -> None:
        data, self._writes = b"".join(self._writes), []
        self._sock.sendall(data)

    def close(self) -> None:
        self._sock.close()


class _SaslTransport:
    """The frames after a SASL negotiation: a 4-byte length and the bytes, wrapped by ``layer`` if any."""

    def __init__(self, sock: socket.socket, layer: SecurityLayer | None) -> None:
        self._sock, self._layer = sock, layer
        self._writes: list[bytes] = []
        self._frame = b""

    def read(self, size: int) -> bytes:
        while len(self._frame) < size:
            self._frame += self._next_frame()
        data, self._frame = self._frame[:size], self._frame[size:]
        return data

    def _next_frame(self) -> bytes:
        closed = "the server closed the connection"
        (length,) = struct.unpack(">I", _receive(self._sock, 4, closed))
        frame = _receive(self._sock, length, closed)
        return self._layer.unwrap(frame) if self._layer else frame

    def write(self, data: bytes) -> None:
        self._writes.append(bytes(data))

    def flush(self) -> None:
        data, self._writes = b"".join(self._writes), []
        if self._layer:
            data = self._layer.wrap(data)
        self._sock.sendall(struct.pack(">I", len(data)) + data)

    def close(self) -> None:
        self._sock.close()


class _Mechanism(Protocol):
    """The client side of a SASL mechanism for one connection."""

    name: bytes
    layer: SecurityLayer | None
    """The frames' protection, once negotiated (None: frames as they are)."""

    def initial_response(self) -> bytes: ...

    def evaluate(self, challenge: bytes) -> bytes:
        """The response to the server's ``challenge``."""


def _negotiate(sock: socket.socket, mechanism: _Mechanism) -> None:
    """Thrift's SASL negotiation with ``mechanism``, until the server says ``COMPLETE``."""
    hint = "is it started with this --auth (and with TLS only when --tls-ca is given)?"
    closed = f"the server closed the connection during the SASL negotiation: {hint}"
    try:
        _send(sock, START, mechanism.name)
        response: bytes | None = mechanism.initial_response()
        while response is not None:
            _send(sock, OK, response)
            response = _answer(mechanism, *_message(sock, closed))
    except TimeoutError:
        raise ClientError(f"the server did not answer the SASL negotiation: {hint}") from None
    except (ConnectionResetError, BrokenPipeError):
        raise ClientError(closed) from None


def _message(sock: socket.socket, closed: str) -> tuple[int, bytes]:
    status, length = struct.unpack(">BI", _receive(sock, 5, closed))
    return status, _receive(sock, length, closed)


def _answer(mechanism: _Mechanism, status: int, payload: bytes) -> bytes | None:
    """The response to the server's negotiation message; None once it said ``COMPLETE``."""
    if status in (BAD, ERROR):
        reason = payload.decode("utf-8", "replace")
        raise ClientError(f"the server refused the {mechanism.name.decode()} authentication: {reason}")
    if status == COMPLETE:
        return None
    if status != OK:
        raise ClientError(f"unexpected SASL negotiation status {status}: is this a Hive Metastore?")
    return mechanism.evaluate(payload)


def _send(sock: socket.socket, status: int, payload: bytes) -> None:
    sock.sendall(struct.pack(">BI", status, len(payload)) + payload)


class _Plain:
    """SASL PLAIN (RFC 4616): the user and the password in the first response, no authorization id."""

    name = b"PLAIN"
    layer: SecurityLayer | None = None

    def __init__(self, user: str, password: str) -> None:
        self._user, self._password = user, password

    def initial_response(self) -> bytes:
        return b"\0" + self._user.encode() + b"\0" + self._password.encode()

    def evaluate(self, challenge: bytes) -> bytes:
        raise ClientError("the server sent a challenge to SASL PLAIN: is this a Hive Metastore?")


class _Gssapi:
    """SASL GSSAPI (RFC 4752) with the ticket cache's credentials and mutual authentication: GSS tokens until
    the context is established, then the server's offer of qualities of protection, answered with the
    strongest one and no authorization id (the ticket's principal acts as itself)."""

    name = b"GSSAPI"

    def __init__(self, service_principal: str) -> None:
        try:
            gssapi = _gssapi()
        except RuntimeError as error:
            raise ClientError(str(error)) from None
        self._errors = gssapi.exceptions.GSSError
        self.layer: SecurityLayer | None = None
        try:
            name = gssapi.Name(service_principal, gssapi.NameType.kerberos_principal)
            self._context = gssapi.SecurityContext(
                name=name,
                usage="initiate",
                flags=[gssapi.RequirementFlag.mutual_authentication, gssapi.RequirementFlag.integrity],
            )
        except self._errors as error:
            raise ClientError(f"Kerberos: {error.gen_message()}") from None

    def initial_response(self) -> bytes:
        return self._step(None)

    def evaluate(self, challenge: bytes) -> bytes:
        if not self._context.complete:
            return self._step(challenge)
        try:
            offer = self._context.unwrap(challenge).message
        except self._errors as error:
            raise ClientError(f"Kerberos: {error.gen_message()}") from None
        if len(offer) != 4:
            raise ClientError("malformed GSSAPI security layer offer")
        offered = Qop(offer[0])
        chosen = next((qop for qop in (Qop.AUTH_CONF, Qop.AUTH_INT, Qop.AUTH) if qop & offered), None)
        if chosen is None:
            raise ClientError("the server offers no quality of protection")
        if chosen != Qop.AUTH:
            self.layer = GssapiLayer(self._context, encrypt=chosen == Qop.AUTH_CONF)
        return self._context.wrap(struct.pack(">I", int(chosen) << 24 | MAX_BUFFER), False).message

    def _step(self, token: bytes | None) -> bytes:
        try:
            return self._context.step(token) or b""
        except self._errors as error:
            raise ClientError(f"Kerberos: {error.gen_message()}") from None
