"""The audit line of an HTTP request (the REST port's and the console's): who, from where, which operation
on which object, the outcome by HTTP status, how long it took, written to the server's ``--audit-log``."""

from __future__ import annotations

from typing import Protocol

from starlette.requests import Request


class AuditSink(Protocol):
    """Where a front end writes one line per request (the server's ``AuditLog``)."""

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
    ) -> None: ...


def audit_request(
    audit: AuditSink, request: Request, principal: str, operation: str, status: int, elapsed_ms: float
) -> None:
    """One line for ``request``: ``operation`` on the object the request recorded
    (``request.state.object_name``), ``ok`` or ``http-<status>``."""
    client = f"{request.client.host}:{request.client.port}" if request.client else "-"
    outcome = "ok" if status < 400 else f"http-{status}"
    object_name = getattr(request.state, "object_name", "-")
    audit.write(principal, None, client, operation, object_name, outcome, elapsed_ms)
