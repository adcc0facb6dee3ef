-- Run by the spark-example service of compose.yaml against hudi-metastore on PostgreSQL.
CREATE DATABASE IF NOT EXISTS example;
CREATE TABLE IF NOT EXISTS example.events (id INT, name STRING, ds STRING) USING parquet PARTITIONED BY (ds);
INSERT OVERWRITE example.events PARTITION (ds = '2024-01-01') VALUES (1, 'first'), (2, 'second');
SHOW PARTITIONS example.events;
SELECT ds, count(*) AS events FROM example.events GROUP BY ds;
