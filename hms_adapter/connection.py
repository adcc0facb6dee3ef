"""What the server knows about the connection a call arrived on.

A connection's state lives in a ``ConnectionState``; the server attaches it to the thread that serves the
connection's next request (``attach``), so the functions below answer for the call being served.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field


@dataclass
class ConnectionState:
    peer: str = "-"
    """``host:port`` of the client."""
    claimed_user: str | None = None
    principal: str | None = None
    user: str | None = None
    method: str | None = None
    groups: tuple[str, ...] = ()
    """The authenticated user's groups, where its identity names them (the password file)."""
    settings: dict[str, str] = field(default_factory=dict)
    """The metastore configuration the client changed with ``setMetaConf``."""
    hive4_client: bool = False
    """The client made a call only Hive 4 clients make (``handler.HIVE4_CALLS``)."""
    records_events: bool = True
    """The connection's changes log notification events (``hudi_record_events`` turns them off for a copy)."""


_local = threading.local()


def start(peer: str) -> ConnectionState:
    """A new connection from ``peer`` (``host:port``), attached to this thread."""
    state = ConnectionState(peer)
    attach(state)
    return state


def attach(state: ConnectionState) -> None:
    """The connection this thread serves from now on."""
    _local.state = state


def current() -> ConnectionState:
    """The state of the connection this thread serves (a fresh one outside a server)."""
    state = getattr(_local, "state", None)
    if state is None:
        state = _local.state = ConnectionState()
    return state


def authenticated(principal: str, user: str, method: str, groups: tuple[str, ...] = ()) -> None:
    """The connection authenticated (SASL) as ``principal``, whose user name (``auth_to_local``'s short name)
    is ``user``, by ``method`` (``KERBEROS``, ``TOKEN`` or ``PASSWORD``, Hadoop's names), a member of
    ``groups``."""
    state = current()
    state.principal, state.user, state.method, state.groups = principal, user, method, groups


def user() -> str | None:
    """Who the calls run as: the authenticated user; without authentication, the user the client claimed
    with ``set_ugi`` (or None)."""
    return current().user or current().claimed_user


def groups() -> tuple[str, ...]:
    """The authenticated user's groups (none without authentication, or where its identity names none)."""
    return current().groups


def method() -> str | None:
    """How the connection authenticated (see ``authenticated``); None when it did not."""
    return current().method


def principal() -> str | None:
    """The authenticated principal of the connection; None when it did not authenticate."""
    return current().principal


def peer() -> str:
    return current().peer


def claimed_user() -> str | None:
    """The user the client named with ``set_ugi`` (a claim: nothing authenticates it)."""
    return current().claimed_user


def claim_user(name: str | None) -> None:
    current().claimed_user = name
