"""Engine artifacts from Maven Central at pinned versions: the one pinned list, fetching and verifying.

``PINNED`` is the one list of every engine artifact the tests and benchmarks use, each with its SHA-256. An
artifact is fetched once per machine into Maven's local repository (``~/.m2``, by ``mvn dependency:get``, or
straight from Maven Central when Maven is missing) and checked against its digest. Engines are assembled
from them under ``ENGINE_HOME`` by ``engines.py`` (Trino, Presto, the Spark writers), ``hive4.py`` and
``flink.py``; several processes may ask at once (a file lock per artifact or engine).
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import shutil
import subprocess
import tempfile
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

LOG = logging.getLogger("engines")

MAVEN_CENTRAL = "https://repo.maven.apache.org/maven2"
M2_REPOSITORY = Path(os.environ.get("HUDI_METASTORE_M2_REPOSITORY", "~/.m2/repository")).expanduser()
ENGINE_HOME = Path(os.environ.get("HUDI_METASTORE_ENGINE_HOME", "~/.cache/hudi-metastore/engines")).expanduser()


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
org.apache.hive:hive-exec:4.0.1:jar          dd5e22aed78a7e62d8351e314fb438d90219f5c10014391448d30878c3ed3b03
org.apache.hive:hive-jdbc:4.0.1:jar:standalone 5d74bb0130aae6a8a2fad9cf5ffa1608974a55f1013464334490f7e06311959e
org.apache.thrift:libfb303:0.9.3:jar         23fc397a42181b17bb7d0fada2213735ed8db38cfbf038d12b9c00ea7419e11b
org.antlr:antlr-runtime:3.5.2:jar            ce3fc8ecb10f39e9a3cddcbb2ce350d272d9cd3d0b1e18e6fe73c3b9389c8734
org.apache.hadoop:hadoop-aws:3.3.4:jar       53f9ae03c681a30a50aa17524bd9790ab596b28481858e54efd989a826ed3a4a
com.amazonaws:aws-java-sdk-bundle:1.12.262:jar 873fe7cf495126619997bec21c44de5d992544aea7e632fdc77adb1a0915bae5
org.gaul:s3proxy:4.1.0:jar:jar-with-dependencies a4d025969aaf796616ed4b1e2491d87d455ce84bb28cb9db086b2e6aaa68b48d
org.apache.iceberg:iceberg-open-api:1.10.0:jar 99379edef1a65b51c40a63971ffab46d38966821af26ef6224bd217eeacae8d7
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


def publish(top: Path, staging: Path, marker: Path, stamp: str) -> None:
    """Move an engine assembled in ``top`` (inside ``staging``) to its home, ``marker``'s folder, replacing
    what was there; ``stamp`` in ``marker`` says what the home now holds."""
    home = marker.parent
    if home.exists():
        shutil.rmtree(home)
    top.rename(home)
    shutil.rmtree(staging)
    marker.write_text(stamp)


def assembled(name: str, home: Path, stamp: str, build: Callable[[Path], Path]) -> Path:
    """``home``, assembled first unless it holds ``stamp`` already: under the lock ``name`` (several processes
    may ask at once), ``build(staging)`` assembles the engine in a staging folder under ``ENGINE_HOME`` and
    returns its top folder, which ``publish`` makes the home."""
    marker = home / ".installed"
    if marker.exists() and marker.read_text() == stamp:
        return home
    with locked(name):
        if not (marker.exists() and marker.read_text() == stamp):
            staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=ENGINE_HOME))
            publish(build(staging), staging, marker, stamp)
    return home


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
