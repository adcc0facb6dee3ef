"""The audit log (``serve --audit-log PATH|-``): one line per call, to its own logger.

A line holds the time, the authenticated principal (``anonymous`` without authentication), the
user the client claimed with ``set_ugi``, the client address, the method, the object it names (database,
table; for the delegation token calls, ``token:OWNER#SEQUENCE``), the partition when the call names one
(its name, or its values as ``[v1,v2]``) and the outcome (``ok`` or the exception's name), tab-separated as
``key=value`` fields. Argument values other than object names never reach it, so no secret can: a token is
named by what its identifier says, never by its string.
"""

from __future__ import annotations

import logging
import sys
from datetime import datetime, timezone

from hudi_catalog.delegation_tokens import MalformedToken, TokenIdentifier, decode_token

from . import connection
from .call_target import CallTarget

AUDIT_LOGGER = "hudi_metastore.audit"
ANONYMOUS = "anonymous"


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


SETTING_METHODS = frozenset({"setMetaConf", "setOption"})
"""Calls of a key and its value, which may be a secret: named by the key alone."""


def object_of_call(method: str, args, target: CallTarget) -> str:
    """What the audit line names: ``db`` or ``db.table`` (``target``), a token for the token calls, the key
    of a setting, ``-`` when the call names nothing."""
    if method in TOKEN_METHODS:
        return _token_object(method, args)
    if method in SETTING_METHODS:
        return _clean(args[0]) if args and isinstance(args[0], str) else "-"
    return _clean(target.describe())


class AuditLog:
    """Writes the audit lines to ``destination``: a file path, or ``-`` for standard output."""

    def __init__(self, destination: str) -> None:
        self.logger = logging.getLogger(AUDIT_LOGGER)
        self.logger.setLevel(logging.INFO)
        self.logger.propagate = False
        handler = logging.StreamHandler(sys.stdout) if destination == "-" else logging.FileHandler(destination)
        handler.setFormatter(logging.Formatter("%(message)s"))
        self.logger.addHandler(handler)

    def record(self, method: str, args, target: CallTarget, outcome: str, elapsed_ms: float) -> None:
        claimed = connection.claimed_user()
        self.write(
            connection.principal() or ANONYMOUS,
            claimed,
            connection.peer(),
            method,
            object_of_call(method, args, target),
            outcome,
            elapsed_ms,
            target.describe_partition(),
        )

    def write(
        self,
        principal: str,
        claimed: str | None,
        client: str,
        method: str,
        object_name: str,
        outcome: str,
        elapsed_ms: float,
        partition: str | None = None,
    ) -> None:
        """One audit line: a Thrift call's (``record``), or a request of another front end (the Iceberg REST
        port names its operations as the REST spec does, ``loadTable``)."""
        self.logger.info(
            "\t".join(
                [
                    f"time={datetime.now(timezone.utc).isoformat(timespec='milliseconds')}",
                    f"principal={_clean(principal)}",
                    f"ugi={_clean(claimed) if claimed else '-'}",
                    f"client={client}",
                    f"method={method}",
                    f"object={_clean(object_name)}",
                    *([f"partition={_clean(partition)}"] if partition is not None else []),
                    f"outcome={outcome}",
                    f"ms={elapsed_ms:.1f}",
                ]
            )
        )
