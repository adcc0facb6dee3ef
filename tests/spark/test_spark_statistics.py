"""Spark's statistics through the metastore: ``ANALYZE TABLE ... COMPUTE STATISTICS [FOR COLUMNS ...]`` in
one Spark session, then ``DESCRIBE EXTENDED`` of the table and of its columns in a new session, which reads
them back from the server (Spark keeps them in table and partition parameters). On SQLite only: the
statements are the same for every store, and each Spark process costs seconds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.spark_statements import run_statements

# Spark sessions (two per test, each a JVM): past the default 600 s on a machine 3-4 times slower
pytestmark = pytest.mark.timeout(1800)

ANALYZE = [
    "CREATE DATABASE st",
    "CREATE TABLE st.t (id INT, price DOUBLE, name STRING, day DATE) STORED AS PARQUET",
    "INSERT INTO st.t VALUES (1, 1.5, 'a', DATE'2024-01-01'), (2, 2.5, 'bb', DATE'2024-01-02'), "
    "(3, NULL, 'ccc', DATE'2024-01-03')",
    "CREATE TABLE st.p (id INT) PARTITIONED BY (ds STRING) STORED AS PARQUET",
    "INSERT INTO st.p PARTITION (ds='2024-01-01') VALUES (1), (2)",
    "ANALYZE TABLE st.t COMPUTE STATISTICS",
    "ANALYZE TABLE st.t COMPUTE STATISTICS FOR COLUMNS id, price, name, day",
    "ANALYZE TABLE st.p PARTITION (ds='2024-01-01') COMPUTE STATISTICS",
]
DESCRIBE = [
    "DESCRIBE EXTENDED st.t",
    "DESCRIBE EXTENDED st.t id",
    "DESCRIBE EXTENDED st.t price",
    "DESCRIBE EXTENDED st.t name",
    "DESCRIBE EXTENDED st.p PARTITION (ds='2024-01-01')",
]


def _run(work: Path, uri: str, statements: list[str]) -> dict[str, dict]:
    work.mkdir()
    script = work / "statements.json"
    script.write_text(json.dumps(statements))
    return run_statements(work, uri, script)


@pytest.mark.spark
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_analyzed_statistics_survive_a_new_session(java, server, tmp_path):
    first = _run(tmp_path / "analyze", server.uri, ANALYZE)
    assert all("rows" in r for r in first.values()), first
    described = _run(tmp_path / "describe", server.uri, DESCRIBE)

    table = {row[0]: row[1] for row in described["DESCRIBE EXTENDED st.t"]["rows"]}
    size, rows = table["Statistics"].split(", ")
    assert size.endswith(" bytes") and int(size.split()[0]) > 0 and rows == "3 rows"

    def column(name: str) -> dict:
        return {row[0]: row[1] for row in described[f"DESCRIBE EXTENDED st.t {name}"]["rows"]}

    assert {k: column("id")[k] for k in ("min", "max", "num_nulls", "distinct_count")} == {
        "min": "1",
        "max": "3",
        "num_nulls": "0",
        "distinct_count": "3",
    }
    assert {k: column("price")[k] for k in ("min", "max", "num_nulls")} == {
        "min": "1.5",
        "max": "2.5",
        "num_nulls": "1",
    }
    assert {k: column("name")[k] for k in ("num_nulls", "distinct_count", "max_col_len")} == {
        "num_nulls": "0",
        "distinct_count": "3",
        "max_col_len": "3",
    }
    partition = {row[0]: row[1] for row in described["DESCRIBE EXTENDED st.p PARTITION (ds='2024-01-01')"]["rows"]}
    assert partition["Partition Statistics"].endswith(", 2 rows")
