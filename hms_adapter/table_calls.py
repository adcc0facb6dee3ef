"""The HMS table calls of ``MetastoreHandler``, Hive 3/4's request forms included: convert, call
``Catalog.tables``, convert back. Listings show the tables the caller may see; a ``get_fields``/``get_schema``
of a missing table answers ``UnknownTableException``."""

from __future__ import annotations

from collections.abc import Callable

from hudi_catalog import Catalog
from hudi_catalog.authorization import ObjectType, Operation
from hudi_catalog.errors import InvalidFilterError, NoSuchTableError
from hudi_catalog.model import EXPECTED_KEY, EXPECTED_VALUE, MATERIALIZED_VIEW

from .access_rules import access
from .call_helpers import bare_db, env_properties
from .convert.constraints import from_thrift_constraints
from .convert.names import strip_catalog
from .convert.privileges import from_thrift_table_privileges
from .convert.table import from_thrift_table, to_thrift_columns, to_thrift_table, to_thrift_table_meta
from .idl import hive

ACCESS_READ_WRITE = 8
"""Hive 4's ``ACCESSTYPE_READWRITE`` of ``ExtendedTableInfo``."""
GET_TABLES_ACCESS_TYPE, GET_TABLES_CAPABILITIES = 1, 2
"""Bits of ``GetTablesExtRequest.requestedFields`` (Hive 4's ``GetTablesExtRequestFields``)."""


