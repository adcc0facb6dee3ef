"""Unmodified PySpark (its built-in Hive 2.3.10 metastore client) against hudi-metastore.

The same SQL statements run twice in fresh Spark processes: once with ``hive.metastore.uris`` pointing at a
hudi-metastore server started here (on SQLite and on MariaDB), once with Spark's own embedded metastore.
Every statement must give the same result, after the times and warehouse paths that differ between two
runs are masked; key results are also checked against literal expectations.
"""

from __future__ import annotations

import logging

import pytest

from tests.support.spark_statements import run_statements

# Spark sessions (two per test, each a JVM): past the default 600 s on a machine 3-4 times slower
pytestmark = pytest.mark.timeout(1800)


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
