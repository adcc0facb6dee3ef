"""Apache HiveServer2 4.0.1 assembled from Maven Central, on a Hive Metastore given by its URI, running
statements in-process (local MapReduce); and a JDBC session runner in place of beeline.

What was found (2026-11-29): Maven Central serves ``hive-exec``, ``hive-service``, ``hive-jdbc`` (with its
``standalone`` jar) and ``hive-hplsql`` at 4.0.1, but no Hive binary distribution and no ``hive-beeline`` 4.x
(3.1.3 only). ``hive-exec-4.0.1.jar`` is the fat jar: Hive's common, serde, parser, metastore client, service
RPC, shims, ORC, Parquet, Avro, Calcite and a shaded Guava, Kryo and Thrift are inside. So HiveServer2 is
assembled as ``ENGINE_HOME/hiveserver2-4.0.1/lib``:

- ``hive-exec`` 4.0.1 and ``hadoop-hdfs`` 3.3.6 (its ``SnapshotException`` is named by INSERT's moves), as pinned
  single files (``maven_artifacts.PINNED``, the same entries ``hive4.py`` uses);
- the rest resolved by Maven from a generated POM (:data:`DEPENDENCIES`): the dependencies of ``hive-service``
  and of ``hive-exec`` without Hive's own modules (in the fat jar) and without what a binary-transport,
  no-authentication, MapReduce-only server never loads (Tez, HBase, Atlas, Ivy, Groovy, Arrow, the SAML and PAM
  authenticators, ``jetty-runner``); Hadoop 3.3.6 (Hive 4.0.1's) with the MapReduce client's ``common`` and
  ``jobclient`` (the local job runner), without its protobuf 2.5; and what the exclusions or Hive's
  distribution would otherwise bring, each found missing at run time: ``hive-hplsql`` (every statement's
  operation names its session state), ``caffeine`` (the metastore client's local cache), ``cron-utils``
  (``DbTxnManager``, when ``hive.txn.manager`` names it) and the Jasper runtime (HiveServer2's main class names
  its ``JspFactoryImpl``). Hadoop's logging bindings (reload4j) are removed: Hive logs through log4j 2.

The JDBC client is ``hive-jdbc-4.0.1-standalone.jar`` (pinned), and :data:`SESSION_SOURCE`
(``java/JdbcSession.java``), compiled at run time against it, runs a list of statements and prints a JSON line
for each (rows, update count or the SQLException).

The server's settings (:func:`hive_site`) and the failure each one avoids are listed there; :data:`JVM_OPENS` are
the JDK packages Hive reflects into on Java 17. Assembled once per machine::

    python benchmarks/engines.py fetch hiveserver2

Run by hand until Ctrl-C, or to run a file of statements and stop::

    python benchmarks/hiveserver2.py --metastore-uri thrift://127.0.0.1:9083 [--port 10000] [--run session.sql]
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_base import (  # noqa: E402
    JVM_READY_SECONDS,
    NotReady,
    free_port,
    stop_process,
    wait_for_listening,
    write_conf,
)
from maven_artifacts import (  # noqa: E402
    ENGINE_HOME,
    HADOOP_LOGGING_BINDINGS,
    HADOOP_VERSION,
    LOG,
    EngineUnavailable,
    assembled,
    fetch,
)

VERSION = "4.0.1"
NAME = "hiveserver2"
"""The name of HiveServer2 for ``engines.py fetch``."""
JAVA = 17
HIVE_EXEC = f"hive-exec:{VERSION}"
HADOOP_HDFS = f"hadoop-hdfs:{HADOOP_VERSION}"
HIVE_JDBC = f"hive-jdbc:{VERSION}"
"""``hive-jdbc-4.0.1-standalone.jar``: the JDBC driver with everything it needs, one jar."""
MAIN_CLASS = "org.apache.hive.service.server.HiveServer2"
SESSION_SOURCE = Path(__file__).parent / "java" / "JdbcSession.java"
LOG4J_BRIDGE = "log4j-1.2-api-"
"""log4j 2's bridge for log4j 1 calls (Hadoop's), kept where Hadoop's log4j 1 jars are removed."""

