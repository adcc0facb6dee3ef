"""Run ``benchmarks/java/HmsCallTimer.java`` (Hive's generated Thrift client) on calls.

Benchmarks time calls through this Java client because engines (Spark, Hive, Trino) are Java clients: a
Python client would spend more time decoding large answers than either server spends making them. The
client is Hive 2.3.10's, from the pyspark wheel, unless :func:`compile_timer` and :func:`time_calls` are
given another ``classpath``: :func:`client_classpath` ``("4.0.1")`` is Hive 4.0.1's.

A call is ``(label, repeat, [method, args...])``; the functions below build the ``[method, args...]`` part.
``repeat`` calls follow one warm-up call; ``repeat`` 0 is one call, timed, with no warm-up (for calls that
change the catalog). Each answer comes back as a dict: ``first_ms``, ``p50_ms``, ``p95_ms``, ``max_ms``,
``samples_ms``, ``result`` (the size of the answer) and ``digest`` (:func:`digest` of the answer's items:
names, :func:`partition_item`, :func:`table_item`, or the database name), or ``error``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import hive4
import pyspark
from bench_base import HIVE_4
from maven_artifacts import fetch

SOURCE = Path(__file__).parent / "java" / "HmsCallTimer.java"
EXPRESSIONS = Path(__file__).parent / "java" / "HiveExpressions.java"
JARS = Path(pyspark.__file__).parent / "jars"
WHEEL_CLASSPATH = f"{JARS}/*"
"""Hive 2.3.10's jars in the pyspark wheel: the default client."""

Call = list[str]


def client_classpath(version: str) -> str:
    """The jars of Hive ``version``'s client: the pyspark wheel's for 2.3.10, those of the Hive Metastore
    4.0.1 that ``hive4.py`` assembles (once per machine) for 4.0.1."""
    return hive4.install().classpath if version == HIVE_4 else WHEEL_CLASSPATH


def compile_timer(classpath: str = WHEEL_CLASSPATH) -> Path:
    """Compile the timer against ``classpath`` (Hive 2.3.10's jars by default); returns the class directory."""
    if shutil.which("javac") is None:
        raise SystemExit("the benchmarks need a JDK (javac and java on PATH)")
    out = Path(tempfile.mkdtemp(prefix="hms-timer-"))
    subprocess.run(["javac", "-cp", classpath, "-d", str(out), str(SOURCE)], check=True, timeout=300)
    return out


