-- A beeline admin session for HiveServer2 4.0.1: tests/engines/test_hiveserver2.py runs it through JDBC on this
-- server and on Apache Hive Metastore 4.0.1, each with a HiveServer2 of its own, and compares every statement's
-- outcome. A statement ends with a line ending in ";". A "-- user: NAME" line starts a new connection as NAME
-- (ADMIN: the operating system's user, a member of the metastores' admin role); a "-- files on disk" line
-- compares the folders under both warehouses there (and starts a new connection as the same user).
-- ${hiveconf:hive.metastore.warehouse.dir} is each HiveServer2's warehouse, the metastore's.

-- user: ADMIN
SET ROLE ADMIN;
SHOW CURRENT ROLES;
CREATE DATABASE hs2s COMMENT 'beeline admin session' WITH DBPROPERTIES ('team'='metastore');
SHOW DATABASES LIKE 'hs2*';
SHOW DATABASES LIKE 'hs2%';
DESCRIBE DATABASE EXTENDED hs2s;
ALTER DATABASE hs2s SET DBPROPERTIES ('stage'='test');
DESCRIBE DATABASE EXTENDED hs2s;
CREATE DATABASE hs2s;
USE hs2s;

-- managed, external, partitioned, bucketed and transactional tables
CREATE TABLE managed_t (id INT, name STRING) STORED AS ORC;
CREATE EXTERNAL TABLE ext_t (id INT, v STRING) ROW FORMAT DELIMITED FIELDS TERMINATED BY ',' STORED AS TEXTFILE;
CREATE EXTERNAL TABLE pt (id INT, v STRING) PARTITIONED BY (s STRING, n INT, d DATE) STORED AS TEXTFILE TBLPROPERTIES ('external.table.purge'='true');
CREATE EXTERNAL TABLE ept (id INT) PARTITIONED BY (k STRING) STORED AS TEXTFILE;
CREATE EXTERNAL TABLE bucketed_t (id INT, v STRING) CLUSTERED BY (id) SORTED BY (id ASC) INTO 4 BUCKETS STORED AS ORC TBLPROPERTIES ('external.table.purge'='true');
CREATE TABLE acid_t (id INT, v STRING) STORED AS ORC TBLPROPERTIES ('transactional'='true');
CREATE TABLE insert_only_t (id INT) TBLPROPERTIES ('transactional'='true', 'transactional_properties'='insert_only');
CREATE TABLE pt (id INT);
SHOW TABLES;
SHOW TABLES LIKE '*_t';
SHOW TABLES LIKE '%_t';
SHOW CREATE TABLE managed_t;
SHOW CREATE TABLE ext_t;
SHOW CREATE TABLE pt;
SHOW CREATE TABLE bucketed_t;
SHOW CREATE TABLE acid_t;
SHOW CREATE TABLE insert_only_t;
DESCRIBE FORMATTED managed_t;
DESCRIBE FORMATTED pt;
DESCRIBE FORMATTED bucketed_t;
DESCRIBE FORMATTED acid_t;
DESCRIBE EXTENDED ext_t;
DESCRIBE pt;
SHOW COLUMNS IN pt;

