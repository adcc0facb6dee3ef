"""Apache Hive Metastore 4.0.1 assembled from Maven Central: the second reference server, beside 2.3.10.

4.0.1 is the newest 4.x whose standalone metastore server is on Maven Central (``hive-standalone-metastore-
server`` 4.1.0 and 4.2.0 were refused on 2026-11-26). Its binary distribution
(``org.apache.hive:hive-standalone-metastore-server:4.0.1:tar.gz:bin``, pinned in ``maven_artifacts.PINNED``) holds
the server, its libraries and the schema scripts, but no Hadoop, which the server expects from the machine's
Hadoop installation. Hadoop 3.3.6 is put beside it instead: ``hadoop-common``, ``hadoop-hdfs-client`` and
``hadoop-mapreduce-client-core`` with their dependencies (resolved by Maven from a generated POM), and
``hadoop-hdfs`` alone (pinned: the warehouse's directory calls name its ``SnapshotException``). Hadoop's
logging bindings are left out: the server logs through log4j 2.

Assembled once per machine into ``ENGINE_HOME/hive-metastore-4.0.1`` (``lib/``, ``hadoop/``, ``scripts/``)::

    python benchmarks/engines.py fetch hive-metastore-4
"""

from __future__ import annotations

import shutil
import tarfile
from dataclasses import dataclass
from pathlib import Path

from maven_artifacts import ENGINE_HOME, HADOOP_VERSION, LOG, assembled, fetch, resolve_hadoop

VERSION = "4.0.1"
DISTRIBUTION = f"hive-standalone-metastore-server:{VERSION}"
HADOOP_HDFS = f"hadoop-hdfs:{HADOOP_VERSION}"
NAME = "hive-metastore-4"
"""The name of Hive Metastore 4 for ``engines.py fetch``."""
HIVE_EXEC = f"hive-exec:{VERSION}"
"""Hive's query engine jar (pinned), which a Hive distribution's metastore has on its classpath to evaluate
serialized partition expressions, and which serializes them (``java/HiveExpressions.java``)."""
HIVE_EXEC_JVM_OPTIONS = tuple(
    f"--add-opens=java.base/{package}=ALL-UNNAMED" for package in ("java.net", "java.lang", "java.util", "java.time")
)
"""What ``hive-exec`` 4.0.1 reflects into on Java 17 (its string interning, Kryo's field access)."""


@dataclass(frozen=True)
class HiveMetastore4:
    """An assembled Hive Metastore 4.0.1."""

    home: Path

    @property
    def classpath(self) -> str:
        return f"{self.home / 'lib'}/*:{self.home / 'hadoop'}/*"

    @property
    def mysql_schema(self) -> Path:
        """The script that makes its schema on MySQL and MariaDB."""
        return self.home / "scripts" / "metastore" / "upgrade" / "mysql" / "hive-schema-4.0.0.mysql.sql"


def install() -> HiveMetastore4:
    """Hive Metastore 4.0.1 under ``ENGINE_HOME``, assembled first if missing."""
    tarball = fetch(DISTRIBUTION)

    def build(staging: Path) -> Path:
        LOG.info("assembling Hive Metastore %s with Hadoop %s into %s", VERSION, HADOOP_VERSION, home)
        hdfs = fetch(HADOOP_HDFS)
        with tarfile.open(tarball) as archive:
            archive.extractall(staging, filter="tar")
        (top,) = staging.iterdir()
        resolve_hadoop(staging / "hadoop-pom", top / "hadoop")
        shutil.copy(hdfs, top / "hadoop" / hdfs.name)
        return top

    home = ENGINE_HOME / f"hive-metastore-{VERSION}"
    return HiveMetastore4(assembled(NAME, home, f"{tarball.name} hadoop {HADOOP_VERSION}", build))
