"""Flink 1.20 with its Hive catalog on Hive 3.1.3's metastore client, assembled from PyPI and Maven Central.

What was found (2026-11-26): Flink's binary distribution is not on Maven Central (``flink-dist`` is
refused), but PyPI's ``apache-flink-libraries`` sdist carries its ``lib/`` folder, and it is pinned here by
digest. Of the Hive connectors, Maven Central serves ``flink-sql-connector-hive-2.3.10_2.12`` and
``flink-connector-hive_2.12`` at 1.20.0 only, and refuses ``flink-sql-connector-hive-3.1.3_2.12``. The 2.3.10
bundle cannot load a table with a primary key (its Hive 2 shim answers an immutable set of NOT NULL columns,
to which ``HiveTableUtil`` then adds the key's), so the connector is assembled as Flink's documentation
describes for a Hive 3.1 installation: ``flink-connector-hive_2.12``, ``hive-exec`` 3.1.3, ``libfb303`` and
``antlr-runtime`` (pinned in ``maven_artifacts.PINNED``), on Hadoop 3.3.6 (``maven_artifacts.resolve_hadoop``).
The libraries match the connector's version, 1.20.0.

Assembled once per machine into ``ENGINE_HOME/flink-1.20.0`` (``lib/``, ``hive/``, ``hadoop/``)::

    python benchmarks/engines.py fetch flink
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

from maven_artifacts import (
    ENGINE_HOME,
    HADOOP_VERSION,
    LOG,
    EngineUnavailable,
    assembled,
    fetch,
    resolve_hadoop,
)

VERSION = "1.20.0"
LIBRARIES = (
    f"apache-flink-libraries=={VERSION} "
    "--hash=sha256:808b381151c51d988c8fe5b5ae59d944d6e61d8193ee6832064f7ca14c88a583\n"
)
"""Flink's ``lib/`` jars, from PyPI (the sdist PyFlink installs them from)."""
HIVE_CONNECTOR = ("flink-connector-hive_2.12", "hive-exec", "libfb303", "antlr-runtime")
"""The connector and Hive 3.1.3's client, as Flink documents for Hive 3.1 (``maven_artifacts.PINNED``)."""
NAME = "flink"
"""The name of Flink for ``engines.py fetch``."""
JAVA = 17
JVM_OPENS = tuple(
    f"--add-opens=java.base/{package}=ALL-UNNAMED"
    for package in (
        "java.lang",
        "java.lang.reflect",
        "java.io",
        "java.net",
        "java.nio",
        "java.text",
        "java.time",
        "java.util",
        "java.util.concurrent",
        "java.util.concurrent.atomic",
        "java.util.concurrent.locks",
        "sun.nio.ch",
    )
)
"""The JDK packages Flink's serializers reflect into on Java 17 (Flink's own launch scripts open them too)."""


@dataclass(frozen=True)
class Flink:
    """An assembled Flink with its Hive catalog."""

    home: Path

    @property
    def classpath(self) -> str:
        return ":".join(f"{self.home / folder}/*" for folder in ("lib", "hive", "hadoop"))


def install() -> Flink:
    """Flink under ``ENGINE_HOME``, assembled first if missing."""
    connector = [fetch(name) for name in HIVE_CONNECTOR]

    def build(staging: Path) -> Path:
        LOG.info("assembling Flink %s with Hive 3.1.3's client and Hadoop %s into %s", VERSION, HADOOP_VERSION, home)
        top = staging / "flink"
        _unpack_libraries(staging / "sdist", top / "lib")
        (top / "hive").mkdir()
        for jar in connector:
            shutil.copy(jar, top / "hive" / jar.name)
        resolve_hadoop(staging / "hadoop-pom", top / "hadoop")
        return top

    home = ENGINE_HOME / f"flink-{VERSION}"
    stamp = f"{LIBRARIES}{' '.join(jar.name for jar in connector)} hadoop {HADOOP_VERSION}"
    return Flink(assembled(NAME, home, stamp, build))


def _unpack_libraries(download: Path, into: Path) -> None:
    """The ``deps/lib`` jars of the pinned ``apache-flink-libraries`` sdist, fetched by pip (digest checked)."""
    command = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:"]
    command += ["--require-hashes", "-d", str(download), "-r", "/dev/stdin"]
    result = subprocess.run(command, input=LIBRARIES, capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        raise EngineUnavailable(f"pip could not fetch Flink's libraries: {result.stderr[-2000:]}")
    (sdist,) = download.glob("apache*flink*libraries*.tar.gz")
    into.mkdir(parents=True)
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            parts = Path(member.name).parts
            if member.isfile() and parts[1:3] == ("deps", "lib") and member.name.endswith(".jar"):
                source = archive.extractfile(member)
                assert source is not None
                with source, (into / parts[-1]).open("wb") as out:
                    shutil.copyfileobj(source, out)
    if not any(into.glob("flink-dist-*.jar")):
        raise EngineUnavailable(f"{sdist.name} holds no deps/lib/flink-dist jar")
