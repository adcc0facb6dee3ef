"""The HMS table constraint calls of ``MetastoreHandler``: convert, call ``Catalog.constraints`` (or
``Catalog.tables`` for a table created with its constraints), convert back."""

from __future__ import annotations

from hudi_catalog import Catalog
from hudi_catalog.authorization import ObjectType, Operation
from hudi_catalog.model import ConstraintKind

from .access_rules import access
from .convert.constraints import TO_THRIFT, from_thrift_constraints
from .convert.names import strip_catalog
from .convert.privileges import from_thrift_table_privileges
from .convert.table import from_thrift_table
from .idl import hive


class ConstraintCalls:
    """Mixed into ``MetastoreHandler``."""

    catalog: Catalog

    @access(Operation.CREATE, ObjectType.DATABASE)
    def create_table_with_constraints(
        self,
        tbl,
        primaryKeys,
        foreignKeys,
        uniqueConstraints=None,
        notNullConstraints=None,
        defaultConstraints=None,
        checkConstraints=None,
    ):
        self.catalog.tables.create(
            from_thrift_table(tbl),
            constraints=from_thrift_constraints(
                primaryKeys, foreignKeys, uniqueConstraints, notNullConstraints, defaultConstraints, checkConstraints
            ),
            grants=from_thrift_table_privileges(tbl),
        )

    @access(Operation.ALTER, ObjectType.TABLE)
    def add_primary_key(self, req):
        self.catalog.constraints.add(from_thrift_constraints(primary_keys=req.primaryKeyCols))

    @access(Operation.ALTER, ObjectType.TABLE)
    def add_foreign_key(self, req):
        self.catalog.constraints.add(from_thrift_constraints(foreign_keys=req.foreignKeyCols))

    @access(Operation.ALTER, ObjectType.TABLE)
    def add_unique_constraint(self, req):
        self.catalog.constraints.add(from_thrift_constraints(unique=req.uniqueConstraintCols))

    @access(Operation.ALTER, ObjectType.TABLE)
    def add_not_null_constraint(self, req):
        self.catalog.constraints.add(from_thrift_constraints(not_null=req.notNullConstraintCols))

    @access(Operation.ALTER, ObjectType.TABLE)
    def add_default_constraint(self, req):
        self.catalog.constraints.add(from_thrift_constraints(defaults=req.defaultConstraintCols))

    @access(Operation.ALTER, ObjectType.TABLE)
    def add_check_constraint(self, req):
        self.catalog.constraints.add(from_thrift_constraints(checks=req.checkConstraintCols))

    @access(Operation.ALTER, ObjectType.TABLE)
    def drop_constraint(self, req):
        self.catalog.constraints.drop(strip_catalog(req.dbname) or "", req.tablename, req.constraintname)

    def _of_kind(self, kind: ConstraintKind, database, table) -> list:
        return TO_THRIFT[kind](self.catalog.constraints.of_table(strip_catalog(database) or "", table, kind))

    @access(Operation.READ, ObjectType.TABLE)
    def get_primary_keys(self, request):
        return hive.PrimaryKeysResponse(
            primaryKeys=self._of_kind(ConstraintKind.PRIMARY_KEY, request.db_name, request.tbl_name)
        )

    @access(Operation.READ, ObjectType.TABLE)
    def get_foreign_keys(self, request):
        found = self.catalog.constraints.foreign_keys(
            strip_catalog(request.parent_db_name),
            request.parent_tbl_name,
            strip_catalog(request.foreign_db_name),
            request.foreign_tbl_name,
        )
        return hive.ForeignKeysResponse(foreignKeys=TO_THRIFT[ConstraintKind.FOREIGN_KEY](found))

    @access(Operation.READ, ObjectType.TABLE)
    def get_unique_constraints(self, request):
        return hive.UniqueConstraintsResponse(
            uniqueConstraints=self._of_kind(ConstraintKind.UNIQUE, request.db_name, request.tbl_name)
        )

    @access(Operation.READ, ObjectType.TABLE)
    def get_not_null_constraints(self, request):
        return hive.NotNullConstraintsResponse(
            notNullConstraints=self._of_kind(ConstraintKind.NOT_NULL, request.db_name, request.tbl_name)
        )

    @access(Operation.READ, ObjectType.TABLE)
    def get_default_constraints(self, request):
        return hive.DefaultConstraintsResponse(
            defaultConstraints=self._of_kind(ConstraintKind.DEFAULT, request.db_name, request.tbl_name)
        )

    @access(Operation.READ, ObjectType.TABLE)
    def get_check_constraints(self, request):
        return hive.CheckConstraintsResponse(
            checkConstraints=self._of_kind(ConstraintKind.CHECK, request.db_name, request.tbl_name)
        )

    @access(Operation.READ, ObjectType.TABLE)
    def get_all_table_constraints(self, request):
        found = self.catalog.constraints.of_table(strip_catalog(request.dbName) or "", request.tblName)
        by_kind = {kind: TO_THRIFT[kind]([c for c in found if c.kind == kind]) for kind in ConstraintKind}
        return hive.AllTableConstraintsResponse(
            allTableConstraints=hive.SQLAllTableConstraints(
                primaryKeys=by_kind[ConstraintKind.PRIMARY_KEY],
                foreignKeys=by_kind[ConstraintKind.FOREIGN_KEY],
                uniqueConstraints=by_kind[ConstraintKind.UNIQUE],
                notNullConstraints=by_kind[ConstraintKind.NOT_NULL],
                defaultConstraints=by_kind[ConstraintKind.DEFAULT],
                checkConstraints=by_kind[ConstraintKind.CHECK],
            )
        )
