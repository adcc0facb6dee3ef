"""What the real-engine tests share: a ``hudi-metastore serve`` process with a call log, Apache Hive Metastore
2.3.10 beside it, and Trino or Presto started on catalogs pointing at both (``benchmarks/sql_engines.py``).

Each engine module starts its engine once (a module-scoped fixture); in CI a missing engine, Java or database
is a failure, elsewhere a skip with the reason.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pymysql
from sqlalchemy.engine import make_url

from tests.conftest import require_module, skip_or_fail
from tests.hms_adapter.test_cli import CLI, _wait_for_port, free_port
from tests.support.peer_schema import create_peer_schema

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

engines = importlib.import_module("engines")
sql_engines = importlib.import_module("sql_engines")

CALL_LINE = re.compile(r"hms_adapter\.processor: (\w+) [\d.]+ ms")


@dataclass
class ServedMetastore:
    """A ``hudi-metastore serve`` process logging one DEBUG line per call."""

    process: subprocess.Popen
    port: int
    log: Path
    warehouse: Path

    @property
    def uri(self) -> str:
        return f"thrift://127.0.0.1:{self.port}"

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def log_mark(self) -> int:
        """The log's current length: :meth:`calls` from here on."""
        return len(self.log_text())

    def calls(self, since: int = 0) -> list[str]:
        """The Thrift methods the server answered since ``since`` (a :meth:`log_mark`), in order."""
        return CALL_LINE.findall(self.log_text()[since:])


@contextmanager
def served_metastore(work: Path, db_url: str, *options: str, port: int | None = None) -> Iterator[ServedMetastore]:
    """``hudi-metastore serve`` on ``port`` (a free one) of 127.0.0.1 over ``db_url`` with its warehouse under
    ``work`` and the DEBUG call log in ``work/server.log``; stopped on exit."""
    warehouse = work / "warehouse"
    warehouse.mkdir(parents=True, exist_ok=True)
    port, log = port or free_port(), work / "server.log"
    command = ["serve", "--host", "127.0.0.1", "--port", str(port), "--no-metaserver", "--log-level", "DEBUG"]
    command += ["--db-url", db_url, "--warehouse", f"file://{warehouse}", *options]
    with log.open("w") as out:
        process = subprocess.Popen(CLI + command, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_for_port(port, process, seconds=120)
        yield ServedMetastore(process, port, log, warehouse)
    finally:
        process.terminate()
        process.wait(30)


@contextmanager
def hive_metastore_2_3(mysql_server_url: str, port: int | None = None) -> Iterator[object]:
    """Apache Hive Metastore 2.3.10 (``benchmarks/peer.py``) on a fresh MariaDB database of its own, on
    ``port`` (a free one), its schema made before it is handed out (``peer_schema``)."""
    require_module("pyspark")  # the peer runs from the jars of the pyspark wheel
    peer = importlib.import_module("peer")
    try:
        peer.driver_jar()
    except SystemExit as e:
        skip_or_fail(f"the Hive Metastore peer needs the MariaDB JDBC driver: {e}")
    url = make_url(mysql_server_url).set(database=f"hms_peer_engines_{uuid.uuid4().hex[:12]}")
    try:
        with peer.running_peer(db_url=url.render_as_string(hide_password=False), port=port) as running:
            create_peer_schema(running.host, running.port)
            yield running
    finally:
        conn = pymysql.connect(
            host=url.host, port=url.port or 3306, user=url.username, password=url.password or "", autocommit=True
        )
        with conn.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS {url.database}")
        conn.close()


def require_engine(package) -> None:
    """Skip (fail in CI) unless ``package`` (``engines.TRINO``/``engines.PRESTO``) is fetched and has a Java."""
    require_module("trino" if package is engines.TRINO else "prestodb", extra="test")
    try:
        engines.install(package)
        engines.java_home(package.min_java)
    except engines.EngineUnavailable as error:
        skip_or_fail(f"{package.name} cannot run here: {error}")
