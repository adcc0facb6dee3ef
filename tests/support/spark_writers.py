"""Hudi's and Iceberg's own Spark writers for tests: ``spark_writer_driver.py`` in the writers' environment,
spoken to by line.

The environment (PySpark 3.5, Hudi's Spark bundles and Iceberg's Spark runtime, all pinned in
``benchmarks/engines.py``) is made once per machine; a writer is one Spark session, started once per test
module (or per writer process a test needs).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import skip_or_fail
from tests.support.sql_engines import engines  # benchmarks/engines.py

DRIVER = Path(__file__).with_name("spark_writer_driver.py")
ANSWER = "@spark-writer "
"""What starts the driver's answers on its stdout (``spark_writer_driver.ANSWER``)."""

HUDI_SETTINGS = {
    "spark.serializer": "org.apache.spark.serializer.KryoSerializer",
    "spark.sql.extensions": "org.apache.spark.sql.hudi.HoodieSparkSessionExtension",
    "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.hudi.catalog.HoodieCatalog",
    "spark.kryo.registrator": "org.apache.spark.HoodieSparkKryoRegistrar",
}
"""A Spark session with Hudi's bundle, as Hudi's quick start sets it up."""


class WriterError(RuntimeError):
    """A request the writer answered with an error (its text is Hudi's or Spark's)."""


@dataclass
class SparkWriter:
    """One running driver: a Spark session; ``log`` holds its stderr (Spark's log)."""

    process: subprocess.Popen
    log: Path
    spark_version: str

    def request(self, op: str, **fields: Any) -> dict:
        """Send one request and wait for its answer; raises ``WriterError`` when the writer reports one."""
        self.send(op, **fields)
        return self.receive()

    def send(self, op: str, **fields: Any) -> None:
        """Send one request without waiting (:meth:`receive` takes its answer): writers at work together."""
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"op": op, **fields}) + "\n")
        self.process.stdin.flush()

    def receive(self) -> dict:
        """The answer to the request sent last; raises ``WriterError`` when the writer reports one."""
        answer = _answer(self.process)
        if answer is None:
            raise AssertionError(f"the Spark writer ended (exit {self.process.wait(30)}): {self.log_tail()}")
        if not answer["ok"]:
            raise WriterError(answer["error"])
        return answer

    def write(self, path: str, schema: str, rows: list[list], options: dict[str, str], mode: str = "append") -> None:
        self.request("write", path=path, schema=schema, rows=rows, options=options, mode=mode)

    def send_write(
        self, path: str, schema: str, rows: list[list], options: dict[str, str], more: tuple[int, int] | None = None
    ) -> None:
        """Start an append (:meth:`receive` waits for it); ``more``: ``(start, count)`` rows like the first,
        keyed from ``start``, to make the write take a while."""
        extra = {"more": {"start": more[0], "count": more[1]}} if more else {}
        self.send("write", path=path, schema=schema, rows=rows, options=options, mode="append", **extra)

    def sync(self, path: str, options: dict[str, str]) -> None:
        self.request("sync", path=path, options=options)

    def sql(self, statement: str) -> list[list[str | None]]:
        return self.request("sql", statement=statement)["rows"]

    def read(self, path: str, options: dict[str, str], columns: list[str]) -> list[list[str | None]]:
        """``columns`` of the table's rows as Hudi's Spark reader gives them with ``options``, sorted."""
        return self.request("read", path=path, options=options, columns=columns)["rows"]

    def log_tail(self, characters: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-characters:]


def _answer(process: subprocess.Popen) -> dict | None:
    """The driver's next answer, past the lines the JVM writes to stdout; None when it ended."""
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith(ANSWER):
            return json.loads(line.removeprefix(ANSWER))
    return None


def require_spark_writers(artifacts: list[str]) -> tuple[list[Path], Path, Path]:
    """The jars of ``artifacts`` (names of ``maven_artifacts.ARTIFACTS``, which ``engines`` fetches), the environment's Python and a Java home
    for the Spark writers; skips (fails in CI) when they cannot be had."""
    try:
        return (
            [engines.fetch(name) for name in artifacts],
            engines.hudi_spark_python(),
            engines.java_home(engines.HUDI_SPARK_JAVA),
        )
    except engines.EngineUnavailable as error:
        skip_or_fail(f"the Spark writers cannot run here: {error}")
        raise


