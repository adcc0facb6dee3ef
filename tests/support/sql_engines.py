"""What the real-engine tests share: a ``hudi-metastore serve`` process with a call log, Apache Hive Metastore
2.3.10 beside it, and Trino or Presto started on catalogs pointing at both (``benchmarks/sql_engines.py``).

Each engine module starts its engine once (a module-scoped fixture); in CI a missing engine, Java or database
is a failure, elsewhere a skip with the reason.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import uuid
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pymysql
from sqlalchemy.engine import make_url
from thriftpy2.rpc import make_client

from tests.conftest import hive, require_module, skip_or_fail
from tests.support.peer_schema import create_peer_schema
from tests.support.servers import free_port, serve_command, wait_for_port  # puts benchmarks/ on sys.path

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


@dataclass
class EngineSide:
    """One metastore as an engine sees it through a catalog: where its data lies, how its answers read once
    what legitimately differs between two metastores is taken out, and (for this server) what it was called."""

    catalog: str
    warehouse: Path
    located: Path  # the folder of the schema made WITH (location = ...)
    served: ServedMetastore | None = None  # this server (its call log); None for Hive Metastore
    schemas: tuple[str, ...] = ()  # when given, the catalog's name is taken out only before these schemas

    def table_dir(self, schema: str, table: str) -> Path:
        return self.warehouse / f"{schema}.db" / table

    def canonical(self, value: Any) -> Any:
        """``value`` without the catalog's name and the file system locations (Hive Metastore writes
        ``file:/x`` where this server keeps ``file:///x``)."""
        if value == self.catalog:
            return "<catalog>"
        if not isinstance(value, str):
            return value
        for path, name in ((self.warehouse, "<warehouse>"), (self.located, "<located>")):
            value = value.replace(f"file://{path}", name).replace(f"file:{path}", name)
        schema = f"(?:{'|'.join(map(re.escape, self.schemas))})\\." if self.schemas else "\\w"
        return re.sub(rf"(?<![\w.]){re.escape(self.catalog)}(?=\.{schema})", "<catalog>", value)

    def files(self) -> list[tuple[str, int]]:
        """Every folder under the warehouse and the located schema's folder, with its number of data files."""
        found = []
        for root, name in ((self.warehouse, "<warehouse>"), (self.located, "<located>")):
            for folder in sorted(p for p in [root, *root.rglob("*")] if p.is_dir()):
                data = [f for f in folder.iterdir() if f.is_file() and not f.name.startswith((".", "_"))]
                found.append((f"{name}/{folder.relative_to(root)}", len(data)))
        return found


@contextmanager
def served_metastore(
    work: Path,
    db_url: str,
    *options: str,
    port: int | None = None,
    metaserver_port: int | None = None,
    warehouse_uri: str | None = None,
) -> Iterator[ServedMetastore]:
    """``hudi-metastore serve`` on ``port`` (a free one) of 127.0.0.1 over ``db_url`` with its warehouse under
    ``work`` (at ``warehouse_uri`` when given, an object store's say) and the DEBUG call log in
    ``work/server.log``, Hudi's metaserver on ``metaserver_port`` (none when not given); stopped on exit."""
    warehouse = work / "warehouse"
    warehouse.mkdir(parents=True, exist_ok=True)
    port, log = port or free_port(), work / "server.log"
    command = serve_command(
        port,
        metaserver_port=metaserver_port or None,
        db_url=db_url,
        warehouse=warehouse_uri or f"file://{warehouse}",
        extra=["--log-level", "DEBUG", *options],
    )
    with log.open("w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port, process, log=log)
        yield ServedMetastore(process, port, log, warehouse)
    finally:
        process.terminate()
        process.wait(30)


@contextmanager
def hive_metastore_2_3(mysql_server_url: str, port: int | None = None) -> Iterator[object]:
    """Apache Hive Metastore 2.3.10 (``benchmarks/peer.py``) on a fresh MariaDB database of its own, on
    ``port`` (a free one), its schema made before it is handed out (``peer_schema``)."""
    require_module("pyspark")  # the peer runs from the jars of the pyspark wheel
    with hive_metastore(mysql_server_url, "2.3.10", port) as running:
        create_peer_schema(running.host, running.port)
        yield running


@contextmanager
def hive_metastore(
    mysql_server_url: str,
    version: str,
    port: int | None = None,
    settings: dict[str, str] | None = None,
    extra_classpath: tuple[str, ...] = (),
    jvm_options: tuple[str, ...] = (),
) -> Iterator[object]:
    """Apache Hive Metastore ``version`` (``benchmarks/peer.py``: 2.3.10 or 4.0.1) on a fresh MariaDB
    database of its own, on ``port`` (a free one), with ``settings`` added to its configuration,
    ``extra_classpath`` after its jars and ``jvm_options`` on its JVM."""
    peer = importlib.import_module("peer")
    try:
        peer.driver_jar()
    except SystemExit as e:
        skip_or_fail(f"the Hive Metastore peer needs the MariaDB JDBC driver: {e}")
    url = make_url(mysql_server_url).set(database=f"hms_peer_engines_{uuid.uuid4().hex[:12]}")
    try:
        with peer.running_peer(
            db_url=url.render_as_string(hide_password=False),
            port=port,
            version=version,
            settings=settings,
            extra_classpath=extra_classpath,
            jvm_options=jvm_options,
        ) as running:
            yield running
    except engines.EngineUnavailable as error:
        skip_or_fail(f"Hive Metastore {version} cannot run here: {error}")
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


@contextmanager
def starting_engine(package, catalogs: dict[str, dict[str, str]], work_dir: Path) -> Iterator[Future]:
    """Starts ``package`` (``engines.TRINO``/``engines.PRESTO``) on ``catalogs`` in a thread, so that the
    metastores it names can start meanwhile (it reaches them only when queried). Yields the future of the
    running ``SqlEngine``; the engine is stopped on exit, after its start has finished."""
    # the pool exits first (waiting for the start), then the stack stops the engine it holds
    with ExitStack() as stack, ThreadPoolExecutor(1) as pool:
        yield pool.submit(stack.enter_context, sql_engines.running_engine(package, catalogs, work_dir))


def metastore_client(uri: str) -> Any:
    """A plain Thrift client of the metastore at ``uri`` (``thrift://host:port``); the caller closes it."""
    host, port = uri.removeprefix("thrift://").split(":")
    return make_client(hive.ThriftHiveMetastore, host, int(port), timeout=60_000)


def grant_admin_role(uri: str, user: str, grant_option: bool = False) -> None:
    """Makes ``user`` a member of the metastore's ``admin`` role, as Hive's ``hive.users.in.admin.role``."""
    client = metastore_client(uri)
    try:
        client.grant_role("admin", user, hive.PrincipalType.USER, "admin", hive.PrincipalType.ROLE, grant_option)
    finally:
        client.close()
