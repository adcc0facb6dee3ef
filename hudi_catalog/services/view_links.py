"""How a Hudi table and its Iceberg view name each other (``services.iceberg_views`` keeps the view), and the
view a drop of the table takes with it."""

from __future__ import annotations

from sqlalchemy import Connection

from ..iceberg_views import VIEW_PARAM
from ..model import Table
from ..store import params, schema
from ..store import tables as table_store
from ..store.tables import TableRecord

SOURCE_PARAM = "hudi.iceberg.source"
"""On a view table: the Hudi table it shows (``database.table``)."""


def view_row(conn: Connection, table: Table) -> TableRecord | None:
    """The ``tbl`` row of ``table``'s Iceberg view, locked: the table named by its ``hudi.iceberg.view`` that
    shows it (``hudi.iceberg.source``). A table of that name showing something else is not its view."""
    name = table.parameters.get(VIEW_PARAM)
    if not name or name == table.name:
        return None
    row = table_store.find_row(conn, table.database, name, lock=True)
    if row is None:
        return None
    source = params.read_params(conn, schema.tbl_params, row.tbl_id).get(SOURCE_PARAM)
    return row if source == table.qualified_name else None