@contextmanager
def spark_writer(
    work: Path, metastore_uri: str, artifacts: list[str], settings: dict[str, str]
) -> Iterator[SparkWriter]:
    """A Spark session with the jars of ``artifacts`` and ``settings`` whose catalog is the metastore at
    ``metastore_uri``; its files under ``work``."""
    jars, python, java = require_spark_writers(artifacts)
    work.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("SPARK_HOME", "PYTHONPATH", "PYSPARK_PYTHON")}
    env.update(JAVA_HOME=str(java), PYSPARK_PYTHON=str(python), PATH=f"{java / 'bin'}:{env.get('PATH', '')}")
    log = work / "writer.log"
    command = [str(python), str(DRIVER), "--jars", ",".join(map(str, jars)), "--metastore", metastore_uri]
    command += ["--warehouse", str(work / "spark-warehouse")]
    command += [f"--conf={key}={value}" for key, value in settings.items()]
    with log.open("w") as err:
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True, cwd=work, env=env
        )
    try:
        started = _answer(process)
        if started is None or not started["ok"]:
            raise AssertionError(f"the Spark writer did not start: {log.read_text(errors='replace')[-4000:]}")
        yield SparkWriter(process, log, started["spark"])
    finally:
        if process.poll() is None:
            try:
                assert process.stdin is not None
                process.stdin.write('{"op": "quit"}\n')
                process.stdin.close()
                process.wait(60)
            except (OSError, subprocess.TimeoutExpired):
                process.kill()
                process.wait(30)


def hudi_spark_writer(
    work: Path, metastore_uri: str, bundle: str = engines.HUDI_SPARK_BUNDLE
) -> AbstractContextManager[SparkWriter]:
    """A Hudi writer with ``bundle`` whose Spark catalog is the metastore at ``metastore_uri``."""
    return spark_writer(work, metastore_uri, [bundle], HUDI_SETTINGS)


ICEBERG_CATALOG = "ice"
"""The name of the Iceberg catalog in the sessions of :func:`iceberg_spark_writer`."""


def iceberg_spark_writer(
    work: Path, metastore_uri: str, warehouse: str, rest_uri: str | None = None
) -> AbstractContextManager[SparkWriter]:
    """A Spark session with Iceberg's runtime and an Iceberg catalog ``ice`` of ``type=hive`` at the metastore
    at ``metastore_uri``, new tables under ``warehouse`` (a URI); with ``rest_uri``, of ``type=rest`` at that
    Iceberg REST catalog instead (the metastore stays Spark's own catalog)."""
    catalog = f"spark.sql.catalog.{ICEBERG_CATALOG}"
    settings = {
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        catalog: "org.apache.iceberg.spark.SparkCatalog",
        f"{catalog}.type": "hive" if rest_uri is None else "rest",
        f"{catalog}.uri": metastore_uri if rest_uri is None else rest_uri,
        f"{catalog}.warehouse": warehouse,
        f"{catalog}.cache-enabled": "false",  # each statement loads the table: other writers' commits seen
    }
    return spark_writer(work, metastore_uri, [engines.ICEBERG_SPARK_RUNTIME], settings)


def sorted_strings(rows) -> list[list[str | None]]:
    """Rows as Spark's answers and Arrow's alike compare: every value as text, the rows sorted."""
    return sorted([[None if v is None else str(v) for v in row] for row in rows], key=str)


def run_iceberg_dml_steps(spark: SparkWriter, table: str, load: Callable[[], Any]) -> None:
    """CREATE TABLE (partitioned), INSERT, MERGE, UPDATE, DELETE and INSERT OVERWRITE of ``table`` (Spark's
    name for it) in ``spark``; after each step Spark reads the rows it leaves, and so does the PyIceberg table
    ``load`` gives (the table as another client loads it then)."""
    columns = ["id", "data", "category"]
    steps = [
        (f"CREATE TABLE {table} (id bigint, data string, category string) USING iceberg PARTITIONED BY (category)", []),
        (
            f"INSERT INTO {table} VALUES (1, 'a', 'x'), (2, 'b', 'y'), (5, 'e', 'x')",
            [[1, "a", "x"], [2, "b", "y"], [5, "e", "x"]],
        ),
        (
            f"MERGE INTO {table} t USING (SELECT 1 AS id, 'aa' AS data, 'x' AS category UNION ALL "
            "SELECT 6, 'f', 'z') s ON t.id = s.id "
            "WHEN MATCHED THEN UPDATE SET data = s.data WHEN NOT MATCHED THEN INSERT *",
            [[1, "aa", "x"], [2, "b", "y"], [5, "e", "x"], [6, "f", "z"]],
        ),
        (
            f"UPDATE {table} SET data = 'bb' WHERE id = 2",
            [[1, "aa", "x"], [2, "bb", "y"], [5, "e", "x"], [6, "f", "z"]],
        ),
        (f"DELETE FROM {table} WHERE id = 5", [[1, "aa", "x"], [2, "bb", "y"], [6, "f", "z"]]),
        (f"INSERT OVERWRITE {table} VALUES (3, 'c', 'y'), (8, 'h', 'x')", [[3, "c", "y"], [8, "h", "x"]]),
    ]
    for statement, expected in steps:
        spark.sql(statement)
        assert sorted_strings(spark.sql(f"SELECT {', '.join(columns)} FROM {table}")) == sorted_strings(expected), (
            statement
        )
        read = load().scan(selected_fields=tuple(columns)).to_arrow()
        assert sorted_strings([[row[c] for c in columns] for row in read.to_pylist()]) == sorted_strings(expected), (
            statement
        )