_HIVE = ("org.apache.hive", "*")
_HADOOP = ("org.apache.hadoop", "*")
_JDK_TOOLS = ("jdk.tools", "jdk.tools")
# Hadoop's protobuf-java 2.5.0 (its legacy RPC; local mode makes no RPC): hive-exec carries protobuf 3, which ORC's
# writer needs (with 2.5.0 first on the classpath: NoSuchMethodError com.google.protobuf.Internal.checkNotNull)
_PROTOBUF_2 = ("com.google.protobuf", "protobuf-java")
DEPENDENCIES: tuple[tuple[str, str, str, tuple[tuple[str, str], ...]], ...] = (
    (
        "org.apache.hive",
        "hive-exec",
        VERSION,
        (
            _HIVE,
            ("org.apache.hive.shims", "*"),
            _HADOOP,
            _JDK_TOOLS,
            ("org.apache.tez", "*"),
            ("org.apache.hbase", "*"),
            ("org.apache.atlas", "*"),
            ("com.amazonaws.secretsmanager", "*"),
            ("org.codehaus.groovy", "*"),
            ("org.apache.ivy", "*"),
            ("org.apache.ant", "*"),
            ("org.apache.arrow", "*"),
            ("com.sun.jersey.contribs", "*"),
        ),
    ),
    (
        "org.apache.hive",
        "hive-service",
        VERSION,
        (
            _HIVE,
            _HADOOP,
            _JDK_TOOLS,
            ("org.pac4j", "*"),  # SAML authentication; its xmlsectool 2.0.0 is not on Maven Central
            ("org.apache.santuario", "*"),
            ("org.bouncycastle", "*"),
            ("net.sf.jpam", "*"),  # PAM authentication
            ("org.eclipse.jetty", "jetty-runner"),  # an uber jar; only its Jasper runtime is used (below)
        ),
    ),
    # its Guava 22 would be nearer than Hadoop's 27, and win
    ("org.apache.hive", "hive-hplsql", VERSION, (_HIVE, _HADOOP, ("com.google.guava", "*"))),
    ("com.github.ben-manes.caffeine", "caffeine", "2.8.4", ()),
    ("com.cronutils", "cron-utils", "9.1.6", ()),
    ("org.mortbay.jasper", "apache-jsp", "8.5.70", (("org.eclipse.jdt", "*"), ("org.eclipse.jetty.toolchain", "*"))),
    *(
        ("org.apache.hadoop", name, HADOOP_VERSION, (_JDK_TOOLS, _PROTOBUF_2))
        for name in (
            "hadoop-common",
            "hadoop-hdfs-client",
            "hadoop-mapreduce-client-core",
            "hadoop-mapreduce-client-common",
            "hadoop-mapreduce-client-jobclient",
        )
    ),
)
"""``(group, artifact, version, exclusions)`` of the POM Maven resolves HiveServer2's libraries from; ``hive-exec``
itself is then replaced by the pinned file (it is listed for its dependencies)."""

JVM_OPENS = tuple(
    f"--add-opens=java.base/{package}=ALL-UNNAMED"
    for package in (
        "java.lang",
        "java.lang.reflect",
        "java.lang.invoke",
        "java.io",
        "java.net",
        "java.nio",
        "java.text",
        "java.time",
        "java.util",
        "java.util.concurrent",
        "java.util.concurrent.atomic",
        "java.util.regex",
        "sun.nio.ch",
        "sun.util.calendar",
    )
)
"""The JDK packages Hive 4.0.1 reflects into on Java 17. Without ``java.net`` no session starts
(``StringInternUtils`` opens ``URI.string``: ``InaccessibleObjectException`` in ``Utilities.<clinit>``); with only
``hive4.HIVE_EXEC_JVM_OPTIONS`` (``java.net``, ``java.lang``, ``java.util``, ``java.time``) the server does not
start (``ByteBuffer.ARRAY_BASE_OFFSET``, ``java.nio``). The rest are what Kryo, serializing the MapReduce plans,
may reach; they were not tried one by one."""


@dataclass(frozen=True)
class HiveServer2Install:
    """An assembled HiveServer2 4.0.1."""

    home: Path

    @property
    def classpath(self) -> str:
        """``hive-exec`` first: it carries newer copies of jars Hadoop brings too (Thrift, Avro, ANTLR's
        runtime, protobuf), and its own must win."""
        return f"{self.home / 'lib' / f'hive-exec-{VERSION}.jar'}:{self.home / 'lib'}/*"

    @property
    def jdbc_jar(self) -> Path:
        """The standalone JDBC driver (all a client needs)."""
        return self.home / "jdbc" / f"hive-jdbc-{VERSION}-standalone.jar"


