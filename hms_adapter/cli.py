"""The ``hudi-metastore`` command: ``serve``, ``init-db``, ``partitions``, the Hudi commands ``import``,
``timeline`` and ``snapshot`` (``hms_adapter.hudi_cli``) and ``schema`` (``hms_adapter.schema_cli``)."""

from __future__ import annotations

import argparse
import getpass
import json
import logging
import os
import sys

from hudi_catalog import Catalog
from hudi_catalog.config import DB_URL_ENV, WAREHOUSE_DEFAULT, WAREHOUSE_ENV
from hudi_catalog.partition_names import make_partition_name

from . import copy_cli, hudi_cli, schema_cli
from .authentication import AUTH_MODES
from .catalog_access import check_db_url, open_existing
from .cli_errors import EXIT_USAGE, CommandError, run_command
from .cli_options import CliParser, add_create_catalog_option, add_db_url_option, add_log_level_option, positive_seconds
from .client import DEFAULT_SERVICE_PRINCIPAL
from .passwords import set_password
from .serve_options import add_serve_options
from .server import DEFAULT_PORT
from .serving import serve_command
from .status import PASSWORD_VARIABLE, StatusError, check_metastore, check_readiness, client_security

DESCRIPTION = """A Hive Metastore compatible Thrift server with a Hudi-native catalog. serve runs the server;
init-db and schema make and upgrade the catalog database; import registers a Hudi table; timeline, snapshot and
partitions read the catalog; iceberg builds a Hudi table's Iceberg view; copy copies another Hive Metastore
into this one (or back); passwd manages the password file of serve --auth password; status checks a running
server."""

EPILOG = f"""Every command but passwd and status works on the catalog database of --db-url: set {DB_URL_ENV} once
(export {DB_URL_ENV}=sqlite:////srv/metastore.db) to point them all at the same catalog. Exit codes: 0 done,
1 failed, 2 a usage mistake, 3/4 schema status behind/ahead, 141 output cut short (| head). See docs/cli.md."""


def _add_store_options(parser: argparse.ArgumentParser) -> None:
    add_db_url_option(parser)
    parser.add_argument(
        "--warehouse",
        default=os.environ.get(WAREHOUSE_ENV, WAREHOUSE_DEFAULT),
        help=f"warehouse root for databases and managed tables (env {WAREHOUSE_ENV}; default {WAREHOUSE_DEFAULT})",
    )
    add_log_level_option(parser, "INFO", "DEBUG logs one line per call")


def build_parser() -> argparse.ArgumentParser:
    parser = CliParser(
        prog="hudi-metastore",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="serve the Hive Metastore Thrift protocol")
    _add_store_options(serve)
    add_serve_options(serve)
    add_create_catalog_option(
        serve,
        default=True,
        why="created by default, the first start of a metastore; --no-create-catalog refuses to start on an "
        "empty or mistaken --db-url, as Hive Metastore's schema verification does",
    )

    passwd = commands.add_parser("passwd", help="add a user to a password file (or change its password)")
    passwd.add_argument("file", help="the password file of serve --auth password")
    passwd.add_argument("user", help="the user's name, as clients log in")
    passwd.add_argument(
        "--groups",
        type=lambda text: [g.strip() for g in text.split(",") if g.strip()],
        help="the user's groups, comma-separated, for GROUP grants ('' for none; default: the groups it had)",
    )
    passwd.add_argument(
        "--keep-password", action="store_true", help="change only --groups of a user already in the file"
    )

    status = commands.add_parser("status", help="check a running metastore with one call, from a shell")
    status.add_argument(
        "--uri", default=f"thrift://127.0.0.1:{DEFAULT_PORT}", help="the metastore's Thrift URI (default %(default)s)"
    )
    status.add_argument("--timeout", type=positive_seconds, default=5.0, help="seconds to wait (default 5)")
    status.add_argument(
        "--tls-ca",
        help="connect over TLS, verifying the server (started with --tls-cert) with these PEM CA certificates",
    )
    status.add_argument("--tls-cert", help="PEM client certificate for a server started with --tls-ca (with --tls-key)")
    status.add_argument("--tls-key", help="PEM private key of --tls-cert")
    status.add_argument(
        "--auth",
        choices=AUTH_MODES,
        default="none",
        help="how the server authenticates, as its serve --auth: password (SASL PLAIN, with --user) or kerberos "
        "(SASL GSSAPI with the ticket of kinit) (default %(default)s)",
    )
    status.add_argument(
        "--user",
        help=f"the user of --auth password; the password is {PASSWORD_VARIABLE}, else asked for on a terminal, "
        "else the first line of standard input",
    )
    status.add_argument(
        "--kerberos-service-principal",
        default=DEFAULT_SERVICE_PRINCIPAL,
        help="the server's principal for --auth kerberos, as its --kerberos-principal: _HOST is the host of --uri, "
        "a principal without @REALM is in krb5.conf's default realm (default %(default)s)",
    )
    status.add_argument(
        "--health-url", help="also read /health/ready of the server's --metrics-port, e.g. http://127.0.0.1:9091"
    )

    init_db = commands.add_parser("init-db", help="create or upgrade the catalog schema, then exit")
    _add_store_options(init_db)

    partitions = commands.add_parser("partitions", help="list a table's partitions, pruned by an engine's WHERE clause")
    _add_store_options(partitions)
    partitions.add_argument("table", metavar="DB.TABLE")
    partitions.add_argument("--where", default="", help="a WHERE clause as an engine writes it")
    partitions.add_argument(
        "--json", action="store_true", help="print JSON (table, where, partitions) instead of one name per line"
    )
    parser.set_defaults(
        handlers={
            **hudi_cli.add_commands(commands, _add_store_options),
            **schema_cli.add_commands(commands),
            **copy_cli.add_commands(commands),
        }
    )
    return parser


