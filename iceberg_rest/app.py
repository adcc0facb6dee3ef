"""The Iceberg REST catalog as a Starlette application over the ``Catalog`` facade (``make_app``).

Every request goes the same way (``_Handled.handle``): its caller authenticated (``context``; not for the token
endpoint, which is how a caller gets a token), the route run (it authorizes, reads the request and makes
one catalog call in a worker thread: retried through transient database errors, each change one
transaction), any error answered in the spec's error model (``errors``), and one audit line written.
Namespaces are the catalog's databases (``namespaces``), tables its Iceberg tables (``tables``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from http_port.audit import audit_request
from hudi_catalog import Catalog
from hudi_catalog.errors import CatalogError

from .context import RestContext, caller_of
from .errors import RestError, catalog_error_response, error_response
from .namespaces import NamespaceRoutes
from .requests import DEFAULT_MAX_BODY_BYTES
from .security import RestSecurity
from .tables import TableRoutes
from .tokens import OAuthError, TokenRoute

log = logging.getLogger(__name__)

ENDPOINTS = [
    "GET /v1/{prefix}/namespaces",
    "POST /v1/{prefix}/namespaces",
    "GET /v1/{prefix}/namespaces/{namespace}",
    "HEAD /v1/{prefix}/namespaces/{namespace}",
    "DELETE /v1/{prefix}/namespaces/{namespace}",
    "POST /v1/{prefix}/namespaces/{namespace}/properties",
    "GET /v1/{prefix}/namespaces/{namespace}/tables",
    "POST /v1/{prefix}/namespaces/{namespace}/tables",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/register",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
    "POST /v1/{prefix}/tables/rename",
    "POST /v1/{prefix}/transactions/commit",
]
"""What ``GET /v1/config`` tells clients the server serves (no views)."""

Endpoint = Callable[[Request], Awaitable[Response]]


def make_app(
    catalog: Catalog, security: RestSecurity | None = None, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
) -> Starlette:
    """The Iceberg REST catalog application over ``catalog``."""
    context = RestContext(catalog, security, max_body_bytes)
    namespaces, tables, token = NamespaceRoutes(context), TableRoutes(context), TokenRoute(context)
    namespace = "/v1/namespaces/{namespace}"
    table = namespace + "/tables/{table}"

    async def config(request: Request) -> Response:
        return JSONResponse({"defaults": {}, "overrides": {}, "endpoints": ENDPOINTS})

    served: list[tuple[str, str, str, Endpoint]] = [
        ("GET", "/v1/config", "getConfig", config),
        ("POST", "/v1/oauth/tokens", "getToken", token.issue),
        ("GET", "/v1/namespaces", "listNamespaces", namespaces.list),
        ("POST", "/v1/namespaces", "createNamespace", namespaces.create),
        # HEAD before GET: Starlette answers HEAD with a path's GET route when that comes first
        ("HEAD", namespace, "namespaceExists", namespaces.exists),
        ("GET", namespace, "loadNamespaceMetadata", namespaces.load),
        ("DELETE", namespace, "dropNamespace", namespaces.drop),
        ("POST", namespace + "/properties", "updateProperties", namespaces.update_properties),
        ("GET", namespace + "/tables", "listTables", tables.list),
        ("POST", namespace + "/tables", "createTable", tables.create),
        ("POST", namespace + "/register", "registerTable", tables.register),
        ("HEAD", table, "tableExists", tables.exists),
        ("GET", table, "loadTable", tables.load),
        ("POST", table, "updateTable", tables.commit),
        ("DELETE", table, "dropTable", tables.drop),
        ("POST", table + "/metrics", "reportMetrics", tables.report_metrics),
        ("POST", "/v1/tables/rename", "renameTable", tables.rename),
        ("POST", "/v1/transactions/commit", "commitTransaction", tables.commit_transaction),
    ]
    routes = [
        Route(path, _Handled(context, operation, endpoint, operation != "getToken").handle, methods=[method])
        for method, path, operation, endpoint in served
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: _http_error})


class _Handled:
    """One route's endpoint with the steps every request takes (see the module doc)."""

    def __init__(self, context: RestContext, operation: str, endpoint: Endpoint, authenticate: bool) -> None:
        self.context = context
        self.operation = operation
        self.endpoint = endpoint
        self.authenticate = authenticate

    async def handle(self, request: Request) -> Response:
        started = time.perf_counter()
        try:
            if self.authenticate:
                request.state.caller = await self.context.authenticate(request)
            response = await self.endpoint(request)
        except RestError as error:
            response = error_response(error.status, error.error_type, str(error), error.headers)
        except OAuthError as error:
            response = error.response()
        except CatalogError as error:
            response = catalog_error_response(error)
        except Exception:
            log.exception("%s %s failed", request.method, request.url.path)
            response = error_response(500, "InternalServerError", "The server failed; its log has the details")
        elapsed = time.perf_counter() - started
        self._audit(request, response, elapsed * 1000)
        on_request = self.context.security.on_request
        if on_request is not None:
            on_request(self.operation, response.status_code, elapsed)
        return response

    def _audit(self, request: Request, response: Response, elapsed_ms: float) -> None:
        audit = self.context.security.audit
        if audit is not None:
            audit_request(audit, request, caller_of(request).user, self.operation, response.status_code, elapsed_ms)


async def _http_error(request: Request, error: Exception) -> Response:
    """Starlette's own refusals (no such route, method not allowed) in the spec's error model."""
    status = error.status_code if isinstance(error, HTTPException) else 500
    error_type = {404: "NotFoundException", 405: "MethodNotAllowedException"}.get(status, "BadRequestException")
    detail = error.detail if isinstance(error, HTTPException) else "The server failed"
    return error_response(status, error_type, f"{request.method} {request.url.path}: {detail}")
