"""The ``hudi-metastore`` command: ``serve``, ``init-db``, ``partitions``, the Hudi commands ``import``,
``timeline`` and ``snapshot`` (``hms_adapter.hudi_cli``) and ``schema`` (``hms_adapter.schema_cli``)."""

from __future__ import annotations

import argparse
import getpass
import json
import logging
import os
import signal
import ssl
import sys
import threading
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from hudi_catalog import Catalog
from hudi_catalog.authorization import AccessMode, AccessPolicy
from hudi_catalog.catalog import SNAPSHOT_SYNC_MODES, EventCleaner, SnapshotSyncer
from hudi_catalog.config import (
    ADMINS_ENV,
    AUDIT_LOG_ENV,
    AUTH_ENV,
    AUTHORIZATION_ENV,
    CACHE_MAX_BYTES_ENV,
    DATA_ROOTS_ENV,
    DB_RETRY_BUDGET_ENV,
    DB_URL_ENV,
    EVENT_TTL_ENV,
    EVENT_TTL_SECONDS_DEFAULT,
    ICEBERG_VIEWS_ENV,
    IDLE_TIMEOUT_ENV,
    KERBEROS_KEYTAB_ENV,
    KERBEROS_PRINCIPAL_ENV,
    MAX_BATCH_PARTITIONS_DEFAULT,
    MAX_BATCH_PARTITIONS_ENV,
    MAX_CONNECTIONS_ENV,
    MAX_FILTER_LENGTH_ENV,
    MAX_FILTER_TERMS_ENV,
    MAX_MESSAGE_SIZE_ENV,
    METRICS_PORT_ENV,
    PASSWORD_FILE_ENV,
    READ_TIMEOUT_ENV,
    SASL_QOP_DEFAULT,
    SASL_QOP_ENV,
    THREADS_ENV,
    TLS_CA_ENV,
    TLS_CERT_ENV,
    TLS_KEY_ENV,
    TOKEN_KEY_UPDATE_INTERVAL_ENV,
    TOKEN_KEY_UPDATE_INTERVAL_SECONDS_DEFAULT,
    TOKEN_MAX_LIFETIME_ENV,
    TOKEN_MAX_LIFETIME_SECONDS_DEFAULT,
    TOKEN_RENEW_INTERVAL_ENV,
    TOKEN_RENEW_INTERVAL_SECONDS_DEFAULT,
    TXN_TIMEOUT_ENV,
    TXN_TIMEOUT_SECONDS_DEFAULT,
    UPGRADE_SCHEMA_ENV,
    WAREHOUSE_DEFAULT,
    WAREHOUSE_ENV,
)
from hudi_catalog.iceberg import DEFAULT_METADATA_DIR
from hudi_catalog.observability import IGNORED
from hudi_catalog.partition_names import make_partition_name
from hudi_catalog.pruning.parse import FilterLimits
from hudi_catalog.retries import RetryPolicy
from hudi_catalog.services.delegation_tokens import TokenLifetimes
from hudi_catalog.services.iceberg_views import DEFAULT_SUFFIX, ViewSettings
from hudi_catalog.services.read_cache import DEFAULT_MAX_BYTES as DEFAULT_CACHE_BYTES

from . import hudi_cli, schema_cli
from .audit import AuditLog
from .authentication import AUTH_MODES, check_options, exposure_warning, sasl_mechanisms, user_names
from .catalog_access import check_db_url, open_existing
from .cli_errors import EXIT_USAGE, CommandError, run_command
from .cli_options import CliParser, add_db_url_option, add_log_level_option
from .client import DEFAULT_SERVICE_PRINCIPAL
from .descriptors import fit_max_connections
from .event_messages import HiveJsonMessages
from .handler import MetastoreHandler
from .idl import hive, metaserver
from .metaserver import METASERVER_PREFERENCES, MetaserverHandler
from .ops_http import OpsServer, forget_process, fresh_metrics_directory
from .passwords import set_password
from .processor import CallRecorder, MetastoreProcessor
from .sasl import MechanismFactories
from .server import DEFAULT_METASERVER_PORT, DEFAULT_PORT, PROTOCOLS, TRANSPORTS, ServingLimits, ThriftServer
from .status import PASSWORD_VARIABLE, StatusError, check_metastore, check_readiness, client_security
from .tls import ServerTls, TlsFiles
from .workers import WorkerPool, install_stop_handlers, reserve_port

