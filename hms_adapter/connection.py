"""What the server knows about the connection a call arrived on (one server thread per connection)."""

from __future__ import annotations

import threading

_local = threading.local()


def start(peer: str) -> None:
    """Called by the server when a thread starts serving a connection from ``peer`` (``host:port``)."""
    _local.peer = peer
    _local.claimed_user = None
    _local.principal = None
    _local.user = None
    _local.method = None


def authenticated(principal: str, user: str, method: str) -> None:
    """The connection authenticated (SASL) as ``principal``, whose user name (``auth_to_local``'s short name)
    is ``user``, by ``method`` (``KERBEROS``, ``TOKEN`` or ``PASSWORD``, Hadoop's names)."""
    _local.principal, _local.user, _local.method = principal, user, method


def user() -> str | None:
    """Who the calls run as: the authenticated user; without authentication, the user the client claimed
    with ``set_ugi`` (or None)."""
    return getattr(_local, "user", None) or claimed_user()


def method() -> str | None:
    """How the connection authenticated (see ``authenticated``); None when it did not."""
    return getattr(_local, "method", None)


def principal() -> str | None:
    """The authenticated principal of the connection; None when it did not authenticate."""
    return getattr(_local, "principal", None)


def peer() -> str:
    return getattr(_local, "peer", "-")


def claimed_user() -> str | None:
    """The user the client named with ``set_ugi`` (a claim: nothing authenticates it)."""
    return getattr(_local, "claimed_user", None)


def claim_user(name: str | None) -> None:
    _local.claimed_user = name
