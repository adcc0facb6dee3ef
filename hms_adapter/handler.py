"""The ``ThriftHiveMetastore`` handler: each method converts its request, calls the catalog and converts
the answer. No SQL and no Hudi logic live here.

``MetastoreHandler`` is composed of its call groups, one module each (``*_calls.py``); this module holds
what the processor asks of the handler as a whole: ``call_scope`` and ``run_call``.

Argument names are Hive's (thriftpy2 passes arguments by position in IDL order). Database names may come
as ``@<catalog>#<db>`` from Hive 3+ clients. Methods of the IDL that no call group defines are answered
with Thrift's ``UNKNOWN_METHOD`` by ``hms_adapter.processor``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from hudi_catalog import Catalog
from hudi_catalog.call_settings import settings_scope
from hudi_catalog.catalog_scope import catalog_scope

from . import connection
from .authorization_calls import AuthorizationCalls
from .call_target import CallTarget
from .catalog_calls import CatalogCalls
from .constraint_calls import ConstraintCalls
from .convert.stats_wire import StatsEncodings
from .database_calls import DatabaseCalls
from .event_calls import EVENT_CONFIG, EventCalls
from .function_calls import FunctionCalls
from .lock_calls import LockCalls, txn_config
from .meta_conf import ConnectionMetaConf
from .partition_calls import PartitionCalls
from .partition_read_calls import PartitionReadCalls
from .service_calls import ServiceCalls
from .stats_calls import StatsCalls
from .table_calls import TableCalls
from .token_calls import TokenCalls

WAREHOUSE_KEY = "hive.metastore.warehouse.dir"
HIVE4_CALLS = frozenset(
    {
        "get_database_req",
        "create_table_req",
        "alter_table_req",
        "truncate_table_req",
        "get_fields_req",
        "get_open_txns_req",
        "get_partition_req",
        "get_partitions_req",
        "get_partitions_by_filter_req",
        "get_partitions_by_names_req",
        "get_partitions_ps_with_auth_req",
        "get_partition_names_ps_req",
        "get_partition_names_req",
        "get_partitions_with_specs",
        "alter_partitions_req",
    }
)
"""Calls of Hive 4's client that no Hive 2 or 3 client makes: a connection that makes one is a Hive 4 client's
(the partition filters of its later calls read ``LIKE`` as Hive Metastore 4 does, ``serve --filter-like``)."""
EVENT_TTL_KEY = "hive.metastore.event.db.listener.timetolive"


class MetastoreHandler(
    ServiceCalls,
    DatabaseCalls,
    TableCalls,
    PartitionCalls,
    PartitionReadCalls,
    FunctionCalls,
    CatalogCalls,
    LockCalls,
    ConstraintCalls,
    StatsCalls,
    EventCalls,
    TokenCalls,
    AuthorizationCalls,
):
    """Serves the HMS calls over one ``Catalog``: the fb303, session and configuration calls in
    ``ServiceCalls``, the database calls in ``DatabaseCalls``, the table calls in ``TableCalls``, the
    partition calls that change partitions in ``PartitionCalls`` and those that read them in
    ``PartitionReadCalls``, the function calls in ``FunctionCalls``, the catalog calls in ``CatalogCalls``, the
    lock and transaction calls in ``LockCalls``, the constraint calls in ``ConstraintCalls``, the column
    statistics calls in ``StatsCalls``, the notification event calls in ``EventCalls``, the delegation token
    calls in ``TokenCalls``, the roles and privileges calls and the check of every call in
    ``AuthorizationCalls``. The processor runs each call in its ``call_scope``: the catalog its arguments name,
    and its connection's settings. ``user_name`` maps a principal to its user name (identity without
    Kerberos)."""

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

    def run_call(self, api: str, action):
        """Each call through ``Catalog.call``: tried again through a short database outage."""
        return self.catalog.call(action, api)

    @contextmanager
    def call_scope(self, target: CallTarget, api: str | None = None) -> Iterator[None]:
        """Each call (``api``) runs in the catalog its arguments name, with its connection's settings."""
        if api in HIVE4_CALLS:
            connection.current().hive4_client = True
        with catalog_scope(target.catalog), settings_scope(self.meta_conf.settings()):
            yield
