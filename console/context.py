"""What every console page shares: the catalog, the console's security, the templates, and the steps of a
request (its viewer authenticated, what it reads authorized as the matching Thrift read is, the catalog
calls run in a worker thread in the catalog the page names)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse

from hudi_catalog import Catalog
from hudi_catalog.authorization import Operation, SecuredObject
from hudi_catalog.catalog_scope import catalog_scope
from hudi_catalog.errors import DelegationTokenError

from .metrics_history import MetricsHistory
from .page import name_object, path_names, viewer_of
from .security import ANONYMOUS, SESSION_COOKIE, ConsoleSecurity, Viewer

T = TypeVar("T")


class NotSignedIn(Exception):
    """The request needs a viewer and came without a live session or credentials."""


class ConsoleContext:
    """The catalog behind the console, how it authenticates, its templates and its metrics history."""

    def __init__(self, catalog: Catalog, security: ConsoleSecurity, history: MetricsHistory | None) -> None:
        self.catalog = catalog
        self.security = security
        self.history = history
        self.templates = Environment(
            loader=PackageLoader("console", "templates"),
            autoescape=select_autoescape(default=True),
            trim_blocks=True,
            lstrip_blocks=True,
        )

    async def run(self, action: Callable[[], T], name: str, catalog: str | None = None) -> T:
        """One catalog read, in a worker thread, in catalog ``catalog`` (``hive``: None), retried through
        transient database errors."""

        def scoped() -> T:
            with catalog_scope(catalog):
                return self.catalog.call(action, name)

        return await run_in_threadpool(scoped)

    async def viewer(self, request: Request) -> Viewer:
        """The request's viewer: ``anonymous`` under ``--auth none``; otherwise the owner of its session
        cookie or bearer token, or the user of its HTTP Basic credentials (``--auth password``).

        Raises:
            NotSignedIn: none of these, or a session the catalog no longer accepts.
        """
        if self.security.auth == "none":
            return Viewer(ANONYMOUS)
        header = request.headers.get("authorization", "")
        scheme, _, credentials = header.partition(" ")
        if scheme.lower() == "basic" and self.security.takes_passwords:
            return await self._password_viewer(credentials.strip())
        token = credentials.strip() if scheme.lower() == "bearer" else request.cookies.get(SESSION_COOKIE, "")
        if not token:
            raise NotSignedIn("sign in")
        return await self.session_viewer(token)

    async def session_viewer(self, token: str) -> Viewer:
        """The owner of a delegation token, as a session's viewer."""
        try:
            identifier = await run_in_threadpool(self.catalog.delegation_tokens.authenticate, token)
        except DelegationTokenError as error:
            raise NotSignedIn(str(error)) from None
        owner = identifier.owner
        return Viewer(owner, self.security.groups_of(owner), authenticated=True, session=token)

    async def _password_viewer(self, credentials: str) -> Viewer:
        try:
            user, _, password = base64.b64decode(credentials, validate=True).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            raise NotSignedIn("malformed Basic credentials") from None
        groups = await self.check_password(user, password)
        if groups is None:
            raise NotSignedIn("wrong user or password")
        return Viewer(user, groups, authenticated=True)

    async def check_password(self, user: str, password: str) -> tuple[str, ...] | None:
        check = self.security.check_password
        if check is None or not user:
            return None
        return await run_in_threadpool(check, user, password)

    async def authorize(
        self,
        viewer: Viewer,
        action: Operation,
        target: SecuredObject,
        operation: str,
        catalog: str | None = None,
    ) -> None:
        """``AccessDeniedError`` unless ``--authorization`` lets the viewer do ``action`` to ``target`` (in
        catalog ``catalog``), decided as for the Thrift call ``operation`` that reads the same."""
        if not self.catalog.authorization.policy.enforced:
            return
        user = viewer.user if viewer.authenticated else None
        require = self.catalog.authorization.require
        await self.run(lambda: require(user, action, target, operation, viewer.groups), operation, catalog)

    async def readable_table(self, request: Request, operation: str = "get_table") -> tuple[str, str, str]:
        """The catalog, database and table the request's path names (recorded for its audit line), the viewer
        authorized to read the table as the Thrift call ``operation`` is."""
        catalog, database, table = path_names(request, "catalog", "database", "table")
        name_object(request, f"{database}.{table}")
        target = SecuredObject.of_table(database, table)
        await self.authorize(viewer_of(request), Operation.READ, target, operation, catalog)
        return catalog, database, table

    async def visible_databases(self, viewer: Viewer, names: Sequence[str], catalog: str) -> list[str]:
        if not self.catalog.authorization.policy.enforced:
            return list(names)
        return await self.run(
            lambda: self.catalog.authorization.visible_databases(viewer.user, list(names), viewer.groups),
            "get_databases",
            catalog,
        )

    async def visible_tables(self, viewer: Viewer, database: str, names: Sequence[str], catalog: str) -> list[str]:
        if not self.catalog.authorization.policy.enforced:
            return list(names)
        return await self.run(
            lambda: self.catalog.authorization.visible_tables(viewer.user, database, list(names), viewer.groups),
            "get_tables",
            catalog,
        )

    def page(self, request: Request, template: str, status: int = 200, **values: Any) -> HTMLResponse:
        """``template`` rendered for the request's viewer, with ``values``."""
        values.setdefault("viewer", viewer_of(request))
        page = self.templates.get_template(template).render(request=request, **values)
        return HTMLResponse(page, status_code=status)
