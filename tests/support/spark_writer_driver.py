"""A Spark writer (Hudi's or Iceberg's), driven one JSON request per line on stdin, one JSON answer per line
on stdout.

Runs in the writers' own environment (PySpark 3.5, made by ``benchmarks/engines.py``) with the jars and the
settings it is given (``--jars``, ``--conf``), so it imports nothing of this repository.
``tests/support/spark_writers.py`` starts it and speaks to it. Its Spark session keeps its catalog in the
metastore given as ``--metastore`` (Hudi's procedures name tables through it). Requests:

- ``{"op": "write", "path", "schema", "rows", "options", "mode", "more"}``: a DataFrame of ``rows`` (lists in
  the order of the DDL ``schema``, the first column an int key) written with ``format("hudi")`` and
  ``options`` (hive sync among them); ``more`` (``{"start", "count"}``) adds ``count`` rows like the first
  one with keys from ``start`` (a write that takes a while);
- ``{"op": "sync", "path", "options"}``: Hudi's ``HiveSyncTool`` run on its own with ``options``;
- ``{"op": "sql", "statement"}``: a Spark SQL statement; its rows come back as lists of strings;
- ``{"op": "read", "path", "options", "columns"}``: ``columns`` of the rows ``format("hudi")`` reads with
  ``options`` (time travel among them), sorted, as lists of strings;
- ``{"op": "quit"}``.

Each answer is a line ``ANSWER`` followed by ``{"ok": true, ...}`` or ``{"ok": false, "error": "<the Java or
Python error>"}``; the JVM writes lines of its own to stdout too (Hudi's object-size estimator warns there).
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback

from pyspark.sql import SparkSession


def session(jars: str, metastore: str, warehouse: str, settings: list[str]) -> SparkSession:
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("spark-writer")
        .config("spark.jars", jars)
        .config("spark.sql.catalogImplementation", "hive")
        .config("spark.hadoop.hive.metastore.uris", metastore)
        .config("spark.sql.warehouse.dir", warehouse)
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
    )
    for setting in settings:
        key, value = setting.split("=", 1)
        builder = builder.config(key, value)
    return builder.getOrCreate()


def write(spark: SparkSession, request: dict) -> dict:
    frame = spark.createDataFrame([tuple(row) for row in request["rows"]], request["schema"])
    if request.get("more"):
        key, *others = frame.columns
        first = frame.limit(1).drop(key)
        keys = spark.range(request["more"]["start"], request["more"]["start"] + request["more"]["count"])
        generated = keys.selectExpr(f"cast(id as int) as {key}").crossJoin(first).select(key, *others)
        frame = frame.unionByName(generated)
    frame.write.format("hudi").options(**request["options"]).mode(request.get("mode", "append")).save(request["path"])
    return {}


def sync(spark: SparkSession, request: dict) -> dict:
    jvm = spark.sparkContext._jvm
    properties = jvm.java.util.Properties()
    for key, value in {**request["options"], "hoodie.datasource.meta.sync.base.path": request["path"]}.items():
        properties.setProperty(key, value)
    tool = jvm.org.apache.hudi.hive.HiveSyncTool(properties, spark.sparkContext._jsc.hadoopConfiguration())
    try:
        tool.syncHoodieTable()
    finally:
        tool.close()
    return {}


def _strings(rows: list) -> list[list[str | None]]:
    return [[None if v is None else str(v) for v in row] for row in rows]


def sql(spark: SparkSession, request: dict) -> dict:
    return {"rows": _strings(spark.sql(request["statement"]).collect())}


def read(spark: SparkSession, request: dict) -> dict:
    frame = spark.read.format("hudi").options(**request["options"]).load(request["path"])
    columns = request["columns"]
    return {"rows": _strings(frame.select(*columns).orderBy(*columns).collect())}


OPERATIONS = {"write": write, "sync": sync, "sql": sql, "read": read}
ANSWER = "@spark-writer "


def answer(value: dict) -> None:
    print(ANSWER + json.dumps(value), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jars", required=True, help="comma-separated jars (Hudi's bundle, Iceberg's runtime)")
    parser.add_argument("--metastore", required=True, help="thrift://host:port of the session's catalog")
    parser.add_argument("--warehouse", required=True)
    parser.add_argument("--conf", action="append", default=[], help="a Spark setting, key=value")
    args = parser.parse_args()
    spark = session(args.jars, args.metastore, args.warehouse, args.conf)
    spark.sparkContext.setLogLevel("WARN")
    answer({"ok": True, "spark": spark.version})
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "quit":
            break
        try:
            answer({"ok": True, **OPERATIONS[request["op"]](spark, request)})
        except Exception as error:  # noqa: BLE001 - the test reads the error; the session goes on
            traceback.print_exc(file=sys.stderr)
            answer({"ok": False, "error": str(error)})
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
