"""The namespace routes: a namespace is one of the catalog's databases (Hive's are one level deep); its
properties are the database's parameters, with ``location`` and ``comment`` standing for its location and
description as Iceberg's Hive catalog maps them."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from hudi_catalog.authorization import GLOBAL, Operation
from hudi_catalog.model import Database

from .context import RestContext, caller_of, name_object
from .errors import RestError
from .requests import NAMESPACE_SEPARATOR, bad_request, namespace_field, page, string_map

LOCATION_PROPERTY = "location"
COMMENT_PROPERTY = "comment"


class NamespaceRoutes:
    def __init__(self, context: RestContext) -> None:
        self.context = context
        self.catalog = context.catalog

    async def list(self, request: Request) -> Response:
        parent = request.query_params.get("parent")
        names = await self.context.run(self.catalog.databases.names, "listNamespaces")
        if parent:  # one level: an existing database has no namespaces under it
            levels = parent.split(NAMESPACE_SEPARATOR)
            name_object(request, ".".join(levels))
            if len(levels) != 1 or levels[0] not in names:
                raise RestError(404, "NoSuchNamespaceException", f"Namespace does not exist: {'.'.join(levels)}")
            names = []
        chosen, token = page(request, await self.context.visible_databases(request, names))
        return JSONResponse({"namespaces": [[n] for n in chosen], "next-page-token": token})

    async def create(self, request: Request) -> Response:
        body = await self.context.body(request)
        namespace = namespace_field(body)
        name_object(request, ".".join(namespace))
        if len(namespace) != 1 or not namespace[0]:
            raise bad_request(f"Cannot create namespace {namespace}: Hive databases are one level deep")
        await self.context.authorize(request, Operation.CREATE, GLOBAL, "createNamespace")
        properties = dict(string_map(body, "properties"))
        database = Database(
            namespace[0],
            description=properties.pop(COMMENT_PROPERTY, None),
            location=properties.pop(LOCATION_PROPERTY, None),
            parameters=properties,
            owner_name=caller_of(request).user,
            owner_type="USER",
        )
        created = await self.context.run(lambda: self.catalog.databases.create(database), "createNamespace")
        return JSONResponse({"namespace": [created.name], "properties": _properties(created)})

    async def load(self, request: Request) -> Response:
        name = await self.context.path_database(request, Operation.READ, "loadNamespaceMetadata")
        database = await self.context.run(lambda: self.catalog.databases.get(name), "loadNamespaceMetadata")
        return JSONResponse({"namespace": [database.name], "properties": _properties(database)})

    async def exists(self, request: Request) -> Response:
        name = await self.context.path_database(request, Operation.READ, "namespaceExists")
        await self.context.run(lambda: self.catalog.databases.get(name), "namespaceExists")
        return Response(status_code=204)

    async def drop(self, request: Request) -> Response:
        name = await self.context.path_database(request, Operation.DROP, "dropNamespace")
        await self.context.run(
            lambda: self.catalog.databases.drop(name, delete_data=False, cascade=False), "dropNamespace"
        )
        return Response(status_code=204)

    async def update_properties(self, request: Request) -> Response:
        name = await self.context.path_database(request, Operation.ALTER, "updateProperties")
        body = await self.context.body(request)
        removals = body.get("removals") or []
        if not isinstance(removals, list) or not all(isinstance(k, str) for k in removals):
            raise bad_request("'removals' must be a list of strings")
        updates = string_map(body, "updates")
        both = sorted(set(removals) & set(updates))
        if both:
            raise RestError(422, "UnprocessableEntityException", f"Properties both updated and removed: {both}")

        def change() -> dict[str, list[str]]:
            database = self.catalog.databases.get(name)
            properties = _properties(database)
            missing = [k for k in removals if k not in properties]
            for key in removals:
                properties.pop(key, None)
            properties.update(updates)
            changed = Database(
                database.name,
                description=properties.pop(COMMENT_PROPERTY, None),
                location=properties.pop(LOCATION_PROPERTY, database.location),
                parameters=properties,
                owner_name=database.owner_name,
                owner_type=database.owner_type,
                create_time=database.create_time,
                managed_location=database.managed_location,
            )
            self.catalog.databases.alter(name, changed)
            removed = sorted(k for k in removals if k not in missing)
            return {"updated": sorted(updates), "removed": removed, "missing": missing}

        return JSONResponse(await self.context.run(change, "updateProperties"))


def _properties(database: Database) -> dict[str, str]:
    properties = dict(database.parameters)
    if database.location:
        properties[LOCATION_PROPERTY] = database.location
    if database.description:
        properties[COMMENT_PROPERTY] = database.description
    return properties
