"""The HMS partition calls of ``MetastoreHandler`` that change partitions (add, append, alter, rename, drop)
and the partition name checks, Hive 3/4's request forms included: convert, call ``Catalog.partitions``,
convert back. The reading calls are in ``PartitionReadCalls``."""

from __future__ import annotations

from hudi_catalog import Catalog
from hudi_catalog.authorization import ObjectType, Operation
from hudi_catalog.errors import (
    AlreadyExistsError,
    InvalidObjectError,
    InvalidPartitionValueError,
    NoSuchObjectError,
    UnsupportedExpressionError,
)
from hudi_catalog.partition_names import check_partition_values, make_partition_name, unescape_path_name

from .access_rules import access
from .call_helpers import bare_db, env_properties
from .convert.partition import from_thrift_partition, to_thrift_partition
from .idl import hive
from .meta_conf import EXPRESSION_PROXY_KEY, MSCK_EXPRESSION_PROXY, ConnectionMetaConf


class PartitionCalls:
    """Mixed into ``MetastoreHandler``."""

    catalog: Catalog
    meta_conf: ConnectionMetaConf

    # -- partitions: add --------------------------------------------------------------------------

    @access(Operation.WRITE, ObjectType.TABLE)
    def add_partition(self, new_part):
        return self._add_one(new_part, None)

    @access(Operation.WRITE, ObjectType.TABLE)
    def add_partition_with_environment_context(self, new_part, environment_context):
        return self._add_one(new_part, environment_context)

    def _add_one(self, new_part, environment_context):
        part = from_thrift_partition(new_part)
        added = self.catalog.partitions.add(
            part.database, part.table, [part], environment=env_properties(environment_context)
        )
        return to_thrift_partition(added[0])

    @access(Operation.WRITE, ObjectType.TABLE)
    def add_partitions(self, new_parts):
        if not new_parts:
            return 0
        parts = [from_thrift_partition(p) for p in new_parts]
        return len(self.catalog.partitions.add(parts[0].database, parts[0].table, parts))

    @access(Operation.WRITE, ObjectType.TABLE)
    def add_partitions_req(self, request):
        parts = [from_thrift_partition(p) for p in request.parts or []]
        added = self.catalog.partitions.add(
            bare_db(request.dbName), request.tblName, parts, if_not_exists=bool(request.ifNotExists)
        )
        if request.needResult is False:
            return hive.AddPartitionsResult()
        return hive.AddPartitionsResult(partitions=[to_thrift_partition(p) for p in added])

    @access(Operation.WRITE, ObjectType.TABLE)
    def append_partition(self, db_name, tbl_name, part_vals):
        return to_thrift_partition(self.catalog.partitions.append(bare_db(db_name), tbl_name, values=part_vals))

    @access(Operation.WRITE, ObjectType.TABLE)
    def append_partition_with_environment_context(self, db_name, tbl_name, part_vals, environment_context):
        return to_thrift_partition(
            self.catalog.partitions.append(
                bare_db(db_name), tbl_name, values=part_vals, environment=env_properties(environment_context)
            )
        )

    @access(Operation.WRITE, ObjectType.TABLE)
    def append_partition_req(self, appendPartitionsReq):
        req = appendPartitionsReq
        env = env_properties(req.environmentContext)
        if req.name is not None:
            added = self.catalog.partitions.append(bare_db(req.dbName), req.tableName, name=req.name, environment=env)
        else:
            added = self.catalog.partitions.append(
                bare_db(req.dbName), req.tableName, values=req.partVals, environment=env
            )
        return to_thrift_partition(added)

    @access(Operation.WRITE, ObjectType.TABLE)
    def append_partition_by_name(self, db_name, tbl_name, part_name):
        return to_thrift_partition(self.catalog.partitions.append(bare_db(db_name), tbl_name, name=part_name))

    @access(Operation.WRITE, ObjectType.TABLE)
    def append_partition_by_name_with_environment_context(self, db_name, tbl_name, part_name, environment_context):
        return to_thrift_partition(
            self.catalog.partitions.append(
                bare_db(db_name), tbl_name, name=part_name, environment=env_properties(environment_context)
            )
        )

    # -- partitions: change -----------------------------------------------------------------------

    @access(Operation.WRITE, ObjectType.TABLE)
    def alter_partition(self, db_name, tbl_name, new_part):
        self._alter_partitions(db_name, tbl_name, [new_part], None)

    @access(Operation.WRITE, ObjectType.TABLE)
    def alter_partition_with_environment_context(self, db_name, tbl_name, new_part, environment_context):
        self._alter_partitions(db_name, tbl_name, [new_part], environment_context)

    @access(Operation.WRITE, ObjectType.TABLE)
    def alter_partitions(self, db_name, tbl_name, new_parts):
        self._alter_partitions(db_name, tbl_name, new_parts, None)

    @access(Operation.WRITE, ObjectType.TABLE)
    def alter_partitions_with_environment_context(self, db_name, tbl_name, new_parts, environment_context):
        self._alter_partitions(db_name, tbl_name, new_parts, environment_context)

    def _alter_partitions(self, db_name, tbl_name, new_parts, environment_context):
        parts = [from_thrift_partition(p) for p in new_parts or []]
        try:
            self.catalog.partitions.alter(bare_db(db_name), tbl_name, parts, env_properties(environment_context))
        except (NoSuchObjectError, InvalidObjectError) as e:
            raise hive.InvalidOperationException(message=str(e)) from e

    @access(Operation.WRITE, ObjectType.TABLE)
    def alter_partitions_req(self, req):
        """Hive 4's form; partitions sent without their columns (``skipColumnSchemaForPartition``) get
        ``partitionColSchema``."""
        parts = list(req.partitions or [])
        if req.skipColumnSchemaForPartition and req.partitionColSchema is not None:
            for part in parts:
                if part.sd is not None:
                    part.sd.cols = list(req.partitionColSchema)
        self._alter_partitions(req.dbName, req.tableName, parts, req.environmentContext)
        return hive.AlterPartitionsResponse()

    @access(Operation.WRITE, ObjectType.TABLE)
    def rename_partition_req(self, req):
        self.rename_partition(req.dbName, req.tableName, req.partVals, req.newPart)
        return hive.RenamePartitionResponse()

    @access(Operation.WRITE, ObjectType.TABLE)
    def rename_partition(self, db_name, tbl_name, part_vals, new_part):
        try:
            self.catalog.partitions.rename(bare_db(db_name), tbl_name, part_vals or [], from_thrift_partition(new_part))
        except (NoSuchObjectError, InvalidObjectError, AlreadyExistsError) as e:
            # Hive's alter_partition_core answers these as InvalidOperationException
            raise hive.InvalidOperationException(message=str(e)) from e

    @access(Operation.DELETE, ObjectType.TABLE)
    def drop_partition(self, db_name, tbl_name, part_vals, deleteData):
        self.catalog.partitions.drop(bare_db(db_name), tbl_name, values=part_vals or [], delete_data=bool(deleteData))
        return True

    @access(Operation.DELETE, ObjectType.TABLE)
    def drop_partition_with_environment_context(self, db_name, tbl_name, part_vals, deleteData, environment_context):
        return self.drop_partition(db_name, tbl_name, part_vals, deleteData)

    @access(Operation.DELETE, ObjectType.TABLE)
    def drop_partition_by_name(self, db_name, tbl_name, part_name, deleteData):
        self.catalog.partitions.drop(bare_db(db_name), tbl_name, name=part_name, delete_data=bool(deleteData))
        return True

    @access(Operation.DELETE, ObjectType.TABLE)
    def drop_partition_by_name_with_environment_context(
        self, db_name, tbl_name, part_name, deleteData, environment_context
    ):
        return self.drop_partition_by_name(db_name, tbl_name, part_name, deleteData)

    @access(Operation.DELETE, ObjectType.TABLE)
    def drop_partitions_req(self, req):
        """By names, or by Hive's serialized expressions (``ALTER TABLE ... DROP PARTITION (k < v)`` through
        HiveServer2), each of which must be evaluated exactly or nothing is dropped."""
        parts = req.parts
        delete_data, if_exists = req.deleteData is not False, req.ifExists is not False
        if parts is not None and parts.exprs is not None and self._msck_connection():
            names = [name for e in parts.exprs for name in msck_partition_names(e.expr or b"")]
            dropped = self.catalog.partitions.drop_by_names(
                bare_db(req.dbName), req.tblName, names, delete_data=delete_data, if_exists=if_exists
            )
        elif parts is not None and parts.exprs is not None and parts.names is None:
            try:
                filters = [self.catalog.partitions.expression(e.expr or b"") for e in parts.exprs]
                dropped = self.catalog.partitions.drop_matching(
                    bare_db(req.dbName), req.tblName, filters, delete_data=delete_data, if_exists=if_exists
                )
            except UnsupportedExpressionError as error:
                raise hive.MetaException(message=str(error)) from error
        elif parts is None or parts.names is None:
            raise hive.MetaException(message="Drop partitions request names no partitions")
        else:
            dropped = self.catalog.partitions.drop_by_names(
                bare_db(req.dbName), req.tblName, list(parts.names), delete_data=delete_data, if_exists=if_exists
            )
        if req.needResult is False:
            return hive.DropPartitionsResult()
        return hive.DropPartitionsResult(partitions=[to_thrift_partition(p) for p in dropped])

    def _msck_connection(self) -> bool:
        """Whether the connection set ``MsckPartitionExpressionProxy`` (``msck_partition_names``)."""
        return self.meta_conf.get(EXPRESSION_PROXY_KEY) == MSCK_EXPRESSION_PROXY

    @access(Operation.DELETE, ObjectType.TABLE)
    def drop_partition_req(self, dropPartitionReq):
        req = dropPartitionReq
        if req.partName is not None:
            return self.drop_partition_by_name(req.dbName, req.tblName, req.partName, req.deleteData is not False)
        return self.drop_partition(req.dbName, req.tblName, req.partVals, req.deleteData is not False)

    @access(Operation.READ, ObjectType.GLOBAL)
    def partition_name_has_valid_characters(self, part_vals, throw_exception):
        """Whether every value matches the connection's whitelist pattern (``setMetaConf``; none by default)."""
        try:
            check_partition_values(list(part_vals or []), self.meta_conf.settings().partition_value_pattern)
        except InvalidPartitionValueError as e:
            if throw_exception:
                raise hive.MetaException(message=str(e)) from e
            return False
        return True

    @access(Operation.READ, ObjectType.GLOBAL)
    def partition_name_to_vals(self, part_name):
        return list(self._spec(part_name).values())

    @access(Operation.READ, ObjectType.GLOBAL)
    def partition_name_to_spec(self, part_name):
        return self._spec(part_name)

    def _spec(self, part_name):
        try:
            return self.catalog.partitions.name_to_spec(part_name or "")
        except InvalidObjectError as e:
            raise hive.MetaException(message=str(e)) from e


def msck_partition_names(expression: bytes) -> list[str]:
    """The partitions an ``MSCK REPAIR TABLE`` drop names: with ``MsckPartitionExpressionProxy`` set on the
    connection, HiveServer2 sends specs as text, ``(k1='v1' AND k2='v2') OR (...)``, values escaped as in
    paths, in place of serialized expressions. Raises ``MetaException`` for text of another shape."""
    names = []
    try:
        for spec in expression.decode("utf-8").split(" OR "):
            keys, values = [], []
            for term in spec.strip().removeprefix("(").removesuffix(")").split(" AND "):
                key, value = term.split("=", 1)
                if len(value) < 2 or value[0] != value[-1] or value[0] not in "'\"":
                    raise ValueError(term)
                keys.append(unescape_path_name(key.strip()))
                values.append(unescape_path_name(value[1:-1]))
            names.append(make_partition_name(keys, values))
    except ValueError as bad:  # UnicodeDecodeError too
        raise hive.MetaException(message=f"Invalid partition specification for MSCK: {bad}") from None
    return names
