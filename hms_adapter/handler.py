"""The ``ThriftHiveMetastore`` handler: each method converts its request, calls the catalog and converts
the answer. No SQL and no Hudi logic live here.

Argument names are Hive's (thriftpy2 passes arguments by position in IDL order). Database names may come
as ``@<catalog>#<db>`` from Hive 3+ clients. Methods of the IDL that are not defined here are answered with
Thrift's ``UNKNOWN_METHOD`` by ``hms_adapter.processor``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from hudi_catalog import Catalog
from hudi_catalog.call_settings import settings_scope
from hudi_catalog.catalog_scope import catalog_scope, current_catalog
from hudi_catalog.errors import (
    AlreadyExistsError,
    CatalogError,
    InvalidFilterError,
    InvalidObjectError,
    InvalidPartitionValueError,
    NoSuchObjectError,
    NoSuchTableError,
)
from hudi_catalog.model import TableKeys
from hudi_catalog.partition_names import check_partition_values
from hudi_catalog.services.tables import EXPECTED_KEY, EXPECTED_VALUE

from . import connection
from .authorization_calls import AuthorizationCalls
from .catalog_calls import CatalogCalls
from .constraint_calls import ConstraintCalls
from .convert.constraints import from_thrift_constraints
from .convert.database import from_thrift_database, to_thrift_database
from .convert.function import from_thrift_function, to_thrift_function
from .convert.names import catalog_of_call, strip_catalog
from .convert.partition import from_thrift_partition, to_thrift_partition, to_thrift_partition_spec, trim_partition
from .convert.partition_wire import (
    NAME_LIST,
    EncodedNameList,
    EncodedPartitionList,
    assemble_name_list,
    assemble_partition_list,
    encode_partition_fields,
)
from .convert.privileges import from_thrift_table_privileges
from .convert.stats_wire import StatsEncodings
from .convert.table import from_thrift_table, to_thrift_columns, to_thrift_table, to_thrift_table_meta
from .event_calls import EVENT_CONFIG, EventCalls
from .idl import hive
from .lock_calls import LockCalls, txn_config
from .meta_conf import ConnectionMetaConf
from .stats_calls import StatsCalls
from .token_calls import TokenCalls

log = logging.getLogger(__name__)

SERVICE_NAME = "hudi-metastore"
HIVE_VERSION = "2.3.10"
WAREHOUSE_KEY = "hive.metastore.warehouse.dir"
ACCESS_READ_WRITE = 8
"""Hive 4's ``ACCESSTYPE_READWRITE`` of ``ExtendedTableInfo``."""
GET_TABLES_ACCESS_TYPE, GET_TABLES_CAPABILITIES = 1, 2
"""Bits of ``GetTablesExtRequest.requestedFields`` (Hive 4's ``GetTablesExtRequestFields``)."""
EVENT_TTL_KEY = "hive.metastore.event.db.listener.timetolive"
CONFIG_KEY_PATTERN = ("hive", "hdfs", "mapred", "metastore")


def _env(environment_context) -> dict[str, str]:
    return dict(environment_context.properties or {}) if environment_context is not None else {}


def _db(name: str | None) -> str:
    return strip_catalog(name) or ""


