"""The table routes over ``Catalog.iceberg_tables``: list, create (staged too), register, load (with ETag
revalidation), exists, commit, drop (with and without purge), rename, multi-table transactions, metrics
reports. Each is authorized as the Thrift call that does the same to the table is."""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from hudi_catalog.authorization import Operation, SecuredObject
from hudi_catalog.errors import CatalogError
from hudi_catalog.iceberg_tables import IcebergTable, NewIcebergTable, TableChange

from .context import RestContext, caller_of, name_object
from .errors import RestError, catalog_error_response
from .requests import (
    bad_request,
    database_of,
    identifier_field,
    object_list,
    optional_object,
    page,
    path_namespace,
    string_map,
)

log = logging.getLogger(__name__)


class TableRoutes:
    def __init__(self, context: RestContext) -> None:
        self.context = context
        self.tables = context.catalog.iceberg_tables

    async def _table(self, request: Request, action: Operation, operation: str) -> tuple[str, str]:
        """The request path's database and table, the caller authorized to do ``action`` to it."""
        database = database_of(path_namespace(request))
        name = request.path_params["table"]
        name_object(request, f"{database}.{name}")
        await self.context.authorize(request, action, SecuredObject.of_table(database, name), operation)
        return database, name

    async def list(self, request: Request) -> Response:
        namespace = path_namespace(request)
        database = await self.context.path_database(request, Operation.READ, "listTables")
        names = await self.context.run(lambda: self.tables.names(database), "listTables")
        chosen, token = page(request, await self.context.visible_tables(request, database, names))
        return JSONResponse(
            {"identifiers": [{"namespace": namespace, "name": n} for n in chosen], "next-page-token": token}
        )

    async def create(self, request: Request) -> Response:
        database = await self.context.path_database(request, Operation.CREATE, "createTable")
        body = await self.context.body(request)
        name = body.get("name")
        schema = optional_object(body, "schema")
        if not isinstance(name, str) or not name or schema is None:
            raise bad_request("A table to create needs a 'name' and a 'schema'")
        name_object(request, f"{database}.{name}")
        location = body.get("location")
        if location is not None and not isinstance(location, str):
            raise bad_request("'location' must be a string")
        stage = body.get("stage-create", False)
        if not isinstance(stage, bool):
            raise bad_request("'stage-create' must be true or false")
        new = NewIcebergTable(
            name,
            schema,
            optional_object(body, "partition-spec"),
            optional_object(body, "write-order"),
            location,
            string_map(body, "properties"),
            stage,
        )
        owner = caller_of(request).user
        table = await self.context.run(lambda: self.tables.create(database, new, owner), "createTable")
        return _load_result(table)

    async def register(self, request: Request) -> Response:
        database = await self.context.path_database(request, Operation.CREATE, "registerTable")
        body = await self.context.body(request)
        name, location = body.get("name"), body.get("metadata-location")
        if not isinstance(name, str) or not name or not isinstance(location, str) or not location:
            raise bad_request("Registering a table needs a 'name' and a 'metadata-location'")
        name_object(request, f"{database}.{name}")
        overwrite = body.get("overwrite", False)
        if not isinstance(overwrite, bool):
            raise bad_request("'overwrite' must be true or false")
        if overwrite:  # it changes the table named, as a commit does
            target = SecuredObject.of_table(database, name)
            await self.context.authorize(request, Operation.ALTER, target, "registerTable")
        user = caller_of(request).user
        table = await self.context.run(
            lambda: self.tables.register(database, name, location, user, overwrite, user), "registerTable"
        )
        return _load_result(table)

    async def load(self, request: Request) -> Response:
        database, name = await self._table(request, Operation.READ, "loadTable")
        known = request.headers.get("if-none-match")
        if known is not None:
            location = await self.context.run(lambda: self.tables.location_of(database, name), "loadTable")
            if _etag(location) in _etags(known):
                return Response(status_code=304, headers={"ETag": _etag(location)})
        table = await self.context.run(lambda: self.tables.load(database, name), "loadTable")
        return _load_result(table)

    async def exists(self, request: Request) -> Response:
        database, name = await self._table(request, Operation.READ, "tableExists")
        await self.context.run(lambda: self.tables.location_of(database, name), "tableExists")
        return Response(status_code=204)

    async def commit(self, request: Request) -> Response:
        database, name = await self._table(request, Operation.ALTER, "updateTable")
        body = await self.context.body(request)
        change = TableChange(database, name, object_list(body, "requirements"), object_list(body, "updates"))
        user = caller_of(request).user
        try:
            (table,) = await self.context.run(lambda: self.tables.commit([change], user), "updateTable")
        except CatalogError as error:
            return catalog_error_response(error, committing=True)
        return JSONResponse({"metadata-location": table.metadata_location, "metadata": table.metadata})

    async def commit_transaction(self, request: Request) -> Response:
        body = await self.context.body(request)
        changes = []
        for item in object_list(body, "table-changes"):
            namespace, name = identifier_field(item, "identifier")
            database = database_of(namespace)
            await self.context.authorize(
                request, Operation.ALTER, SecuredObject.of_table(database, name), "commitTransaction"
            )
            changes.append(TableChange(database, name, object_list(item, "requirements"), object_list(item, "updates")))
        name_object(request, ",".join(f"{c.database}.{c.name}" for c in changes) or "-")
        user = caller_of(request).user
        try:
            await self.context.run(lambda: self.tables.commit(changes, user), "commitTransaction")
        except CatalogError as error:
            return catalog_error_response(error, committing=True)
        return Response(status_code=204)

    async def drop(self, request: Request) -> Response:
        database, name = await self._table(request, Operation.DROP, "dropTable")
        purge = request.query_params.get("purgeRequested", "false").lower() == "true"
        await self.context.run(lambda: self.tables.drop(database, name, purge), "dropTable")
        return Response(status_code=204)

    async def rename(self, request: Request) -> Response:
        body = await self.context.body(request)
        source_namespace, source = identifier_field(body, "source")
        target_namespace, target = identifier_field(body, "destination")
        source_db = database_of(source_namespace)
        try:
            target_db = database_of(target_namespace)
        except RestError as e:
            raise RestError(404, "NoSuchNamespaceException", str(e)) from e
        name_object(request, f"{source_db}.{source}")
        await self.context.authorize(request, Operation.ALTER, SecuredObject.of_table(source_db, source), "renameTable")
        await self.context.authorize(request, Operation.CREATE, SecuredObject.of_database(target_db), "renameTable")
        await self.context.run(lambda: self.tables.rename(source_db, source, target_db, target), "renameTable")
        return Response(status_code=204)

    async def report_metrics(self, request: Request) -> Response:
        database, name = await self._table(request, Operation.READ, "reportMetrics")
        body = await self.context.body(request)
        log.debug("metrics report for %s.%s: %s", database, name, body.get("report-type"))
        await self.context.run(lambda: self.tables.location_of(database, name), "reportMetrics")
        return Response(status_code=204)


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
