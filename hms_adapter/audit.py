"""The audit log (``serve --audit-log PATH|-``): one line per call, to its own logger.

A line holds the time, the authenticated principal (``anonymous`` without authentication), the
user the client claimed with ``set_ugi``, the client address, the method, the object it names (database,
table; for the delegation token calls, ``token:OWNER#SEQUENCE``) and the outcome (``ok`` or the exception's
name), tab-separated as ``key=value`` fields. Argument values other than object names never reach it, so no
secret can: a token is named by what its identifier says, never by its string.
"""

from __future__ import annotations

import logging
import sys
from datetime import datetime, timezone

from hudi_catalog.delegation_tokens import MalformedToken, TokenIdentifier, decode_token

from . import connection
from .convert.names import DATABASE_FIELDS, strip_catalog

AUDIT_LOGGER = "hudi_metastore.audit"
ANONYMOUS = "anonymous"
_DATABASE_STRUCT_FIELDS = ("name", "locationUri")
"""A ``Database`` struct (create/alter) is named by its ``name``."""
_TABLE_FIELDS = ("tblName", "tableName", "tbl_name", "tablename")


def _clean(text: str) -> str:
    return "".join(ch if ch.isprintable() and ch not in "\t" else "?" for ch in text)[:256]


TOKEN_METHODS = frozenset(
    {
        "get_delegation_token",
        "renew_delegation_token",
        "cancel_delegation_token",
        "add_token",
        "get_token",
        "remove_token",
        "get_all_token_identifiers",
        "add_master_key",
        "update_master_key",
        "remove_master_key",
        "get_master_keys",
    }
)
"""Calls whose string arguments are tokens or keys (or token owners): never written as they are."""


def _token_object(method: str, args) -> str:
    if method == "get_delegation_token" and args and isinstance(args[0], str):
        return _clean(f"token:{args[0]}")
    if method in ("renew_delegation_token", "cancel_delegation_token") and args and isinstance(args[0], str):
        try:
            identifier = TokenIdentifier.decode(decode_token(args[0])[0])
            return _clean(f"token:{identifier.owner}#{identifier.sequence_number}")
        except MalformedToken:
            pass
    return "token"


def object_of_call(method: str, args) -> str:
    """``db`` or ``db.table`` of a call: its first string arguments (Hive's calls put the database, then the
    table, first), or the database and table fields of its request struct; ``-`` when it names none."""
    if method in TOKEN_METHODS:
        return _token_object(method, args)
    names = [a for a in args[:2] if isinstance(a, str)]
    if not names:
        request = next((a for a in args if hasattr(a, "thrift_spec")), None)
        database = next(
            (getattr(request, f) for f in DATABASE_FIELDS if isinstance(getattr(request, f, None), str)), None
        )
        if database is None and request is not None and all(hasattr(request, f) for f in _DATABASE_STRUCT_FIELDS):
            database = request.name
        table = next((getattr(request, f) for f in _TABLE_FIELDS if isinstance(getattr(request, f, None), str)), None)
        names = [n for n in (database, table) if n]
    if not names:
        return "-"
    names[0] = strip_catalog(names[0]) or names[0]
    return _clean(".".join(names))


class AuditLog:
    """Writes the audit lines to ``destination``: a file path, or ``-`` for standard output."""

    def __init__(self, destination: str) -> None:
        self.logger = logging.getLogger(AUDIT_LOGGER)
        self.logger.setLevel(logging.INFO)
        self.logger.propagate = False
        handler = logging.StreamHandler(sys.stdout) if destination == "-" else logging.FileHandler(destination)
        handler.setFormatter(logging.Formatter("%(message)s"))
        self.logger.addHandler(handler)

    def record(self, method: str, args, outcome: str, elapsed_ms: float) -> None:
        claimed = connection.claimed_user()
        self.logger.info(
            "\t".join(
                [
                    f"time={datetime.now(timezone.utc).isoformat(timespec='milliseconds')}",
                    f"principal={_clean(connection.principal() or ANONYMOUS)}",
                    f"ugi={_clean(claimed) if claimed else '-'}",
                    f"client={connection.peer()}",
                    f"method={method}",
                    f"object={object_of_call(method, args)}",
                    f"outcome={outcome}",
                    f"ms={elapsed_ms:.1f}",
                ]
            )
        )
