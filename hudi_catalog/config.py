"""Configuration keys of the catalog, each with its default.

Keys are read from the environment by the CLI; the constants name them in one place.
"""

DB_URL_ENV = "HUDI_METASTORE_DB_URL"
DB_URL_DEFAULT = "sqlite:///metastore.db"

WAREHOUSE_ENV = "HUDI_METASTORE_WAREHOUSE"
WAREHOUSE_DEFAULT = "./warehouse"

DEFAULT_DATABASE_NAME = "default"
DEFAULT_DATABASE_COMMENT = "Default Hive database"

SQLITE_BUSY_TIMEOUT_MS = 30_000
MYSQL_POOL_SIZE = 8
MYSQL_MAX_OVERFLOW = 16
