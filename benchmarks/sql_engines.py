"""Trino 476 and Presto 0.287 run as single-node servers (coordinator and worker in one JVM) for tests and
benchmarks, with catalog files pointing at metastores.

The servers come from :mod:`engines` (Maven Central, pinned). :func:`running_engine` writes a node's
configuration into a work folder, starts the server in the foreground of its own process group, waits until
``/v1/info`` no longer says it is starting, its node is active and the engine schedules scans of the catalogs on
it (:func:`_wait_started`), and stops it on exit. Queries go over the engines' HTTP protocol with their Python
clients (``trino``, ``presto-python-client``).

The catalog files are built by the functions below, the same text docs/engines.md shows with
``metastore-host:9083`` (``tests/engines/test_engine_docs.py`` checks that they agree).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_base import JVM_READY_SECONDS, NotReady, wait_until  # noqa: E402
from bench_server import free_port  # noqa: E402
from engines import PRESTO, PRESTO_JVM_OPENS, TRINO, ServerPackage, install, java_home  # noqa: E402

START_TIMEOUT_S = JVM_READY_SECONDS
"""Only a ceiling against a hang: the wait for a server ends once it answers, or at once when it exits."""
# one node beside the rest of the suite on a 2-core, 24 GiB machine: a 2 GiB heap, of which a query may
# take 512 MiB (Trino keeps 30% of the heap as headroom besides query memory)
HEAP = "2G"
QUERY_MEMORY = "512MB"
# Trino's own jvm.config recommendations for 476 that matter on Java 25
TRINO_JVM_OPTIONS = (
    "-XX:+UseG1GC",
    "-XX:+ExplicitGCInvokesConcurrent",
    "-XX:+ExitOnOutOfMemoryError",
    "-Djdk.attach.allowAttachSelf=true",
    "-Dfile.encoding=UTF-8",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "--sun-misc-unsafe-memory-access=allow",
)
PRESTO_JVM_OPTIONS = (
    "-XX:+UseG1GC",
    "-XX:+ExitOnOutOfMemoryError",
    "-Djdk.attach.allowAttachSelf=true",
    *PRESTO_JVM_OPENS,
)
NODE_STATE_POLLS = {
    "trino": "io.airlift.http.client:type=HttpClient,name=ForNodeManager",
    "presto": "com.facebook.airlift.http.client:type=HttpClient,name=ForNodeManager",
}
"""The JMX bean (``/v1/jmx/mbean/<name>``) of the HTTP client with which the node manager polls each node's
``/v1/info/state``, its only user with static catalogs: ``AllResponse.TotalCount`` counts the polls answered."""


def _trino_catalog(connector: str, metastore_uri: str, extra: dict[str, str]) -> dict[str, str]:
    """A Trino catalog of ``connector`` on a Thrift metastore, reading and writing ``file:`` locations
    through the Hadoop file system (bundled with the connectors in 476)."""
    return {"connector.name": connector, "hive.metastore.uri": metastore_uri, "fs.hadoop.enabled": "true", **extra}


def trino_hive_catalog(metastore_uri: str, **extra: str) -> dict[str, str]:
    """Trino's Hive connector on a Thrift metastore."""
    return _trino_catalog("hive", metastore_uri, extra)


def trino_iceberg_catalog(metastore_uri: str, **extra: str) -> dict[str, str]:
    """Trino's Iceberg connector with its catalog in a Thrift metastore."""
    return _trino_catalog("iceberg", metastore_uri, {"iceberg.catalog.type": "hive_metastore", **extra})


def trino_iceberg_rest_catalog(rest_uri: str, **extra: str) -> dict[str, str]:
    """Trino's Iceberg connector on an Iceberg REST catalog (the server's ``--iceberg-rest-port``)."""
    return {
        "connector.name": "iceberg",
        "iceberg.catalog.type": "rest",
        "iceberg.rest-catalog.uri": rest_uri,
        "fs.hadoop.enabled": "true",
        **extra,
    }


def trino_hudi_catalog(metastore_uri: str, **extra: str) -> dict[str, str]:
    """Trino's Hudi connector (read only) on a Thrift metastore."""
    return _trino_catalog("hudi", metastore_uri, extra)


