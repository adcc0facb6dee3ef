"""The options of ``hudi-metastore serve``, one declaration each (``SERVE_OPTIONS``): its flag, meaning, group,
environment variable and default. The parser's options, their defaults from the environment and the
``(env X; default Y)`` ending of their help are made from the declarations (``add_serve_options``)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hudi_catalog.authorization import AccessMode
from hudi_catalog.catalog import SNAPSHOT_SYNC_MODES
from hudi_catalog.config import (
    ADMINS_ENV,
    AUDIT_LOG_ENV,
    AUTH_ENV,
    AUTHORIZATION_ENV,
    CACHE_MAX_BYTES_ENV,
    CONSOLE_PORT_ENV,
    DATA_ROOTS_ENV,
    DB_RETRY_BUDGET_ENV,
    EVENT_TTL_ENV,
    EVENT_TTL_SECONDS_DEFAULT,
    FILTER_LIKE_ENV,
    FOLLOW_INTERVAL_ENV,
    GRACEFUL_TIMEOUT_ENV,
    ICEBERG_REST_PORT_ENV,
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
    STORAGE_CONFIG_ENV,
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
)
from hudi_catalog.iceberg import DEFAULT_METADATA_DIR
from hudi_catalog.iceberg_views import DEFAULT_SUFFIX
from hudi_catalog.pruning.hive4_like import LikeRule
from hudi_catalog.pruning.parse import FilterLimits
from hudi_catalog.read_cache import DEFAULT_MAX_BYTES as DEFAULT_CACHE_BYTES
from hudi_catalog.retries import RetryPolicy

from .authentication import AUTH_MODES
from .cli_options import count, positive_count, positive_seconds, seconds
from .server import DEFAULT_METASERVER_PORT, DEFAULT_PORT, PROTOCOLS, TRANSPORTS, ServingLimits

VALUE, SWITCH, LIST = "value", "switch", "list"
"""An option's kind: a value; a flag (``store_true``, its variable true when 1, true, yes or on); a
repeatable value (``append``, its variable a comma-separated list)."""

_TRUE = ("1", "true", "yes", "on")


@dataclass(frozen=True)
class ServeOption:
    """One option of ``serve``. ``default_text``: how its help names the default, when not as the value."""

    flag: str
    help: str
    env: str | None = None
    default: Any = None
    kind: str = VALUE
    type: Callable[[str], Any] | None = None
    choices: Sequence[str] | None = None
    metavar: str | None = None
    group: str | None = None
    default_text: str | None = None

    def environment_default(self) -> Any:
        """The default, taken from the environment variable when it is set."""
        value = None if self.env is None else os.environ.get(self.env)
        if self.kind == SWITCH:
            return (value or "").lower() in _TRUE
        if self.kind == LIST:
            return [item.strip() for item in (value or "").split(",") if item.strip()]
        return self.default if value is None else value

    def full_help(self) -> str:
        """The help, ending with the variable and the default when the option has a variable (otherwise the
        parser's formatter shows the default)."""
        if self.env is None:
            return self.help
        if self.kind == SWITCH:
            return f"{self.help} (env {self.env}=true)"
        if self.kind == LIST:
            return f"{self.help} (repeatable; env {self.env}, comma-separated)"
        default = self.default_text or (
            None if self.default is None else f"{self.default:g}" if isinstance(self.default, float) else self.default
        )
        return f"{self.help} (env {self.env}" + ("" if default is None else f"; default {default}") + ")"


_GROUPS = {
    "views": "Iceberg views of Hudi tables (docs/iceberg.md)",
    "limits": "serving limits (per server process)",
    "auth": "authentication of the Hive Metastore port",
    "authz": "authorization (with --auth password or kerberos)",
    "tokens": "delegation tokens (with --auth kerberos), as Hive's hive.cluster.delegation.*",
    "tls": "TLS (both ports; TLS 1.2 and later; files reloaded when they change)",
}
_LIMITS, _FILTERS, _RETRIES = ServingLimits(), FilterLimits(), RetryPolicy()

SERVE_OPTIONS = (
    ServeOption("--host", "address both ports listen on (0.0.0.0: every interface)", default="0.0.0.0"),
    ServeOption("--port", "port of the Hive Metastore protocol", default=DEFAULT_PORT, type=int),
    ServeOption(
        "--transport",
        "Thrift transport of the Hive Metastore port, as the clients' (Hive's: buffered)",
        default="buffered",
        choices=sorted(TRANSPORTS),
    ),
    ServeOption(
        "--protocol",
        "Thrift protocol of the Hive Metastore port, as the clients' (Hive's: binary)",
        default="binary",
        choices=sorted(PROTOCOLS),
    ),
    ServeOption(
        "--metaserver-port",
        "port of Hudi's metaserver protocol (0: any free port)",
        default=DEFAULT_METASERVER_PORT,
        type=int,
    ),
    ServeOption("--no-metaserver", "do not serve Hudi's metaserver protocol", kind=SWITCH),
    ServeOption(
        "--snapshot-sync",
        "apply completed instants to the file snapshot inline (in the completing call) or asynchronously (a "
        "background thread)",
        default="inline",
        choices=SNAPSHOT_SYNC_MODES,
    ),
    ServeOption(
        "--storage-config",
        "Hadoop configuration files (core-site.xml; comma-separated) whose file system keys (fs.s3a.*, "
        "fs.azure.account.key.*, fs.gs.storage.root.url) configure the object stores; they win over the "
        "environment for what they set (docs/object-stores.md)",
        env=STORAGE_CONFIG_ENV,
        default_text="none",
    ),
    ServeOption(
        "--follow-interval",
        "seconds between passes of the background reconciliation, which brings each Hudi table whose writer "
        "did not call the metastore (hive sync off, or failed) up to its storage, one table at a time, each "
        "at most once a pass; 0: off (an alter of a Hudi table still follows it at once)",
        env=FOLLOW_INTERVAL_ENV,
        default=0.0,
        type=seconds,
        default_text="0, off",
    ),
    ServeOption(
        "--filter-like",
        "how LIKE patterns of partition filters are read: as the client's Hive version reads them (auto: Hive "
        "4's SQL wildcards for a client that makes Hive 4's calls, Hive 2/3's Java regular expressions for "
        "others), or always one way (java-regex, hive4)",
        env=FILTER_LIKE_ENV,
        default=LikeRule.AUTO.value,
        choices=[rule.value for rule in LikeRule],
    ),
    ServeOption(
        "--metrics-port",
        "serve Prometheus metrics (/metrics) and health probes (/health/live, /health/ready) over HTTP on this port",
        env=METRICS_PORT_ENV,
        type=int,
        default_text="off",
    ),
    ServeOption("--metrics-host", "address the --metrics-port listens on (default: --host)"),
    ServeOption(
        "--iceberg-rest-port",
        "serve the Iceberg REST catalog protocol over HTTP on this port (0: any free port), over the same "
        "catalog database (needs the rest extra: pip install 'hudi-metastore[rest]')",
        env=ICEBERG_REST_PORT_ENV,
        type=int,
        default_text="off",
    ),
    ServeOption(
        "--console-port",
        "serve the read-only web console on this port (0: any free port), with the Thrift ports' --auth, "
        "--authorization, TLS and audit log (docs/console.md)",
        env=CONSOLE_PORT_ENV,
        type=int,
        default_text="off",
    ),
    ServeOption(
        "--workers",
        "server processes sharing the ports (SO_REUSEPORT); one Python process uses one core",
        default=1,
        type=int,
    ),
    ServeOption(
        "--txn-timeout",
        "seconds after which a lock or transaction that was not heartbeated expires, as Hive's hive.txn.timeout",
        env=TXN_TIMEOUT_ENV,
        default=TXN_TIMEOUT_SECONDS_DEFAULT,
        type=positive_seconds,
    ),
    ServeOption(
        "--upgrade-schema",
        "migrate an older catalog schema at start instead of refusing to start (`hudi-metastore schema upgrade` "
        "does it beforehand)",
        env=UPGRADE_SCHEMA_ENV,
        kind=SWITCH,
    ),
    ServeOption(
        "--event-ttl",
        "seconds notification events are kept, as Hive's hive.metastore.event.db.listener.timetolive",
        env=EVENT_TTL_ENV,
        default=EVENT_TTL_SECONDS_DEFAULT,
        type=positive_seconds,
    ),
    ServeOption(
        "--iceberg-views",
        "keep an Iceberg view of every Hudi table, made at its next completed instant; without it only tables "
        "given one (`hudi-metastore iceberg`, `import --iceberg-view`) keep one",
        env=ICEBERG_VIEWS_ENV,
        kind=SWITCH,
        group="views",
    ),
    ServeOption(
        "--iceberg-view-suffix",
        f"a new view is named after its table with this suffix (default {DEFAULT_SUFFIX})",
        default=DEFAULT_SUFFIX,
        group="views",
    ),
    ServeOption(
        "--iceberg-metadata-root",
        "write new views' metadata under URI/<database>/<table> (default: the table's <base path>/"
        f"{DEFAULT_METADATA_DIR})",
        metavar="URI",
        group="views",
    ),
    ServeOption(
        "--max-connections",
        "connections held at once per port; more are closed at once and logged",
        env=MAX_CONNECTIONS_ENV,
        default=_LIMITS.max_connections,
        type=positive_count,
        group="limits",
    ),
    ServeOption(
        "--idle-timeout",
        "seconds a connection may wait between requests before it is closed",
        env=IDLE_TIMEOUT_ENV,
        default=_LIMITS.idle_timeout,
        type=positive_seconds,
        group="limits",
    ),
    ServeOption(
        "--read-timeout",
        "seconds a request has to arrive whole once it started, or its connection is dropped",
        env=READ_TIMEOUT_ENV,
        default=_LIMITS.read_timeout,
        type=positive_seconds,
        group="limits",
    ),
    ServeOption(
        "--max-message-size",
        "bytes of one request; larger ones are refused before they are read",
        env=MAX_MESSAGE_SIZE_ENV,
        default=_LIMITS.max_message_size,
        type=positive_count,
        group="limits",
        default_text=f"{_LIMITS.max_message_size}, libthrift's",
    ),
    ServeOption(
        "--max-filter-length",
        "characters of a partition filter; longer ones are refused with a MetaException",
        env=MAX_FILTER_LENGTH_ENV,
        default=_FILTERS.max_length,
        type=positive_count,
        group="limits",
    ),
    ServeOption(
        "--max-filter-terms",
        "comparisons and IN list values of a partition filter",
        env=MAX_FILTER_TERMS_ENV,
        default=_FILTERS.max_terms,
        type=positive_count,
        group="limits",
    ),
    ServeOption(
        "--max-batch-partitions",
        "partitions one call may add, alter, drop, fetch by name or list (a listing of more is refused with "
        "Hive's hive.metastore.limit.partition.request MetaException)",
        env=MAX_BATCH_PARTITIONS_ENV,
        default=MAX_BATCH_PARTITIONS_DEFAULT,
        type=positive_count,
        group="limits",
    ),
    ServeOption(
        "--cache-max-bytes",
        "bytes the read caches (tables, partition lists, statistics) hold together, keys included; 0: no caching",
        env=CACHE_MAX_BYTES_ENV,
        default=DEFAULT_CACHE_BYTES,
        type=count,
        group="limits",
    ),
    ServeOption(
        "--data-root",
        "a directory besides the warehouse root inside which dropped objects' data may be deleted; elsewhere only "
        "directories the server made for the dropped object go",
        env=DATA_ROOTS_ENV,
        kind=LIST,
        metavar="URI",
    ),
    ServeOption(
        "--db-retry-budget",
        "seconds a call keeps trying through transient catalog database errors (lost connection, restart, "
        "failover, deadlock) while none of its changes committed; 0: never",
        env=DB_RETRY_BUDGET_ENV,
        default=_RETRIES.budget_seconds,
        type=seconds,
        group="limits",
    ),
    ServeOption(
        "--threads",
        "requests served at once; idle connections hold none",
        env=THREADS_ENV,
        default=_LIMITS.threads,
        type=positive_count,
        group="limits",
    ),
    ServeOption(
        "--graceful-timeout",
        "seconds SIGTERM or SIGINT waits for the calls under way before the server exits without them (their "
        "transactions roll back); requests not started are dropped at once",
        env=GRACEFUL_TIMEOUT_ENV,
        default=_LIMITS.graceful_timeout,
        type=seconds,
        group="limits",
    ),
    ServeOption(
        "--audit-log",
        "write one line per call (who, from where, what, on which object, with what outcome) to this file, or "
        "to standard output with -",
        env=AUDIT_LOG_ENV,
        metavar="PATH|-",
    ),
    ServeOption(
        "--auth",
        "none; password: SASL PLAIN against --password-file; kerberos: SASL GSSAPI and delegation tokens",
        env=AUTH_ENV,
        default="none",
        choices=AUTH_MODES,
        group="auth",
    ),
    ServeOption(
        "--password-file",
        "users and salted password hashes, made by `hudi-metastore passwd`",
        env=PASSWORD_FILE_ENV,
        group="auth",
    ),
    ServeOption(
        "--allow-plaintext-passwords",
        "let --auth password run without TLS (passwords then cross the network in clear)",
        kind=SWITCH,
        group="auth",
    ),
    ServeOption(
        "--kerberos-principal",
        "the server's principal, as hive.metastore.kerberos.principal: hive/_HOST@REALM, _HOST replaced by this "
        "host's name",
        env=KERBEROS_PRINCIPAL_ENV,
        group="auth",
    ),
    ServeOption("--kerberos-keytab", "the keytab holding that principal's key", env=KERBEROS_KEYTAB_ENV, group="auth"),
    ServeOption(
        "--sasl-qop",
        "qualities of protection Kerberos clients may choose, as hadoop.rpc.protection: a list of auth, auth-int "
        "(signed), auth-conf (encrypted)",
        env=SASL_QOP_ENV,
        default=SASL_QOP_DEFAULT,
        group="auth",
    ),
    ServeOption(
        "--authorization",
        "none; owner: owners and admins change and drop, everyone reads; privileges: granted privileges decide, "
        "as Hive's SQL-standard authorization",
        env=AUTHORIZATION_ENV,
        default=AccessMode.NONE.value,
        choices=[m.value for m in AccessMode],
        group="authz",
    ),
    ServeOption(
        "--admin",
        "a user who may do everything; members of the admin role are admins too",
        env=ADMINS_ENV,
        kind=LIST,
        metavar="NAME",
        group="authz",
    ),
    ServeOption(
        "--token-renew-interval",
        "seconds a token lives without renewal",
        env=TOKEN_RENEW_INTERVAL_ENV,
        default=TOKEN_RENEW_INTERVAL_SECONDS_DEFAULT,
        type=positive_seconds,
        group="tokens",
    ),
    ServeOption(
        "--token-max-lifetime",
        "seconds after which no renewal keeps a token alive",
        env=TOKEN_MAX_LIFETIME_ENV,
        default=TOKEN_MAX_LIFETIME_SECONDS_DEFAULT,
        type=positive_seconds,
        group="tokens",
    ),
    ServeOption(
        "--token-key-update-interval",
        "seconds a master key signs new tokens before a new one replaces it",
        env=TOKEN_KEY_UPDATE_INTERVAL_ENV,
        default=TOKEN_KEY_UPDATE_INTERVAL_SECONDS_DEFAULT,
        type=positive_seconds,
        group="tokens",
    ),
    ServeOption("--tls-cert", "PEM certificate (chain) of the server", env=TLS_CERT_ENV, group="tls"),
    ServeOption("--tls-key", "PEM private key of the certificate", env=TLS_KEY_ENV, group="tls"),
    ServeOption(
        "--tls-ca",
        "PEM CA certificates: clients must present a certificate they signed",
        env=TLS_CA_ENV,
        group="tls",
    ),
)


def add_serve_options(parser: argparse.ArgumentParser) -> None:
    """Every option of ``SERVE_OPTIONS`` on ``parser``, in its group."""
    groups = {key: parser.add_argument_group(title) for key, title in _GROUPS.items()}
    for option in SERVE_OPTIONS:
        target = groups[option.group] if option.group else parser
        settings: dict[str, Any] = {"help": option.full_help(), "default": option.environment_default()}
        if option.kind == SWITCH:
            target.add_argument(option.flag, action="store_true", **settings)
            continue
        if option.kind == LIST:
            settings["action"] = "append"
        for key in ("type", "choices", "metavar"):
            if getattr(option, key) is not None:
                settings[key] = getattr(option, key)
        target.add_argument(option.flag, **settings)
