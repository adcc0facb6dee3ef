"""``hudi-metastore schema status | upgrade | sql``: the catalog database's schema layout, as Hive's
schematool shows and upgrades the metastore's.

``status`` exits 0 when the database has this build's layout, 3 when it is behind (older or empty: ``upgrade``
brings it up) and 4 when it is ahead (a newer hudi-metastore made it).
"""

from __future__ import annotations

import argparse

from hudi_catalog import Catalog
from hudi_catalog.schema_layout import DIALECTS, SchemaState, SchemaStatus

from .catalog_access import missing_sqlite_file
from .cli_options import add_db_url_option, add_log_level_option

EXIT_CODES = {SchemaState.CURRENT: 0, SchemaState.BEHIND: 3, SchemaState.AHEAD: 4}


def add_commands(commands) -> dict:
    """Add ``schema`` and its subcommands to ``commands``; returns ``{name: handler}``."""
    schema = commands.add_parser("schema", help="show, upgrade or script the catalog database's schema layout")
    actions = schema.add_subparsers(dest="schema_command", required=True)
    status = actions.add_parser(
        "status",
        help="this build's layout against the database's, and what is pending (exit 0 current, 3 behind, 4 ahead)",
    )
    upgrade = actions.add_parser("upgrade", help="apply the pending migrations (an empty database: create the schema)")
    sql = actions.add_parser("sql", help="print the upgrade's SQL for a DBA to review and apply; changes nothing")
    for action in (status, upgrade, sql):
        _add_options(action)
    sql.add_argument(
        "--from",
        dest="from_version",
        type=int,
        metavar="N",
        help="the layout to upgrade from (0: an empty database; default: the database's)",
    )
    sql.add_argument(
        "--dialect",
        choices=sorted(DIALECTS),
        help="render for this dialect without connecting to a database (from --from, default 0)",
    )
    return {"schema": _schema}


def _add_options(parser: argparse.ArgumentParser) -> None:
    add_db_url_option(parser)
    add_log_level_option(parser, "WARNING", "INFO logs each migration applied")


def _schema(args: argparse.Namespace) -> int:
    if args.schema_command == "sql" and args.dialect:
        print(Catalog.schema_sql(args.dialect, args.from_version), end="")
        return 0
    if missing_sqlite_file(args.db_url) is not None:
        if args.schema_command == "status":
            _print_status(Catalog.empty_schema_status(), args.db_url)
            return EXIT_CODES[SchemaState.BEHIND]
        if args.schema_command == "sql":
            print(Catalog.schema_sql("sqlite", args.from_version), end="")
            return 0
    service = Catalog.schema_at(args.db_url)
    try:
        if args.schema_command == "status":
            found = service.status()
            _print_status(found, service.store.engine.url.render_as_string(hide_password=True))
            return EXIT_CODES[found.state]
        if args.schema_command == "sql":
            print(service.upgrade_sql(args.from_version), end="")
            return 0
        result = service.upgrade()
    finally:
        service.close()
    if not result.applied:
        print(f"the catalog schema is at layout {result.to_version} already")
    else:
        start = "an empty database" if result.from_version is None else f"layout {result.from_version}"
        print(f"upgraded the catalog schema from {start} to layout {result.to_version}: {', '.join(result.applied)}")
    return 0


def _print_status(status: SchemaStatus, where: str) -> None:
    found = "empty (no catalog schema)" if status.database_version is None else f"layout {status.database_version}"
    print(f"url:        {where}")
    print(f"this build: layout {status.build_version}")
    print(f"database:   {found}")
    if status.pending:
        print(f"pending:    {', '.join(status.pending)}")
    advice = {
        SchemaState.CURRENT: "current",
        SchemaState.BEHIND: "behind: run `hudi-metastore schema upgrade` (or `schema sql` for the script)",
        SchemaState.AHEAD: "ahead: the database was made by a newer hudi-metastore; upgrade hudi-metastore",
    }
    print(f"state:      {advice[status.state]}")