def install() -> HiveServer2Install:
    """HiveServer2 4.0.1 under ``ENGINE_HOME``, assembled first if missing."""
    pinned = [fetch(name) for name in (HIVE_EXEC, HADOOP_HDFS)]
    jdbc = fetch(HIVE_JDBC)

    def build(staging: Path) -> Path:
        LOG.info("assembling HiveServer2 %s with Hadoop %s into %s", VERSION, HADOOP_VERSION, home)
        top = staging / "hiveserver2"
        _resolve(staging / "pom", top / "lib")
        for jar in pinned:
            shutil.copy(jar, top / "lib" / jar.name)
        (top / "jdbc").mkdir()
        shutil.copy(jdbc, top / "jdbc" / jdbc.name)
        return top

    home = ENGINE_HOME / f"hiveserver2-{VERSION}"
    stamp = f"{' '.join(jar.name for jar in [*pinned, jdbc])} {json.dumps(DEPENDENCIES)} keeps {LOG4J_BRIDGE}"
    return HiveServer2Install(assembled(NAME, home, stamp, build))


def _resolve(work: Path, into: Path) -> None:
    """Copy :data:`DEPENDENCIES` with their dependencies into ``into`` (Maven, from a POM generated in ``work``),
    without ``hive-exec`` and ``hadoop-hdfs`` (the pinned files go there) and without Hadoop's logging bindings."""
    if shutil.which("mvn") is None:
        raise EngineUnavailable("HiveServer2's libraries are resolved with Maven (mvn), not found")
    work.mkdir(parents=True)
    dependencies = "".join(
        f"<dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId><version>{version}</version>"
        "<exclusions>"
        + "".join(f"<exclusion><groupId>{g}</groupId><artifactId>{a}</artifactId></exclusion>" for g, a in exclusions)
        + "</exclusions></dependency>"
        for group, artifact, version, exclusions in DEPENDENCIES
    )
    (work / "pom.xml").write_text(
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        "<groupId>local</groupId><artifactId>hiveserver2-libraries</artifactId><version>1</version>"
        f"<dependencies>{dependencies}</dependencies></project>"
    )
    command = ["mvn", "-q", "-B", "dependency:copy-dependencies", f"-DoutputDirectory={into}"]
    command += ["-DincludeScope=runtime", "-DexcludeTypes=pom", "-DexcludeArtifactIds=hive-exec,hadoop-hdfs"]
    result = subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        raise EngineUnavailable(f"mvn could not resolve HiveServer2 {VERSION}'s libraries: {result.stdout[-2000:]}")
    for jar in into.iterdir():
        if jar.name.startswith(HADOOP_LOGGING_BINDINGS) and not jar.name.startswith(LOG4J_BRIDGE):
            jar.unlink()


def hive_site(metastore_uri: str, port: int, work: Path, warehouse: str) -> dict[str, str]:
    """HiveServer2's configuration (``hive-site.xml``): on ``metastore_uri``, listening on 127.0.0.1:``port``
    (binary Thrift, no authentication), running statements in its own JVM, its scratch space under ``work``."""
    settings = {
        "hive.metastore.uris": metastore_uri,
        "hive.server2.transport.mode": "binary",
        "hive.server2.thrift.bind.host": "127.0.0.1",
        "hive.server2.thrift.port": str(port),
        # NONE: SASL PLAIN without a password check, what the JDBC driver speaks by default
        # (jdbc:hive2://host:port/db). NOSASL works as well, but only with ;auth=noSasl in the URL (without it
        # the driver's SASL handshake fails: "Could not open client transport ... Socket is closed by peer")
        "hive.server2.authentication": "NONE",
        "hive.server2.enable.doAs": "false",  # statements run as the server's user, no proxy-user setup
        # MapReduce in this JVM: Tez is not assembled; the local job runner needs no cluster. Hive 4 warns that
        # MR is deprecated and still runs INSERT ... VALUES/SELECT with it
        "hive.execution.engine": "mr",
        "mapreduce.framework.name": "local",
        # a map join's hash table is built in a child JVM by default, through Hadoop's `hadoop` launcher,
        # which is not here: build it in this JVM
        "hive.exec.submit.local.task.via.child": "false",
        "hive.exec.scratchdir": str(work / "scratch"),
        "hive.exec.local.scratchdir": str(work / "local-scratch"),
        "hive.downloaded.resources.dir": str(work / "resources"),
        "hive.querylog.location": str(work / "query-logs"),
        "hive.server2.logging.operation.log.location": str(work / "operation-logs"),
        "hive.query.results.cache.directory": str(work / "results-cache"),  # else /tmp/hive/_resultscache_
        # without the LMAX disruptor (not assembled) the asynchronous logger fails at start:
        # NoClassDefFoundError com/lmax/disruptor/EventTranslatorVararg
        "hive.async.log.enabled": "false",
        # the web UI (Jetty, port 10002 by default) is off: two servers would collide on its port
        "hive.server2.webui.port": "0",
        # fail at once: HiveServer2 retries a failed start every 60 s, 30 times by default
        "hive.server2.max.start.attempts": "1",
        # no background polls of the metastore (scheduled_query_poll every few seconds)
        "hive.scheduled.queries.executor.enabled": "false",
        # the metastore's warehouse, below
    }
    settings["hive.metastore.warehouse.dir"] = warehouse
    settings["hive.metastore.warehouse.external.dir"] = warehouse
    return settings