class MetastoreHandler(
    CatalogCalls, LockCalls, ConstraintCalls, StatsCalls, EventCalls, TokenCalls, AuthorizationCalls
):
    """Serves the HMS calls over one ``Catalog`` (the catalog calls in ``CatalogCalls``, the lock and
    transaction calls in ``LockCalls``, the constraint calls in ``ConstraintCalls``, the column statistics
    calls in ``StatsCalls``, the notification event calls in ``EventCalls``, the delegation token calls in
    ``TokenCalls``, the roles and privileges calls and the check of every call in ``AuthorizationCalls``).
    The processor runs each call in its ``call_scope``: the catalog its arguments name, and its connection's
    settings. ``user_name`` maps a principal to its user name (identity without Kerberos)."""

    def __init__(
        self, catalog: Catalog, config: dict[str, str] | None = None, user_name: Callable[[str], str] = str
    ) -> None:
        self.catalog = catalog
        self.user_name = user_name
        self.started = int(time.time())
        self.stats_encodings = StatsEncodings(catalog.cache_memory)
        self.meta_conf = ConnectionMetaConf()
        self.config = {
            WAREHOUSE_KEY: catalog.warehouse.root,
            **EVENT_CONFIG,
            EVENT_TTL_KEY: f"{catalog.events.ttl_seconds:g}s",
            **txn_config(catalog),
            **(config or {}),
        }

    # -- fb303 and session ------------------------------------------------------------------------

    def getName(self):
        return SERVICE_NAME

    def getVersion(self):
        return HIVE_VERSION

    def getStatus(self):
        return hive.fb303.fb_status.ALIVE

    def getStatusDetails(self):
        return "ALIVE"

    def aliveSince(self):
        return self.started

    def getCounters(self):
        return {}

    def getCounter(self, key):
        return 0

    def getOption(self, key):
        return ""

    def getOptions(self):
        return {}

    def setOption(self, key, value):
        return None

    def getCpuProfile(self, profileDurationInSec):
        return ""

    def reinitialize(self):
        return None

    def flushCache(self):
        """Nothing to flush: the read caches check the catalog database's revisions on every read."""
        return None

    def shutdown(self):
        """A client may not stop the server: accepted and ignored (the server stops on SIGTERM)."""
        log.info("ignored a client's shutdown request")

    def set_ugi(self, user_name, group_names):
        """The user a client claims: recorded for the audit log, trusted for nothing."""
        connection.claim_user(user_name)
        return list(group_names or [])

    def run_call(self, api: str, action):
        """Each call through ``Catalog.call``: tried again through a short database outage."""
        return self.catalog.call(action, api)

    @contextmanager
    def call_scope(self, args) -> Iterator[None]:
        """Each call runs in the catalog its arguments name, with its connection's settings."""
        with catalog_scope(catalog_of_call(args)), settings_scope(self.meta_conf.settings()):
            yield

    def getMetaConf(self, key):
        return self.meta_conf.get(key)

    def setMetaConf(self, key, value):
        self.meta_conf.set(key, value)

    def get_config_value(self, name, defaultValue):
        if name is None:
            return defaultValue
        if not name.startswith(CONFIG_KEY_PATTERN):
            raise hive.ConfigValSecurityException(
                message=f"For security reasons, the config key {name} cannot be accessed"
            )
        return self.config.get(name, defaultValue)

    # -- databases --------------------------------------------------------------------------------

    def create_database(self, database):
        self.catalog.databases.create(from_thrift_database(database))

    def get_database(self, name):
        return to_thrift_database(self.catalog.databases.get(_db(name)))

    def get_databases(self, pattern):
        if pattern and pattern.startswith("@"):
            pattern = strip_catalog(pattern)
        return self.visible_databases(self.catalog.databases.names(pattern))

    def get_all_databases(self):
        return self.visible_databases(self.catalog.databases.names())

    def alter_database(self, dbname, db):
        self.catalog.databases.alter(_db(dbname), from_thrift_database(db))

    def drop_database(self, name, deleteData, cascade):
        self.catalog.databases.drop(_db(name), bool(deleteData), bool(cascade))

    # Hive 4's request forms of the database calls (the catalog name is not used: one catalog, ``hive``)

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

    def get_database_req(self, request):
        return self.get_database(request.name)

    def alter_database_req(self, alterDbReq):
        self.alter_database(alterDbReq.oldDbName, alterDbReq.newDb)

    def drop_database_req(self, req):
        """``ignoreUnknownDb`` makes dropping a missing database a no-op."""
        try:
            self.drop_database(req.name, req.deleteData, req.cascade)
        except NoSuchObjectError:
            if not req.ignoreUnknownDb:
                raise

    # -- tables -----------------------------------------------------------------------------------

    def get_table(self, dbname, tbl_name):
        return to_thrift_table(self.catalog.tables.get(_db(dbname), tbl_name))

    def get_table_req(self, req):
        table = self.catalog.tables.get(_db(req.dbName), req.tblName)
        return hive.GetTableResult(table=to_thrift_table(table))

    def get_table_objects_by_name(self, dbname, tbl_names):
        return [to_thrift_table(t) for t in self._tables_by_name(dbname, tbl_names)]

    def get_table_objects_by_name_req(self, req):
        tables = self._tables_by_name(req.dbName, req.tblNames)
        return hive.GetTablesResult(tables=[to_thrift_table(t) for t in tables])

    def _tables_by_name(self, dbname, names):
        if not dbname:
            raise hive.UnknownDBException(message="DB name is null or empty")
        if names is None:
            raise hive.InvalidOperationException(message=f"{dbname} cannot find null tables")
        return self.catalog.tables.get_many(_db(dbname), self.visible_tables(dbname, list(names)))

    def get_tables(self, db_name, pattern):
        return self.visible_tables(db_name, self.catalog.tables.names(_db(db_name), pattern))

    def get_all_tables(self, db_name):
        return self.visible_tables(db_name, self.catalog.tables.names(_db(db_name)))

    def get_tables_by_type(self, db_name, pattern, tableType):
        return self.visible_tables(db_name, self.catalog.tables.names(_db(db_name), pattern, tableType))

    def get_tables_ext(self, req):
        """Hive 4's table list with access types: every table here is read-write and needs no processor
        capability."""
        names = self.visible_tables(
            req.database, self.catalog.tables.names(_db(req.database), req.tableNamePattern or None)
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

    def get_table_names_by_filter(self, dbname, filter, max_tables):
        try:
            return self.visible_tables(dbname, self.catalog.tables.names_by_filter(_db(dbname), filter, max_tables))
        except InvalidFilterError as e:
            raise hive.InvalidOperationException(message=str(e)) from e

    def get_fields(self, db_name, table_name):
        return self._fields(db_name, table_name, with_partition_keys=False)

    def get_fields_with_environment_context(self, db_name, table_name, environment_context):
        return self._fields(db_name, table_name, with_partition_keys=False)

    def get_schema(self, db_name, table_name):
        return self._fields(db_name, table_name, with_partition_keys=True)

    def get_schema_with_environment_context(self, db_name, table_name, environment_context):
        return self._fields(db_name, table_name, with_partition_keys=True)

    def get_fields_req(self, req):
        return hive.GetFieldsResponse(fields=self._fields(req.dbName, req.tblName, with_partition_keys=False))

    def get_schema_req(self, req):
        return hive.GetSchemaResponse(fields=self._fields(req.dbName, req.tblName, with_partition_keys=True))

    def _fields(self, db_name, table_name, with_partition_keys):
        name = table_name.split(".")[0] if table_name else table_name
        try:
            table = self.catalog.tables.get(_db(db_name), name)
        except NoSuchTableError as e:
            raise hive.UnknownTableException(message=str(e)) from e
        columns = table.sd.columns + (table.partition_keys if with_partition_keys else [])
        return to_thrift_columns(columns)

    def create_table(self, tbl):
        self.create_table_with_environment_context(tbl, None)

    def create_table_with_environment_context(self, tbl, environment_context):
        grants = from_thrift_table_privileges(tbl)
        self.catalog.tables.create(from_thrift_table(tbl), _env(environment_context), grants=grants)

    def create_table_req(self, request):
        """Hive 4's form: the table and its constraints in one transaction."""
        self.catalog.tables.create(
            from_thrift_table(request.table),
            _env(request.envContext),
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

    def alter_table(self, dbname, tbl_name, new_tbl):
        self._alter_table(dbname, tbl_name, new_tbl, {})

    def alter_table_with_environment_context(self, dbname, tbl_name, new_tbl, environment_context):
        self._alter_table(dbname, tbl_name, new_tbl, _env(environment_context))

    def alter_table_with_cascade(self, dbname, tbl_name, new_tbl, cascade):
        self._alter_table(dbname, tbl_name, new_tbl, {}, cascade=bool(cascade))

    def alter_table_req(self, req):
        """Hive 4's form; ``expectedParameterKey``/``Value`` make it a compare-and-set like the environment
        context properties of the same meaning."""
        env = _env(req.environmentContext)
        if req.expectedParameterKey is not None and req.expectedParameterValue is not None:
            env.update({EXPECTED_KEY: req.expectedParameterKey, EXPECTED_VALUE: req.expectedParameterValue})
        self._alter_table(req.dbName, req.tableName, req.table, env)
        return hive.AlterTableResponse()

    def _alter_table(self, dbname, tbl_name, new_tbl, env: dict[str, str], cascade=False):
        if new_tbl is None:
            raise hive.InvalidOperationException(message="New table is invalid: null")
        cascade = cascade or env.get("CASCADE", "").lower() == "true"
        self.catalog.tables.alter(_db(dbname), tbl_name, from_thrift_table(new_tbl), cascade, env)

    def drop_table(self, dbname, name, deleteData):
        self.catalog.tables.drop(_db(dbname), name, bool(deleteData))

    def drop_table_with_environment_context(self, dbname, name, deleteData, environment_context):
        self.catalog.tables.drop(_db(dbname), name, bool(deleteData))

    def drop_table_req(self, dropTableReq):
        """Hive 4's form; a table's partitions always go with it (``dropPartitions`` is not needed)."""
        self.catalog.tables.drop(_db(dropTableReq.dbName), dropTableReq.tableName, bool(dropTableReq.deleteData))

    def truncate_table(self, dbName, tableName, partNames):
        self.catalog.tables.truncate(_db(dbName), tableName, None if partNames is None else list(partNames))

    def truncate_table_req(self, req):
        self.truncate_table(req.dbName, req.tableName, req.partNames)
        return hive.TruncateTableResponse()

    # -- partitions: add --------------------------------------------------------------------------

    def add_partition(self, new_part):
        return self._add_one(new_part, None)

    def add_partition_with_environment_context(self, new_part, environment_context):
        return self._add_one(new_part, environment_context)

    def _add_one(self, new_part, environment_context):
        part = from_thrift_partition(new_part)
        added = self.catalog.partitions.add(part.database, part.table, [part], environment=_env(environment_context))
        return to_thrift_partition(added[0])

    def add_partitions(self, new_parts):
        if not new_parts:
            return 0
        parts = [from_thrift_partition(p) for p in new_parts]
        return len(self.catalog.partitions.add(parts[0].database, parts[0].table, parts))

    def add_partitions_req(self, request):
        parts = [from_thrift_partition(p) for p in request.parts or []]
        added = self.catalog.partitions.add(
            _db(request.dbName), request.tblName, parts, if_not_exists=bool(request.ifNotExists)
        )
        if request.needResult is False:
            return hive.AddPartitionsResult()
        return hive.AddPartitionsResult(partitions=[to_thrift_partition(p) for p in added])

    def append_partition(self, db_name, tbl_name, part_vals):
        return to_thrift_partition(self.catalog.partitions.append(_db(db_name), tbl_name, values=part_vals))

    def append_partition_with_environment_context(self, db_name, tbl_name, part_vals, environment_context):
        return to_thrift_partition(
            self.catalog.partitions.append(
                _db(db_name), tbl_name, values=part_vals, environment=_env(environment_context)
            )
        )

    def append_partition_req(self, appendPartitionsReq):
        req = appendPartitionsReq
        env = _env(req.environmentContext)
        if req.name is not None:
            added = self.catalog.partitions.append(_db(req.dbName), req.tableName, name=req.name, environment=env)
        else:
            added = self.catalog.partitions.append(_db(req.dbName), req.tableName, values=req.partVals, environment=env)
        return to_thrift_partition(added)

    def append_partition_by_name(self, db_name, tbl_name, part_name):
        return to_thrift_partition(self.catalog.partitions.append(_db(db_name), tbl_name, name=part_name))

    def append_partition_by_name_with_environment_context(self, db_name, tbl_name, part_name, environment_context):
        return to_thrift_partition(
            self.catalog.partitions.append(
                _db(db_name), tbl_name, name=part_name, environment=_env(environment_context)
            )
        )

    # -- partitions: read -------------------------------------------------------------------------

    def get_partition(self, db_name, tbl_name, part_vals):
        return to_thrift_partition(self.catalog.partitions.get(_db(db_name), tbl_name, part_vals or []))

    def get_partition_req(self, req):
        return hive.GetPartitionResponse(partition=self.get_partition(req.dbName, req.tblName, req.partVals))

    def get_partition_with_auth(self, db_name, tbl_name, part_vals, user_name, group_names):
        return self.get_partition(db_name, tbl_name, part_vals)

    def get_partition_by_name(self, db_name, tbl_name, part_name):
        return to_thrift_partition(self.catalog.partitions.get_by_name(_db(db_name), tbl_name, part_name))

    def get_partitions(self, db_name, tbl_name, max_parts):
        return self._list(db_name, tbl_name, max_parts)

    def get_partitions_with_auth(self, db_name, tbl_name, max_parts, user_name, group_names):
        return self._list(db_name, tbl_name, max_parts)

    def get_partitions_ps(self, db_name, tbl_name, part_vals, max_parts):
        return self._list(db_name, tbl_name, max_parts, part_vals)

    def get_partitions_ps_with_auth(self, db_name, tbl_name, part_vals, max_parts, user_name, group_names):
        return self._list(db_name, tbl_name, max_parts, part_vals)

    def _list(self, db_name, tbl_name, max_parts, part_vals=None):
        return self._encoded(db_name, tbl_name, values=part_vals, max_parts=_limit(max_parts))

    def _encoded(self, db_name, tbl_name, wrapper=None, **selection) -> EncodedPartitionList:
        """Partitions as cached encodings; those not cached yet are encoded here and cached for next time.
        A list whose every partition is encoded is kept whole, as its reply's bytes, in the catalog's cache.

        ``wrapper``: the Hive 3/4 response struct that carries the list, if any.
        """

        def assemble(table: TableKeys, encodings: Sequence[bytes]) -> bytes:
            return assemble_partition_list(table.database, table.name, encodings, wrapper)

        table, found, missing = self.catalog.partitions.read_encoded(
            _db(db_name), tbl_name, assemble=assemble, assembly=(wrapper, current_catalog()), **selection
        )
        if isinstance(found, bytes):  # every partition was encoded: the whole answer
            return EncodedPartitionList(found, wrapper)
        fresh = [encode_partition_fields(e.partition) for e in missing]
        try:
            self.catalog.partitions.save_encodings([(e.part_id, e.revision, b) for e, b in zip(missing, fresh)])
        except CatalogError as error:  # the answer stands; the next read encodes again
            log.warning("could not cache %d partition encodings of %s: %s", len(fresh), table.qualified_name, error)
        filled = iter(fresh)
        return EncodedPartitionList(
            assemble(table, [encoded if encoded is not None else next(filled) for encoded in found]), wrapper
        )

    # Hive 3/4 request forms. Hive 4's options to trim answers (skipColumnSchemaForPartition, include/exclude
    # parameter key patterns) are honoured by building those answers without the encoding cache.

    def get_partitions_req(self, req):
        return self._requested(req.dbName, req.tblName, req, hive.PartitionsResponse, max_parts=_limit(req.maxParts))

    def get_partitions_ps_with_auth_req(self, req):
        wrapper = hive.GetPartitionsPsWithAuthResponse
        if req.partNames:
            return self._requested(req.dbName, req.tblName, req, wrapper, names=req.partNames)
        return self._requested(
            req.dbName, req.tblName, req, wrapper, values=req.partVals, max_parts=_limit(req.maxParts)
        )

    def get_partitions_by_filter_req(self, req):
        return self._filter_call(
            self._requested,
            req.dbName,
            req.tblName,
            req,
            None,
            filter_text=req.filter or "",
            max_parts=_limit(req.maxParts),
        )

    def get_partitions_by_names_req(self, req):
        return self._requested(req.db_name, req.tbl_name, req, hive.GetPartitionsByNamesResult, names=req.names or [])

    def get_partition_names_ps_req(self, req):
        names = self.catalog.partitions.names(_db(req.dbName), req.tblName, _limit(req.maxParts), req.partValues)
        return hive.GetPartitionNamesPsResponse(names=names)

    def _requested(self, db_name, tbl_name, req, wrapper, **selection):
        """A request-style partition list, trimmed as the request asks."""
        trimmed = (
            req.skipColumnSchemaForPartition
            or req.includeParamKeyPattern is not None
            or req.excludeParamKeyPattern is not None
        )
        if not trimmed:
            return self._encoded(db_name, tbl_name, wrapper, **selection)
        found = self.catalog.partitions.read(_db(db_name), tbl_name, **selection)
        parts = [
            to_thrift_partition(
                trim_partition(
                    p, req.skipColumnSchemaForPartition, req.includeParamKeyPattern, req.excludeParamKeyPattern
                )
            )
            for p in found
        ]
        return parts if wrapper is None else wrapper(partitions=parts)

    def get_partition_names(self, db_name, tbl_name, max_parts):
        return self._names(db_name, tbl_name, max_parts)

    def _names(self, db_name, tbl_name, max_parts, part_vals=None) -> EncodedNameList:
        """Partition names as their reply's bytes, kept whole in the catalog's cache."""
        return EncodedNameList(
            self.catalog.partitions.names_answer(
                _db(db_name), tbl_name, assemble_name_list, NAME_LIST, _limit(max_parts), part_vals
            )
        )

    def fetch_partition_names_req(self, partitionReq):
        return self.get_partition_names(partitionReq.dbName, partitionReq.tblName, partitionReq.maxParts)

    def get_partition_names_ps(self, db_name, tbl_name, part_vals, max_parts):
        return self._names(db_name, tbl_name, max_parts, part_vals)

    def get_partitions_by_names(self, db_name, tbl_name, names):
        return self._encoded(db_name, tbl_name, names=names or [])

    def get_partitions_by_filter(self, db_name, tbl_name, filter, max_parts):
        return self._filter_call(
            self._encoded, db_name, tbl_name, filter_text=filter or "", max_parts=_limit(max_parts)
        )

    def get_num_partitions_by_filter(self, db_name, tbl_name, filter):
        return self._filter_call(self.catalog.partitions.count_by_filter, _db(db_name), tbl_name, filter)

    def get_part_specs_by_filter(self, db_name, tbl_name, filter, max_parts):
        parts = self._by_filter(db_name, tbl_name, filter, max_parts)
        table = self.catalog.tables.get(_db(db_name), tbl_name)
        return [to_thrift_partition_spec(table.database, table.name, table.sd.location, parts)]

    def get_partitions_with_specs(self, request):
        """Hive 4's listing: partitions chosen by names, partial values or filters (``BY_EXPR``, ANDed), their
        parameters trimmed by the projection's key patterns, as one ``PartitionSpec``. The projection's field
        list is not applied: the partitions are whole."""
        chosen = request.filterSpec
        filters = (chosen.filters or []) if chosen else []
        selection: dict = {}
        if filters:
            if chosen.filterMode == hive.PartitionFilterMode.BY_NAMES:
                selection["names"] = filters
            elif chosen.filterMode == hive.PartitionFilterMode.BY_VALUES:
                selection["values"] = filters
            elif chosen.filterMode == hive.PartitionFilterMode.BY_EXPR:
                selection["filter_text"] = " and ".join(f"({f})" for f in filters)
            else:
                raise hive.MetaException(message=f"Unsupported filter mode {chosen.filterMode}")
        projection = request.projectionSpec
        include = projection.includeParamKeyPattern if projection else None
        exclude = projection.excludeParamKeyPattern if projection else None
        parts = self._filter_call(self.catalog.partitions.read, _db(request.dbName), request.tblName, **selection)
        if include is not None or exclude is not None:
            parts = [trim_partition(p, False, include, exclude) for p in parts]
        table = self.catalog.tables.get(_db(request.dbName), request.tblName)
        spec = to_thrift_partition_spec(table.database, table.name, table.sd.location, parts)
        return hive.GetPartitionsResponse(partitionSpec=[spec])

    def _by_filter(self, db_name, tbl_name, filter, max_parts):
        return self._filter_call(self.catalog.partitions.by_filter, _db(db_name), tbl_name, filter, _limit(max_parts))

    @staticmethod
    def _filter_call(action, *args, **kwargs):
        """Filter calls answer a missing table with NoSuchObjectException, a bad filter with MetaException."""
        try:
            return action(*args, **kwargs)
        except NoSuchTableError as e:
            raise hive.NoSuchObjectException(message=str(e)) from e
        except InvalidFilterError as e:
            raise hive.MetaException(message=str(e)) from e

    # -- partitions: change -----------------------------------------------------------------------

    def alter_partition(self, db_name, tbl_name, new_part):
        self._alter_partitions(db_name, tbl_name, [new_part], None)

    def alter_partition_with_environment_context(self, db_name, tbl_name, new_part, environment_context):
        self._alter_partitions(db_name, tbl_name, [new_part], environment_context)

    def alter_partitions(self, db_name, tbl_name, new_parts):
        self._alter_partitions(db_name, tbl_name, new_parts, None)

    def alter_partitions_with_environment_context(self, db_name, tbl_name, new_parts, environment_context):
        self._alter_partitions(db_name, tbl_name, new_parts, environment_context)

    def _alter_partitions(self, db_name, tbl_name, new_parts, environment_context):
        parts = [from_thrift_partition(p) for p in new_parts or []]
        try:
            self.catalog.partitions.alter(_db(db_name), tbl_name, parts, _env(environment_context))
        except (NoSuchObjectError, InvalidObjectError) as e:
            raise hive.InvalidOperationException(message=str(e)) from e

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

    def rename_partition_req(self, req):
        self.rename_partition(req.dbName, req.tableName, req.partVals, req.newPart)
        return hive.RenamePartitionResponse()

    def rename_partition(self, db_name, tbl_name, part_vals, new_part):
        try:
            self.catalog.partitions.rename(_db(db_name), tbl_name, part_vals or [], from_thrift_partition(new_part))
        except (NoSuchObjectError, InvalidObjectError, AlreadyExistsError) as e:
            # Hive's alter_partition_core answers these as InvalidOperationException
            raise hive.InvalidOperationException(message=str(e)) from e

    def drop_partition(self, db_name, tbl_name, part_vals, deleteData):
        self.catalog.partitions.drop(_db(db_name), tbl_name, values=part_vals or [], delete_data=bool(deleteData))
        return True

    def drop_partition_with_environment_context(self, db_name, tbl_name, part_vals, deleteData, environment_context):
        return self.drop_partition(db_name, tbl_name, part_vals, deleteData)

    def drop_partition_by_name(self, db_name, tbl_name, part_name, deleteData):
        self.catalog.partitions.drop(_db(db_name), tbl_name, name=part_name, delete_data=bool(deleteData))
        return True

    def drop_partition_by_name_with_environment_context(
        self, db_name, tbl_name, part_name, deleteData, environment_context
    ):
        return self.drop_partition_by_name(db_name, tbl_name, part_name, deleteData)

    def drop_partitions_req(self, req):
        parts = req.parts
        if parts is None or parts.names is None:
            raise hive.MetaException(
                message="Partition expressions cannot be evaluated by this metastore; drop partitions by name"
            )
        dropped = self.catalog.partitions.drop_by_names(
            _db(req.dbName),
            req.tblName,
            list(parts.names),
            delete_data=req.deleteData is not False,
            if_exists=req.ifExists is not False,
        )
        if req.needResult is False:
            return hive.DropPartitionsResult()
        return hive.DropPartitionsResult(partitions=[to_thrift_partition(p) for p in dropped])

    def drop_partition_req(self, dropPartitionReq):
        req = dropPartitionReq
        if req.partName is not None:
            return self.drop_partition_by_name(req.dbName, req.tblName, req.partName, req.deleteData is not False)
        return self.drop_partition(req.dbName, req.tblName, req.partVals, req.deleteData is not False)

    def partition_name_has_valid_characters(self, part_vals, throw_exception):
        """Whether every value matches the connection's whitelist pattern (``setMetaConf``; none by default)."""
        try:
            check_partition_values(list(part_vals or []), self.meta_conf.settings().partition_value_pattern)
        except InvalidPartitionValueError as e:
            if throw_exception:
                raise hive.MetaException(message=str(e)) from e
            return False
        return True

    def partition_name_to_vals(self, part_name):
        return list(self._spec(part_name).values())

    def partition_name_to_spec(self, part_name):
        return self._spec(part_name)

    def _spec(self, part_name):
        try:
            return self.catalog.partitions.name_to_spec(part_name or "")
        except InvalidObjectError as e:
            raise hive.MetaException(message=str(e)) from e

    # -- functions --------------------------------------------------------------------------------

    def create_function(self, func):
        self.catalog.functions.create(from_thrift_function(func))

    def get_function(self, dbName, funcName):
        return to_thrift_function(self.catalog.functions.get(_db(dbName), funcName))

    def get_functions(self, dbName, pattern):
        return self.catalog.functions.names(_db(dbName), pattern)

    def get_all_functions(self):
        return hive.GetAllFunctionsResponse(functions=[to_thrift_function(f) for f in self.catalog.functions.all()])

    def alter_function(self, dbName, funcName, newFunc):
        self.catalog.functions.alter(_db(dbName), funcName, from_thrift_function(newFunc))

    def drop_function(self, dbName, funcName):
        self.catalog.functions.drop(_db(dbName), funcName)


def _limit(max_parts) -> int:
    """Hive's ``max_parts``: negative (usually -1) means no limit."""
    return -1 if max_parts is None or max_parts < 0 else max_parts
