"""The HMS function calls of ``MetastoreHandler``: convert, call ``Catalog.functions``, convert back."""

from __future__ import annotations

from hudi_catalog import Catalog
from hudi_catalog.authorization import ObjectType, Operation

from .access_rules import access
from .call_helpers import bare_db
from .convert.function import from_thrift_function, to_thrift_function
from .idl import hive


class FunctionCalls:
    """Mixed into ``MetastoreHandler``."""

    catalog: Catalog

    @access(Operation.ALTER, ObjectType.DATABASE)
    def create_function(self, func):
        self.catalog.functions.create(from_thrift_function(func))

    @access(Operation.READ, ObjectType.DATABASE)
    def get_function(self, dbName, funcName):
        return to_thrift_function(self.catalog.functions.get(bare_db(dbName), funcName))

    @access(Operation.READ, ObjectType.DATABASE)
    def get_functions(self, dbName, pattern):
        return self.catalog.functions.names(bare_db(dbName), pattern)

    @access(Operation.READ, ObjectType.GLOBAL)
    def get_all_functions(self):
        return hive.GetAllFunctionsResponse(functions=[to_thrift_function(f) for f in self.catalog.functions.all()])

    @access(Operation.ALTER, ObjectType.DATABASE)
    def alter_function(self, dbName, funcName, newFunc):
        self.catalog.functions.alter(bare_db(dbName), funcName, from_thrift_function(newFunc))

    @access(Operation.ALTER, ObjectType.DATABASE)
    def drop_function(self, dbName, funcName):
        self.catalog.functions.drop(bare_db(dbName), funcName)
