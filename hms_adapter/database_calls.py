"""The HMS database calls of ``MetastoreHandler``, Hive 4's request forms included: convert, call
``Catalog.databases``, convert back. Listings show the databases the caller may see."""

from __future__ import annotations

from collections.abc import Callable

from hudi_catalog import Catalog
from hudi_catalog.authorization import ObjectType, Operation
from hudi_catalog.errors import NoSuchObjectError

from .access_rules import access
from .call_helpers import bare_db
from .convert.database import from_thrift_database, to_thrift_database
from .convert.names import strip_catalog
from .idl import hive


class DatabaseCalls:
    """Mixed into ``MetastoreHandler``."""

    catalog: Catalog
    visible_databases: Callable[[list[str]], list[str]]
    """Those of the names the caller may see (``AuthorizationCalls``)."""

    @access(Operation.CREATE, ObjectType.GLOBAL)
    def create_database(self, database):
        self.catalog.databases.create(from_thrift_database(database))

    @access(Operation.READ, ObjectType.DATABASE)
    def get_database(self, name):
        return to_thrift_database(self.catalog.databases.get(bare_db(name)))

    @access(Operation.READ, ObjectType.GLOBAL)
    def get_databases(self, pattern):
        if pattern and pattern.startswith("@"):
            pattern = strip_catalog(pattern)
        return self.visible_databases(self.catalog.databases.names(pattern))

    @access(Operation.READ, ObjectType.GLOBAL)
    def get_all_databases(self):
        return self.visible_databases(self.catalog.databases.names())

    @access(Operation.ALTER, ObjectType.DATABASE)
    def alter_database(self, dbname, db):
        self.catalog.databases.alter(bare_db(dbname), from_thrift_database(db))

    @access(Operation.DROP, ObjectType.DATABASE)
    def drop_database(self, name, deleteData, cascade):
        self.catalog.databases.drop(bare_db(name), bool(deleteData), bool(cascade))

    # Hive 4's request forms of the database calls (the catalog name is not used: one catalog, ``hive``)

    @access(Operation.CREATE, ObjectType.GLOBAL)
    def create_database_req(self, createDatabaseRequest):
        req = createDatabaseRequest
        self.create_database(
            hive.Database(
                name=req.databaseName,
                description=req.description,
                locationUri=req.locationUri,
                parameters=req.parameters,
                privileges=req.privileges,
                ownerName=req.ownerName,
                ownerType=req.ownerType,
                catalogName=req.catalogName,
                createTime=req.createTime,
                managedLocationUri=req.managedLocationUri,
            )
        )

    @access(Operation.READ, ObjectType.DATABASE)
    def get_database_req(self, request):
        return self.get_database(request.name)

    @access(Operation.ALTER, ObjectType.DATABASE)
    def alter_database_req(self, alterDbReq):
        self.alter_database(alterDbReq.oldDbName, alterDbReq.newDb)

    @access(Operation.DROP, ObjectType.DATABASE)
    def drop_database_req(self, req):
        """``ignoreUnknownDb`` makes dropping a missing database a no-op."""
        try:
            self.drop_database(req.name, req.deleteData, req.cascade)
        except NoSuchObjectError:
            if not req.ignoreUnknownDb:
                raise
