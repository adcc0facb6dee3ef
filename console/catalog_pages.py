"""The catalog's pages: catalogs, a catalog's databases, a database's tables, a table, its partitions.

Each reads what the matching Thrift read reads and is authorized as that read is: listings are filtered as
``get_all_databases``/``get_all_tables`` filter them, a table is shown as ``get_table`` would answer it.
"""

from __future__ import annotations

import re

from starlette.requests import Request
from starlette.responses import HTMLResponse

from hudi_catalog.authorization import GLOBAL, Operation, SecuredObject
from hudi_catalog.errors import BatchTooLargeError, InvalidFilterError
from hudi_catalog.hudi.properties import TABLE_TYPE, TABLE_VERSION
from hudi_catalog.iceberg_views import VIEW_PARAM
from hudi_catalog.model import ColumnStatsSet, Partition, Table
from hudi_catalog.partition_names import make_partition_name

from .context import ConsoleContext
from .page import name_object, path_names, viewer_of
from .redaction import shown

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
PAGE_SIZE = 100
"""Partitions on one page."""
TABLES_PAGE = 200
"""Tables on one page of a database (their names are all read, to page and authorize; their models per page)."""
_MAX_PAGE_SIZE = 1000
COUNTED = 10_000
"""Partitions counted at most: beyond, a page says "more than 10,000" (counting a million takes a second)."""


class CatalogPages:
    def __init__(self, context: ConsoleContext) -> None:
        self.context = context
        self.catalog = context.catalog

    async def catalogs(self, request: Request) -> HTMLResponse:
        viewer = viewer_of(request)
        await self.context.authorize(viewer, Operation.READ, GLOBAL, "get_catalogs")
        found = await self.context.run(
            lambda: [self.catalog.catalogs.get(n) for n in self.catalog.catalogs.names()], "get_catalogs"
        )
        return self.context.page(request, "catalogs.html", title="Catalogs", catalogs=found)

    async def databases(self, request: Request) -> HTMLResponse:
        viewer = viewer_of(request)
        (catalog,) = path_names(request, "catalog")
        name_object(request, catalog)
        await self.context.authorize(viewer, Operation.READ, GLOBAL, "get_all_databases")
        found = await self.context.run(
            lambda: (self.catalog.catalogs.get(catalog), self.catalog.databases.names()), "get_all_databases", catalog
        )
        described, names = found
        visible = await self.context.visible_databases(viewer, names, catalog)
        return self.context.page(
            request, "databases.html", title=f"Catalog {catalog}", catalog=described, databases=visible
        )

    async def tables(self, request: Request) -> HTMLResponse:
        viewer = viewer_of(request)
        catalog, database = path_names(request, "catalog", "database")
        name_object(request, database)
        target = SecuredObject.of_database(database)
        await self.context.authorize(viewer, Operation.READ, target, "get_database", catalog)

        after = request.query_params.get("after") or ""
        described, names = await self.context.run(
            lambda: (self.catalog.databases.get(database), self.catalog.tables.names(database)), "get_database", catalog
        )
        visible = sorted(await self.context.visible_tables(viewer, database, names, catalog))
        chosen = [n for n in visible if n > after][: TABLES_PAGE + 1]
        tables = await self.context.run(
            lambda: self.catalog.tables.get_many(database, chosen[:TABLES_PAGE]), "get_table_objects_by_name", catalog
        )
        return self.context.page(
            request,
            "tables.html",
            title=f"Database {database}",
            catalog=catalog,
            database=described,
            parameters=shown(described.parameters),
            tables=sorted(tables, key=lambda t: t.name),
            table_count=len(visible),
            next_after=chosen[TABLES_PAGE - 1] if len(chosen) > TABLES_PAGE else None,
            after=after,
            hudi_type=lambda t: t.parameters.get(TABLE_TYPE),
        )

    async def table(self, request: Request) -> HTMLResponse:
        catalog, database, name = await self.context.readable_table(request, "get_table")

        def read() -> tuple[Table, ColumnStatsSet, int | None]:
            table = self.catalog.tables.get(database, name)
            columns = [c.name for c in table.sd.columns]
            stats = self.catalog.column_stats.of_table(database, name, columns)
            count = (
                self.catalog.partitions.count_by_filter(database, name, None, COUNTED + 1)
                if table.partition_keys
                else None
            )
            return table, stats, count

        table, stats, count = await self.context.run(read, "get_table", catalog)
        return self.context.page(
            request,
            "table.html",
            title=f"Table {table.qualified_name}",
            catalog=catalog,
            table=table,
            parameters=shown(table.parameters),
            serde_parameters=shown(table.sd.serde.parameters),
            storage_parameters=shown(table.sd.parameters),
            stats=stats,
            partition_count=count,
            counted=COUNTED,
            hudi_type=table.parameters.get(TABLE_TYPE),
            hudi_version=table.parameters.get(TABLE_VERSION),
            view=table.parameters.get(VIEW_PARAM),
        )

    async def partitions(self, request: Request) -> HTMLResponse:
        catalog, database, name = await self.context.readable_table(request, "get_partitions_by_filter")
        filter_text = request.query_params.get("filter", "").strip()
        after = request.query_params.get("after") or None
        size = _page_size(request.query_params.get("size"))
        problem = None

        def read() -> tuple[Table, list[Partition], bool, int]:
            table = self.catalog.tables.get(database, name)
            found, more = self.catalog.partitions.page(database, name, filter_text or None, after, size)
            count = self.catalog.partitions.count_by_filter(database, name, filter_text or None, COUNTED + 1)
            return table, found, more, count

        try:
            table, found, more, count = await self.context.run(read, "get_partitions_by_filter", catalog)
        except (InvalidFilterError, BatchTooLargeError) as error:
            problem = _ANSI.sub("", str(error))  # sqlglot marks the place of a parse error with terminal codes
            table = await self.context.run(lambda: self.catalog.tables.get(database, name), "get_table", catalog)
            found, more, count = [], False, 0
        keys = [k.name for k in table.partition_keys]
        rows = [(make_partition_name(keys, p.values), p) for p in found]
        return self.context.page(
            request,
            "partitions.html",
            400 if problem else 200,
            title=f"Partitions of {table.qualified_name}",
            catalog=catalog,
            table=table,
            rows=rows,
            filter_text=filter_text,
            problem=problem,
            count=count,
            counted=COUNTED,
            size=size,
            after=after,
            next_after=rows[-1][0] if more and rows else None,
            shown=shown,
        )


def _page_size(text: str | None) -> int:
    try:
        size = int(text) if text else PAGE_SIZE
    except ValueError:
        return PAGE_SIZE
    return min(max(size, 1), _MAX_PAGE_SIZE)