def time_calls(
    classes: Path,
    host: str,
    port: int,
    calls: Sequence[tuple[str, int, Sequence[str]]],
    *,
    errors: str = "raise",
    timeout: float = 3600,
    progress: Callable[[dict], None] | None = None,
    classpath: str = WHEEL_CLASSPATH,
    warmups: int = 1,
) -> list[dict]:
    """Time ``(label, repeat, [method, args...])`` calls on one connection; one result dict per call.
    ``classpath``: the jars ``classes`` were compiled against; ``warmups``: untimed calls before the
    ``repeat`` timed ones (of calls with ``repeat`` above 0; the first is reported as ``first_ms``).

    ``errors="raise"`` raises on the first failed call; ``errors="return"`` returns its
    ``{"label", "error"}`` dict among the others. ``progress`` sees each result as it arrives.
    """
    for label, _repeat, call in calls:
        if any("\t" in part or "\n" in part for part in [label, *call]):
            raise ValueError(f"tab or newline in call {label!r}")
    lines = "".join("\t".join([label, str(repeat), *call]) + "\n" for label, repeat, call in calls)
    process = subprocess.Popen(
        ["java", f"-Dhmscalltimer.warmups={warmups}", "-cp", f"{classes}:{classpath}", "HmsCallTimer", host, str(port)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    stderr: list[str] = []

    def feed() -> None:
        try:
            process.stdin.write(lines)
            process.stdin.close()
        except BrokenPipeError:
            pass

    threads = [
        threading.Thread(target=feed, daemon=True),
        threading.Thread(target=lambda: stderr.append(process.stderr.read()), daemon=True),
    ]
    for thread in threads:
        thread.start()
    timer = threading.Timer(timeout, process.kill)
    timer.start()
    results = []
    try:
        for line in process.stdout:
            if not line.startswith("{"):
                continue
            result = json.loads(line)
            results.append(result)
            if progress is not None:
                progress(result)
            if "error" in result and errors == "raise":
                raise RuntimeError(f"{result['label']}: {result['error']}")
        process.wait()
    finally:
        timer.cancel()
        if process.poll() is None:
            process.kill()
            process.wait()
        for thread in threads:
            thread.join(5)
    if process.returncode != 0:
        raise RuntimeError(f"HmsCallTimer failed ({process.returncode}):\n{''.join(stderr)[-3000:]}")
    return results


def digest(items: Iterable[str]) -> str:
    """What the timer answers as ``digest`` for an answer of these items."""
    return hashlib.sha1("\n".join(sorted(items)).encode()).hexdigest()


def partition_item(values: Sequence[str], altered: bool = False) -> str:
    return "/".join(values) + (" hmsbench.altered=true" if altered else "")


def table_item(db: str, table: str, keys: Sequence[tuple[str, str]]) -> str:
    return f"{db}.{table} " + ",".join(f"{name}:{type_}" for name, type_ in keys)


# -- calls: reads ---------------------------------------------------------------------------------------


def get_database(db: str) -> Call:
    return ["get_database", db]


def get_table(db: str, table: str) -> Call:
    return ["get_table", db, table]


def get_all_tables(db: str) -> Call:
    return ["get_all_tables", db]


def get_partition_names(db: str, table: str, max_parts: int = -1) -> Call:
    return ["get_partition_names", db, table, str(max_parts)]


def get_partitions(db: str, table: str, max_parts: int = -1) -> Call:
    return ["get_partitions", db, table, str(max_parts)]


def get_partitions_by_filter(db: str, table: str, filter_text: str, max_parts: int = -1) -> Call:
    return ["get_partitions_by_filter", db, table, filter_text, str(max_parts)]


def get_partitions_by_names(db: str, table: str, names: Sequence[str]) -> Call:
    return ["get_partitions_by_names", db, table, ",".join(names)]


def get_partition(db: str, table: str, values: Sequence[str]) -> Call:
    return ["get_partition", db, table, *values]


def get_partitions_by_expr(db: str, table: str, expression: bytes) -> Call:
    """``get_partitions_by_expr`` of a Hive-serialized expression (:func:`serialize_expressions`)."""
    return ["get_partitions_by_expr", db, table, base64.b64encode(expression).decode()]


def serialize_expressions(specs: Sequence[str]) -> list[bytes]:
    """Partition expressions in ``java/HiveExpressions.java``'s prefix form (``(= (col dt string) (const
    string "2020-01-01"))``), each as Hive 4.0.1 serializes it for ``get_partitions_by_expr``."""
    classpath = f"{hive4.install().classpath}:{fetch(hive4.HIVE_EXEC)}"
    out = Path(tempfile.mkdtemp(prefix="hive-expressions-"))
    try:
        compile_command = ["javac", "-nowarn", "-cp", classpath, "-d", str(out), str(EXPRESSIONS)]
        subprocess.run(compile_command, check=True, timeout=300)
        done = subprocess.run(
            ["java", *hive4.HIVE_EXEC_JVM_OPTIONS, "-cp", f"{out}:{classpath}", "HiveExpressions", "serialize"],
            input="".join(spec + "\n" for spec in specs),
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
        )
    finally:
        shutil.rmtree(out, ignore_errors=True)
    lines = done.stdout.splitlines()
    if len(lines) != len(specs) or any(line.startswith("ERROR") for line in lines):
        raise RuntimeError(f"HiveExpressions could not serialize {specs}: {done.stdout[-2000:]}")
    return [base64.b64decode(line.split("\t", 1)[0]) for line in lines]


# -- calls: changes (the benchmark table: external, Parquet, columns id bigint, name string, amount double,
# partition keys dt string, hr int; partition locations <table location>/dt=<dt>/hr=<hr>) --------------

BENCH_KEYS = (("dt", "string"), ("hr", "int"))


def create_database(db: str, location: str) -> Call:
    return ["create_database", db, location]


def drop_database(db: str) -> Call:
    """Drop an empty database, its directory too (as engines drop)."""
    return ["drop_database", db]


def drop_database_if_exists(db: str) -> Call:
    """Drop a database with whatever it holds (cascade), leaving the data; nothing if it does not exist."""
    return ["drop_database_if_exists", db]


def create_table(db: str, table: str, location: str) -> Call:
    return ["create_table", db, table, location]


def add_partitions(db: str, table: str, location: str, values: Sequence[Sequence[str]]) -> Call:
    """Thrift ``add_partitions`` of partitions of two values (``dt``, ``hr``)."""
    return ["add_partitions", db, table, location, ",".join("/".join(v) for v in values)]


def alter_partition(db: str, table: str, location: str, values: Sequence[str]) -> Call:
    """``alter_partition`` with parameter ``hmsbench.altered=true``."""
    return ["alter_partition", db, table, location, *values]


def drop_partition(db: str, table: str, values: Sequence[str]) -> Call:
    return ["drop_partition", db, table, *values]


def drop_table(db: str, table: str) -> Call:
    return ["drop_table", db, table]


def concurrent(threads: int, call: Call) -> Call:
    """``call`` on ``threads`` connections at once; the answer has ``calls_per_s``, no digest."""
    return ["concurrent", str(threads), *call]
