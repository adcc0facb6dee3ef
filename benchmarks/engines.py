"""The engines that tests and benchmarks run, fetched from Maven Central at pinned versions.

``PINNED`` is the one list of every engine artifact used, each with its SHA-256. An artifact is fetched
once per machine into Maven's local repository (``~/.m2``, by ``mvn dependency:get``, or straight from
Maven Central when Maven is missing), checked against its digest, and a server package is unpacked once
into ``ENGINE_HOME`` (``~/.cache/hudi-metastore/engines``, or ``$HUDI_METASTORE_ENGINE_HOME``), keeping only
the plugins the tests use. Both are reused by later runs; several processes may ask at once (a file lock).

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

Fetch everything ahead of a run (``.ci/run`` does)::

    python benchmarks/engines.py fetch [trino] [presto] [spark-writers] [hive-metastore-4] [flink]
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import logging
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

LOG = logging.getLogger("engines")

MAVEN_CENTRAL = "https://repo.maven.apache.org/maven2"
M2_REPOSITORY = Path(os.environ.get("HUDI_METASTORE_M2_REPOSITORY", "~/.m2/repository")).expanduser()
ENGINE_HOME = Path(os.environ.get("HUDI_METASTORE_ENGINE_HOME", "~/.cache/hudi-metastore/engines")).expanduser()
JVM_ROOT = Path("/usr/lib/jvm")


@dataclass(frozen=True)
class Artifact:
    """One Maven artifact at a pinned version, with the SHA-256 of its file."""

    group: str
    artifact: str
    version: str
    packaging: str
    sha256: str
    classifier: str = ""

    @property
    def coordinates(self) -> str:
        classifier = f":{self.classifier}" if self.classifier else ""
        return f"{self.group}:{self.artifact}:{self.version}:{self.packaging}{classifier}"

    @property
    def relative_path(self) -> str:
        classifier = f"-{self.classifier}" if self.classifier else ""
        return (
            f"{self.group.replace('.', '/')}/{self.artifact}/{self.version}/"
            f"{self.artifact}-{self.version}{classifier}.{self.packaging}"
        )

    @property
    def local_path(self) -> Path:
        return M2_REPOSITORY / self.relative_path


PINNED = """
io.trino:trino-server:476:tar.gz             cfd5accde17e8ebd251eeeb78aed1f490e77bb3a164d95a0f454bf8a7c1cbd3f
com.facebook.presto:presto-server:0.287:tar.gz c16ef78d56820a16fec6918a439b26121a78eb3cc50fdcd7bee93a1211347f8f
org.ow2.asm:asm:9.7.1:jar                    8cadd43ac5eb6d09de05faecca38b917a040bb9139c7edeb4cc81c740b713281
org.ow2.asm:asm-tree:9.7.1:jar               9929881f59eb6b840e86d54570c77b59ce721d104e6dfd7a40978991c2d3b41f
org.ow2.asm:asm-util:9.7.1:jar               f885be71b5c90556f5f1ad1c4f9276b29b96057c497d46666fe4ddbec3cb43c6
org.ow2.asm:asm-analysis:9.7.1:jar           85b29371884ba31bb76edf22323c2c24e172c3267a67152eba3d1ccc2e041ef2
org.apache.hudi:hudi-spark3.5-bundle_2.12:1.1.1:jar 5470908f0d26897fb6e0768790e6c75e3d05d2fa013f7d81c8f90c74056d1604
org.apache.hudi:hudi-spark3.5-bundle_2.12:0.15.0:jar aab6ecdb5c65fcd20406b980b31ccec294fae95693de947d5778f0b3fb4e302a
org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.12.0:jar 8dd8c90e54ed1a20f2461309d047a255ee56382eb7c0a46162b27a4936fd86dc
org.apache.hive:hive-standalone-metastore-server:4.0.1:tar.gz:bin ed96f577df0a4dc800648a7f941d832f42409f89fa4af10c9d7540c8a1f8e24b
org.apache.hadoop:hadoop-hdfs:3.3.6:jar      075fc48fd4ae299a58a9f26fb529671854689b215483b595fed4a56d77cb4c4d
org.apache.flink:flink-connector-hive_2.12:1.20.0:jar 0a8177e5d9a5181a32450efd4d4a18c7f4616708b2e41ff5f994b8bc692ab40e
org.apache.hive:hive-exec:3.1.3:jar          de86f70a73d05070c01f902ed1293b5dfbc4c0fb4d2232d9e218dc7d13ff8d6a
org.apache.thrift:libfb303:0.9.3:jar         23fc397a42181b17bb7d0fada2213735ed8db38cfbf038d12b9c00ea7419e11b
org.antlr:antlr-runtime:3.5.2:jar            ce3fc8ecb10f39e9a3cddcbb2ce350d272d9cd3d0b1e18e6fe73c3b9389c8734
"""  # noqa: E501 (one artifact per line)
"""The one pinned list: every engine artifact the tests and benchmarks use (``group:artifact:version:packaging``,
``:classifier`` when it has one, and the SHA-256 of its file). The Hadoop libraries Hive Metastore 4 runs on
Hive Metastore 4 and Flink run on are pinned by version (``HADOOP_VERSION``) and resolved by Maven with their
dependencies, as are Flink's own libraries (``flink.py``, from PyPI by digest)."""


def _parse_pinned(text: str) -> dict[str, Artifact]:
    """Each artifact under ``artifact:version``, and under its bare name the first one listed."""
    artifacts: dict[str, Artifact] = {}
    for line in text.split("\n"):
        if line.strip():
            coordinates, sha256 = line.split()
            group, artifact, version, packaging, *classifier = coordinates.split(":")
            pinned = Artifact(group, artifact, version, packaging, sha256, *classifier)
            artifacts[f"{artifact}:{version}"] = pinned
            artifacts.setdefault(artifact, pinned)
    return artifacts


