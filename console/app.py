"""The console as a Starlette application over the ``Catalog`` facade (``make_app``).

Every page request goes the same way (``_Page.handle``): its viewer authenticated (``context``), the page
read and rendered (it authorizes what it reads as the matching Thrift read), any error shown as a page of
its own with the status Hive's error maps to, security headers set, and one audit line written. The pages
hold no script: the content security policy refuses any, and forms and links do the work.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import parse_qs, quote

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import Route

from http_port.audit import audit_request
from hudi_catalog import Catalog
from hudi_catalog.errors import (
    AccessDeniedError,
    CatalogError,
    DelegationTokenError,
    NoSuchObjectError,
    StorageError,
)

from .activity_pages import ActivityPages
from .catalog_pages import CatalogPages
from .context import ConsoleContext, NotSignedIn
from .hudi_pages import HudiPages
from .metrics_history import MetricsHistory
from .page import viewer_of
from .security import ANONYMOUS, SESSION_COOKIE, ConsoleSecurity, Viewer

log = logging.getLogger(__name__)

MAX_FORM_BYTES = 4096
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; "
        "base-uri 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}

Endpoint = Callable[[Request], Awaitable[Response]]


def make_app(
    catalog: Catalog, security: ConsoleSecurity | None = None, history: MetricsHistory | None = None
) -> Starlette:
    """The console over ``catalog``; ``history``: the server's figures for the health page (None: none)."""
    context = ConsoleContext(catalog, security or ConsoleSecurity(), history)
    pages, hudi, activity, sessions = (
        CatalogPages(context),
        HudiPages(context),
        ActivityPages(context),
        _Sessions(context),
    )
    table = "/catalogs/{catalog}/databases/{database}/tables/{table}"
    served: list[tuple[str, str, str, Endpoint]] = [
        ("GET", "/", "catalogs", pages.catalogs),
        ("GET", "/catalogs/{catalog}", "databases", pages.databases),
        ("GET", "/catalogs/{catalog}/databases/{database}", "database", pages.tables),
        ("GET", table, "table", pages.table),
        ("GET", table + "/partitions", "partitions", pages.partitions),
        ("GET", table + "/timeline", "timeline", hudi.timeline),
        ("GET", table + "/slices", "slices", hudi.slices),
        ("GET", table + "/iceberg", "icebergView", hudi.snapshots),
        ("GET", "/activity", "activity", activity.activity),
        ("GET", "/events", "events", activity.events),
        ("GET", "/health", "health", activity.health),
    ]
    routes = [
        Route(path, _Page(context, operation, endpoint).handle, methods=[method])
        for method, path, operation, endpoint in served
    ]
    routes += [
        Route("/login", _Page(context, "login", sessions.form, signed_in=False).handle, methods=["GET"]),
        Route("/login", _Page(context, "login", sessions.sign_in, signed_in=False).handle, methods=["POST"]),
        Route("/logout", _Page(context, "logout", sessions.sign_out).handle, methods=["POST"]),
        Route(
            "/static/console.css", _Page(context, "stylesheet", _stylesheet, signed_in=False).handle, methods=["GET"]
        ),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: _not_served(context)})


class _Page:
    """One route's endpoint with the steps every request takes (see the module doc)."""

    def __init__(self, context: ConsoleContext, operation: str, endpoint: Endpoint, signed_in: bool = True) -> None:
        self.context = context
        self.operation = operation
        self.endpoint = endpoint
        self.signed_in = signed_in

    async def handle(self, request: Request) -> Response:
        started = time.perf_counter()
        try:
            if self.signed_in:
                request.state.viewer = await self.context.viewer(request)
            response = await self.endpoint(request)
        except NotSignedIn as refusal:
            response = _sign_in_first(request, str(refusal))
        except AccessDeniedError as error:
            response = _error_page(self.context, request, 403, "Not allowed", str(error))
        except NoSuchObjectError as error:
            response = _error_page(self.context, request, 404, "Not found", str(error))
        except StorageError:  # the catalog database away (its retries spent): try again later, no details
            log.warning("console %s %s: the catalog database failed", request.method, request.url.path, exc_info=True)
            response = _error_page(self.context, request, 503, "Unavailable", "The catalog database did not answer.")
        except CatalogError as error:
            response = _error_page(self.context, request, 400, "Cannot show this", str(error))
        except Exception:
            log.exception("console %s %s failed", request.method, request.url.path)
            response = _error_page(self.context, request, 500, "The server failed", "Its log has the details.")
        response.headers.update(SECURITY_HEADERS)
        self._audit(request, response, (time.perf_counter() - started) * 1000)
        return response

    def _audit(self, request: Request, response: Response, elapsed_ms: float) -> None:
        audit = self.context.security.audit
        if audit is None:
            return
        viewer = getattr(request.state, "viewer", None)
        principal = viewer.user if viewer is not None else getattr(request.state, "claimed", ANONYMOUS)
        audit_request(audit, request, principal, f"console.{self.operation}", response.status_code, elapsed_ms)