log = logging.getLogger("hudi_metastore")


DESCRIPTION = """A Hive Metastore compatible Thrift server with a Hudi-native catalog. serve runs the server;
init-db and schema make and upgrade the catalog database; import registers a Hudi table; timeline, snapshot and
partitions read the catalog; iceberg builds a Hudi table's Iceberg view; passwd manages the password file of
serve --auth password; status checks a running server."""

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


def _number(convert: Callable[[str], float], what: str, zero_allowed: bool) -> Callable[[str], float]:
    """An argparse type: ``convert`` of the text, positive (or zero when ``zero_allowed``)."""

    def parse(text: str) -> float:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
        if value < 0 or (value == 0 and not zero_allowed):
            raise argparse.ArgumentTypeError(f"must be {'at least 0' if zero_allowed else 'positive'}: {text!r}")
        return value

    return parse


_positive_seconds = _number(float, "a number of seconds", zero_allowed=False)
_seconds = _number(float, "a number of seconds", zero_allowed=True)
_positive_int = _number(int, "a whole number", zero_allowed=False)


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
    serve.add_argument("--host", default="0.0.0.0", help="address both ports listen on (0.0.0.0: every interface)")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help="port of the Hive Metastore protocol")
    serve.add_argument(
        "--transport",
        choices=sorted(TRANSPORTS),
        default="buffered",
        help="Thrift transport of the Hive Metastore port, as the clients' (Hive's: buffered)",
    )
    serve.add_argument(
        "--protocol",
        choices=sorted(PROTOCOLS),
        default="binary",
        help="Thrift protocol of the Hive Metastore port, as the clients' (Hive's: binary)",
    )
    serve.add_argument(
        "--metaserver-port",
        type=int,
        default=DEFAULT_METASERVER_PORT,
        help="port of Hudi's metaserver protocol (0: any free port)",
    )
    serve.add_argument("--no-metaserver", action="store_true", help="do not serve Hudi's metaserver protocol")
    serve.add_argument(
        "--snapshot-sync",
        choices=SNAPSHOT_SYNC_MODES,
        default="inline",
        help="apply completed instants to the file snapshot inline (in the completing call) or "
        "asynchronously (a background thread)",
    )
    serve.add_argument(
        "--metrics-port",
        type=int,
        default=os.environ.get(METRICS_PORT_ENV),
        help="serve Prometheus metrics (/metrics) and health probes (/health/live, "
        f"/health/ready) over HTTP on this port (env {METRICS_PORT_ENV}; off by default)",
    )
    serve.add_argument("--metrics-host", help="address the --metrics-port listens on (default: --host)")
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        help="server processes sharing the ports (SO_REUSEPORT); one Python process uses one core",
    )
    serve.add_argument(
        "--txn-timeout",
        type=_positive_seconds,
        default=os.environ.get(TXN_TIMEOUT_ENV, TXN_TIMEOUT_SECONDS_DEFAULT),
        help="seconds after which a lock or transaction that was not heartbeated expires, as "
        f"Hive's hive.txn.timeout (env {TXN_TIMEOUT_ENV}; default "
        f"{TXN_TIMEOUT_SECONDS_DEFAULT:g})",
    )
    serve.add_argument(
        "--upgrade-schema",
        action="store_true",
        default=os.environ.get(UPGRADE_SCHEMA_ENV, "").lower() in ("1", "true", "yes", "on"),
        help="migrate an older catalog schema at start instead of refusing to start (env "
        f"{UPGRADE_SCHEMA_ENV}=true); `hudi-metastore schema upgrade` does it beforehand",
    )
    serve.add_argument(
        "--event-ttl",
        type=_positive_seconds,
        default=os.environ.get(EVENT_TTL_ENV, EVENT_TTL_SECONDS_DEFAULT),
        help="seconds notification events are kept, as Hive's "
        f"hive.metastore.event.db.listener.timetolive (env {EVENT_TTL_ENV}; default "
        f"{EVENT_TTL_SECONDS_DEFAULT:g})",
    )

    views = serve.add_argument_group("Iceberg views of Hudi tables (docs/iceberg.md)")
    views.add_argument(
        "--iceberg-views",
        action="store_true",
        default=os.environ.get(ICEBERG_VIEWS_ENV, "").lower() in ("1", "true", "yes", "on"),
        help="keep an Iceberg view of every Hudi table, made at its next completed instant (env "
        f"{ICEBERG_VIEWS_ENV}=true); without it only tables given one (`hudi-metastore iceberg`, "
        "`import --iceberg-view`) keep one",
    )
    views.add_argument(
        "--iceberg-view-suffix",
        default=DEFAULT_SUFFIX,
        help=f"a new view is named after its table with this suffix (default {DEFAULT_SUFFIX})",
    )
    views.add_argument(
        "--iceberg-metadata-root",
        metavar="URI",
        help="write new views' metadata under URI/<database>/<table> (default: the table's "
        f"<base path>/{DEFAULT_METADATA_DIR})",
    )

    limits, defaults = serve.add_argument_group("serving limits (per server process)"), ServingLimits()
    limits.add_argument(
        "--max-connections",
        type=_positive_int,
        default=os.environ.get(MAX_CONNECTIONS_ENV, defaults.max_connections),
        help="connections held at once per port; more are closed at once and logged (env "
        f"{MAX_CONNECTIONS_ENV}; default {defaults.max_connections})",
    )
    limits.add_argument(
        "--idle-timeout",
        type=_positive_seconds,
        default=os.environ.get(IDLE_TIMEOUT_ENV, defaults.idle_timeout),
        help="seconds a connection may wait between requests before it is closed (env "
        f"{IDLE_TIMEOUT_ENV}; default {defaults.idle_timeout:g})",
    )
    limits.add_argument(
        "--read-timeout",
        type=_positive_seconds,
        default=os.environ.get(READ_TIMEOUT_ENV, defaults.read_timeout),
        help="seconds a request has to arrive whole once it started, or its connection is "
        f"dropped (env {READ_TIMEOUT_ENV}; default {defaults.read_timeout:g})",
    )
    limits.add_argument(
        "--max-message-size",
        type=_positive_int,
        default=os.environ.get(MAX_MESSAGE_SIZE_ENV, defaults.max_message_size),
        help="bytes of one request; larger ones are refused before they are read (env "
        f"{MAX_MESSAGE_SIZE_ENV}; default {defaults.max_message_size}, libthrift's)",
    )
    filters = FilterLimits()
    limits.add_argument(
        "--max-filter-length",
        type=_positive_int,
        default=os.environ.get(MAX_FILTER_LENGTH_ENV, filters.max_length),
        help="characters of a partition filter; longer ones are refused with a MetaException (env "
        f"{MAX_FILTER_LENGTH_ENV}; default {filters.max_length})",
    )
    limits.add_argument(
        "--max-filter-terms",
        type=_positive_int,
        default=os.environ.get(MAX_FILTER_TERMS_ENV, filters.max_terms),
        help="comparisons and IN list values of a partition filter (env "
        f"{MAX_FILTER_TERMS_ENV}; default {filters.max_terms})",
    )
    limits.add_argument(
        "--max-batch-partitions",
        type=_positive_int,
        default=os.environ.get(MAX_BATCH_PARTITIONS_ENV, MAX_BATCH_PARTITIONS_DEFAULT),
        help="partitions one call may add, alter, drop or fetch by name; more are refused with a "
        f"MetaException (env {MAX_BATCH_PARTITIONS_ENV}; default {MAX_BATCH_PARTITIONS_DEFAULT})",
    )
    limits.add_argument(
        "--cache-max-bytes",
        type=_number(int, "a whole number", zero_allowed=True),
        default=os.environ.get(CACHE_MAX_BYTES_ENV, DEFAULT_CACHE_BYTES),
        help="bytes the read caches (tables, partition lists, statistics) hold together, keys "
        f"included; 0: no caching (env {CACHE_MAX_BYTES_ENV}; default {DEFAULT_CACHE_BYTES})",
    )
    serve.add_argument(
        "--data-root",
        action="append",
        metavar="URI",
        default=[r.strip() for r in os.environ.get(DATA_ROOTS_ENV, "").split(",") if r.strip()],
        help="a directory besides the warehouse root inside which dropped objects' data may be "
        "deleted (repeatable; env "
        f"{DATA_ROOTS_ENV}, comma-separated); elsewhere only directories the server made for the dropped "
        "object go",
    )
    limits.add_argument(
        "--db-retry-budget",
        type=_seconds,
        default=os.environ.get(DB_RETRY_BUDGET_ENV, RetryPolicy().budget_seconds),
        help="seconds a call keeps trying through transient catalog database errors (lost "
        "connection, restart, failover, deadlock) while none of its changes committed; 0: "
        f"never (env {DB_RETRY_BUDGET_ENV}; default {RetryPolicy().budget_seconds:g})",
    )
    limits.add_argument(
        "--threads",
        type=_positive_int,
        default=os.environ.get(THREADS_ENV, defaults.threads),
        help=f"requests served at once; idle connections hold none (env {THREADS_ENV}; default {defaults.threads})",
    )
    serve.add_argument(
        "--audit-log",
        default=os.environ.get(AUDIT_LOG_ENV),
        metavar="PATH|-",
        help=f"write one line per call (who, from where, what, on which object, with what outcome) to "
        f"this file, or to standard output with - (env {AUDIT_LOG_ENV})",
    )
    auth = serve.add_argument_group("authentication of the Hive Metastore port")
    auth.add_argument(
        "--auth",
        choices=AUTH_MODES,
        default=os.environ.get(AUTH_ENV, "none"),
        help=f"none; password: SASL PLAIN against --password-file; kerberos: SASL GSSAPI and "
        f"delegation tokens (env {AUTH_ENV})",
    )
    auth.add_argument(
        "--password-file",
        default=os.environ.get(PASSWORD_FILE_ENV),
        help=f"users and salted password hashes, made by `hudi-metastore passwd` (env {PASSWORD_FILE_ENV})",
    )
    auth.add_argument(
        "--allow-plaintext-passwords",
        action="store_true",
        help="let --auth password run without TLS (passwords then cross the network in clear)",
    )
    auth.add_argument(
        "--kerberos-principal",
        default=os.environ.get(KERBEROS_PRINCIPAL_ENV),
        help="the server's principal, as hive.metastore.kerberos.principal: hive/_HOST@REALM, _HOST "
        f"replaced by this host's name (env {KERBEROS_PRINCIPAL_ENV})",
    )
    auth.add_argument(
        "--kerberos-keytab",
        default=os.environ.get(KERBEROS_KEYTAB_ENV),
        help=f"the keytab holding that principal's key (env {KERBEROS_KEYTAB_ENV})",
    )
    auth.add_argument(
        "--sasl-qop",
        default=os.environ.get(SASL_QOP_ENV, SASL_QOP_DEFAULT),
        help="qualities of protection Kerberos clients may choose, as hadoop.rpc.protection: a list "
        f"of auth, auth-int (signed), auth-conf (encrypted) (env {SASL_QOP_ENV}; default "
        f"{SASL_QOP_DEFAULT})",
    )
    authz = serve.add_argument_group("authorization (with --auth password or kerberos)")
    authz.add_argument(
        "--authorization",
        choices=[m.value for m in AccessMode],
        default=os.environ.get(AUTHORIZATION_ENV, AccessMode.NONE.value),
        help="none; owner: owners and admins change and drop, everyone reads; privileges: granted "
        f"privileges decide, as Hive's SQL-standard authorization (env {AUTHORIZATION_ENV})",
    )
    authz.add_argument(
        "--admin",
        action="append",
        metavar="NAME",
        default=[n.strip() for n in os.environ.get(ADMINS_ENV, "").split(",") if n.strip()],
        help="a user who may do everything (repeatable; env "
        f"{ADMINS_ENV}, comma-separated); members of the admin role are admins too",
    )
    tokens = serve.add_argument_group("delegation tokens (with --auth kerberos), as Hive's hive.cluster.delegation.*")
    tokens.add_argument(
        "--token-renew-interval",
        type=_positive_seconds,
        default=os.environ.get(TOKEN_RENEW_INTERVAL_ENV, TOKEN_RENEW_INTERVAL_SECONDS_DEFAULT),
        help="seconds a token lives without renewal (env "
        f"{TOKEN_RENEW_INTERVAL_ENV}; default {TOKEN_RENEW_INTERVAL_SECONDS_DEFAULT:g})",
    )
    tokens.add_argument(
        "--token-max-lifetime",
        type=_positive_seconds,
        default=os.environ.get(TOKEN_MAX_LIFETIME_ENV, TOKEN_MAX_LIFETIME_SECONDS_DEFAULT),
        help="seconds after which no renewal keeps a token alive (env "
        f"{TOKEN_MAX_LIFETIME_ENV}; default {TOKEN_MAX_LIFETIME_SECONDS_DEFAULT:g})",
    )
    tokens.add_argument(
        "--token-key-update-interval",
        type=_positive_seconds,
        default=os.environ.get(TOKEN_KEY_UPDATE_INTERVAL_ENV, TOKEN_KEY_UPDATE_INTERVAL_SECONDS_DEFAULT),
        help="seconds a master key signs new tokens before a new one replaces it (env "
        f"{TOKEN_KEY_UPDATE_INTERVAL_ENV}; default {TOKEN_KEY_UPDATE_INTERVAL_SECONDS_DEFAULT:g})",
    )
    tls = serve.add_argument_group("TLS (both ports; TLS 1.2 and later; files reloaded when they change)")
    tls.add_argument(
        "--tls-cert",
        default=os.environ.get(TLS_CERT_ENV),
        help=f"PEM certificate (chain) of the server (env {TLS_CERT_ENV})",
    )
    tls.add_argument(
        "--tls-key", default=os.environ.get(TLS_KEY_ENV), help=f"PEM private key of the certificate (env {TLS_KEY_ENV})"
    )
    tls.add_argument(
        "--tls-ca",
        default=os.environ.get(TLS_CA_ENV),
        help=f"PEM CA certificates: clients must present a certificate they signed (env {TLS_CA_ENV})",
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
    status.add_argument("--timeout", type=_positive_seconds, default=5.0, help="seconds to wait (default 5)")
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
        handlers={**hudi_cli.add_commands(commands, _add_store_options), **schema_cli.add_commands(commands)}
    )
    return parser


