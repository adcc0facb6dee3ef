"""What every route of the REST port shares: the catalog, the port's security, and the steps of a request
(its body read, its caller authenticated and authorized, its catalog call run in a worker thread)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from hudi_catalog import Catalog
from hudi_catalog.authorization import Operation, SecuredObject

from .errors import not_authenticated
from .requests import DEFAULT_MAX_BODY_BYTES, database_of, json_body, path_namespace
from .security import ANONYMOUS, Caller, RestSecurity

log = logging.getLogger(__name__)
T = TypeVar("T")

_BEARER = "bearer "


class RestContext:
    """The catalog behind the port, how it authenticates, and the request limits."""

    def __init__(
        self, catalog: Catalog, security: RestSecurity | None = None, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    ) -> None:
        self.catalog = catalog
        self.security = security or RestSecurity()
        self.max_body_bytes = max_body_bytes

    async def run(self, action: Callable[[], T], name: str) -> T:
        """One catalog call, in a worker thread, retried through transient database errors."""
        return await run_in_threadpool(self.catalog.call, action, name)

    async def body(self, request: Request) -> dict[str, Any]:
        return await json_body(request, self.max_body_bytes)

    async def authenticate(self, request: Request) -> Caller:
        """The request's caller: its bearer token's owner, or ``anonymous`` under ``--auth none``.

        Raises:
            RestError: 401 without a bearer token, or with one the catalog does not accept.
        """
        if self.security.auth == "none":
            return Caller(ANONYMOUS)
        header = request.headers.get("authorization", "")
        if not header.lower().startswith(_BEARER) or not header[len(_BEARER) :].strip():
            raise not_authenticated("A bearer token is required (POST /v1/oauth/tokens, or a delegation token)")
        token = header[len(_BEARER) :].strip()
        identifier = await run_in_threadpool(self.catalog.delegation_tokens.authenticate, token)
        return Caller(identifier.owner, self.security.groups_of(identifier.owner), authenticated=True)

    async def authorize(self, request: Request, action: Operation, target: SecuredObject, operation: str) -> None:
        """``AccessDeniedError`` unless the server's ``--authorization`` lets the caller do ``action`` to
        ``target`` (decided as for the Thrift call that does the same)."""
        if not self.catalog.authorization.policy.enforced:
            return
        caller = caller_of(request)
        user = caller.user if caller.authenticated else None
        await run_in_threadpool(self.catalog.authorization.require, user, action, target, operation, caller.groups)

    async def path_database(self, request: Request, action: Operation, operation: str) -> str:
        """The database the request's path names, the caller authorized to do ``action`` to it (and named
        in the audit line)."""
        database = database_of(path_namespace(request))
        name_object(request, database)
        await self.authorize(request, action, SecuredObject.of_database(database), operation)
        return database

    async def visible_databases(self, request: Request, names: Sequence[str]) -> list[str]:
        caller = caller_of(request)
        if not self.catalog.authorization.policy.enforced:
            return list(names)
        return await run_in_threadpool(
            self.catalog.authorization.visible_databases, caller.user, list(names), caller.groups
        )

    async def visible_tables(self, request: Request, database: str, names: Sequence[str]) -> list[str]:
        caller = caller_of(request)
        if not self.catalog.authorization.policy.enforced:
            return list(names)
        return await run_in_threadpool(
            self.catalog.authorization.visible_tables, caller.user, database, list(names), caller.groups
        )


def caller_of(request: Request) -> Caller:
    return getattr(request.state, "caller", None) or Caller(ANONYMOUS)


def name_object(request: Request, name: str) -> None:
    """Record the object a request acts on, for its audit line."""
    request.state.object_name = name
