"""Apache Hive Metastore as a reference peer, on its own MariaDB/MySQL database: 2.3.10 or 4.0.1.

The peer that ``benchmarks/hmsbench.py --compare`` measures ours against and the differential tests compare
with: Hive's own metastore server (``org.apache.hadoop.hive.metastore.HiveMetaStore``), with the MariaDB
Connector/J driver (``benchmarks/install_peer_deps.sh`` installs it), on a database of its own that is
dropped and created at each start (``CHARACTER SET latin1``, as Hive's MySQL schema scripts make it).

- **2.3.10** (the default) runs from the jars pyspark ships; its schema is created by DataNucleus on first
  use (``datanucleus.schema.autoCreateAll``), Hive's ACID tables by :data:`TXN_SCHEMA`.
- **4.0.1** runs from the distribution ``hive4.py`` assembles from Maven Central; its schema is made by the
  distribution's own MySQL script, and the schema version is checked at start.

The settings are in :func:`hive_site` and :func:`metastore_site`, and in docs/performance.md ("Side by side
with Apache Hive Metastore").

Usable as a module (:func:`running_peer`) or on its own, serving until interrupted::

    python benchmarks/peer.py [--version 2.3.10|4.0.1] [--port 9083] [--db-url mysql://root@127.0.0.1:3306/hms_peer]
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pymysql
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).parent))
import hive4  # noqa: E402
from bench_base import (  # noqa: E402
    HIVE_2_3,
    HIVE_4,
    JVM_READY_SECONDS,
    PEER_VERSIONS,
    NotReady,
    free_port,
    stop_process,
    wait_for_listening,
    write_conf,
)
from java_client import JARS  # noqa: E402

DEFAULT_URL = "mysql://root@127.0.0.1:3306/hms_peer"
# where Debian's and Ubuntu's libmariadb-java put the driver, then Maven's local repository (mvn
# dependency:get); HMS_PEER_JDBC_JAR overrides
DRIVER_JARS = (
    "/usr/share/java/mariadb-java-client.jar",
    "~/.m2/repository/org/mariadb/jdbc/mariadb-java-client/*/mariadb-java-client-*.jar",
)
DRIVER_CLASS = "org.mariadb.jdbc.Driver"
START_TIMEOUT_S = JVM_READY_SECONDS
"""Only a ceiling against a hang: the wait for the peer ends once it listens, or at once when it exits."""


@dataclass
class Peer:
    host: str
    port: int
    process: subprocess.Popen
    log_dir: Path
    version: str = HIVE_2_3

    @property
    def uri(self) -> str:
        return f"thrift://{self.host}:{self.port}"


def driver_jar() -> Path:
    """The MariaDB Connector/J jar (``$HMS_PEER_JDBC_JAR``, or Debian's ``libmariadb-java``)."""
    candidates = [os.environ["HMS_PEER_JDBC_JAR"]] if os.environ.get("HMS_PEER_JDBC_JAR") else list(DRIVER_JARS)
    for candidate in candidates:
        found = sorted(glob.glob(os.path.expanduser(candidate)))
        if found and Path(found[-1]).is_file():
            return Path(found[-1])
    raise SystemExit(
        f"no MariaDB JDBC driver at {', '.join(candidates)}: run benchmarks/install_peer_deps.sh "
        "or set HMS_PEER_JDBC_JAR to a mariadb-java-client jar"
    )


def jdbc_url(db_url: str) -> tuple[str, str, str]:
    """``(JDBC URL, user, password)`` for the SQLAlchemy URL ``db_url``."""
    url = make_url(db_url)
    if not url.drivername.startswith(("mysql", "mariadb")):
        raise SystemExit(f"the peer runs on MySQL/MariaDB, not {url.drivername}")
    # user and password go in the URL as well: Hive drops an empty javax.jdo.option.ConnectionPassword and
    # sends its default ("mine") instead. useMysqlMetadata: the driver names the server "MySQL", without
    # which DataNucleus takes MariaDB for an unknown database (DDL with INITIALLY DEFERRED, which fails)
    # and Hive turns direct SQL off. permitMysqlScheme: Connector/J 3 refuses jdbc:mysql: without it (2.x
    # ignores it).
    user, password = url.username or "root", url.password or ""
    jdbc = (
        f"jdbc:mysql://{url.host or '127.0.0.1'}:{url.port or 3306}/{url.database}"
        f"?user={user}&password={password}&useMysqlMetadata=true&permitMysqlScheme=true"
    )
    return jdbc, user, password


# Hive's ACID tables (hive-txn-schema-2.3.0.mysql.sql), which DataNucleus does not create (they are not in
# package.jdo): without them dropping a database fails (AcidEventListener cleans their rows up). The
# schema scripts are not in the wheel.
TXN_SCHEMA = """
CREATE TABLE TXNS (TXN_ID bigint PRIMARY KEY, TXN_STATE char(1) NOT NULL, TXN_STARTED bigint NOT NULL,
  TXN_LAST_HEARTBEAT bigint NOT NULL, TXN_USER varchar(128) NOT NULL, TXN_HOST varchar(128) NOT NULL,
  TXN_AGENT_INFO varchar(128), TXN_META_INFO varchar(128), TXN_HEARTBEAT_COUNT int) ENGINE=InnoDB;
CREATE TABLE TXN_COMPONENTS (TC_TXNID bigint NOT NULL, TC_DATABASE varchar(128) NOT NULL, TC_TABLE varchar(128),
  TC_PARTITION varchar(767), TC_OPERATION_TYPE char(1) NOT NULL,
  FOREIGN KEY (TC_TXNID) REFERENCES TXNS (TXN_ID)) ENGINE=InnoDB;
CREATE TABLE COMPLETED_TXN_COMPONENTS (CTC_TXNID bigint NOT NULL, CTC_DATABASE varchar(128) NOT NULL,
  CTC_TABLE varchar(256), CTC_PARTITION varchar(767)) ENGINE=InnoDB;
CREATE TABLE NEXT_TXN_ID (NTXN_NEXT bigint NOT NULL) ENGINE=InnoDB;
INSERT INTO NEXT_TXN_ID VALUES (1);
CREATE TABLE HIVE_LOCKS (HL_LOCK_EXT_ID bigint NOT NULL, HL_LOCK_INT_ID bigint NOT NULL, HL_TXNID bigint,
  HL_DB varchar(128) NOT NULL, HL_TABLE varchar(128), HL_PARTITION varchar(767), HL_LOCK_STATE char(1) NOT NULL,
  HL_LOCK_TYPE char(1) NOT NULL, HL_LAST_HEARTBEAT bigint NOT NULL, HL_ACQUIRED_AT bigint,
  HL_USER varchar(128) NOT NULL, HL_HOST varchar(128) NOT NULL, HL_HEARTBEAT_COUNT int,
  HL_AGENT_INFO varchar(128), HL_BLOCKEDBY_EXT_ID bigint, HL_BLOCKEDBY_INT_ID bigint,
  PRIMARY KEY (HL_LOCK_EXT_ID, HL_LOCK_INT_ID), KEY HIVE_LOCK_TXNID_INDEX (HL_TXNID)) ENGINE=InnoDB;
CREATE TABLE NEXT_LOCK_ID (NL_NEXT bigint NOT NULL) ENGINE=InnoDB;
INSERT INTO NEXT_LOCK_ID VALUES (1);
CREATE TABLE COMPACTION_QUEUE (CQ_ID bigint PRIMARY KEY, CQ_DATABASE varchar(128) NOT NULL,
  CQ_TABLE varchar(128) NOT NULL, CQ_PARTITION varchar(767), CQ_STATE char(1) NOT NULL, CQ_TYPE char(1) NOT NULL,
  CQ_TBLPROPERTIES varchar(2048), CQ_WORKER_ID varchar(128), CQ_START bigint, CQ_RUN_AS varchar(128),
  CQ_HIGHEST_TXN_ID bigint, CQ_META_INFO varbinary(2048), CQ_HADOOP_JOB_ID varchar(32)) ENGINE=InnoDB;
CREATE TABLE COMPLETED_COMPACTIONS (CC_ID bigint PRIMARY KEY, CC_DATABASE varchar(128) NOT NULL,
  CC_TABLE varchar(128) NOT NULL, CC_PARTITION varchar(767), CC_STATE char(1) NOT NULL, CC_TYPE char(1) NOT NULL,
  CC_TBLPROPERTIES varchar(2048), CC_WORKER_ID varchar(128), CC_START bigint, CC_END bigint,
  CC_RUN_AS varchar(128), CC_HIGHEST_TXN_ID bigint, CC_META_INFO varbinary(2048),
  CC_HADOOP_JOB_ID varchar(32)) ENGINE=InnoDB;
CREATE TABLE NEXT_COMPACTION_QUEUE_ID (NCQ_NEXT bigint NOT NULL) ENGINE=InnoDB;
INSERT INTO NEXT_COMPACTION_QUEUE_ID VALUES (1);
CREATE TABLE AUX_TABLE (MT_KEY1 varchar(128) NOT NULL, MT_KEY2 bigint NOT NULL, MT_COMMENT varchar(255),
  PRIMARY KEY (MT_KEY1, MT_KEY2)) ENGINE=InnoDB;
CREATE TABLE WRITE_SET (WS_DATABASE varchar(128) NOT NULL, WS_TABLE varchar(128) NOT NULL,
  WS_PARTITION varchar(767), WS_TXNID bigint NOT NULL, WS_COMMIT_ID bigint NOT NULL,
  WS_OPERATION_TYPE char(1) NOT NULL) ENGINE=InnoDB;
"""


def recreate_database(db_url: str, schema: str = TXN_SCHEMA) -> None:
    """Drop and create the peer's database (latin1, as Hive's MySQL schema scripts create their tables:
    its indexes of 767-character names do not fit InnoDB's key limit in utf8mb4), and run ``schema`` in it
    (Hive 2.3's ACID tables by default; Hive 4's whole schema script)."""
    url = make_url(db_url)
    conn = pymysql.connect(
        host=url.host, port=url.port or 3306, user=url.username, password=url.password or "", autocommit=True
    )
    with conn.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {url.database}")
        cur.execute(f"CREATE DATABASE {url.database} CHARACTER SET latin1")
        cur.execute(f"USE {url.database}")
        for statement in _statements(schema):
            cur.execute(statement)
    conn.close()


def _statements(script: str) -> list[str]:
    """The statements of a MySQL script without procedures (Hive's schema scripts): its ``--`` comment lines
    dropped, split at each ``;`` that ends a line."""
    lines = [line for line in script.splitlines() if not line.lstrip().startswith("--")]
    text = "\n".join(lines)
    return [statement.strip() for statement in re.split(r";\s*$", text, flags=re.MULTILINE) if statement.strip()]


def _connection(db_url: str) -> dict[str, str]:
    """The JDO settings of the peer's connection to ``db_url`` (Hive 2.3 and 4 name them alike)."""
    jdbc, user, password = jdbc_url(db_url)
    return {
        "javax.jdo.option.ConnectionURL": jdbc,
        "javax.jdo.option.ConnectionDriverName": DRIVER_CLASS,
        "javax.jdo.option.ConnectionUserName": user,
        "javax.jdo.option.ConnectionPassword": password,
    }


def hive_site(db_url: str, warehouse: str) -> dict[str, str]:
    """The peer's configuration (``hive-site.xml``)."""
    return {
        **_connection(db_url),
        # no schema script ships in the wheel's hive-metastore jar: DataNucleus creates the tables from
        # package.jdo on first use, and the schema version is not checked
        "datanucleus.schema.autoCreateAll": "true",
        "hive.metastore.schema.verification": "false",
        # Hive 2.3's default pool (BoneCP) is not in the wheel; HikariCP is (Hive 3's default)
        "datanucleus.connectionPoolingType": "HikariCP",
        "hive.metastore.try.direct.sql": "true",
        "hive.metastore.warehouse.dir": warehouse,
        # the async logger needs the LMAX disruptor, which the wheel lacks
        "hive.async.log.enabled": "false",
    }


def metastore_site(db_url: str, warehouse: str) -> dict[str, str]:
    """Hive Metastore 4's configuration (``metastore-site.xml``)."""
    return {
        **_connection(db_url),
        "metastore.warehouse.dir": warehouse,
        "metastore.warehouse.external.dir": warehouse,  # Hive 4 puts external tables apart by default
        "metastore.try.direct.sql": "true",
        # the notification calls answer any user, as Hive 2.3 does (Hive 4 asks for a proxy superuser); Hive
        # reads this setting under its hive.* name or as metastore.metastore.event..., not metastore.event...
        "hive.metastore.event.db.notification.api.auth": "false",
    }


@contextmanager
def running_peer(
    db_url: str = DEFAULT_URL,
    port: int | None = None,
    heap: str = "2g",
    log_level: str = "WARN",
    work_dir: str | None = None,
    settings: dict[str, str] | None = None,
    core_site: dict[str, str] | None = None,
    jvm_options: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    version: str = HIVE_2_3,
    keep_database: bool = False,
    extra_classpath: tuple[str, ...] = (),
) -> Iterator[Peer]:
    """Hive Metastore ``version`` (2.3.10 or 4.0.1) on 127.0.0.1 (a free port unless ``port``) on a fresh
    database ``db_url``, once it accepts connections; stopped (SIGTERM) on exit. Its log is
    ``<log_dir>/hive.log`` (2.3.10) or ``<log_dir>/stdout.log``; the temporary ``work_dir`` (configuration,
    warehouse, logs) is deleted after a clean exit only. ``settings`` add to its configuration,
    ``core-site`` makes a ``core-site.xml`` (Hadoop's security settings), ``jvm_options`` and ``env`` go to
    its JVM (a Kerberized peer needs all four). ``keep_database``: serve ``db_url`` as it is (a database the
    caller loaded, Hive 2.3.10's schema and data), neither dropped nor made. ``extra_classpath``: jars after
    the server's own (Hive 4's ``hive-exec``, with which it evaluates serialized expressions as a Hive
    distribution's metastore does)."""
    if version not in PEER_VERSIONS:
        raise SystemExit(f"Hive Metastore {version} is not one of {', '.join(PEER_VERSIONS)}")
    if shutil.which("java") is None:
        raise SystemExit("the peer needs Java (java on PATH)")
    jar = driver_jar()
    port = port or free_port()
    work = Path(work_dir or tempfile.mkdtemp(prefix="hms-peer-"))
    warehouse = work / "warehouse"
    warehouse.mkdir(parents=True, exist_ok=True)
    log_dir = work / "logs"
    log_dir.mkdir(exist_ok=True)
    if version == HIVE_4:
        metastore = hive4.install()
        configuration = {**metastore_site(db_url, f"file:{warehouse}"), **(settings or {})}
        conf_dir = write_conf(work / "conf", configuration, "metastore-site.xml").parent
        if not keep_database:
            recreate_database(db_url, metastore.mysql_schema.read_text())
        classpath, logging = metastore.classpath, [f"-Dmetastore.log.dir={log_dir}"]
    else:
        conf_dir = write_conf(work / "conf", {**hive_site(db_url, f"file:{warehouse}"), **(settings or {})}).parent
        if not keep_database:
            recreate_database(db_url)
        classpath = f"{JARS}/*"
        logging = [f"-Dhive.log.dir={log_dir}", f"-Dhive.log.level={log_level}", "-Dhive.root.logger=DRFA"]
    if core_site:
        write_conf(conf_dir, core_site, "core-site.xml")
    command = [
        "java",
        f"-Xmx{heap}",
        *logging,
        f"-Djava.io.tmpdir={work}",
        *jvm_options,
        "-cp",
        ":".join([str(conf_dir), str(jar), classpath, *extra_classpath]),
        "org.apache.hadoop.hive.metastore.HiveMetaStore",
        "-p",
        str(port),
    ]
    with open(log_dir / "stdout.log", "w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=work, env=env)
    clean = False
    try:
        try:
            wait_for_listening(port, process, f"Hive Metastore {version}", seconds=START_TIMEOUT_S)
        except NotReady as error:
            tail = (log_dir / "stdout.log").read_text(errors="replace")[-3000:]
            raise RuntimeError(f"{error} (log: {log_dir}):\n{tail}") from None
        yield Peer("127.0.0.1", port, process, log_dir, version)
        clean = True
    finally:
        stop_process(process)
        if clean and work_dir is None:
            shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db-url", default=DEFAULT_URL, help="the peer's database (dropped and created)")
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    parser.add_argument("--heap", default="2g")
    parser.add_argument("--version", choices=PEER_VERSIONS, default=HIVE_2_3, help="Hive Metastore's version")
    args = parser.parse_args()

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    # SIGTERM stops it as Ctrl-C does; so does SIGINT even where the shell ignored it (a background job)
    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGINT, interrupt)
    with running_peer(args.db_url, args.port or None, args.heap, version=args.version) as peer:
        print(
            f"Hive Metastore {peer.version} at {peer.uri} (pid {peer.process.pid}, log {peer.log_dir}); "
            "Ctrl-C stops it",
            flush=True,
        )
        try:
            peer.process.wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
