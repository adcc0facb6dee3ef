"""What each Hive Metastore call does, for ``serve --authorization``: its ``Operation`` and the level of the object
it acts on (the catalog, a database or a table), and where in its arguments that object is named.

Every method the handler serves has a rule (a test keeps it so); a call without one is refused when
authorization is enforced. Calls that name no object and change nothing of others' (fb303, session
settings, locks and transactions, delegation tokens, whose own rules apply) read the catalog. The roles and
privileges calls check their callers themselves (``AuthorizationService``).
"""

from __future__ import annotations

from dataclasses import dataclass

from hudi_catalog.authorization import GLOBAL, ObjectType, Operation, SecuredObject

from .convert.names import strip_catalog


@dataclass(frozen=True)
class Rule:
    action: Operation
    level: ObjectType
    """``GLOBAL``, ``DATABASE`` or ``TABLE``."""


RULES: dict[str, Rule] = {}


def _rule(action: Operation, level: ObjectType, methods: str) -> None:
    for method in methods.split():
        if method in RULES:
            raise ValueError(f"two access rules for {method}")
        RULES[method] = Rule(action, level)


_rule(
    Operation.READ,
    ObjectType.GLOBAL,
    """
    getName getVersion getStatus getStatusDetails aliveSince getCounters getCounter getOption getOptions
    setOption getCpuProfile reinitialize flushCache shutdown set_ugi getMetaConf setMetaConf get_config_value
    get_databases get_all_databases get_table_meta get_all_functions get_catalogs get_catalog
    partition_name_has_valid_characters partition_name_to_spec partition_name_to_vals
    open_txns abort_txn abort_txns commit_txn get_open_txns get_open_txns_info get_open_txns_req lock check_lock
    unlock show_locks heartbeat heartbeat_txn_range allocate_table_write_ids get_valid_write_ids add_dynamic_partitions
    get_delegation_token renew_delegation_token cancel_delegation_token
    create_role drop_role get_role_names grant_role revoke_role grant_revoke_role list_roles get_principals_in_role
    get_role_grants_for_principal grant_privileges revoke_privileges grant_revoke_privileges list_privileges
    get_privilege_set
""",
)
_rule(Operation.CREATE, ObjectType.GLOBAL, "create_database create_database_req")
_rule(
    Operation.ADMIN,
    ObjectType.GLOBAL,
    """
    create_catalog alter_catalog drop_catalog
    get_next_notification get_current_notificationEventId get_notification_events_count fire_listener_event
    add_write_notification_log add_write_notification_log_in_batch
""",
)
_rule(
    Operation.READ,
    ObjectType.DATABASE,
    """
    get_database get_database_req get_tables get_all_tables get_tables_by_type get_tables_ext
    get_table_objects_by_name get_table_objects_by_name_req get_table_names_by_filter get_functions get_function
""",
)
_rule(
    Operation.CREATE,
    ObjectType.DATABASE,
    """
    create_table create_table_with_environment_context create_table_req create_table_with_constraints
""",
)
_rule(
    Operation.ALTER,
    ObjectType.DATABASE,
    """
    alter_database alter_database_req create_function alter_function drop_function
""",
)
_rule(Operation.DROP, ObjectType.DATABASE, "drop_database drop_database_req")
_rule(
    Operation.READ,
    ObjectType.TABLE,
    """
    get_table get_table_req get_fields get_fields_req get_fields_with_environment_context get_schema
    get_schema_req get_schema_with_environment_context
    get_partition get_partition_req get_partition_with_auth get_partition_by_name get_partitions
    get_partitions_with_auth get_partitions_ps get_partitions_ps_with_auth get_partitions_req
    get_partitions_ps_with_auth_req get_partitions_by_filter get_partitions_by_filter_req get_partitions_by_names
    get_partitions_by_names_req get_partition_names get_partition_names_ps get_partition_names_ps_req
    fetch_partition_names_req get_num_partitions_by_filter get_part_specs_by_filter get_partitions_with_specs
    get_table_column_statistics get_partition_column_statistics get_table_statistics_req
    get_partitions_statistics_req get_aggr_stats_for
    get_primary_keys get_foreign_keys get_unique_constraints get_not_null_constraints get_default_constraints
    get_check_constraints get_all_table_constraints
""",
)
_rule(
    Operation.WRITE,
    ObjectType.TABLE,
    """
    add_partition add_partition_with_environment_context add_partitions add_partitions_req append_partition
    append_partition_with_environment_context append_partition_req append_partition_by_name
    append_partition_by_name_with_environment_context alter_partition alter_partition_with_environment_context
    alter_partitions alter_partitions_with_environment_context alter_partitions_req rename_partition
    rename_partition_req
    update_table_column_statistics update_partition_column_statistics update_table_column_statistics_req
    update_partition_column_statistics_req set_aggr_stats_for delete_table_column_statistics
    delete_partition_column_statistics
""",
)
_rule(
    Operation.DELETE,
    ObjectType.TABLE,
    """
    drop_partition drop_partition_with_environment_context drop_partition_by_name
    drop_partition_by_name_with_environment_context drop_partitions_req drop_partition_req truncate_table
    truncate_table_req
""",
)
_rule(
    Operation.ALTER,
    ObjectType.TABLE,
    """
    alter_table alter_table_with_environment_context alter_table_with_cascade alter_table_req
    add_primary_key add_foreign_key add_unique_constraint add_not_null_constraint add_default_constraint
    add_check_constraint drop_constraint
""",
)
_rule(Operation.DROP, ObjectType.TABLE, "drop_table drop_table_with_environment_context drop_table_req")

_DATABASE_FIELDS = (
    "dbName",
    "db_name",
    "dbname",
    "databaseName",
    "table_db",
    "database",
    "oldDbName",
    "foreign_db_name",
    "parent_db_name",
    "name",
)
_TABLE_FIELDS = ("tblName", "tableName", "tbl_name", "tablename", "table_name", "foreign_tbl_name", "parent_tbl_name")
_SEARCH_DEPTH = 3


def _names_in(value, depth: int) -> tuple[str | None, str | None]:
    """The database and table a struct names: its own fields, else those of the first struct inside it."""
    if isinstance(value, list):
        return _names_in(value[0], depth) if value else (None, None)
    spec = getattr(value, "thrift_spec", None)
    if spec is None or depth == 0:
        return None, None
    database = next((getattr(value, f) for f in _DATABASE_FIELDS if isinstance(getattr(value, f, None), str)), None)
    if database is not None:
        table = next((getattr(value, f) for f in _TABLE_FIELDS if isinstance(getattr(value, f, None), str)), None)
        return database, table
    for item in spec.values():
        found = _names_in(getattr(value, item[1], None), depth - 1)
        if found[0] is not None:
            return found
    return None, None


def target_of(rule: Rule, args) -> SecuredObject | None:
    """The object a call acts on at its rule's level; None when its arguments do not name one."""
    if rule.level is ObjectType.GLOBAL:
        return GLOBAL
    database: str | None
    table: str | None
    if args and isinstance(args[0], str):
        database, table = args[0], args[1] if len(args) > 1 and isinstance(args[1], str) else None
    else:
        database, table = next(
            (found for found in (_names_in(a, _SEARCH_DEPTH) for a in args) if found[0]), (None, None)
        )
    database = strip_catalog(database) if database else None
    if not database:
        return None
    if rule.level is ObjectType.DATABASE:
        return SecuredObject.of_database(database)
    return SecuredObject.of_table(database, table) if table else None
