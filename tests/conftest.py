"""Shared fixtures: catalog stores on SQLite and MariaDB, a real Thrift server on a free port, a client.

MariaDB/MySQL is reached at ``HUDI_METASTORE_TEST_MYSQL_URL`` (default the local server, database
``test``); each test session works in a database of its own, created and dropped here. Outside CI a missing
server skips the MySQL cases; in CI (``CI=true``) it fails them.
"""

from __future__ import annotations

import os
import threading
import uuid

import pymysql
import pytest
import thriftpy2
from sqlalchemy.engine import make_url
from thriftpy2.protocol import TBinaryProtocolFactory
from thriftpy2.rpc import make_client
from thriftpy2.transport import TBufferedTransportFactory

from hms_adapter.cli import make_server
from hms_adapter.event_messages import HiveJsonMessages
from hudi_catalog import Catalog
from hms_adapter.idl import IDL_DIR

MYSQL_URL = os.environ.get("HUDI_METASTORE_TEST_MYSQL_URL", "mysql+pymysql://root@127.0.0.1:3306/test")
IN_CI = os.environ.get("CI", "").lower() == "true"

hive = thriftpy2.load(str(IDL_DIR / "hive_metastore.thrift"), module_name="hive_metastore_thrift")


def skip_or_fail(reason: str) -> None:
    """Skip outside CI; in CI a missing service is a failure."""
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: required)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def mysql_server_url() -> str:
    url = make_url(MYSQL_URL)
    try:
        conn = pymysql.connect(host=url.host, port=url.port or 3306, user=url.username,
                               password=url.password or "", connect_timeout=5)
    except pymysql.err.OperationalError as e:
        skip_or_fail(f"no MySQL/MariaDB server at {url.host}:{url.port}: {e}")
    conn.close()
    return MYSQL_URL


@pytest.fixture
def mysql_db_url(mysql_server_url):
    """A fresh, empty MySQL database for one test, dropped afterwards."""
    url = make_url(mysql_server_url)
    name = f"hms_test_{uuid.uuid4().hex[:12]}"
    admin = pymysql.connect(host=url.host, port=url.port or 3306, user=url.username,
                            password=url.password or "", autocommit=True)
    with admin.cursor() as cur:
        cur.execute(f"CREATE DATABASE {name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS {name}")
        admin.close()


@pytest.fixture(params=["sqlite", "mysql"])
def db_url(request, tmp_path):
    """The catalog database URL, once per backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'catalog.db'}"
    return request.getfixturevalue("mysql_db_url")


@pytest.fixture
def warehouse(tmp_path):
    path = tmp_path / "warehouse"
    path.mkdir()
    return path


@pytest.fixture
def catalog(db_url, warehouse):
    catalog = Catalog.open(db_url, str(warehouse), event_format=HiveJsonMessages())
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
            hive.ThriftHiveMetastore, "127.0.0.1", self.port,
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
    from hms_adapter.cli import make_metaserver
    from hms_adapter.idl import metaserver

    server = make_metaserver(catalog, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    client = make_client(metaserver.ThriftHoodieMetaserver, "127.0.0.1", server.port, timeout=60_000)
    yield client
    client.close()
    server.stop()
    thread.join(10)