def _init_db(args: argparse.Namespace) -> int:
    catalog = Catalog.open(args.db_url, args.warehouse, init=False)
    version = catalog.init(upgrade=True)
    print(f"catalog schema layout {version} ready at {catalog.store.engine.url.render_as_string(hide_password=True)}")
    catalog.close()
    return 0


def _partitions(args: argparse.Namespace) -> int:
    database, dot, table = args.table.partition(".")
    if not dot or not table:
        raise CommandError("the table is named DB.TABLE", EXIT_USAGE)
    catalog = open_existing(args, init=False)
    try:
        keys = [k.name for k in catalog.tables.get(database, table).partition_keys]
        found = catalog.partitions.by_where(database, table, args.where)
        names = [make_partition_name(keys, p.values) for p in found]
    finally:
        catalog.close()
    if args.json:
        print(
            json.dumps(
                {
                    "table": f"{database}.{table}".lower(),
                    "where": args.where,
                    "partitions": [
                        {"name": n, "values": p.values, "location": p.sd.location} for n, p in zip(names, found)
                    ],
                },
                indent=2,
            )
        )
    else:
        print("\n".join(names))
    return 0


def _passwd(args: argparse.Namespace) -> int:
    """The password comes from the terminal (asked twice), or from the first line of standard input."""
    if args.keep_password:
        password = None
    elif sys.stdin.isatty():
        password = getpass.getpass(f"password of {args.user}: ")
        if getpass.getpass("again: ") != password:
            print("hudi-metastore: the passwords differ", file=sys.stderr)
            return 1
    else:
        password = sys.stdin.readline().rstrip("\n")
    if password == "":
        print("hudi-metastore: an empty password is refused", file=sys.stderr)
        return 1
    try:
        set_password(args.file, args.user, password, args.groups)
    except ValueError as error:
        print(f"hudi-metastore: {error}", file=sys.stderr)
        return 1
    print(f"{args.user} is in {args.file}")
    return 0


def _status(args: argparse.Namespace) -> int:
    """One cheap call to a running metastore (and its readiness probe with ``--health-url``): prints one line
    and exits 0 when it answered, 1 otherwise."""
    try:
        answer = check_metastore(args.uri, args.timeout, client_security(args))
        print(f"ok {args.uri}: {answer}")
        if args.health_url:
            print(f"ok {args.health_url}: {check_readiness(args.health_url, args.timeout)}")
    except StatusError as error:
        print(f"failed: {error}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=getattr(args, "log_level", "INFO"), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    handlers = {
        "serve": serve_command,
        "init-db": _init_db,
        "partitions": _partitions,
        "passwd": _passwd,
        "status": _status,
        **args.handlers,
    }

    def checked(args: argparse.Namespace) -> int:
        if getattr(args, "db_url", None):
            check_db_url(args.db_url)
        return handlers[args.command](args)

    return run_command(checked, args)


if __name__ == "__main__":
    sys.exit(main())
