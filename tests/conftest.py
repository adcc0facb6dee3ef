"""Shared fixtures: catalog stores on SQLite, MariaDB and PostgreSQL, a real Thrift server on a free port, a
client.

MariaDB/MySQL is reached at ``HUDI_METASTORE_TEST_MYSQL_URL`` (default the local server, database ``test``),
PostgreSQL at ``HUDI_METASTORE_TEST_POSTGRESQL_URL`` (default ``postgresql://root@127.0.0.1:5432/test``);
each test works in a database of its own: an empty one made and dropped here, or one holding the catalog
schema lent by the test process's pool and emptied after the test (``tests/database_pool.py``). Outside CI a
missing server skips its
cases; in CI (``CI=true``) it fails them.
"""

from __future__ import annotations

import importlib
import os
import shutil
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pymysql
import pytest
import thriftpy2
from sqlalchemy.engine import make_url
from thriftpy2.protocol import TBinaryProtocolFactory
from thriftpy2.rpc import make_client
from thriftpy2.transport import TBufferedTransportFactory

from hms_adapter.catalog_access import hive_wire
from hms_adapter.idl import IDL_DIR
from hms_adapter.serving import make_server
from hudi_catalog import Catalog
from hudi_catalog.store.engine import Store
from tests.database_pool import CatalogDatabasePool, MySqlBackend, PostgreSqlBackend

# the helpers in tests/support assert as test modules do: pytest shows the compared values when they fail
pytest.register_assert_rewrite("tests.support")

from tests.support.certificates import make_certificates  # noqa: E402  (after the rewrite is registered)

MYSQL_URL = os.environ.get("HUDI_METASTORE_TEST_MYSQL_URL", "mysql://root@127.0.0.1:3306/test")
POSTGRESQL_URL = os.environ.get("HUDI_METASTORE_TEST_POSTGRESQL_URL", "postgresql://root@127.0.0.1:5432/test")
IN_CI = os.environ.get("CI", "").lower() == "true"
# the folders whose tests start JVMs (Spark, Hive Metastore 2.3.10, Java clients), a KDC or fault scenarios:
# all marked ``slow``, as are Spark tests elsewhere and modules that mark themselves (the real engines)
SLOW_FOLDERS = {"availability", "faults", "java", "kerberos", "locks", "object_stores", "spark"}

collect_ignore = ["spark/statements.py"]  # a script run by the Spark tests in a process of its own

hive = thriftpy2.load(str(IDL_DIR / "hive_metastore.thrift"), module_name="hive_metastore_thrift")


def skip_or_fail(reason: str) -> None:
    """Skip outside CI; in CI a missing service is a failure."""
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: required)")
    pytest.skip(reason)