class TableCalls:
    """Mixed into ``MetastoreHandler``."""

    catalog: Catalog
    visible_tables: Callable[[str | None, list[str]], list[str]]
    """Those of a database's table names the caller may see (``AuthorizationCalls``)."""

    @access(Operation.READ, ObjectType.TABLE)
    def get_table(self, dbname, tbl_name):
        return to_thrift_table(self.catalog.tables.get(bare_db(dbname), tbl_name))

    @access(Operation.READ, ObjectType.TABLE)
    def get_table_req(self, req):
        table = self.catalog.tables.get(bare_db(req.dbName), req.tblName)
        return hive.GetTableResult(table=to_thrift_table(table))

    @access(Operation.READ, ObjectType.DATABASE)
    def get_table_objects_by_name(self, dbname, tbl_names):
        return [to_thrift_table(t) for t in self._tables_by_name(dbname, tbl_names)]

    @access(Operation.READ, ObjectType.DATABASE)
    def get_table_objects_by_name_req(self, req):
        """By names, or (Hive 4, without names) every table matching ``tablesPattern``: HiveServer2 4's ``DROP
        DATABASE ... CASCADE`` lists them so. The tables are whole whatever the projection's field list."""
        names = req.tblNames
        if names is None and req.tablesPattern is not None and req.dbName:
            names = self.catalog.tables.names(bare_db(req.dbName), req.tablesPattern)
        tables = self._tables_by_name(req.dbName, names)
        return hive.GetTablesResult(tables=[to_thrift_table(t) for t in tables])

    def _tables_by_name(self, dbname, names):
        if not dbname:
            raise hive.UnknownDBException(message="DB name is null or empty")
        if names is None:
            raise hive.InvalidOperationException(message=f"{dbname} cannot find null tables")
        return self.catalog.tables.get_many(bare_db(dbname), self.visible_tables(dbname, list(names)))

    @access(Operation.READ, ObjectType.GLOBAL)
    def get_all_materialized_view_objects_for_rewriting(self):
        """The materialized views that queries may be rewritten to use (rewriting enabled), in every database
        the caller may see: HiveServer2 4 loads them as it starts, and again from time to time."""
        views = []
        metas = self.catalog.tables.metas(None, None, [MATERIALIZED_VIEW])
        for database in sorted({meta.database for meta in metas}):
            names = self.visible_tables(database, [meta.name for meta in metas if meta.database == database])
            views += [t for t in self.catalog.tables.get_many(database, names) if t.rewrite_enabled]
        return [to_thrift_table(t) for t in views]

    @access(Operation.READ, ObjectType.DATABASE)
    def get_tables(self, db_name, pattern):
        return self.visible_tables(db_name, self.catalog.tables.names(bare_db(db_name), pattern))

    @access(Operation.READ, ObjectType.DATABASE)
    def get_all_tables(self, db_name):
        return self.visible_tables(db_name, self.catalog.tables.names(bare_db(db_name)))

    @access(Operation.READ, ObjectType.DATABASE)
    def get_tables_by_type(self, db_name, pattern, tableType):
        return self.visible_tables(db_name, self.catalog.tables.names(bare_db(db_name), pattern, tableType))

    @access(Operation.READ, ObjectType.DATABASE)
    def get_tables_ext(self, req):
        """Hive 4's table list with access types: every table here is read-write and needs no processor
        capability."""
        names = self.visible_tables(
            req.database, self.catalog.tables.names(bare_db(req.database), req.tableNamePattern or None)
        )
        if req.limit is not None and req.limit >= 0:
            names = names[: req.limit]
        fields = req.requestedFields or 0
        return [
            hive.ExtendedTableInfo(
                tblName=name,
                accessType=ACCESS_READ_WRITE if fields & GET_TABLES_ACCESS_TYPE else None,
                requiredReadCapabilities=[] if fields & GET_TABLES_CAPABILITIES else None,
                requiredWriteCapabilities=[] if fields & GET_TABLES_CAPABILITIES else None,
            )
            for name in names
        ]

    @access(Operation.READ, ObjectType.GLOBAL)
    def get_table_meta(self, db_patterns, tbl_patterns, tbl_types):
        metas = self.catalog.tables.metas(strip_catalog(db_patterns), tbl_patterns, list(tbl_types or []))
        return [to_thrift_table_meta(m) for m in self._visible_metas(metas)]

    def _visible_metas(self, metas: list) -> list:
        """The table metas of the tables the caller may see."""
        visible: set[tuple[str, str]] = set()
        for database in dict.fromkeys(m.database for m in metas):
            names = [m.name for m in metas if m.database == database]
            visible.update((database, name) for name in self.visible_tables(database, names))
        return [m for m in metas if (m.database, m.name) in visible]

    @access(Operation.READ, ObjectType.DATABASE)
    def get_table_names_by_filter(self, dbname, filter, max_tables):
        try:
            return self.visible_tables(dbname, self.catalog.tables.names_by_filter(bare_db(dbname), filter, max_tables))
        except InvalidFilterError as e:
            raise hive.InvalidOperationException(message=str(e)) from e

    @access(Operation.READ, ObjectType.TABLE)
    def get_fields(self, db_name, table_name):
        return self._fields(db_name, table_name, with_partition_keys=False)

    @access(Operation.READ, ObjectType.TABLE)
    def get_fields_with_environment_context(self, db_name, table_name, environment_context):
        return self._fields(db_name, table_name, with_partition_keys=False)

    @access(Operation.READ, ObjectType.TABLE)
    def get_schema(self, db_name, table_name):
        return self._fields(db_name, table_name, with_partition_keys=True)

    @access(Operation.READ, ObjectType.TABLE)
    def get_schema_with_environment_context(self, db_name, table_name, environment_context):
        return self._fields(db_name, table_name, with_partition_keys=True)

    @access(Operation.READ, ObjectType.TABLE)
    def get_fields_req(self, req):
        return hive.GetFieldsResponse(fields=self._fields(req.dbName, req.tblName, with_partition_keys=False))

    @access(Operation.READ, ObjectType.TABLE)
    def get_schema_req(self, req):
        return hive.GetSchemaResponse(fields=self._fields(req.dbName, req.tblName, with_partition_keys=True))

    def _fields(self, db_name, table_name, with_partition_keys):
        name = table_name.split(".")[0] if table_name else table_name
        try:
            table = self.catalog.tables.get(bare_db(db_name), name)
        except NoSuchTableError as e:
            raise hive.UnknownTableException(message=str(e)) from e
        columns = table.sd.columns + (table.partition_keys if with_partition_keys else [])
        return to_thrift_columns(columns)

    @access(Operation.CREATE, ObjectType.DATABASE)
    def create_table(self, tbl):
        self.create_table_with_environment_context(tbl, None)

    @access(Operation.CREATE, ObjectType.DATABASE)
    def create_table_with_environment_context(self, tbl, environment_context):
        grants = from_thrift_table_privileges(tbl)
        self.catalog.tables.create(from_thrift_table(tbl), env_properties(environment_context), grants=grants)

    @access(Operation.CREATE, ObjectType.DATABASE)
    def create_table_req(self, request):
        """Hive 4's form: the table and its constraints in one transaction."""
        self.catalog.tables.create(
            from_thrift_table(request.table),
            env_properties(request.envContext),
            from_thrift_constraints(
                request.primaryKeys,
                request.foreignKeys,
                request.uniqueConstraints,
                request.notNullConstraints,
                request.defaultConstraints,
                request.checkConstraints,
            ),
            from_thrift_table_privileges(request.table),
        )

    @access(Operation.ALTER, ObjectType.TABLE)
    def alter_table(self, dbname, tbl_name, new_tbl):
        self._alter_table(dbname, tbl_name, new_tbl, {})

    @access(Operation.ALTER, ObjectType.TABLE)
    def alter_table_with_environment_context(self, dbname, tbl_name, new_tbl, environment_context):
        self._alter_table(dbname, tbl_name, new_tbl, env_properties(environment_context))

    @access(Operation.ALTER, ObjectType.TABLE)
    def alter_table_with_cascade(self, dbname, tbl_name, new_tbl, cascade):
        self._alter_table(dbname, tbl_name, new_tbl, {}, cascade=bool(cascade))

    @access(Operation.ALTER, ObjectType.TABLE)
    def alter_table_req(self, req):
        """Hive 4's form; ``expectedParameterKey``/``Value`` make it a compare-and-set like the environment
        context properties of the same meaning."""
        env = env_properties(req.environmentContext)
        if req.expectedParameterKey is not None and req.expectedParameterValue is not None:
            env.update({EXPECTED_KEY: req.expectedParameterKey, EXPECTED_VALUE: req.expectedParameterValue})
        self._alter_table(req.dbName, req.tableName, req.table, env)
        return hive.AlterTableResponse()

    def _alter_table(self, dbname, tbl_name, new_tbl, env: dict[str, str], cascade=False):
        if new_tbl is None:
            raise hive.InvalidOperationException(message="New table is invalid: null")
        cascade = cascade or env.get("CASCADE", "").lower() == "true"
        self.catalog.tables.alter(bare_db(dbname), tbl_name, from_thrift_table(new_tbl), cascade, env)

    @access(Operation.DROP, ObjectType.TABLE)
    def drop_table(self, dbname, name, deleteData):
        self.catalog.tables.drop(bare_db(dbname), name, bool(deleteData))

    @access(Operation.DROP, ObjectType.TABLE)
    def drop_table_with_environment_context(self, dbname, name, deleteData, environment_context):
        self.catalog.tables.drop(bare_db(dbname), name, bool(deleteData))

    @access(Operation.DROP, ObjectType.TABLE)
    def drop_table_req(self, dropTableReq):
        """Hive 4's form; a table's partitions always go with it (``dropPartitions`` is not needed)."""
        self.catalog.tables.drop(bare_db(dropTableReq.dbName), dropTableReq.tableName, bool(dropTableReq.deleteData))

    @access(Operation.DELETE, ObjectType.TABLE)
    def truncate_table(self, dbName, tableName, partNames):
        self.catalog.tables.truncate(bare_db(dbName), tableName, None if partNames is None else list(partNames))

    @access(Operation.DELETE, ObjectType.TABLE)
    def truncate_table_req(self, req):
        self.truncate_table(req.dbName, req.tableName, req.partNames)
        return hive.TruncateTableResponse()