def presto_hive_catalog(metastore_uri: str, **extra: str) -> dict[str, str]:
    """Presto's Hive connector on a Thrift metastore (``file:`` locations work through its bundled Hadoop)."""
    return {"connector.name": "hive-hadoop2", "hive.metastore.uri": metastore_uri, **extra}


def properties_text(properties: Mapping[str, str]) -> str:
    return "".join(f"{key}={value}\n" for key, value in properties.items())


@dataclass
class SqlEngine:
    """A running single-node Trino or Presto."""

    package: ServerPackage
    port: int
    process: subprocess.Popen
    work_dir: Path
    log_path: Path
    users: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def connect(self, user: str = "alice", catalog: str | None = None, schema: str | None = None) -> Any:
        """A DB-API connection of the engine's Python client."""
        if self.package is TRINO:
            import trino

            return trino.dbapi.connect(host="127.0.0.1", port=self.port, user=user, catalog=catalog, schema=schema)
        import prestodb

        return prestodb.dbapi.connect(host="127.0.0.1", port=self.port, user=user, catalog=catalog, schema=schema)

    def query(self, sql: str, user: str = "alice", catalog: str | None = None, schema: str | None = None) -> list:
        """All rows of ``sql`` (lists), run on a connection of its own."""
        cursor = self.connect(user, catalog, schema).cursor()
        cursor.execute(sql)
        return [list(row) for row in cursor.fetchall()]

    def query_info(self, query_id: str) -> dict:
        """The engine's record of a query (``/v1/query/<id>``: its statistics, planning time among them)."""
        request = urllib.request.Request(
            f"{self.url}/v1/query/{query_id}", headers={"X-Trino-User": "alice", "X-Presto-User": "alice"}
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")


def _write_node_config(
    package: ServerPackage, home: Path, etc: Path, port: int, catalogs: Mapping[str, Mapping[str, str]]
) -> None:
    (etc / "catalog").mkdir(parents=True, exist_ok=True)
    config = {
        "plugin.dir": str(home / "plugin"),
        "coordinator": "true",
        "node-scheduler.include-coordinator": "true",
        "http-server.http.port": str(port),
        "discovery.uri": f"http://127.0.0.1:{port}",
        "query.max-memory": "1GB",
        "query.max-memory-per-node": QUERY_MEMORY,
        "failure-detector.enabled": "false",  # one node: nothing to detect
    }
    if package is PRESTO:
        config["discovery-server.enabled"] = "true"
    (etc / "config.properties").write_text(properties_text(config))
    for name, properties in catalogs.items():
        (etc / "catalog" / f"{name}.properties").write_text(properties_text(properties))


@contextmanager
def running_engine(
    package: ServerPackage,
    catalogs: Mapping[str, Mapping[str, str]],
    work_dir: str | os.PathLike | None = None,
    log_levels: Mapping[str, str] | None = None,
) -> Iterator[SqlEngine]:
    """``package`` (``engines.TRINO`` or ``engines.PRESTO``) serving ``catalogs`` (name to properties) on a
    free port of 127.0.0.1, once it has started; stopped on exit. The work folder (configuration, data,
    ``server.log``) is temporary and deleted after a clean exit unless given."""
    home = install(package)
    java = java_home(package.min_java) / "bin" / "java"
    port = free_port()
    work = Path(work_dir) if work_dir else Path(tempfile.mkdtemp(prefix=f"{package.name}-"))
    etc = work / "etc"
    _write_node_config(package, home, etc, port, catalogs)
    levels = {"io.trino": "INFO", "com.facebook.presto": "INFO", **(log_levels or {})}
    (etc / "log.properties").write_text(properties_text(levels))
    jvm = TRINO_JVM_OPTIONS if package is TRINO else PRESTO_JVM_OPTIONS
    command = [
        str(java),
        f"-Xmx{HEAP}",
        *jvm,
        f"-Djava.io.tmpdir={work}",
        "-Dnode.environment=test",
        # the address other nodes would use; the only node is on loopback
        "-Dnode.internal-address=127.0.0.1",
        f"-Dnode.id={package.name}-{port}",
        f"-Dnode.data-dir={work / 'data'}",
        f"-Dconfig={etc / 'config.properties'}",
        f"-Dlog.levels-file={etc / 'log.properties'}",
        f"-Dcatalog.config-dir={etc / 'catalog'}",
        "-cp",
        f"{home / 'lib'}/*",
        package.main_class,
    ]
    log_path = work / "server.log"
    with log_path.open("w") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, cwd=work, start_new_session=True, env=_engine_env()
        )
    engine = SqlEngine(package, port, process, work, log_path)
    clean = False
    try:
        _wait_started(engine)
        yield engine
        clean = True
    finally:
        _stop(process)
        if clean and work_dir is None:
            shutil.rmtree(work, ignore_errors=True)