def require_module(name: str, extra: str = "spark"):
    """Import ``name`` for a test module, or skip the whole module when the package is not installed.

    The Spark extras (pyspark, hudi) are optional: without them the tests that need them skip with the reason.
    In CI (``CI=true``) the packages are required, so the import error fails the module instead.
    """
    if IN_CI:
        return importlib.import_module(name)
    return pytest.importorskip(name, reason=f"{name} is not installed (pip install -e '.[{extra}]')")


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> Path:
    """A CA, a server certificate for localhost/127.0.0.1 signed by it (and a second one), a client one."""
    if shutil.which("openssl") is None:
        skip_or_fail("openssl is needed to make test certificates")
    return make_certificates(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def java() -> str:
    """Java, and the pyspark wheel whose Spark it runs."""
    require_module("pyspark")
    path = shutil.which("java")
    if path is None:
        skip_or_fail("Java is not installed; Spark cannot run")
    return path


@pytest.fixture(scope="session")
def mysql_server_url() -> str:
    url = make_url(MYSQL_URL)
    try:
        conn = pymysql.connect(
            host=url.host, port=url.port or 3306, user=url.username, password=url.password or "", connect_timeout=5
        )
    except pymysql.err.OperationalError as e:
        skip_or_fail(f"no MySQL/MariaDB server at {url.host}:{url.port}: {e}")
    conn.close()
    return MYSQL_URL


@contextmanager
def mysql_database(server_url: str) -> Iterator[str]:
    """A new, empty MySQL database, dropped when the block ends; yields its URL."""
    url = make_url(server_url)
    name = f"hms_test_{uuid.uuid4().hex[:12]}"
    admin = pymysql.connect(
        host=url.host, port=url.port or 3306, user=url.username, password=url.password or "", autocommit=True
    )
    try:
        with admin.cursor() as cur:
            cur.execute(f"CREATE DATABASE {name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS {name}")
        admin.close()


@pytest.fixture
def mysql_db_url(mysql_server_url):
    """A fresh, empty MySQL database for one test, dropped afterwards."""
    with mysql_database(mysql_server_url) as url:
        yield url


@pytest.fixture(scope="session")
def postgresql_server_url() -> str:
    url = make_url(POSTGRESQL_URL)
    try:
        psycopg.connect(libpq_url(POSTGRESQL_URL), connect_timeout=5).close()
    except psycopg.OperationalError as e:
        skip_or_fail(f"no PostgreSQL server at {url.host}:{url.port}: {e}")
    return POSTGRESQL_URL


@contextmanager
def postgresql_database(server_url: str, template: str = "template1") -> Iterator[str]:
    """A new PostgreSQL database, a copy of ``template``, dropped when the block ends; yields its URL."""
    name = f"hms_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(libpq_url(server_url), autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name} TEMPLATE {template}")
        try:
            yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
        finally:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def postgresql_db_url(postgresql_server_url):
    """A fresh, empty PostgreSQL database for one test, dropped afterwards."""
    with postgresql_database(postgresql_server_url) as url:
        yield url


@pytest.fixture(scope="session")
def postgresql_schema_template(postgresql_server_url):
    """The name of a database holding this build's catalog schema and nothing else, for the session.

    Copying it (``CREATE DATABASE ... TEMPLATE``) costs about a tenth of creating a database and its schema,
    which runs some hundred DDL statements.
    """
    with postgresql_database(postgresql_server_url) as url:
        store = Store(url)
        try:
            store.init_schema()
        finally:
            store.dispose()  # a template may have no connections while it is copied
        yield make_url(url).database


@pytest.fixture(scope="session")
def sqlite_schema_template(tmp_path_factory) -> Path:
    """A SQLite file holding this build's catalog schema and nothing else, for the session: copying it costs
    about a fifth of making the schema in a new file (0.09 s)."""
    path = tmp_path_factory.mktemp("sqlite-template") / "catalog.db"
    store = Store(f"sqlite:///{path}")
    try:
        store.init_schema()
    finally:
        store.dispose()  # its write-ahead log checkpointed into the file
    return path


@pytest.fixture(scope="session")
def postgresql_catalog_databases(postgresql_server_url, postgresql_schema_template):
    """This test process's PostgreSQL databases holding the catalog schema, lent to one test at a time."""
    pool = CatalogDatabasePool(PostgreSqlBackend(postgresql_server_url, postgresql_schema_template))
    yield pool
    pool.close()


@pytest.fixture
def postgresql_catalog_db_url(postgresql_catalog_databases):
    """A PostgreSQL database for one test holding this build's catalog schema and no catalog yet:
    ``init_schema`` finds it current (the default catalog and database are not made yet)."""
    with postgresql_catalog_databases.lend() as url:
        yield url


@pytest.fixture(scope="session")
def mysql_catalog_databases(mysql_server_url):
    """This test process's MySQL databases holding the catalog schema, lent to one test at a time."""
    pool = CatalogDatabasePool(MySqlBackend(mysql_server_url))
    yield pool
    pool.close()


@pytest.fixture
def mysql_catalog_db_url(mysql_catalog_databases):
    """A MySQL database for one test holding this build's catalog schema and no catalog yet."""
    with mysql_catalog_databases.lend() as url:
        yield url


