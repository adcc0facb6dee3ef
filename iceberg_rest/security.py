"""Who a request of the Iceberg REST port comes from, and the record of what it did.

The port authenticates as the Thrift ports do (``serve --auth``), with bearer tokens: each is a delegation
token of the catalog database (``Catalog.delegation_tokens``), so every server and worker sharing the
database accepts it, and it expires and is cancelled as delegation tokens are.

- ``--auth password``: the spec's OAuth2 token endpoint, ``POST /v1/oauth/tokens`` with the client
  credentials grant: ``client_id`` and ``client_secret`` (or HTTP Basic) are a user and its password in the
  password file; the answer's ``access_token`` is a token owned by that user.
- ``--auth kerberos``: a user gets a delegation token with their ticket over Thrift
  (``get_delegation_token``, as Spark and Hive jobs do) and gives it as the bearer token.
- ``--auth none``: every request is ``anonymous`` (and ``--authorization`` is refused, as for Thrift).
"""

from __future__ import annotations

import ssl
from collections.abc import Callable
from dataclasses import dataclass, field

from http_port.audit import AuditSink

AUTH_MODES = ("none", "password", "kerberos")
ANONYMOUS = "anonymous"


@dataclass(frozen=True)
class Caller:
    """The authenticated user of a request (``anonymous`` without authentication) and its groups."""

    user: str
    groups: tuple[str, ...] = ()
    authenticated: bool = False


@dataclass(frozen=True)
class RestSecurity:
    """How the port authenticates, encrypts, audits and reports (from ``serve``'s options).

    Attributes:
        auth: one of ``AUTH_MODES``.
        check_password: a user's groups when the password is theirs, else None (``--auth password``).
        groups_of: the groups of a user known by a token.
        ssl_context: TLS (``--tls-cert``/``--tls-key``, client certificates with ``--tls-ca``); None: plain HTTP.
        audit: the audit log; None: none kept.
        on_request: hears of each request (operation, HTTP status, seconds): the server's metrics.
    """

    auth: str = "none"
    check_password: Callable[[str, str], tuple[str, ...] | None] | None = None
    groups_of: Callable[[str], tuple[str, ...]] = field(default=lambda user: ())
    ssl_context: ssl.SSLContext | None = None
    audit: AuditSink | None = None
    on_request: Callable[[str, int, float], None] | None = None

    def __post_init__(self) -> None:
        if self.auth not in AUTH_MODES:
            raise ValueError(f"auth must be one of {AUTH_MODES}")
        if self.auth == "password" and self.check_password is None:
            raise ValueError("--auth password needs a password check")