def _engine_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("JAVA_TOOL_OPTIONS", None)
    # Hadoop (inside the Hive connectors) looks for a user name; the tests' file system user is the caller
    env.setdefault("HADOOP_USER_NAME", os.environ.get("USER", "root"))
    return env


def _wait_started(engine: SqlEngine) -> None:
    """Until ``/v1/info`` no longer says it is starting, the node manager has taken in the catalogs (below) and
    a query lists the node as active; an error at once when the server exits first (with the end of its log).

    A scan of a catalog runs only on the nodes the node manager lists for that catalog, from the catalogs each
    node announces. Its view is refreshed every 5 s (``DiscoveryNodeManager.pollWorkers``, fixed in both
    engines), but the server announces its catalogs only once it has loaded them, just before it says it has
    started: until the next refresh the node is active and queries of ``system`` tables run, while a scan of
    any catalog fails with ``NO_NODES_AVAILABLE`` ("No nodes available to run query"), for up to 5 s on an
    idle machine and longer on a loaded one. The refresh is seen through the polls that precede it: each one
    asks the node for ``/v1/info/state`` (:data:`NODE_STATE_POLLS` counts the answers), sends a poll only once
    the previous one was answered, and refreshes the view right after sending. Counted from when the server
    said it started, the second answered poll was sent after the catalogs were announced and the third only
    once the refresh that followed the second had finished."""
    polls: list[int] = []  # answered polls when the server was first seen started

    def started() -> bool:
        try:
            with urllib.request.urlopen(f"{engine.url}/v1/info", timeout=10) as response:
                if json.load(response).get("starting", True):
                    return False
            if not polls:
                polls.append(_node_state_polls(engine))
            return _node_state_polls(engine) >= polls[0] + 3 and _node_active(engine)
        except (OSError, urllib.error.URLError, ValueError):
            return False

    try:
        wait_until(started, process=engine.process, what=engine.package.name, seconds=START_TIMEOUT_S, interval=1)
    except NotReady as error:
        raise RuntimeError(f"{error} (log: {engine.log_path}):\n{engine.log_text()[-4000:]}") from None


def _user_header(engine: SqlEngine) -> dict[str, str]:
    return {"X-Trino-User" if engine.package is TRINO else "X-Presto-User": "readiness"}


def _node_state_polls(engine: SqlEngine) -> int:
    """How many of the node manager's polls of ``/v1/info/state`` were answered (:data:`NODE_STATE_POLLS`)."""
    name = NODE_STATE_POLLS[engine.package.name]
    url = f"{engine.url}/v1/jmx/mbean/{urllib.parse.quote(name)}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=_user_header(engine)), timeout=10) as response:
            attributes = json.load(response)["attributes"]
    except urllib.error.HTTPError as error:
        raise RuntimeError(f"{engine.package.name} has no JMX bean {name}: {error}") from None
    return next(int(a["value"]) for a in attributes if a["name"] == "AllResponse.TotalCount")


def _node_active(engine: SqlEngine) -> bool:
    """Whether a query runs and lists an active node: ``SELECT count(*) FROM system.runtime.nodes WHERE state =
    'active'`` (a ``SELECT 1`` needs no node at all)."""
    header = _user_header(engine)
    sql = b"SELECT count(*) FROM system.runtime.nodes WHERE state = 'active'"
    request = urllib.request.Request(f"{engine.url}/v1/statement", data=sql, headers=header, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        answer = json.load(response)
    rows = list(answer.get("data") or [])
    while "nextUri" in answer and "error" not in answer:
        with urllib.request.urlopen(urllib.request.Request(answer["nextUri"], headers=header), timeout=10) as response:
            answer = json.load(response)
        rows += answer.get("data") or []
    return "error" not in answer and bool(rows) and rows[0][0] >= 1


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
