"""Unmodified PySpark (its built-in Hive 2.3.10 metastore client) against hudi-metastore.

The same SQL statements run twice in fresh Spark processes: once with ``hive.metastore.uris`` pointing at a
hudi-metastore server started here (on SQLite and on MariaDB), once with Spark's own embedded metastore.
Every statement must give the same result, after the times and warehouse paths that differ between two
runs are masked; key results are also checked against literal expectations.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import require_module, skip_or_fail

SCRIPT = Path(__file__).with_name("statements.py")
RUN_TIMEOUT_SECONDS = 900
_TIME = re.compile(r"\b\w{3} \w{3} \d{1,2} \d{2}:\d{2}:\d{2} \w+ \d{4}\b")
_DDL_TIME = re.compile(r"(transient_lastDdlTime\W{1,5})\d+")


@pytest.fixture(scope="module")
def java() -> str:
    """Java, and the pyspark wheel whose Spark it runs."""
    require_module("pyspark")
    path = shutil.which("java")
    if path is None:
        skip_or_fail("Java is not installed; Spark cannot run")
    return path


def run_statements(
    work_dir: Path,
    metastore_uri: str | None,
    statements: Path | None = None,
    spark_conf: dict[str, str] | None = None,
    env: dict[str, str] | None = None,
) -> dict[str, dict]:
    """Results of ``statements.py``'s statements (or those listed in the JSON file ``statements``), with more
    Spark settings ``spark_conf`` and environment variables ``env``."""
    warehouse = work_dir / "spark-warehouse"
    command = [sys.executable, str(SCRIPT), str(warehouse)] + ([metastore_uri] if metastore_uri else [])
    command += [str(statements)] if statements else []
    env = {
        **os.environ,
        "PYSPARK_PYTHON": sys.executable,
        "SPARK_LOCAL_IP": "127.0.0.1",
        "HMS_TEST_SPARK_CONF": json.dumps(spark_conf or {}),
        **(env or {}),
    }
    done = subprocess.run(command, cwd=work_dir, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_SECONDS)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert done.returncode == 0 and lines, f"Spark run failed:\n{done.stderr[-4000:]}"
    return {entry["sql"]: _masked(entry, str(warehouse)) for entry in lines}


def _masked(entry: dict, warehouse: str) -> dict:
    def mask(value):
        if value is None:
            return None
        value = value.replace(warehouse, "<warehouse>")
        return _DDL_TIME.sub(r"\1<time>", _TIME.sub("<time>", value))

    if "rows" in entry:
        return {"rows": [[mask(v) for v in row] for row in entry["rows"]]}
    return {"error": entry["error"]}


@pytest.fixture(scope="module")
def reference(java, tmp_path_factory) -> dict[str, dict]:
    """Results of the statements on Spark's own embedded Hive metastore."""
    return run_statements(tmp_path_factory.mktemp("spark-reference"), None)


@pytest.mark.spark
# the Spark-facing path is one for all stores (the Thrift tests run on each): MariaDB here, SQLite for beeline
@pytest.mark.parametrize("db_url", ["mysql"], indirect=True)
def test_spark_gives_the_same_results_as_its_own_metastore(java, reference, server, tmp_path, caplog):
    caplog.set_level(logging.DEBUG, logger="hudi_catalog.services.partitions")
    # Spark's warehouse (its databases' locations) is not the server's, as in Spark's default set-up: the
    # server makes the directories Spark names and deletes them when Spark drops their objects, so DROP TABLE
    # then CREATE TABLE of the same managed table works (tests/hms_adapter/test_provenance.py)
    assert server.catalog.warehouse.data_roots == []
    ours = run_statements(tmp_path, server.uri)

    assert ours.keys() == reference.keys()
    different = {sql: (ours[sql], expected) for sql, expected in reference.items() if ours[sql] != expected}
    assert different == {}

    def rows(sql):
        return ours[sql]["rows"]

    assert rows("SELECT * FROM sales.hive_t WHERE hr > 9 ORDER BY id") == [["3", "c", "2024-01-02", "10"]]
    assert rows("SHOW PARTITIONS sales.hive_t")[-1] == ["ds=2024-02-02/hr=6"]
    assert rows("SELECT * FROM sales.v ORDER BY id") == [["2", "b"], ["5", "e"]]
    assert rows("SELECT sales.my_upper('abc')") == [["ABC"]]
    assert rows("SELECT count(*) FROM sales.ds_renamed") == [["0"]]
    assert rows("SELECT count(*) FROM sales.flat") == [["0"]]  # the dropped table's files are gone
    assert "rows" in ours["CREATE TABLE sales.flat (id INT, v DOUBLE) STORED AS PARQUET"]
    assert ours["DROP DATABASE sales"] == {"error": "AnalysisException"}
    assert rows("SHOW DATABASES") == [["default"]]
    assert server.catalog.databases.names() == ["default"]
    assert not (tmp_path / "spark-warehouse" / "sales.db").exists()

    assert rows("SELECT id FROM sales.events WHERE n > 5 AND s = 'a' ORDER BY id") == [["3"]]
    assert rows("SELECT id FROM sales.events_ds WHERE dt >= DATE'2024-01-02' ORDER BY id") == [["2"], ["3"]]
    answered_in_sql = {(r.args[0], r.args[1]) for r in caplog.records if r.getMessage().startswith("filter ")}
    for table in ("sales.events", "sales.events_ds"):
        assert ('dt >= "2024-01-02"', table) in answered_in_sql
        assert ('n > 5 and s = "a"', table) in answered_in_sql
        assert ('(dt = "2024-01-01" or (n) in (10, 11))', table) in answered_in_sql
        assert ('s like "a.*"', table) in answered_in_sql