def make_server(
    catalog: Catalog,
    host: str,
    port: int,
    transport: str = "buffered",
    protocol: str = "binary",
    reuse_port: bool = False,
    tls: ServerTls | None = None,
    audit: AuditLog | None = None,
    sasl: MechanismFactories | None = None,
    user_name: Callable[[str], str] = str,
    limits: ServingLimits = ServingLimits(),
    on_call: CallRecorder | None = None,
) -> ThriftServer:
    """The Hive Metastore port; ``user_name`` maps authenticated principals to user names; ``on_call``
    hears of each call (metrics)."""
    handler = MetastoreHandler(catalog, user_name=user_name)
    processor = MetastoreProcessor(hive.ThriftHiveMetastore, handler, audit=audit, on_call=on_call)
    return ThriftServer(processor, host, port, transport, protocol, reuse_port, tls=tls, sasl=sasl, limits=limits)


def make_metaserver(
    catalog: Catalog,
    host: str,
    port: int,
    reuse_port: bool = False,
    tls: ServerTls | None = None,
    audit: AuditLog | None = None,
    limits: ServingLimits = ServingLimits(),
    on_call: CallRecorder | None = None,
    on_commit: Callable[[], None] = lambda: None,
) -> ThriftServer:
    """Hudi's metaserver protocol, as its clients speak it: binary protocol over a socket."""
    processor = MetastoreProcessor(
        metaserver.ThriftHoodieMetaserver,
        MetaserverHandler(catalog, on_commit),
        METASERVER_PREFERENCES,
        audit=audit,
        on_call=on_call,
    )
    return ThriftServer(
        processor, host, port, "buffered", "binary", reuse_port, name="Hudi metaserver", tls=tls, limits=limits
    )