@dataclass
class HiveServer2:
    """A running HiveServer2."""

    host: str
    port: int
    process: subprocess.Popen
    log_dir: Path
    engine: HiveServer2Install
    started_s: float
    """Seconds from the JVM's launch until the Thrift port accepted connections."""

    @property
    def jdbc_url(self) -> str:
        return f"jdbc:hive2://{self.host}:{self.port}/default"

    @property
    def log(self) -> Path:
        return self.log_dir / "hiveserver2.log"

    def rss_mb(self) -> float | None:
        """The server JVM's resident memory now (MiB), from ``/proc``; None once it is gone."""
        return rss_mb(self.process.pid)

    def session(self, statements: str | Sequence[str], *, timeout: float = 1800) -> list[dict]:
        """:func:`run_session` on this server."""
        return run_session(self.jdbc_url, statements, engine=self.engine, timeout=timeout)


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


@contextmanager
def running_hiveserver2(
    metastore_uri: str,
    warehouse_dir: str | Path | None = None,
    *,
    port: int | None = None,
    heap: str = "1g",
    log_level: str = "INFO",
    work_dir: str | Path | None = None,
    settings: dict[str, str] | None = None,
    jvm_options: Sequence[str] = (),
) -> Iterator[HiveServer2]:
    """HiveServer2 4.0.1 in a JVM of its own on the Hive Metastore ``metastore_uri`` (``thrift://host:port``),
    listening on 127.0.0.1 (a free port unless ``port``), once its Thrift port accepts connections; stopped
    (SIGTERM) on exit. ``warehouse_dir``: its ``hive.metastore.warehouse.dir`` (a path or URI), which should be
    the metastore's: HiveServer2 4 sends CREATE DATABASE's location itself, ``<warehouse>/<name>.db``, so the
    database and its tables go where HiveServer2's setting says, on either metastore (left at Hive's default,
    ``/user/hive/warehouse`` on the local disk); left out, a folder of the work directory. ``settings`` add to
    or override :func:`hive_site`. Its log is ``log_dir/hiveserver2.log``, with ``stdout.log`` beside it; the temporary
    ``work_dir`` (configuration, scratch space, logs) is deleted after a clean exit only."""
    engine = install()
    if shutil.which("java") is None:
        raise EngineUnavailable("HiveServer2 needs Java (java on PATH)")
    port = port or free_port()
    work = Path(work_dir or tempfile.mkdtemp(prefix="hiveserver2-")).resolve()
    log_dir = work / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    warehouse = str(warehouse_dir if warehouse_dir is not None else work / "warehouse")
    if ":" not in warehouse:
        warehouse = f"file:{Path(warehouse).resolve()}"
    conf_dir = write_conf(work / "conf", {**hive_site(metastore_uri, port, work, warehouse), **(settings or {})}).parent
    command = [
        "java",
        f"-Xmx{heap}",
        *JVM_OPENS,
        f"-Dhive.log.dir={log_dir}",
        "-Dhive.log.file=hiveserver2.log",
        f"-Dhive.log.level={log_level}",
        f"-Djava.io.tmpdir={work}",
        *jvm_options,
        "-cp",
        f"{conf_dir}:{engine.classpath}",
        MAIN_CLASS,
    ]
    started = time.monotonic()
    with open(log_dir / "stdout.log", "w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=work)
    clean = False
    try:
        try:
            wait_for_listening(port, process, f"HiveServer2 {VERSION}", seconds=JVM_READY_SECONDS)
        except NotReady as error:
            tail = ""
            for name in ("stdout.log", "hiveserver2.log"):
                if (log_dir / name).exists():
                    tail += f"--- {name}:\n" + (log_dir / name).read_text(errors="replace")[-3000:]
            raise EngineUnavailable(f"{error} (logs: {log_dir}):\n{tail}") from None
        yield HiveServer2("127.0.0.1", port, process, log_dir, engine, time.monotonic() - started)
        clean = True
    finally:
        stop_process(process)
        if clean and work_dir is None:
            shutil.rmtree(work, ignore_errors=True)


_COMPILED: dict[Path, Path] = {}


def compile_session(engine: HiveServer2Install | None = None) -> Path:
    """``java/JdbcSession.java`` compiled against the standalone JDBC driver (once per process); its class
    directory."""
    engine = engine or install()
    if engine.jdbc_jar not in _COMPILED:
        if shutil.which("javac") is None:
            raise EngineUnavailable("the JDBC session runner needs a JDK (javac on PATH)")
        out = Path(tempfile.mkdtemp(prefix="jdbc-session-"))
        command = ["javac", "-cp", str(engine.jdbc_jar), "-d", str(out), str(SESSION_SOURCE)]
        subprocess.run(command, check=True, timeout=300)
        _COMPILED[engine.jdbc_jar] = out
    return _COMPILED[engine.jdbc_jar]


def run_session(
    jdbc_url: str,
    statements: str | Sequence[str],
    *,
    engine: HiveServer2Install | None = None,
    user: str | None = None,
    timeout: float = 1800,
) -> list[dict]:
    """Run ``statements`` (a script as ``JdbcSession`` reads it, or a list of statements, each sent as it is)
    on one JDBC connection to ``jdbc_url``; one dict per statement (``statement``, ``ms``, and ``columns`` and
    ``rows``, or ``update_count``, or ``error``), or a single ``{"connect": false, "error": ...}``."""
    engine = engine or install()
    classes = compile_session(engine)
    if not isinstance(statements, str):
        statements = "".join(f"{statement.rstrip().rstrip(';')}\n;\n" for statement in statements)
    command = ["java", "-cp", f"{classes}:{engine.jdbc_jar}", "JdbcSession", jdbc_url]
    if user is not None:
        command.append(user)
    result = subprocess.run(command, input=statements, capture_output=True, text=True, timeout=timeout)
    answers = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    if not answers and result.returncode != 0:
        raise RuntimeError(f"JdbcSession exited with {result.returncode}: {result.stderr[-2000:]}")
    return answers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--metastore-uri", required=True, help="thrift://host:port of the Hive Metastore")
    parser.add_argument("--port", type=int, default=0, help="HiveServer2's port (0: a free one)")
    parser.add_argument("--warehouse", help="hive.metastore.warehouse.dir: the metastore's (a path or URI)")
    parser.add_argument("--heap", default="1g")
    parser.add_argument("--work-dir", help="configuration, scratch space and logs (default: a temporary folder)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a hive-site setting")
    parser.add_argument(
        "--run", metavar="FILE", help="run the statements of FILE ('-': stdin), a JSON line each, then stop"
    )
    args = parser.parse_args(argv)
    settings = dict(item.split("=", 1) for item in args.set)
    script = None
    if args.run:
        script = sys.stdin.read() if args.run == "-" else Path(args.run).read_text()

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGINT, interrupt)
    with running_hiveserver2(
        args.metastore_uri,
        args.warehouse,
        port=args.port or None,
        heap=args.heap,
        work_dir=args.work_dir,
        settings=settings,
    ) as server:
        print(
            f"HiveServer2 {VERSION} at {server.jdbc_url} on {args.metastore_uri} (pid {server.process.pid}, started "
            f"in {server.started_s:.1f} s, RSS {server.rss_mb() or 0:.0f} MiB, log {server.log})",
            file=sys.stderr if script is not None else sys.stdout,
            flush=True,
        )
        if script is not None:
            for answer in server.session(script):
                print(json.dumps(answer), flush=True)
            print(f"RSS after the session: {server.rss_mb() or 0:.0f} MiB", file=sys.stderr, flush=True)
            return 0
        print("Ctrl-C stops it", flush=True)
        try:
            server.process.wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
