"""Kerberos on the Hive Metastore port (``serve --auth kerberos``): SASL's GSSAPI mechanism (RFC 4752) as
Hive Metastore accepts it with ``hive.metastore.sasl.enabled``, on the service principal's keytab.

The exchange after the client's first token: GSS context tokens until the context is established (with
mutual authentication the server's last token comes first and the client answers it with an empty
response); then the server offers the qualities of protection it allows and its largest buffer in a
4-byte message wrapped with integrity only, and the client answers, wrapped the same way, with the one it
chose, its largest buffer and an optional authorization id, which must name the authenticated principal
itself (no one acts as another). ``auth-int`` and ``auth-conf`` then wrap every frame (``GssapiLayer``).

Python's ``gssapi`` package (the ``kerberos`` extra; it builds against the system's Kerberos library) is
imported only when Kerberos is configured.
"""

from __future__ import annotations

import logging
import socket
import struct
from typing import TYPE_CHECKING

from .sasl import Qop, SaslRefused

if TYPE_CHECKING:
    import gssapi

log = logging.getLogger(__name__)

MAX_BUFFER = 0xFFFFFF
"""The largest wrapped frame the server takes, as offered to clients (GSSAPI's 3-byte field's limit)."""
HOST_PLACEHOLDER = "_HOST"


def _gssapi():
    try:
        import gssapi
    except ImportError as error:
        raise RuntimeError(
            "Kerberos needs Python's gssapi package: pip install 'hudi-metastore[kerberos]' "
            "(it builds against the system's Kerberos library: Debian's libkrb5-dev)"
        ) from error
    return gssapi


def server_principal(configured: str, bind_host: str) -> str:
    """``hive/_HOST@REALM`` with ``_HOST`` replaced by this host's lower-case name, as Hive does (the name
    the bind address resolves to, or the machine's fully qualified name when it binds every address)."""
    if HOST_PLACEHOLDER not in configured:
        return configured
    wildcard = bind_host in ("", "0.0.0.0", "::")
    host = socket.getfqdn() if wildcard else socket.getfqdn(bind_host)
    return configured.replace(HOST_PLACEHOLDER, host.lower())


def short_name(principal: str, realm: str) -> str:
    """The user name of ``principal`` by Hadoop's default ``auth_to_local`` rule: the first component of a
    principal of the server's own ``realm`` (``alice@REALM`` and ``hive/host@REALM`` are ``alice`` and
    ``hive``); a principal of another realm keeps its full name, so it never passes for a local user."""
    name, _, principal_realm = principal.rpartition("@") if "@" in principal else (principal, "", realm)
    return name.split("/", 1)[0] if principal_realm == realm else principal


class KerberosAcceptor:
    """The server's credentials: its principal's key from the keytab, loaded once and shared by the
    connections. ``mechanism()`` makes the GSSAPI mechanism of one connection."""

    def __init__(self, principal: str, keytab: str, qop: Qop = Qop.AUTH | Qop.AUTH_INT | Qop.AUTH_CONF) -> None:
        gssapi = _gssapi()
        self.principal = principal
        self.realm = principal.rpartition("@")[2]
        self.qop = qop
        name = gssapi.Name(principal, gssapi.NameType.kerberos_principal)
        try:
            self.credentials = gssapi.Credentials(name=name, usage="accept", store={"keytab": keytab})
            self.credentials.inquire()  # fails now, at start, on a keytab without the principal's key
        except gssapi.exceptions.GSSError as error:
            raise RuntimeError(f"cannot use the key of {principal} in {keytab}: {error.gen_message()}") from None
        log.info("Kerberos: accepting tickets for %s", principal)

    def mechanism(self) -> GssapiMechanism:
        return GssapiMechanism(self)


class GssapiLayer:
    """Frames wrapped by the GSS context: signed (``auth-int``) or also encrypted (``auth-conf``)."""

    def __init__(self, context: gssapi.SecurityContext, encrypt: bool) -> None:
        self._context, self._encrypt = context, encrypt

    def wrap(self, data: bytes) -> bytes:
        return self._context.wrap(data, self._encrypt).message

    def unwrap(self, data: bytes) -> bytes:
        gssapi = _gssapi()
        try:
            unwrapped = self._context.unwrap(data)
        except gssapi.exceptions.GSSError as error:
            raise ConnectionError(f"a frame failed its integrity check: {error.gen_message()}") from None
        if self._encrypt and not unwrapped.encrypted:
            raise ConnectionError("a frame came unencrypted on an auth-conf connection")
        return unwrapped.message


class GssapiMechanism:
    """SASL GSSAPI for one connection (see the module's docstring for the exchange)."""

    method = "KERBEROS"

    def __init__(self, acceptor: KerberosAcceptor) -> None:
        gssapi = _gssapi()
        self._gss_error = gssapi.exceptions.GSSError
        self._acceptor = acceptor
        self._context = gssapi.SecurityContext(creds=acceptor.credentials, usage="accept")
        self._offered = False
        self.complete = False
        self.principal: str | None = None
        self.user: str | None = None
        self.groups: tuple[str, ...] = ()  # a Kerberos principal or a token names no groups
        self.security_layer: GssapiLayer | None = None

    def evaluate(self, response: bytes) -> bytes | None:
        try:
            if not self._context.complete:
                token = self._context.step(response)
                if not self._context.complete:
                    return token or b""
                self.principal = str(self._context.initiator_name)
                self.user = short_name(self.principal, self._acceptor.realm)
                if token:  # mutual authentication: the client answers this token with an empty response
                    return token
                return self._offer()
            if not self._offered:
                return self._offer()
            self._accept_choice(response)
            return None
        except self._gss_error as error:
            raise SaslRefused(f"Kerberos: {error.gen_message()}") from None

    def _offer(self) -> bytes:
        self._offered = True
        return self._context.wrap(struct.pack(">I", int(self._acceptor.qop) << 24 | MAX_BUFFER), False).message

    def _accept_choice(self, response: bytes) -> None:
        choice = self._context.unwrap(response).message
        if len(choice) < 4:
            raise SaslRefused("malformed GSSAPI security layer choice")
        word = struct.unpack(">I", choice[:4])[0]
        chosen = word >> 24
        if chosen not in (Qop.AUTH, Qop.AUTH_INT, Qop.AUTH_CONF) or not chosen & self._acceptor.qop:
            raise SaslRefused(
                f"the client chose a quality of protection this server does not allow "
                f"({', '.join(self._acceptor.qop.names())})"
            )
        authorization_id = choice[4:].decode("utf-8", "replace")
        if authorization_id and authorization_id != self.principal:
            raise SaslRefused(f"{self.principal} may not act as {authorization_id}")
        if chosen != Qop.AUTH:
            self.security_layer = GssapiLayer(self._context, encrypt=chosen == Qop.AUTH_CONF)
        self.complete = True
        log.debug("Kerberos: %s authenticated with %s", self.principal, Qop(chosen).names()[0])
        return None