def _serving_limits(args: argparse.Namespace) -> ServingLimits:
    return ServingLimits(
        args.max_connections, args.idle_timeout, args.read_timeout, args.max_message_size, args.threads
    )


def _token_lifetimes(args: argparse.Namespace) -> TokenLifetimes:
    return TokenLifetimes(args.token_renew_interval, args.token_max_lifetime, args.token_key_update_interval)


def _tls(args: argparse.Namespace) -> ServerTls | None:
    """The TLS of ``serve``'s options; ``SystemExit`` with a message when they do not go together."""
    if not (args.tls_cert or args.tls_key or args.tls_ca):
        return None
    if not (args.tls_cert and args.tls_key):
        raise SystemExit("hudi-metastore: --tls-cert and --tls-key go together (and --tls-ca needs them)")
    try:
        return ServerTls(TlsFiles(args.tls_cert, args.tls_key, args.tls_ca))
    except (OSError, ssl.SSLError) as error:
        raise SystemExit(f"hudi-metastore: cannot use the TLS files: {error}") from None


def _serve(args: argparse.Namespace) -> int:
    if args.workers < 1:
        print("hudi-metastore: --workers must be at least 1", file=sys.stderr)
        return 2
    _tls(args)  # bad TLS or authentication options stop here, before any worker starts
    check_options(args)
    warning = exposure_warning(args)
    if warning:
        log.warning(warning)
    # before prometheus_client is imported, by this process or the workers it forks
    with fresh_metrics_directory() if args.metrics_port is not None else nullcontext() as directory:
        if args.workers == 1:
            return _serve_process(args, metrics_directory=directory)
        return _serve_workers(args, directory)