ARTIFACTS = _parse_pinned(PINNED)


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
SPARK_WRITER_JARS = (HUDI_SPARK_BUNDLE, HUDI_METASERVER_BUNDLE, ICEBERG_SPARK_RUNTIME)


HADOOP_VERSION = "3.3.6"
HADOOP_WITH_DEPENDENCIES = ("hadoop-common", "hadoop-hdfs-client", "hadoop-mapreduce-client-core")
HADOOP_LOGGING_BINDINGS = ("slf4j-log4j12-", "slf4j-reload4j-", "reload4j-", "log4j-1.")
"""Hadoop's logging jars, left out: Hive Metastore 4 and Flink bind slf4j to log4j 2."""


class EngineUnavailable(RuntimeError):
    """An engine cannot be fetched or has no Java to run on; the message says why."""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


@contextmanager
def locked(name: str) -> Iterator[None]:
    """Hold an exclusive lock on ``ENGINE_HOME/.locks/name`` (processes fetching or unpacking at once)."""
    locks = ENGINE_HOME / ".locks"
    locks.mkdir(parents=True, exist_ok=True)
    with (locks / name).open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def fetch(name: str) -> Path:
    """The verified local file of ``ARTIFACTS[name]``, downloaded first if this machine lacks it."""
    artifact = ARTIFACTS[name]
    path = artifact.local_path
    with locked(artifact.artifact):
        if not path.exists():
            _download(artifact)
        actual = sha256_of(path)
        if actual != artifact.sha256:
            path.unlink()
            raise EngineUnavailable(
                f"{artifact.coordinates}: SHA-256 {actual} is not the pinned {artifact.sha256}; the file was removed"
            )
    return path


def _download(artifact: Artifact) -> None:
    LOG.info("fetching %s", artifact.coordinates)
    if shutil.which("mvn"):
        result = subprocess.run(
            ["mvn", "-q", "-B", "dependency:get", f"-Dartifact={artifact.coordinates}", "-Dtransitive=false"],
            capture_output=True,
            text=True,
            timeout=1800,
        )
        if result.returncode != 0 or not artifact.local_path.exists():
            raise EngineUnavailable(f"mvn could not fetch {artifact.coordinates}: {result.stdout[-2000:]}")
        return
    artifact.local_path.parent.mkdir(parents=True, exist_ok=True)
    partial = artifact.local_path.with_name(artifact.local_path.name + ".part")
    try:
        with urllib.request.urlopen(f"{MAVEN_CENTRAL}/{artifact.relative_path}", timeout=60) as response:
            with partial.open("wb") as out:
                shutil.copyfileobj(response, out, 1 << 20)
    except OSError as error:
        raise EngineUnavailable(f"could not fetch {artifact.coordinates} from Maven Central: {error}") from error
    partial.rename(artifact.local_path)


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


def publish(top: Path, staging: Path, marker: Path, stamp: str) -> None:
    """Move an engine assembled in ``top`` (inside ``staging``) to its home, ``marker``'s folder, replacing
    what was there; ``stamp`` in ``marker`` says what the home now holds."""
    home = marker.parent
    if home.exists():
        shutil.rmtree(home)
    top.rename(home)
    shutil.rmtree(staging)
    marker.write_text(stamp)


def _replace_asm(home: Path, jars: dict[str, Path]) -> None:
    """Swap every ``asm*-9.0.jar`` of the server and its plugins for the pinned newer ASM."""
    pattern = re.compile(r"^(asm(?:-tree|-util|-analysis)?)-9\.0\.jar$")
    for old in [*home.glob("lib/asm*.jar"), *home.glob("plugin/*/asm*.jar")]:
        match = pattern.match(old.name)
        if match:
            old.unlink()
            shutil.copy(jars[match.group(1)], old.parent / jars[match.group(1)].name)


def resolve_hadoop(work: Path, into: Path) -> None:
    """Hadoop's libraries (``HADOOP_WITH_DEPENDENCIES`` at ``HADOOP_VERSION``) and their dependencies, copied
    by Maven from a POM generated in ``work`` into ``into``, with Hadoop's logging bindings left out."""
    if shutil.which("mvn") is None:
        raise EngineUnavailable("Hadoop's libraries are resolved with Maven (mvn), not found")
    work.mkdir(parents=True)
    dependencies = "".join(
        f"<dependency><groupId>org.apache.hadoop</groupId><artifactId>{name}</artifactId>"
        f"<version>{HADOOP_VERSION}</version><exclusions><exclusion><groupId>jdk.tools</groupId>"
        "<artifactId>jdk.tools</artifactId></exclusion></exclusions></dependency>"
        for name in HADOOP_WITH_DEPENDENCIES
    )
    (work / "pom.xml").write_text(
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        "<groupId>local</groupId><artifactId>hadoop-libraries</artifactId><version>1</version>"
        f"<dependencies>{dependencies}</dependencies></project>"
    )
    result = subprocess.run(
        ["mvn", "-q", "-B", "dependency:copy-dependencies", f"-DoutputDirectory={into}", "-DincludeScope=runtime"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if result.returncode != 0:
        raise EngineUnavailable(f"mvn could not resolve Hadoop {HADOOP_VERSION}: {result.stdout[-2000:]}")
    for jar in into.iterdir():
        if jar.name.startswith(HADOOP_LOGGING_BINDINGS):
            jar.unlink()


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
    import flink  # these build on this module
    import hive4

    assembled = {hive4.NAME: (hive4.install, HUDI_SPARK_JAVA), flink.NAME: (flink.install, flink.JAVA)}
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
