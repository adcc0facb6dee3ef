"""Configuration keys of the catalog, each with its default.

Keys are read from the environment by the CLI; the constants name them in one place.
"""

DB_URL_ENV = "HUDI_METASTORE_DB_URL"
DB_URL_DEFAULT = "sqlite:///metastore.db"

CREATE_CATALOG_ENV = "HUDI_METASTORE_CREATE_CATALOG"
"""``true`` or ``false``: whether ``serve`` and ``import`` create a catalog where ``--db-url`` has none
(``--create-catalog`` / ``--no-create-catalog``; ``serve`` does by default, ``import`` does not)."""

UPGRADE_SCHEMA_ENV = "HUDI_METASTORE_UPGRADE_SCHEMA"
"""``true``: ``serve`` migrates an older catalog schema at start (``--upgrade-schema``)."""

WAREHOUSE_ENV = "HUDI_METASTORE_WAREHOUSE"
WAREHOUSE_DEFAULT = "./warehouse"

DEFAULT_DATABASE_NAME = "default"
DEFAULT_DATABASE_COMMENT = "Default Hive database"

SQLITE_BUSY_TIMEOUT_MS = 120_000
"""How long a SQLite writer waits for the write lock: past the time the largest batch ``--max-batch-partitions``
allows holds it (100,000 partitions took over 30 s on a loaded 2-core machine), below the 600 s socket
timeout of Hive's clients."""
# The pool and timeouts of the server stores (MySQL/MariaDB and PostgreSQL)
SERVER_STORE_POOL_SIZE = 8
SERVER_STORE_MAX_OVERFLOW = 16
SERVER_STORE_PING_AFTER_IDLE_SECONDS = 10.0
"""A pooled connection idle for longer is pinged before use (and replaced if dead); busier ones are not,
which saves a round trip per call."""
SERVER_STORE_CONNECT_TIMEOUT_SECONDS = 5
SERVER_STORE_IO_TIMEOUT_SECONDS = 30
"""A statement's answer (or sending it) may take this long before the connection counts as lost, so a server
cut off from its database fails over to retrying instead of waiting for TCP to give up."""
IDLE_TRANSACTION_SECONDS = 30
"""The database ends a transaction left idle this long (its client cut off mid-transaction), releasing the
row locks other servers on the database wait for (MariaDB's ``idle_transaction_timeout``, PostgreSQL's
``idle_in_transaction_session_timeout``); the catalog's transactions are never idle that long. It bounds a
transaction that only read with a lock (``FOR UPDATE``, the lock mutex) too, which MariaDB's
``idle_write_transaction_timeout`` would leave holding its lock until the connection's ``wait_timeout``."""

GALERA_SYNC_WAIT = 7
"""``wsrep_sync_wait`` of the store's sessions on a Galera node: reads (1), updates and deletes (2), inserts
and replaces (4) first wait until the node applied every change the cluster committed before them. Without
it a read through one node may miss a write another server just made through another node."""

TXN_TIMEOUT_ENV = "HUDI_METASTORE_TXN_TIMEOUT"
TXN_TIMEOUT_SECONDS_DEFAULT = 300.0
"""As Hive's ``hive.txn.timeout``: a lock or transaction not heartbeated for this long is expired."""

EVENT_TTL_ENV = "HUDI_METASTORE_EVENT_TTL"
EVENT_TTL_SECONDS_DEFAULT = 86400.0
"""As Hive's ``hive.metastore.event.db.listener.timetolive``: notification events older than this are removed."""
EVENT_CLEAN_INTERVAL_SECONDS = 60.0
"""How often a server removes expired notification events."""

TOKEN_RENEW_INTERVAL_ENV = "HUDI_METASTORE_TOKEN_RENEW_INTERVAL"
TOKEN_RENEW_INTERVAL_SECONDS_DEFAULT = 86400.0
"""As Hive's ``hive.cluster.delegation.token.renew-interval``: a delegation token not renewed for this long expires."""
TOKEN_MAX_LIFETIME_ENV = "HUDI_METASTORE_TOKEN_MAX_LIFETIME"
TOKEN_MAX_LIFETIME_SECONDS_DEFAULT = 7 * 86400.0
"""As Hive's ``hive.cluster.delegation.token.max-lifetime``: no renewal takes a token beyond this age."""
TOKEN_KEY_UPDATE_INTERVAL_ENV = "HUDI_METASTORE_TOKEN_KEY_UPDATE_INTERVAL"
TOKEN_KEY_UPDATE_INTERVAL_SECONDS_DEFAULT = 86400.0
"""As Hive's ``hive.cluster.delegation.key.update-interval``: how long a master key signs new tokens."""