def _ops_server(args: argparse.Namespace, catalog: Catalog, metrics_directory: Path) -> OpsServer:
    return OpsServer(args.metrics_host or args.host, args.metrics_port, catalog, metrics_directory)


def _port_error(args: argparse.Namespace, error: OSError) -> int:
    metrics = "" if args.metrics_port is None else f", metrics {args.metrics_host or args.host}:{args.metrics_port}"
    print(
        f"hudi-metastore: cannot listen on {args.host} (ports {args.port}, {args.metaserver_port}{metrics}): "
        f"{error}; choose others with --port / --metaserver-port / --metrics-port, or --no-metaserver",
        file=sys.stderr,
    )
    return 1


class _BackgroundTask(Protocol):
    """A thread of work beside the serving: event clean-up, snapshot sync, connection gauge."""

    def start(self) -> None: ...

    def stop(self) -> None: ...


def _serve_process(
    args: argparse.Namespace, worker: int | None = None, ready=None, metrics_directory: Path | None = None
) -> int:
    """Serves in this process until SIGTERM/SIGINT; as worker ``worker`` of ``--workers`` when given.
    With ``--metrics-port``, records metrics (in ``metrics_directory``, which a single process also serves
    over HTTP; a worker's supervisor serves it otherwise)."""
    tls = _tls(args)
    recording = args.metrics_port is not None
    if recording:
        from . import metrics  # only now: prometheus_client reads the metrics directory when first imported
    # a worker's supervisor has made the schema ready already
    catalog = Catalog.open(
        args.db_url,
        args.warehouse,
        init=worker is None,
        snapshot_sync=args.snapshot_sync,
        txn_timeout=args.txn_timeout,
        event_format=HiveJsonMessages(),
        event_ttl=args.event_ttl,
        token_lifetimes=_token_lifetimes(args),
        access_policy=AccessPolicy(AccessMode(args.authorization), frozenset(args.admin)),
        filter_limits=FilterLimits(args.max_filter_length, args.max_filter_terms),
        retry_policy=RetryPolicy(args.db_retry_budget),
        data_roots=args.data_root,
        upgrade_schema=args.upgrade_schema,
        observer=metrics.PrometheusObserver() if recording else IGNORED,
        iceberg_views=ViewSettings(args.iceberg_views, args.iceberg_view_suffix, args.iceberg_metadata_root),
        cache_max_bytes=args.cache_max_bytes,
        max_batch_partitions=args.max_batch_partitions,
    )
    sasl = sasl_mechanisms(args, catalog.delegation_tokens.verify)
    # with several workers one of them applies pending instants and removes old events: the work is per
    # database, not per process
    background: list[_BackgroundTask] = [EventCleaner(catalog)] if not worker else []
    if args.snapshot_sync == "async" and not worker:
        background.append(SnapshotSyncer(catalog))
    # every process: a commit answers without waiting for its Iceberg view, which this process's thread updates
    background.append(catalog.iceberg_views.updates_in_background())
    reuse_port = worker is not None
    try:
        audit = AuditLog(args.audit_log) if args.audit_log else None
        limits = _serving_limits(args)
        ports = 1 if args.no_metaserver else 2
        limits = replace(limits, max_connections=fit_max_connections(limits.max_connections, ports))
        on_call = metrics.record_call if recording else None
        server = make_server(
            catalog,
            args.host,
            args.port,
            args.transport,
            args.protocol,
            reuse_port,
            tls,
            audit,
            sasl,
            user_names(args),
            limits,
            on_call,
        )
        hudi_server = (
            None
            if args.no_metaserver
            else make_metaserver(
                catalog,
                args.host,
                args.metaserver_port,
                reuse_port,
                tls,
                audit,
                limits,
                on_call,
                metrics.record_metaserver_commit if recording else lambda: None,
            )
        )
        ops = _ops_server(args, catalog, metrics_directory) if metrics_directory is not None else None
    except OSError as error:  # a port in use: say which, without a traceback
        catalog.close()
        return _port_error(args, error)
    if recording:
        servers = [server] if hudi_server is None else [server, hudi_server]
        background.append(metrics.ConnectionGauge(lambda: sum(s.open_connections for s in servers)))

    def _stop(signum, _frame) -> None:
        log.info("received signal %d, stopping", signum)
        server.stop()
        if hudi_server is not None:
            hudi_server.stop()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    log.info(
        "catalog database %s, warehouse %s",
        catalog.store.engine.url.render_as_string(hide_password=True),
        catalog.warehouse.root,
    )
    if hudi_server is not None:
        threading.Thread(target=hudi_server.serve_forever, name="hudi-metaserver", daemon=True).start()
    for task in background:
        task.start()
    if ops is not None:
        ops.start()
    if ready is not None:
        ready.set()
    else:
        _print_listening(args.host, server.port, None if hudi_server is None else hudi_server.port)
    server.serve_forever()
    if ops is not None:
        ops.stop()
    for task in background:
        task.stop()
    catalog.close()
    return 0


