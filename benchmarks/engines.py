"""The engines that tests and benchmarks run, fetched from Maven Central at pinned versions.

Every artifact comes from the one pinned list, ``maven_artifacts.PINNED``, fetched once per machine and
checked against its digest (``maven_artifacts.fetch``). A server package is unpacked once into
``ENGINE_HOME`` (``~/.cache/hudi-metastore/engines``, or ``$HUDI_METASTORE_ENGINE_HOME``), keeping only the
plugins the tests use. Both are reused by later runs; several processes may ask at once (a file lock).

What was found about the packages (docs/testing.md has the figures):

- **Trino 476** is the newest Trino whose server package is on Maven Central. The plugin zips of 476 lack
  ``trino-hudi``, so the full ``io.trino:trino-server`` tarball is used (it holds every plugin; its files
  are hard links between plugin folders, so it is unpacked whole and the unused plugins deleted). It asks
  for Java 24+ and runs on Temurin 25.
- **Presto 0.287** (prestodb) is the newest ``presto-server`` tarball on Maven Central. It predates Presto's
  move to Java 17 (0.295): on Java 17 its bytecode generator fails on the JDK's class files (ASM 9.0 reads
  up to Java 16), so its ASM 9.0 jars are replaced by ASM 9.7.1 and the JVM opens the JDK packages it
  reflects into (:data:`PRESTO_JVM_OPENS`).
- **Hudi's Spark writers**: the newest Hudi Spark bundle Maven Central serves here is
  ``hudi-spark3.5-bundle_2.12`` 1.1.1; 0.15.0 is pinned too, for its metaserver client
  (:data:`HUDI_METASERVER_BUNDLE`). The ``hudi-spark4.0``/``4.1`` bundles of Hudi 1.1 and 1.2 were refused on
  2026-11-25 and again on 2026-11-26. A bundle is tied to its Spark minor version and Scala, and the test
  extra's PySpark is 4.x (Scala 2.13), so the writers run in a Python environment of their own under
  ``ENGINE_HOME`` with PySpark 3.5 (Scala 2.12, Java 17), made once per machine (:func:`hudi_spark_python`).

- **Hive Metastore 4.0.1**, the second reference server: assembled by ``hive4.py``.
- **Flink 1.20.0** with its Hive catalog on Hive 3.1.3's client: assembled by ``flink.py``.
- **HiveServer2 4.0.1** (and its JDBC driver) on a metastore given by URI: assembled by ``hiveserver2.py``.

Fetch everything ahead of a run (``.ci/run`` does)::

    python benchmarks/engines.py fetch [trino] [presto] [spark-writers] [hive-metastore-4] [flink] [hiveserver2]
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from maven_artifacts import (
    ARTIFACTS,
    ENGINE_HOME,
    LOG,
    EngineUnavailable,
    fetch,
    locked,
    publish,
)

JVM_ROOT = Path("/usr/lib/jvm")


ASM_JARS = ("asm", "asm-tree", "asm-util", "asm-analysis")

# the JDK packages Presto 0.287 reflects into (Guice's class generation, airlift's byte buffers, JMX)
PRESTO_JVM_OPENS = tuple(
    f"--add-opens={module}/{package}=ALL-UNNAMED"
    for module, package in [
        *(
            ("java.base", package)
            for package in (
                "java.lang",
                "java.lang.reflect",
                "java.lang.invoke",
                "java.nio",
                "java.util",
                "java.util.concurrent",
                "java.util.concurrent.atomic",
                "java.io",
                "java.net",
                "java.text",
                "java.security",
                "sun.nio.ch",
                "sun.security.action",
                "jdk.internal.misc",
                "jdk.internal.ref",
            )
        ),
        ("java.management", "sun.management"),
        ("jdk.management", "com.sun.management.internal"),
    ]
)


@dataclass(frozen=True)
class ServerPackage:
    """A server tarball and what of it a run needs."""

    name: str
    artifact: str
    plugins: tuple[str, ...]
    main_class: str
    min_java: int


TRINO = ServerPackage("trino", "trino-server", ("hive", "iceberg", "hudi"), "io.trino.server.TrinoServer", 24)
PRESTO = ServerPackage(
    "presto", "presto-server", ("hive-hadoop2", "iceberg", "hudi"), "com.facebook.presto.server.PrestoServer", 17
)
PACKAGES = {package.name: package for package in (TRINO, PRESTO)}

HUDI_SPARK_BUNDLE = "hudi-spark3.5-bundle_2.12"
HUDI_METASERVER_BUNDLE = "hudi-spark3.5-bundle_2.12:0.15.0"
"""The bundle whose metaserver client works: 1.1.1's cannot be made (``HoodieTableMetaClient`` asks for a
constructor ``HoodieTableMetaserverClient`` lacks) and 1.0.2's reads commit files from storage, which a
metaserver table does not have, on its second write."""
HUDI_SPARK_PYSPARK_VERSION = "3.5.7"
HUDI_SPARK_REQUIREMENTS = f"""
pyspark=={HUDI_SPARK_PYSPARK_VERSION} --hash=sha256:80e36514e0c5c126d35a26adf4f405cd4a69de96a8ea8a3c1e9a65fce2fb4eaa
py4j==0.10.9.7 --hash=sha256:85defdfd2b2376eb3abf5ca6474b51ab7e0de341c75a02f46dc9b5976f5a5c1b
"""
"""The Hudi writers' environment from PyPI: PySpark of the bundle's Spark minor version, and its py4j."""
HUDI_SPARK_JAVA = 17
ICEBERG_SPARK_RUNTIME = "iceberg-spark-runtime-3.5_2.12"
"""Iceberg's Spark runtime for the writers' PySpark (Spark 3.5, Scala 2.12); 1.12.0 is the newest served."""
SPARK_WRITERS = "spark-writers"
"""The name of the Spark writers for ``fetch``: the PySpark environment, Hudi's bundles, Iceberg's runtime."""
SPARK_S3A = ("hadoop-aws", "aws-java-sdk-bundle")
"""Hadoop's S3A file system for the writers' Spark (``s3a://``): ``hadoop-aws`` of the Hadoop PySpark 3.5 ships
(3.3.4) and the AWS SDK bundle that release was built against."""
SPARK_WRITER_JARS = (HUDI_SPARK_BUNDLE, HUDI_METASERVER_BUNDLE, ICEBERG_SPARK_RUNTIME, *SPARK_S3A)


def install(package: ServerPackage) -> Path:
    """The unpacked server of ``package`` under ``ENGINE_HOME``, unpacked first if missing."""
    artifact = ARTIFACTS[package.artifact]
    home = ENGINE_HOME / f"{artifact.artifact}-{artifact.version}"
    marker = home / ".installed"
    if marker.exists() and marker.read_text() == artifact.sha256:
        return home
    tarball = fetch(package.artifact)
    asm_jars = {name: fetch(name) for name in ASM_JARS} if package is PRESTO else {}
    with locked(package.name):
        if marker.exists() and marker.read_text() == artifact.sha256:
            return home
        LOG.info("unpacking %s into %s", tarball.name, home)
        staging = Path(tempfile.mkdtemp(prefix=f".{package.name}-", dir=ENGINE_HOME))
        with tarfile.open(tarball) as archive:
            archive.extractall(staging, filter="tar")
        (top,) = staging.iterdir()
        for plugin in (top / "plugin").iterdir():
            if plugin.name not in package.plugins:
                shutil.rmtree(plugin)
        if asm_jars:
            _replace_asm(top, asm_jars)
        publish(top, staging, marker, artifact.sha256)
    return home


def _replace_asm(home: Path, jars: dict[str, Path]) -> None:
    """Swap every ``asm*-9.0.jar`` of the server and its plugins for the pinned newer ASM."""
    pattern = re.compile(r"^(asm(?:-tree|-util|-analysis)?)-9\.0\.jar$")
    for old in [*home.glob("lib/asm*.jar"), *home.glob("plugin/*/asm*.jar")]:
        match = pattern.match(old.name)
        if match:
            old.unlink()
            shutil.copy(jars[match.group(1)], old.parent / jars[match.group(1)].name)


def hudi_spark_python() -> Path:
    """The Python of the Hudi writers' environment (``ENGINE_HOME/pyspark-<version>``), made first if
    missing: a virtual environment of this Python with ``HUDI_SPARK_REQUIREMENTS``, checked by pip's digests."""
    home = ENGINE_HOME / f"pyspark-{HUDI_SPARK_PYSPARK_VERSION}"
    python = home / "bin" / "python"
    marker = home / ".installed"
    if marker.exists() and marker.read_text() == HUDI_SPARK_REQUIREMENTS:
        return python
    with locked("pyspark"):
        if marker.exists() and marker.read_text() == HUDI_SPARK_REQUIREMENTS:
            return python
        LOG.info("making the PySpark %s environment of Hudi's writers in %s", HUDI_SPARK_PYSPARK_VERSION, home)
        if home.exists():
            shutil.rmtree(home)
        install = [str(python), "-m", "pip", "install", "-q", "--require-hashes", "--no-deps", "-r", "/dev/stdin"]
        for step in ([sys.executable, "-m", "venv", str(home)], install):
            result = subprocess.run(step, input=HUDI_SPARK_REQUIREMENTS, capture_output=True, text=True, timeout=1800)
            if result.returncode != 0:
                raise EngineUnavailable(f"could not make {home}: {' '.join(step)}: {result.stderr[-2000:]}")
        marker.write_text(HUDI_SPARK_REQUIREMENTS)
    return python


def java_home(min_version: int) -> Path:
    """A JDK under /usr/lib/jvm (or ``JAVA_HOME``) of at least ``min_version``, the oldest such one."""
    candidates = [Path(os.environ["JAVA_HOME"])] if os.environ.get("JAVA_HOME") else []
    candidates += sorted(JVM_ROOT.glob("*")) if JVM_ROOT.exists() else []
    found: list[tuple[int, Path]] = []
    for home in candidates:
        version = _java_version(home)
        if version is not None and version >= min_version and (home / "bin" / "java").exists():
            found.append((version, home))
    if not found:
        raise EngineUnavailable(f"no Java {min_version}+ under {JVM_ROOT} (or JAVA_HOME)")
    return min(found)[1]


def _java_version(home: Path) -> int | None:
    release = home / "release"
    if not release.is_file():
        return None
    match = re.search(r'^JAVA_VERSION="(\d+)', release.read_text(), re.MULTILINE)
    return int(match.group(1)) if match else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    fetch_parser = sub.add_parser("fetch", help="fetch, verify and unpack engines (all by default)")
    import flink  # the assembled engines, loaded only for this command
    import hive4
    import hiveserver2

    assembled = {
        hive4.NAME: (hive4.install, HUDI_SPARK_JAVA),
        flink.NAME: (flink.install, flink.JAVA),
        hiveserver2.NAME: (hiveserver2.install, hiveserver2.JAVA),
    }
    known = [*PACKAGES, SPARK_WRITERS, *assembled]
    fetch_parser.add_argument("engines", nargs="*", metavar="ENGINE", help=f"of {', '.join(known)}")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.engines) - set(known))
    if unknown:
        parser.error(f"unknown engine {', '.join(unknown)}; known: {', '.join(known)}")
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    for name in args.engines or known:
        if name in assembled:
            assemble, min_java = assembled[name]
            try:
                engine, java = assemble(), java_home(min_java)
            except EngineUnavailable as error:
                print(f"{name}: {error}", file=sys.stderr)
                return 1
            print(f"{name}: {engine.home} (Java {_java_version(java)} at {java})")
            continue
        if name == SPARK_WRITERS:
            try:
                jars, python = [fetch(jar) for jar in SPARK_WRITER_JARS], hudi_spark_python()
                java = java_home(HUDI_SPARK_JAVA)
            except EngineUnavailable as error:
                print(f"{name}: {error}", file=sys.stderr)
                return 1
            print(f"{name}: {', '.join(j.name for j in jars)}, {python} (Java {_java_version(java)} at {java})")
            continue
        package = PACKAGES[name]
        try:
            home = install(package)
            java = java_home(package.min_java)
        except EngineUnavailable as error:
            print(f"{name}: {error}", file=sys.stderr)
            return 1
        print(f"{name}: {home} (Java {_java_version(java)} at {java})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
