"""Spark's Hive 2.3.10 client with ``hive.metastore.sasl.enabled`` and a ticket cache runs the same session
against our Kerberized server and against Apache Hive Metastore 2.3.10 Kerberized the same way
(``hadoop.rpc.protection=privacy``: every frame encrypted); both answer alike. Without a ticket, Spark
cannot reach ours."""

from __future__ import annotations

import json

import pytest

from tests.support.spark_statements import run_statements

from .conftest import SERVICE, USERS, hadoop_conf_dir

# Spark sessions and Hive Metastore's start: past the default 600 s on a machine 3-4 times slower
pytestmark = pytest.mark.timeout(1800)

STATEMENTS = [
    "CREATE DATABASE krb_db",
    "CREATE TABLE krb_db.t (id INT, name STRING) PARTITIONED BY (ds STRING) STORED AS PARQUET",
    "INSERT INTO krb_db.t PARTITION (ds='2024-01-01') VALUES (1, 'a'), (2, 'b')",
    "INSERT INTO krb_db.t PARTITION (ds='2024-01-02') VALUES (3, 'c')",
    "SELECT count(*) FROM krb_db.t WHERE ds = '2024-01-02'",
    "SHOW PARTITIONS krb_db.t",
    "SHOW TABLES IN krb_db",
    "DROP TABLE krb_db.t",
    "SHOW TABLES IN krb_db",
]


def _spark_session(kdc, tmp_path, uri: str, cache, statements_run: list[str] = STATEMENTS) -> dict[str, dict]:
    statements = tmp_path / "statements.json"
    statements.write_text(json.dumps(statements_run))
    conf = {
        "spark.hadoop.hive.metastore.sasl.enabled": "true",
        "spark.hadoop.hive.metastore.kerberos.principal": f"hive/_HOST@{kdc.realm}",
        "spark.driver.extraJavaOptions": f"-Djava.security.krb5.conf={kdc.krb5_conf}",
        "spark.security.credentials.hive.enabled": "false",
        "spark.hadoop.hive.metastore.connect.retries": "1",
    }
    env = {**kdc.client_env(cache), "HADOOP_CONF_DIR": str(hadoop_conf_dir(tmp_path))}
    return run_statements(tmp_path, uri, statements, conf, env)


@pytest.mark.spark
def test_spark_session_over_kerberos_matches_a_kerberized_hive_metastore(
    java,
    kdc,
    kerberized_server,  # noqa: F811
    kerberized_peer,
    tmp_path,
):
    cache = kdc.kinit("alice", USERS["alice"])
    (tmp_path / "ours").mkdir()
    (tmp_path / "peer").mkdir()
    ours = _spark_session(kdc, tmp_path / "ours", f"thrift://localhost:{kerberized_server.port}", cache)
    theirs = _spark_session(kdc, tmp_path / "peer", f"thrift://localhost:{kerberized_peer.port}", cache)
    assert ours == theirs
    assert ours["SELECT count(*) FROM krb_db.t WHERE ds = '2024-01-02'"] == {"rows": [["1"]]}
    assert ours["SHOW PARTITIONS krb_db.t"]["rows"] == [["ds=2024-01-01"], ["ds=2024-01-02"]]
    audit = kerberized_server.audit.read_text()
    assert f"principal=alice@{kdc.realm}" in audit and "method=create_database" in audit
    assert kdc.principal(SERVICE) == kerberized_server.principal


@pytest.mark.spark
def test_spark_without_a_ticket_is_refused(java, kdc, kerberized_server, tmp_path):
    # a write and a read are enough: each refused statement costs Spark's client its connection retries
    refused = [STATEMENTS[0], "SHOW DATABASES"]
    results = _spark_session(kdc, tmp_path, f"thrift://localhost:{kerberized_server.port}", None, refused)
    assert sorted(results) == sorted(refused) and all("error" in result for result in results.values()), results
    assert "create_database" not in kerberized_server.audit.read_text()
    assert kerberized_server.process.poll() is None