-- partitions: add, show with specs, rename, drop with =, <, >=, <> and ranges on string, int and date keys
ALTER TABLE pt ADD PARTITION (s='a', n=1, d='2024-01-01') PARTITION (s='a', n=2, d='2024-01-02') PARTITION (s='b', n=3, d='2024-01-03') PARTITION (s='c', n=4, d='2024-02-01') PARTITION (s='d', n=5, d='2024-03-01') PARTITION (s='e', n=6, d='2024-03-15') PARTITION (s='f', n=7, d='2024-04-01') PARTITION (s='g', n=8, d='2024-05-01') PARTITION (s='h', n=9, d='2024-06-01') PARTITION (s='i', n=13, d='2024-08-01') PARTITION (s='j', n=14, d='2024-08-15');
ALTER TABLE pt ADD PARTITION (s='a', n=1, d='2024-01-01');
ALTER TABLE pt ADD IF NOT EXISTS PARTITION (s='a', n=1, d='2024-01-01');
SHOW PARTITIONS pt;
SHOW PARTITIONS pt PARTITION (s='a');
SHOW PARTITIONS pt PARTITION (s='a', n=2);
SHOW PARTITIONS pt PARTITION (d='2024-03-15');
SHOW PARTITIONS pt PARTITION (s='zz');
SHOW PARTITIONS pt WHERE n > 4 ORDER BY n DESC LIMIT 3;
SHOW PARTITIONS pt WHERE d >= '2024-03-01' AND s <> 'f';
DESCRIBE FORMATTED pt PARTITION (s='a', n=1, d='2024-01-01');
DESCRIBE EXTENDED pt PARTITION (s='b', n=3, d='2024-01-03');
ALTER TABLE pt PARTITION (s='a', n=2, d='2024-01-02') RENAME TO PARTITION (s='a', n=20, d='2024-01-20');
ALTER TABLE pt PARTITION (s='zz', n=0, d='2024-01-01') RENAME TO PARTITION (s='zz', n=1, d='2024-01-01');
SHOW PARTITIONS pt;
ALTER TABLE pt DROP PARTITION (s='a', n=1, d='2024-01-01');
ALTER TABLE pt DROP PARTITION (s < 'c');
ALTER TABLE pt DROP PARTITION (n > 12, n <= 13);
ALTER TABLE pt DROP PARTITION (s >= 'j', s < 'k');
ALTER TABLE pt DROP PARTITION (n >= 8);
ALTER TABLE pt DROP PARTITION (d >= '2024-03-01', d < '2024-04-01');
SHOW PARTITIONS pt;
ALTER TABLE pt DROP PARTITION (s <> 'c');
ALTER TABLE pt DROP PARTITION (n > 100);
ALTER TABLE pt DROP IF EXISTS PARTITION (n > 100);
ALTER TABLE pt DROP PARTITION (d = '2024-02-01', n <> 4);
SHOW PARTITIONS pt;

-- MSCK REPAIR TABLE: ept is external without purge, so a dropped partition's folder stays behind
ALTER TABLE ept ADD PARTITION (k='x') PARTITION (k='y') PARTITION (k='z');
ALTER TABLE ept DROP PARTITION (k='x');
SHOW PARTITIONS ept;
MSCK REPAIR TABLE ept ADD PARTITIONS;
SHOW PARTITIONS ept;
dfs -rm -r ${hiveconf:hive.metastore.warehouse.dir}/hs2s.db/ept/k=y;
MSCK REPAIR TABLE ept DROP PARTITIONS;
SHOW PARTITIONS ept;
dfs -mkdir -p ${hiveconf:hive.metastore.warehouse.dir}/hs2s.db/ept/k=w;
dfs -rm -r ${hiveconf:hive.metastore.warehouse.dir}/hs2s.db/ept/k=z;
MSCK REPAIR TABLE ept SYNC PARTITIONS;
SHOW PARTITIONS ept;
MSCK TABLE ept;

-- INSERT and SELECT with partition pruning (local MapReduce)
INSERT INTO pt PARTITION (s, n, d) VALUES (1, 'one', 'c', 4, '2024-02-01'), (2, 'two', 'k', 11, '2024-07-01'), (3, 'three', 'k', 12, '2024-07-02');
SHOW PARTITIONS pt;
SELECT * FROM pt WHERE n = 4;
SELECT id, v, s FROM pt WHERE s = 'k' AND d > '2024-07-01';
SELECT id FROM pt WHERE n < 0;
SELECT * FROM pt ORDER BY id;
INSERT INTO acid_t VALUES (1, 'a'), (2, 'b');
SELECT * FROM acid_t ORDER BY id;

-- statistics
ANALYZE TABLE pt PARTITION (s, n, d) COMPUTE STATISTICS;
ANALYZE TABLE pt PARTITION (s='k', n=11, d='2024-07-01') COMPUTE STATISTICS FOR COLUMNS;
DESCRIBE FORMATTED pt PARTITION (s='k', n=11, d='2024-07-01') id;
ANALYZE TABLE acid_t COMPUTE STATISTICS FOR COLUMNS;
DESCRIBE FORMATTED acid_t v;
ANALYZE TABLE managed_t COMPUTE STATISTICS NOSCAN;
SHOW TBLPROPERTIES acid_t ('numRows');

-- TRUNCATE
TRUNCATE TABLE pt PARTITION (s='k', n=12, d='2024-07-02');
SELECT count(*) FROM pt WHERE s = 'k';
TRUNCATE TABLE managed_t;
TRUNCATE TABLE ext_t;

