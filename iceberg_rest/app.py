"""The Iceberg REST catalog as a Starlette application over the ``Catalog`` facade (``make_app``).

Each route reads its request (``requests``), runs one catalog call in a worker thread (``Catalog.call``:
retried through transient database errors, each change one transaction) and answers with the spec's
response, or its error model (``errors``). Namespaces are the catalog's databases (one level), tables its
Iceberg tables (``Catalog.iceberg_tables``).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from hudi_catalog import Catalog
from hudi_catalog.errors import CatalogError
from hudi_catalog.iceberg_tables import IcebergTable, NewIcebergTable, TableChange
from hudi_catalog.model import Database

from .errors import RestError, catalog_error_response, error_response
from .requests import (
    DEFAULT_MAX_BODY_BYTES,
    bad_request,
    database_of,
    identifier_field,
    json_body,
    namespace_field,
    object_list,
    optional_object,
    page,
    path_namespace,
    string_map,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

LOCATION_PROPERTY = "location"
COMMENT_PROPERTY = "comment"
ANONYMOUS = "anonymous"

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


class RestCatalog:
    """The routes' shared state: the catalog and the request limits."""

    def __init__(self, catalog: Catalog, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> None:
        self.catalog = catalog
        self.max_body_bytes = max_body_bytes

    async def run(self, action: Callable[[], T], name: str) -> T:
        """One catalog call, in a worker thread, retried through transient database errors."""
        return await run_in_threadpool(self.catalog.call, action, name)

    async def body(self, request: Request) -> dict[str, Any]:
        return await json_body(request, self.max_body_bytes)

    # -- configuration and namespaces -----------------------------------------------------------------------

    async def config(self, request: Request) -> Response:
        return JSONResponse({"defaults": {}, "overrides": {}, "endpoints": ENDPOINTS})

    async def list_namespaces(self, request: Request) -> Response:
        parent = request.query_params.get("parent")
        names = await self.run(self.catalog.databases.names, "list_namespaces")
        if parent:  # one level: an existing database has no namespaces under it
            levels = parent.split("\x1f")
            if len(levels) != 1 or levels[0] not in names:
                raise RestError(404, "NoSuchNamespaceException", f"Namespace does not exist: {'.'.join(levels)}")
            names = []
        chosen, token = page(request, names)
        return JSONResponse({"namespaces": [[n] for n in chosen], "next-page-token": token})

    async def create_namespace(self, request: Request) -> Response:
        body = await self.body(request)
        namespace = namespace_field(body)
        if len(namespace) != 1 or not namespace[0]:
            raise bad_request(f"Cannot create namespace {namespace}: Hive databases are one level deep")
        properties = string_map(body, "properties")
        rest = dict(properties)
        database = Database(
            namespace[0],
            description=rest.pop(COMMENT_PROPERTY, None),
            location=rest.pop(LOCATION_PROPERTY, None),
            parameters=rest,
            owner_name=_user(request),
            owner_type="USER",
        )
        created = await self.run(lambda: self.catalog.databases.create(database), "create_namespace")
        return JSONResponse({"namespace": [created.name], "properties": _namespace_properties(created)})

    async def load_namespace(self, request: Request) -> Response:
        name = database_of(path_namespace(request))
        database = await self.run(lambda: self.catalog.databases.get(name), "load_namespace")
        return JSONResponse({"namespace": [database.name], "properties": _namespace_properties(database)})

    async def namespace_exists(self, request: Request) -> Response:
        name = database_of(path_namespace(request))
        await self.run(lambda: self.catalog.databases.get(name), "namespace_exists")
        return Response(status_code=204)

    async def drop_namespace(self, request: Request) -> Response:
        name = database_of(path_namespace(request))
        await self.run(lambda: self.catalog.databases.drop(name, delete_data=False, cascade=False), "drop_namespace")
        return Response(status_code=204)

    async def update_namespace_properties(self, request: Request) -> Response:
        name = database_of(path_namespace(request))
        body = await self.body(request)
        removals = body.get("removals") or []
        if not isinstance(removals, list) or not all(isinstance(k, str) for k in removals):
            raise bad_request("'removals' must be a list of strings")
        updates = string_map(body, "updates")
        if set(removals) & set(updates):
            raise RestError(
                422,
                "UnprocessableEntityException",
                f"Properties both updated and removed: {set(removals) & set(updates)}",
            )

        def change() -> dict[str, list[str]]:
            database = self.catalog.databases.get(name)
            properties = _namespace_properties(database)
            missing = [k for k in removals if k not in properties]
            for key in removals:
                properties.pop(key, None)
            properties.update(updates)
            rest = dict(properties)
            changed = Database(
                database.name,
                description=rest.pop(COMMENT_PROPERTY, None),
                location=rest.pop(LOCATION_PROPERTY, database.location),
                parameters=rest,
                owner_name=database.owner_name,
                owner_type=database.owner_type,
                create_time=database.create_time,
                managed_location=database.managed_location,
            )
            self.catalog.databases.alter(name, changed)
            return {
                "updated": sorted(updates),
                "removed": sorted(k for k in removals if k not in missing),
                "missing": missing,
            }

        return JSONResponse(await self.run(change, "update_namespace_properties"))

    # -- tables ---------------------------------------------------------------------------------------------

    async def list_tables(self, request: Request) -> Response:
        namespace = path_namespace(request)
        name = database_of(namespace)
        names = await self.run(lambda: self.catalog.iceberg_tables.names(name), "list_tables")
        chosen, token = page(request, names)
        return JSONResponse(
            {"identifiers": [{"namespace": namespace, "name": n} for n in chosen], "next-page-token": token}
        )

    async def create_table(self, request: Request) -> Response:
        database = database_of(path_namespace(request))
        body = await self.body(request)
        name = body.get("name")
        schema = optional_object(body, "schema")
        if not isinstance(name, str) or not name or schema is None:
            raise bad_request("A table to create needs a 'name' and a 'schema'")
        location = body.get("location")
        if location is not None and not isinstance(location, str):
            raise bad_request("'location' must be a string")
        new = NewIcebergTable(
            name,
            schema,
            optional_object(body, "partition-spec"),
            optional_object(body, "write-order"),
            location,
            string_map(body, "properties"),
            bool(body.get("stage-create", False)),
        )
        owner = _user(request)
        table = await self.run(lambda: self.catalog.iceberg_tables.create(database, new, owner), "create_table")
        return _load_result(table)

    async def register_table(self, request: Request) -> Response:
        database = database_of(path_namespace(request))
        body = await self.body(request)
        name, location = body.get("name"), body.get("metadata-location")
        if not isinstance(name, str) or not name or not isinstance(location, str) or not location:
            raise bad_request("Registering a table needs a 'name' and a 'metadata-location'")
        if body.get("overwrite"):
            raise bad_request("Registering over an existing table (overwrite) is not supported")
        owner = _user(request)
        table = await self.run(
            lambda: self.catalog.iceberg_tables.register(database, name, location, owner), "register_table"
        )
        return _load_result(table)

    async def load_table(self, request: Request) -> Response:
        database = database_of(path_namespace(request))
        name = request.path_params["table"]
        known = request.headers.get("if-none-match")
        if known is not None:
            location = await self.run(lambda: self.catalog.iceberg_tables.location_of(database, name), "load_table")
            if location is not None and _etag(location) in _etags(known):
                return Response(status_code=304, headers={"ETag": _etag(location)})
        table = await self.run(lambda: self.catalog.iceberg_tables.load(database, name), "load_table")
        return _load_result(table)

    async def table_exists(self, request: Request) -> Response:
        database = database_of(path_namespace(request))
        name = request.path_params["table"]
        await self.run(lambda: self.catalog.iceberg_tables.location_of(database, name), "table_exists")
        return Response(status_code=204)

    async def commit_table(self, request: Request) -> Response:
        database = database_of(path_namespace(request))
        name = request.path_params["table"]
        body = await self.body(request)
        change = TableChange(database, name, object_list(body, "requirements"), object_list(body, "updates"))
        user = _user(request)
        try:
            (table,) = await self.run(lambda: self.catalog.iceberg_tables.commit([change], user), "commit_table")
        except CatalogError as error:
            return catalog_error_response(error, committing=True)
        return JSONResponse({"metadata-location": table.metadata_location, "metadata": table.metadata})

    async def commit_transaction(self, request: Request) -> Response:
        body = await self.body(request)
        changes = []
        for item in object_list(body, "table-changes"):
            namespace, name = identifier_field(item, "identifier")
            changes.append(
                TableChange(
                    database_of(namespace), name, object_list(item, "requirements"), object_list(item, "updates")
                )
            )
        user = _user(request)
        try:
            await self.run(lambda: self.catalog.iceberg_tables.commit(changes, user), "commit_transaction")
        except CatalogError as error:
            return catalog_error_response(error, committing=True)
        return Response(status_code=204)

    async def drop_table(self, request: Request) -> Response:
        database = database_of(path_namespace(request))
        name = request.path_params["table"]
        purge = request.query_params.get("purgeRequested", "false").lower() == "true"
        await self.run(lambda: self.catalog.iceberg_tables.drop(database, name, purge), "drop_table")
        return Response(status_code=204)

    async def rename_table(self, request: Request) -> Response:
        body = await self.body(request)
        source_namespace, source = identifier_field(body, "source")
        target_namespace, target = identifier_field(body, "destination")
        source_db = database_of(source_namespace)
        try:
            target_db = database_of(target_namespace)
        except RestError as e:
            raise RestError(404, "NoSuchNamespaceException", str(e)) from e
        await self.run(lambda: self.catalog.iceberg_tables.rename(source_db, source, target_db, target), "rename_table")
        return Response(status_code=204)

    async def report_metrics(self, request: Request) -> Response:
        database = database_of(path_namespace(request))
        name = request.path_params["table"]
        body = await self.body(request)
        log.debug("metrics report for %s.%s: %s", database, name, body.get("report-type"))
        await self.run(lambda: self.catalog.iceberg_tables.location_of(database, name), "report_metrics")
        return Response(status_code=204)


def make_app(catalog: Catalog, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> Starlette:
    """The Iceberg REST catalog application over ``catalog``."""
    rest = RestCatalog(catalog, max_body_bytes)
    namespace = "/v1/namespaces/{namespace}"
    table = namespace + "/tables/{table}"
    routes = [
        Route("/v1/config", _answering(rest.config), methods=["GET"]),
        Route("/v1/namespaces", _answering(rest.list_namespaces), methods=["GET"]),
        Route("/v1/namespaces", _answering(rest.create_namespace), methods=["POST"]),
        Route(namespace, _answering(rest.load_namespace), methods=["GET"]),
        Route(namespace, _answering(rest.namespace_exists), methods=["HEAD"]),
        Route(namespace, _answering(rest.drop_namespace), methods=["DELETE"]),
        Route(namespace + "/properties", _answering(rest.update_namespace_properties), methods=["POST"]),
        Route(namespace + "/tables", _answering(rest.list_tables), methods=["GET"]),
        Route(namespace + "/tables", _answering(rest.create_table), methods=["POST"]),
        Route(namespace + "/register", _answering(rest.register_table), methods=["POST"]),
        Route(table, _answering(rest.load_table), methods=["GET"]),
        Route(table, _answering(rest.table_exists), methods=["HEAD"]),
        Route(table, _answering(rest.commit_table), methods=["POST"]),
        Route(table, _answering(rest.drop_table), methods=["DELETE"]),
        Route(table + "/metrics", _answering(rest.report_metrics), methods=["POST"]),
        Route("/v1/tables/rename", _answering(rest.rename_table), methods=["POST"]),
        Route("/v1/transactions/commit", _answering(rest.commit_transaction), methods=["POST"]),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: _http_error})


def _answering(endpoint: Endpoint) -> Endpoint:
    """``endpoint`` with its errors answered in the spec's error model: a request error as it says, a
    catalog error as ``errors`` maps it, anything else a 500 that names no internals (logged in full)."""

    async def answer(request: Request) -> Response:
        try:
            return await endpoint(request)
        except RestError as error:
            return error_response(error.status, error.error_type, str(error))
        except CatalogError as error:
            return catalog_error_response(error)
        except Exception:
            log.exception("%s %s failed", request.method, request.url.path)
            return error_response(500, "InternalServerError", "The server failed; its log has the details")

    return answer


async def _http_error(request: Request, error: Exception) -> Response:
    """Starlette's own refusals (no such route, method not allowed) in the spec's error model."""
    status = error.status_code if isinstance(error, HTTPException) else 500
    error_type = {404: "NotFoundException", 405: "MethodNotAllowedException"}.get(status, "BadRequestException")
    detail = error.detail if isinstance(error, HTTPException) else "The server failed"
    return error_response(status, error_type, f"{request.method} {request.url.path}: {detail}")


def _user(request: Request) -> str:
    return getattr(request.state, "user", None) or ANONYMOUS


def _namespace_properties(database: Database) -> dict[str, str]:
    properties = dict(database.parameters)
    if database.location:
        properties[LOCATION_PROPERTY] = database.location
    if database.description:
        properties[COMMENT_PROPERTY] = database.description
    return properties


def _etag(metadata_location: str) -> str:
    return '"' + hashlib.sha256(metadata_location.encode("utf-8")).hexdigest()[:32] + '"'


def _etags(header: str) -> set[str]:
    return {tag.strip().removeprefix("W/") for tag in header.split(",")}


def _load_result(table: IcebergTable) -> Response:
    body: dict[str, Any] = {"metadata": table.metadata, "config": {}}
    if table.metadata_location:
        body["metadata-location"] = table.metadata_location
        return JSONResponse(body, headers={"ETag": _etag(table.metadata_location)})
    return JSONResponse(body)