class _Sessions:
    """Signing in (a session token in a cookie) and out (the token cancelled)."""

    def __init__(self, context: ConsoleContext) -> None:
        self.context = context

    async def form(self, request: Request, problem: str | None = None, status: int = 200) -> Response:
        if self.context.security.auth == "none":
            return RedirectResponse("/", status_code=303)
        return self.context.page(
            request,
            "login.html",
            status,
            viewer=Viewer(ANONYMOUS),
            title="Sign in",
            takes_passwords=self.context.security.takes_passwords,
            next_path=_local_path(request.query_params.get("next")),
            problem=problem,
        )

    async def sign_in(self, request: Request) -> Response:
        if self.context.security.auth == "none":
            return RedirectResponse("/", status_code=303)
        body = await request.body()
        if len(body) > MAX_FORM_BYTES:
            return await self.form(request, "The form is too large.", 413)
        fields = {k: v[0] for k, v in parse_qs(body.decode(errors="replace"), keep_blank_values=True).items()}
        user, token = fields.get("user", "").strip(), fields.get("token", "").strip()
        request.state.claimed = user or ANONYMOUS
        if token:
            try:
                viewer = await self.context.session_viewer(token)
            except NotSignedIn as refusal:
                return await self.form(request, f"The token is not accepted: {refusal}", 401)
        else:
            groups = await self.context.check_password(user, fields.get("password", ""))
            if groups is None:
                log.info("console: sign-in refused for %r", user)
                return await self.form(request, "Wrong user name or password.", 401)
            token = await self.context.run(
                lambda: self.context.catalog.delegation_tokens.issue(user, user), "get_delegation_token"
            )
            viewer = Viewer(user, groups, authenticated=True, session=token)
        request.state.viewer = viewer
        response = RedirectResponse(_local_path(fields.get("next")), status_code=303)
        response.set_cookie(
            SESSION_COOKIE,
            token,
            httponly=True,
            samesite="strict",
            secure=self.context.security.ssl_context is not None,
            path="/",
        )
        return response

    async def sign_out(self, request: Request) -> Response:
        viewer = viewer_of(request)
        if viewer.session is not None:
            try:
                await self.context.run(
                    lambda: self.context.catalog.delegation_tokens.cancel(viewer.session or "", viewer.user),
                    "cancel_delegation_token",
                )
            except DelegationTokenError as error:  # gone already: signed out all the same
                log.info("console: signing out %s: %s", viewer.user, error)
        target = "/login" if self.context.security.auth != "none" else "/"
        response = RedirectResponse(target, status_code=303)
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response


STYLESHEET = Path(__file__).parent / "static" / "console.css"


async def _stylesheet(request: Request) -> Response:
    """The one stylesheet (served to anyone: the sign-in page has it too)."""
    return FileResponse(STYLESHEET, media_type="text/css")


def _sign_in_first(request: Request, reason: str) -> Response:
    """A page read without a live session: to the sign-in form and back; a script (a request with an
    ``Authorization`` header) gets 401."""
    if request.headers.get("authorization"):
        return Response(f"not signed in: {reason}\n", status_code=401, media_type="text/plain")
    here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/login?next={quote(here, safe='')}", status_code=303)


def _local_path(target: str | None) -> str:
    """Where to go after signing in: a path of this console only (never another site)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


def _error_page(context: ConsoleContext, request: Request, status: int, title: str, message: str) -> Response:
    return context.page(request, "error.html", status, title=title, message=message)


def _not_served(context: ConsoleContext) -> Callable[[Request, Exception], Awaitable[Response]]:
    async def answer(request: Request, error: Exception) -> Response:
        status = error.status_code if isinstance(error, HTTPException) else 500
        response = _error_page(
            context, request, status, "Not found" if status == 404 else "Not served", request.url.path
        )
        response.headers.update(SECURITY_HEADERS)
        return response

    return answer