def libpq_url(url: str) -> str:
    """A SQLAlchemy PostgreSQL URL as libpq reads it (without the ``+driver``)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@contextmanager
def another_database(db_url: str, tmp_path: Path) -> Iterator[str]:
    """Another empty database on the same server as ``db_url`` (a new file beside it on SQLite)."""
    backend = make_url(db_url).get_backend_name()
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / f'another_{uuid.uuid4().hex[:8]}.db'}"
    elif backend == "postgresql":
        with postgresql_database(db_url) as url:
            yield url
    else:
        with mysql_database(db_url) as url:
            yield url


JVM_OPTIONS = "-XX:TieredStopAtLevel=1"
"""Given to every JVM the tests start (Spark, the Hive Metastore peer, the Java clients; the real engines keep
their own options, ``benchmarks/sql_engines.py``): each runs briefly, and compiling with C1 alone takes far
less CPU than tiered compilation (a small Spark session: 34 s of CPU instead of 58 s), on a machine the
test processes keep busy. Only the tests' JVMs: the benchmarks' Hive Metastore runs with its defaults."""
if JVM_OPTIONS not in os.environ.get("JAVA_TOOL_OPTIONS", ""):  # the test processes inherit pytest's
    os.environ["JAVA_TOOL_OPTIONS"] = f"{os.environ.get('JAVA_TOOL_OPTIONS', '')} {JVM_OPTIONS}".strip()


STORES = ("sqlite", "mysql", "postgresql")
"""The catalog stores every store-dependent test runs on."""


@pytest.fixture(params=STORES)
def db_url(request, tmp_path):
    """The catalog database URL, once per store: a database that already holds the catalog schema and nothing
    else (on SQLite a copy of the session's template file; on MariaDB and PostgreSQL one lent by the test
    process's pool, ``tests/database_pool.py``: much cheaper than making the schema per test), or an empty
    one for a test marked ``empty_database`` (on SQLite a file not made yet)."""
    empty = request.node.get_closest_marker("empty_database") is not None
    if request.param == "sqlite":
        path = tmp_path / "catalog.db"
        if not empty:
            shutil.copyfile(request.getfixturevalue("sqlite_schema_template"), path)
        return f"sqlite:///{path}"
    if not empty:
        return request.getfixturevalue(f"{request.param}_catalog_db_url")
    return request.getfixturevalue(f"{request.param}_db_url")


@pytest.fixture
def warehouse(tmp_path):
    path = tmp_path / "warehouse"
    path.mkdir()
    return path


@pytest.fixture
def catalog(db_url, warehouse):
    catalog = Catalog.open(db_url, str(warehouse), **hive_wire())  # as served
    yield catalog
    catalog.close()


class RunningServer:
    def __init__(self, catalog: Catalog, transport: str = "buffered", protocol: str = "binary") -> None:
        self.catalog = catalog
        self.server = make_server(catalog, "127.0.0.1", 0, transport, protocol)
        self.port = self.server.port
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def uri(self) -> str:
        return f"thrift://127.0.0.1:{self.port}"

    def client(self, proto_factory=None, trans_factory=None):
        return make_client(
            hive.ThriftHiveMetastore,
            "127.0.0.1",
            self.port,
            proto_factory=proto_factory or TBinaryProtocolFactory(),
            trans_factory=trans_factory or TBufferedTransportFactory(),
            timeout=60_000,
        )

    def stop(self) -> None:
        self.server.stop()
        self.thread.join(10)


@pytest.fixture
def server(catalog):
    """A Thrift server on a free port of 127.0.0.1, serving ``catalog``."""
    running = RunningServer(catalog)
    yield running
    running.stop()


@pytest.fixture
def client(server):
    client = server.client()
    yield client
    client.close()


@pytest.fixture
def hive3_metastore(server):
    """A Hive 3.1 client (``hive-metastore-client`` from PyPI) connected to ``server``."""
    import hive_metastore_client

    client = hive_metastore_client.HiveMetastoreClient("127.0.0.1", server.port)
    client.open()
    yield client
    client.close()


@pytest.fixture
def metaserver_client(catalog):
    """A client of Hudi's metaserver protocol, served over ``catalog`` on a free port."""
    from hms_adapter.idl import metaserver
    from hms_adapter.serving import make_metaserver

    server = make_metaserver(catalog, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    client = make_client(metaserver.ThriftHoodieMetaserver, "127.0.0.1", server.port, timeout=60_000)
    yield client
    client.close()
    server.stop()
    thread.join(10)


SLOW_MODULES = {
    "hms_adapter/test_schema_cli.py": "a hudi-metastore process per step, on empty, older and newer databases",
    "hms_adapter/test_cli.py": "hudi-metastore processes: serve, init, passwd, their flags",
    "hms_adapter/test_cli_mistakes.py": "a hudi-metastore process per mistaken command line",
    "hms_adapter/test_security_doc.py": "the security guide's commands, run as written",
    "hms_adapter/test_authorization.py": "servers with each --authorization mode, and their clients",
    "hms_adapter/test_metrics.py": "servers with --metrics-port, scraped",
    "hms_adapter/test_workers.py": "serve --workers: forked servers, killed and restarted",
    "hms_adapter/test_serving_limits.py": "servers at their connection and frame limits",
    "hms_adapter/test_hostile_frames.py": "hostile clients against a server process",
    "hms_adapter/test_tls.py": "TLS servers and clients, certificates made per module",
    "hms_adapter/test_password_auth.py": "password-authenticated servers",
    "hms_adapter/test_stalled_clients.py": "clients that stall a server for seconds",
    "hms_adapter/test_large_requests.py": "a server's memory under requests of many megabytes",
    "hms_adapter/test_stopping.py": "servers stopped while clients send large requests",
    "hms_adapter/test_descriptor_exhaustion.py": "a server process run out of file descriptors",
    "hms_adapter/test_call_layers_bench.py": "runs a benchmark",
    "hms_adapter/test_cold_reads_bench.py": "runs a benchmark",
    "hms_adapter/test_locks_bench.py": "runs a benchmark",
    "hudi_catalog/test_filter_differential.py": "thousands of generated filters against an independent evaluator",
    "hudi_catalog/test_filter_fuzz.py": "fuzzed filters",
    "hudi_catalog/test_pruning_properties.py": "property tests of pruning",
    "hudi_catalog/test_migrations.py": "catalog databases made by earlier commits, upgraded",
    "hudi/test_import_progress.py": "hudi-metastore import processes on a terminal",
    "iceberg/test_iceberg_cli.py": "hudi-metastore iceberg processes",
    "iceberg_rest/test_rest_writers.py": "two hudi-metastore serve processes and forked writer processes",
    "iceberg_rest/test_rest_security.py": "a TLS hudi-metastore serve process, password hashing per token",
    "iceberg_rest/test_generated_requests.py": "1,200 generated requests (hypothesis)",
    "test_docker.py": "the container image's build context and entry point",
    "console/test_browser_harness.py": "a headless Chromium",
    "console/test_console_in_a_browser.py": "a headless Chromium against a hudi-metastore serve process",
    "console/test_console_serve.py": "a TLS hudi-metastore serve process",
}
"""Modules outside ``SLOW_FOLDERS`` whose tests are slow, and why: most start ``hudi-metastore`` processes
(about 2.5 s of CPU each before they do anything) or run thousands of generated cases."""
SERVER_STORES = ("mysql", "postgresql")
"""Every store-dependent test runs on SQLite too: the everyday run keeps that one, CI runs all three."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``slow`` the tests of ``SLOW_FOLDERS`` and ``SLOW_MODULES``, every ``spark`` test and the MariaDB
    and PostgreSQL runs of the store-dependent tests: ``pytest -m "not slow"`` is the everyday run, on SQLite
    and in-process (CI runs everything)."""
    tests_root = Path(__file__).parent
    for item in items:
        relative = Path(str(item.path)).relative_to(tests_root) if tests_root in Path(str(item.path)).parents else None
        in_slow_folder = relative is not None and relative.parts[0] in SLOW_FOLDERS
        in_slow_module = relative is not None and relative.as_posix() in SLOW_MODULES
        params = getattr(item, "callspec", None)
        on_a_server_store = params is not None and (
            params.params.get("db_url") in SERVER_STORES or params.params.get("store") in SERVER_STORES
        )
        if in_slow_folder or in_slow_module or on_a_server_store or item.get_closest_marker("spark"):
            item.add_marker(pytest.mark.slow)
