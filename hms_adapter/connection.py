"""What the server knows about the connection a call arrived on (one server thread per connection)."""

from __future__ import annotations

import threading

_local = threading.local()


def start(peer: str) -> None:
    """Called by the server when a thread starts serving a connection from ``peer`` (``host:port``)."""
    _local.peer = peer
    _local.claimed_user = None
    _local.principal = None


def authenticated(principal: str) -> None:
    """The principal the connection authenticated as (SASL)."""
    _local.principal = principal


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
