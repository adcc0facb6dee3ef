"""Who a console request comes from.

The console authenticates as the other front ends do (``serve --auth``), and its sessions are delegation
tokens of the catalog database, as the Iceberg REST port's bearer tokens are: every server and worker
sharing the database accepts a session, and it expires and is cancelled as delegation tokens are.

- ``--auth password``: the login form takes a user and its password from the password file; the session is
  a new token owned by that user, kept in an HttpOnly, SameSite=Strict cookie (Secure under TLS). Scripts
  may send HTTP Basic credentials instead.
- ``--auth kerberos``: the login form (or an ``Authorization: Bearer`` header) takes a delegation token the
  user got with their ticket over Thrift (``get_delegation_token``), as the REST port does.
- ``--auth none``: every request is ``anonymous``.

Logging out cancels the token.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable
from dataclasses import dataclass, field

from http_port.audit import AuditSink

AUTH_MODES = ("none", "password", "kerberos")
ANONYMOUS = "anonymous"
SESSION_COOKIE = "hudi_metastore_console"


@dataclass(frozen=True)
class Viewer:
    """The user a request runs as (``anonymous`` without authentication), its groups and, when it came with
    a session, the session's token."""

    user: str
    groups: tuple[str, ...] = ()
    authenticated: bool = False
    session: str | None = None


@dataclass(frozen=True)
class ConsoleSecurity:
    """How the console authenticates, encrypts and audits (from ``serve``'s options).

    Attributes:
        auth: one of ``AUTH_MODES``.
        check_password: a user's groups when the password is theirs, else None (``--auth password``).
        groups_of: the groups of a user known by a token.
        ssl_context: TLS (``--tls-cert``/``--tls-key``); None: plain HTTP.
        audit: the audit log; None: none kept.
    """

    auth: str = "none"
    check_password: Callable[[str, str], tuple[str, ...] | None] | None = None
    groups_of: Callable[[str], tuple[str, ...]] = field(default=lambda user: ())
    ssl_context: ssl.SSLContext | None = None
    audit: AuditSink | None = None

    def __post_init__(self) -> None:
        if self.auth not in AUTH_MODES:
            raise ValueError(f"auth must be one of {AUTH_MODES}")
        if self.auth == "password" and self.check_password is None:
            raise ValueError("--auth password needs a password check")

    @property
    def takes_passwords(self) -> bool:
        return self.auth == "password"