def _print_listening(host: str, port: int, metaserver_port: int | None, workers: int = 1) -> None:
    if metaserver_port is not None:
        print(f"hudi-metastore serving Hudi's metaserver protocol on thrift://{host}:{metaserver_port}", flush=True)
    suffix = f" ({workers} worker processes)" if workers > 1 else ""
    print(f"hudi-metastore listening on thrift://{host}:{port}{suffix}", flush=True)


def _serve_workers(args: argparse.Namespace, metrics_directory: Path | None) -> int:
    """``--workers N``: reserve the ports, create or migrate the schema once, then run N server processes;
    with ``--metrics-port`` this process serves the workers' metrics and the health probes."""
    try:
        reserved = [reserve_port(args.host, args.port)]
        if not args.no_metaserver:
            reserved.append(reserve_port(args.host, args.metaserver_port))
    except OSError as error:
        return _port_error(args, error)
    args.port = reserved[0].getsockname()[1]
    if not args.no_metaserver:
        args.metaserver_port = reserved[1].getsockname()[1]
    # schema ready before the workers start
    catalog = Catalog.open(args.db_url, args.warehouse, upgrade_schema=args.upgrade_schema)
    try:
        ops = _ops_server(args, catalog, metrics_directory) if metrics_directory is not None else None
    except OSError as error:
        catalog.close()
        return _port_error(args, error)
    if ops is None:
        catalog.close()  # kept open only to answer the probes and count locks

    def run_worker(index: int, ready) -> None:
        for signum in (signal.SIGTERM, signal.SIGINT):  # not the supervisor's handlers: the worker sets its own
            signal.signal(signum, signal.SIG_DFL)
        for sock in reserved:
            sock.close()
        sys.exit(_serve_process(args, worker=index, ready=ready))

    pool = WorkerPool(run_worker, args.workers, on_exit=forget_process if ops is not None else lambda pid: None)
    install_stop_handlers(pool)
    if not pool.start():
        return 1
    if ops is not None:
        ops.start()
    _print_listening(args.host, args.port, None if args.no_metaserver else args.metaserver_port, args.workers)
    code = pool.supervise()
    if ops is not None:
        ops.stop()
        catalog.close()
    for sock in reserved:
        sock.close()
    return code


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
        "serve": _serve,
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