TLS_CERT_ENV = "HUDI_METASTORE_TLS_CERT"
TLS_KEY_ENV = "HUDI_METASTORE_TLS_KEY"
TLS_CA_ENV = "HUDI_METASTORE_TLS_CA"
"""PEM files of ``serve --tls-cert/--tls-key/--tls-ca``."""

AUDIT_LOG_ENV = "HUDI_METASTORE_AUDIT_LOG"
"""``serve --audit-log``: a file path, or ``-`` for standard output."""

AUTH_ENV = "HUDI_METASTORE_AUTH"
PASSWORD_FILE_ENV = "HUDI_METASTORE_PASSWORD_FILE"
"""``serve --auth`` and ``--password-file``."""

MAX_CONNECTIONS_ENV = "HUDI_METASTORE_MAX_CONNECTIONS"
IDLE_TIMEOUT_ENV = "HUDI_METASTORE_IDLE_TIMEOUT"
READ_TIMEOUT_ENV = "HUDI_METASTORE_READ_TIMEOUT"
MAX_MESSAGE_SIZE_ENV = "HUDI_METASTORE_MAX_MESSAGE_SIZE"
THREADS_ENV = "HUDI_METASTORE_THREADS"
GRACEFUL_TIMEOUT_ENV = "HUDI_METASTORE_GRACEFUL_TIMEOUT"
"""``serve --max-connections``, ``--idle-timeout``, ``--read-timeout``, ``--max-message-size``, ``--threads``,
``--graceful-timeout``."""

STORAGE_CONFIG_ENV = "HUDI_METASTORE_STORAGE_CONFIG"
"""``serve --storage-config``: Hadoop configuration files whose file system keys the server reads (every command
reads the variable)."""
FOLLOW_INTERVAL_ENV = "HUDI_METASTORE_FOLLOW_INTERVAL"
"""``serve --follow-interval``."""
FILTER_LIKE_ENV = "HUDI_METASTORE_FILTER_LIKE"
"""``serve --filter-like``."""
MAX_FILTER_LENGTH_ENV = "HUDI_METASTORE_MAX_FILTER_LENGTH"
MAX_FILTER_TERMS_ENV = "HUDI_METASTORE_MAX_FILTER_TERMS"
"""``serve --max-filter-length`` and ``--max-filter-terms``."""

MAX_BATCH_PARTITIONS_ENV = "HUDI_METASTORE_MAX_BATCH_PARTITIONS"
MAX_BATCH_PARTITIONS_DEFAULT = 100_000
"""``serve --max-batch-partitions``: partitions one call may add, alter, drop or fetch by name."""

CACHE_MAX_BYTES_ENV = "HUDI_METASTORE_CACHE_MAX_BYTES"
"""``serve --cache-max-bytes``: bytes the read caches of one server process hold together."""

DB_RETRY_BUDGET_ENV = "HUDI_METASTORE_DB_RETRY_BUDGET"
"""``serve --db-retry-budget``: seconds a call keeps trying through transient database errors."""

DATA_ROOTS_ENV = "HUDI_METASTORE_DATA_ROOTS"
"""``serve --data-root`` (in the environment, a comma-separated list)."""

AUTHORIZATION_ENV = "HUDI_METASTORE_AUTHORIZATION"
ADMINS_ENV = "HUDI_METASTORE_ADMINS"
"""``serve --authorization`` and ``--admin`` (in the environment, a comma-separated list of user names)."""

KERBEROS_PRINCIPAL_ENV = "HUDI_METASTORE_KERBEROS_PRINCIPAL"
KERBEROS_KEYTAB_ENV = "HUDI_METASTORE_KERBEROS_KEYTAB"
"""``serve --kerberos-principal`` (``hive/_HOST@REALM`` as Hive's ``hive.metastore.kerberos.principal``) and
``--kerberos-keytab``."""
SASL_QOP_ENV = "HUDI_METASTORE_SASL_QOP"
SASL_QOP_DEFAULT = "auth,auth-int,auth-conf"
"""``serve --sasl-qop``: the qualities of protection Kerberos and delegation-token clients may choose."""

# Operations HTTP port (serve --metrics-port): /metrics, /health/live, /health/ready; off when unset
METRICS_PORT_ENV = "HUDI_METASTORE_METRICS_PORT"
ICEBERG_REST_PORT_ENV = "HUDI_METASTORE_ICEBERG_REST_PORT"

CONSOLE_PORT_ENV = "HUDI_METASTORE_CONSOLE_PORT"
"""The web console's port (``serve --console-port``); unset: no console."""

ICEBERG_VIEWS_ENV = "HUDI_METASTORE_ICEBERG_VIEWS"
"""``true``: ``serve`` keeps an Iceberg view of every Hudi table (``--iceberg-views``)."""
