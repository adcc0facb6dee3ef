"""Run the end-to-end Spark SQL statements and print one JSON line per statement.

Usage: ``python statements.py WAREHOUSE [METASTORE_URI [STATEMENTS_JSON]]``. Without a URI, Spark uses its own
embedded (Derby) Hive metastore, which is the reference the tests compare with. ``STATEMENTS_JSON`` (a file
holding a JSON list) replaces the statements below; ``HMS_TEST_SPARK_CONF`` adds Spark settings.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from pyspark.sql import SparkSession

EXTRA_CONF_ENV = "HMS_TEST_SPARK_CONF"
"""A JSON object of more Spark settings (a TLS truststore, say)."""

STATEMENTS = [
    "CREATE DATABASE IF NOT EXISTS sales COMMENT 'sales data'",
    "SHOW DATABASES",
    "DESCRIBE DATABASE sales",
    "CREATE TABLE sales.hive_t (id INT, name STRING) PARTITIONED BY (ds STRING, hr INT) STORED AS PARQUET",
    "CREATE TABLE sales.ds_t (id INT, name STRING, ds STRING, hr INT) USING parquet PARTITIONED BY (ds, hr)",
    "CREATE TABLE sales.flat (id INT, v DOUBLE) STORED AS PARQUET",
    "INSERT INTO sales.hive_t PARTITION (ds='2024-01-01', hr=1) VALUES (1,'a'),(2,'b')",
    "INSERT INTO sales.hive_t PARTITION (ds, hr) VALUES (3,'c','2024-01-02',10),(4,'d','2024-01-02',9)",
    "INSERT INTO sales.ds_t VALUES (1,'a','2024-01-01',1),(2,'b','2024-01-02',10)",
    "INSERT INTO sales.ds_t PARTITION (ds='2024-01-03', hr=2) VALUES (5,'e')",
    "INSERT INTO sales.flat VALUES (1, 1.5), (2, 2.5)",
    "SELECT * FROM sales.hive_t ORDER BY id",
    "SELECT * FROM sales.hive_t WHERE hr > 9 ORDER BY id",
    "SELECT * FROM sales.hive_t WHERE ds = '2024-01-02' AND hr = 9 ORDER BY id",
    "SELECT * FROM sales.ds_t WHERE ds = '2024-01-02' ORDER BY id",
    "SELECT * FROM sales.ds_t WHERE hr IN (1, 2) ORDER BY id",
    "SELECT sum(v) FROM sales.flat",
    "CREATE TABLE sales.events (id INT) PARTITIONED BY (dt DATE, n INT, s STRING) STORED AS PARQUET",
    "CREATE TABLE sales.events_ds (id INT, dt DATE, n INT, s STRING) USING parquet PARTITIONED BY (dt, n, s)",
    "INSERT INTO sales.events VALUES (1, DATE'2024-01-01', 1, 'a'), (2, DATE'2024-01-02', 10, 'b'), "
    "(3, DATE'2024-01-03', 9, 'a')",
    "INSERT INTO sales.events_ds VALUES (1, DATE'2024-01-01', 1, 'a'), (2, DATE'2024-01-02', 10, 'b'), "
    "(3, DATE'2024-01-03', 9, 'a')",
    *[
        query.format(table=table)
        for table in ("sales.events", "sales.events_ds")
        for query in (
            "SELECT id FROM {table} WHERE dt >= DATE'2024-01-02' ORDER BY id",
            "SELECT id FROM {table} WHERE n > 5 AND s = 'a' ORDER BY id",
            "SELECT id FROM {table} WHERE dt = DATE'2024-01-01' OR n IN (10, 11) ORDER BY id",
            "SELECT id FROM {table} WHERE s LIKE 'a%' ORDER BY id",
        )
    ],
    "SHOW TABLES IN sales",
    "SHOW PARTITIONS sales.hive_t",
    "SHOW PARTITIONS sales.ds_t",
    "SHOW PARTITIONS sales.hive_t PARTITION (ds='2024-01-02')",
    "DESCRIBE EXTENDED sales.hive_t",
    "DESCRIBE EXTENDED sales.ds_t",
    "DESCRIBE EXTENDED sales.flat",
    "DESCRIBE EXTENDED sales.hive_t PARTITION (ds='2024-01-02', hr=10)",
    "SHOW CREATE TABLE sales.hive_t",
    "ALTER TABLE sales.hive_t ADD PARTITION (ds='2024-02-01', hr=5)",
    "ALTER TABLE sales.hive_t DROP PARTITION (ds='2024-01-01', hr=1)",
    "ALTER TABLE sales.hive_t PARTITION (ds='2024-02-01', hr=5) RENAME TO PARTITION (ds='2024-02-02', hr=6)",
    "SHOW PARTITIONS sales.hive_t",
    "ALTER TABLE sales.hive_t SET TBLPROPERTIES ('owner.team'='data', 'k'='v')",
    "SHOW TBLPROPERTIES sales.hive_t ('k')",
    "ALTER TABLE sales.hive_t UNSET TBLPROPERTIES ('k')",
    "ALTER TABLE sales.hive_t ADD COLUMNS (extra STRING)",
    "SELECT * FROM sales.hive_t ORDER BY id",
    "ALTER TABLE sales.ds_t ADD COLUMNS (note STRING)",
    "SELECT * FROM sales.ds_t ORDER BY id",
    "ANALYZE TABLE sales.ds_t COMPUTE STATISTICS",
    "ANALYZE TABLE sales.flat COMPUTE STATISTICS",
    "DESCRIBE EXTENDED sales.flat",
    "CREATE VIEW sales.v AS SELECT id, name FROM sales.ds_t WHERE hr > 1",
    "SELECT * FROM sales.v ORDER BY id",
    "SHOW VIEWS IN sales",
    "CREATE FUNCTION sales.my_upper AS 'org.apache.hadoop.hive.ql.udf.generic.GenericUDFUpper'",
    "SHOW USER FUNCTIONS IN sales",
    "SELECT sales.my_upper('abc')",
    "DROP FUNCTION sales.my_upper",
    "SHOW USER FUNCTIONS IN sales",
    "ALTER TABLE sales.ds_t RENAME TO sales.ds_renamed",
    "SELECT * FROM sales.ds_renamed ORDER BY id",
    "SHOW TABLES IN sales",
    "DROP VIEW sales.v",
    "DROP TABLE sales.ds_renamed",
    "CREATE TABLE sales.ds_renamed (id INT) USING parquet",
    "SELECT count(*) FROM sales.ds_renamed",
    "DROP TABLE sales.flat",
    "CREATE TABLE sales.flat (id INT, v DOUBLE) STORED AS PARQUET",
    "SELECT count(*) FROM sales.flat",
    "DROP DATABASE sales",
    "DROP DATABASE sales CASCADE",
    "SHOW DATABASES",
]


def main() -> None:
    warehouse = sys.argv[1]
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("hudi-metastore-e2e")
        .config("spark.sql.warehouse.dir", warehouse)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.hive.metastorePartitionPruning", "true")
    )
    if len(sys.argv) > 2:
        builder = builder.config("spark.hadoop.hive.metastore.uris", sys.argv[2])
    for key, value in json.loads(os.environ.get(EXTRA_CONF_ENV, "{}")).items():
        builder = builder.config(key, value)
    spark = builder.enableHiveSupport().getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    statements = json.loads(Path(sys.argv[3]).read_text()) if len(sys.argv) > 3 else STATEMENTS
    for statement in statements:
        try:
            rows = [[None if v is None else str(v) for v in row] for row in spark.sql(statement).collect()]
            print(json.dumps({"sql": statement, "rows": rows}), flush=True)
        except Exception as e:  # the reference run must record failures as results too
            print(json.dumps({"sql": statement, "error": type(e).__name__, "message": str(e)[:2000]}), flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