-- ALTER TABLE ... SET TBLPROPERTIES/SERDEPROPERTIES/LOCATION
ALTER TABLE ext_t SET TBLPROPERTIES ('comment'='an external table', 'team'='metastore');
SHOW TBLPROPERTIES ext_t ('team');
ALTER TABLE ext_t UNSET TBLPROPERTIES ('team');
SHOW TBLPROPERTIES ext_t ('team');
ALTER TABLE ext_t SET SERDEPROPERTIES ('field.delim'='|');
ALTER TABLE pt PARTITION (s='c', n=4, d='2024-02-01') SET SERDEPROPERTIES ('field.delim'='|');
ALTER TABLE ept PARTITION (k='x') SET LOCATION '${hiveconf:hive.metastore.warehouse.dir}/hs2s.db/ept/moved_x';
DESCRIBE FORMATTED ept PARTITION (k='x');
ALTER TABLE ext_t SET LOCATION '${hiveconf:hive.metastore.warehouse.dir}/hs2s.db/ext_t_moved';
SHOW CREATE TABLE ext_t;
ALTER TABLE ext_t ADD COLUMNS (extra STRING COMMENT 'added');
ALTER TABLE ext_t CHANGE COLUMN v value STRING;
DESCRIBE ext_t;
ALTER TABLE ext_t RENAME TO ext_renamed;
SHOW TABLES LIKE 'ext%';

-- views and materialized views
CREATE VIEW pt_view AS SELECT id, s FROM pt WHERE n > 3;
SELECT * FROM pt_view ORDER BY id;
SHOW VIEWS;
SHOW CREATE TABLE pt_view;
ALTER VIEW pt_view AS SELECT id FROM pt;
DESCRIBE FORMATTED pt_view;
CREATE MATERIALIZED VIEW pt_mv AS SELECT id, v FROM pt;
CREATE MATERIALIZED VIEW acid_mv AS SELECT id, v FROM acid_t;
SHOW MATERIALIZED VIEWS;
SELECT * FROM acid_mv ORDER BY id;
ALTER MATERIALIZED VIEW acid_mv DISABLE REWRITE;
DROP MATERIALIZED VIEW acid_mv;
DROP VIEW pt_view;

-- functions
CREATE FUNCTION hs2s.shout AS 'org.apache.hadoop.hive.ql.udf.generic.GenericUDFUpper';
SHOW FUNCTIONS LIKE 'hs2s.*';
DESCRIBE FUNCTION hs2s.shout;
SELECT hs2s.shout('quiet');
CREATE FUNCTION hs2s.shout AS 'org.apache.hadoop.hive.ql.udf.generic.GenericUDFUpper';
DROP FUNCTION hs2s.shout;
DROP FUNCTION hs2s.shout;
RELOAD FUNCTIONS;

-- roles and grants (SQL-standard authorization)
CREATE ROLE analyst;
CREATE ROLE analyst;
SHOW ROLES;
GRANT ROLE analyst TO USER bob;
SHOW ROLE GRANT USER bob;
GRANT SELECT ON TABLE pt TO ROLE analyst;
GRANT INSERT ON TABLE acid_t TO USER bob WITH GRANT OPTION;
SHOW GRANT ROLE analyst ON TABLE pt;
SHOW GRANT USER bob ON TABLE acid_t;
SHOW GRANT USER bob;
SHOW PRINCIPALS analyst;

-- files on disk

-- user: bob
SHOW CURRENT ROLES;
SELECT id FROM hs2s.pt WHERE n = 4;
SELECT * FROM hs2s.managed_t;
CREATE ROLE intruder;
SHOW GRANT USER bob ON TABLE hs2s.acid_t;

-- user: ADMIN
SET ROLE ADMIN;
USE hs2s;
REVOKE SELECT ON TABLE pt FROM ROLE analyst;
REVOKE GRANT OPTION FOR INSERT ON TABLE acid_t FROM USER bob;
SHOW GRANT USER bob ON TABLE acid_t;
REVOKE INSERT ON TABLE acid_t FROM USER bob;
REVOKE ROLE analyst FROM USER bob;
SHOW ROLE GRANT USER bob;
DROP ROLE analyst;
SHOW ROLES;

-- locks, transactions, compactions
SHOW LOCKS;
SHOW LOCKS acid_t;
SHOW TRANSACTIONS;
ALTER TABLE acid_t COMPACT 'major';
SHOW COMPACTIONS;

-- drops
DROP TABLE managed_t;
DROP TABLE ext_renamed;
DROP TABLE IF EXISTS no_such_table;
DROP TABLE no_such_table;
DROP DATABASE hs2s;
DROP DATABASE hs2s CASCADE;
SHOW DATABASES LIKE 'hs2%';

-- files on disk
