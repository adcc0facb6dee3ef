"""TLS on both Thrift ports: clients with the CA connect; a plaintext client to the TLS port and a TLS client
to a plaintext port fail on their own connection while the server keeps serving; TLS 1.2 is the least
version; ``--tls-ca`` requires client certificates; a replaced certificate is served to new connections
without a restart; Spark's Hive 2.3.10 client connects with ``hive.metastore.use.SSL`` and a JKS
truststore."""

from __future__ import annotations

import os
import shutil
import socket
import ssl
import subprocess
import threading
from pathlib import Path

import pytest
from thriftpy2.rpc import make_client
from thriftpy2.transport import TTransportException

from hms_adapter.idl import metaserver
from hms_adapter.serving import make_metaserver, make_server
from hms_adapter.tls import ServerTls, TlsFiles
from tests.conftest import hive
from tests.support.servers import CLI, free_port, serve_command, wait_for_port
from tests.support.spark_statements import run_statements


class Served:
    def __init__(self, server) -> None:
        self.server = server
        self.thread = threading.Thread(target=server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.stop()
        self.thread.join(10)


@pytest.fixture
def tls_servers(catalog, certs, tmp_path):
    """The HMS and metaserver ports over TLS, with certificate files that may be replaced."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    shutil.copy(certs / "server.pem", cert)
    shutil.copy(certs / "server.key", key)
    tls = ServerTls(TlsFiles(str(cert), str(key)))
    servers = [
        Served(make_server(catalog, "127.0.0.1", 0, tls=tls)),
        Served(make_metaserver(catalog, "127.0.0.1", 0, tls=tls)),
    ]
    yield servers[0].server.port, servers[1].server.port, cert, key
    for served in servers:
        served.stop()


def _client(port: int, certs: Path, service=hive.ThriftHiveMetastore):
    context = ssl.create_default_context(cafile=str(certs / "ca.pem"))
    return make_client(service, "127.0.0.1", port, timeout=10_000, ssl_context=context)


def _peer_subject(port: int, certs: Path) -> str:
    context = ssl.create_default_context(cafile=str(certs / "ca.pem"))
    with context.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="127.0.0.1") as tls_socket:
        return dict(item[0] for item in tls_socket.getpeercert()["subject"])["commonName"]


def test_both_ports_serve_tls_and_wrong_clients_fail_alone(tls_servers, certs, server):
    hms_port, metaserver_port, cert, key = tls_servers
    client = _client(hms_port, certs)
    assert client.get_all_databases() == ["default"]
    hudi = _client(metaserver_port, certs, metaserver.ThriftHoodieMetaserver)
    hudi.createDatabase("hudi_db")
    assert "hudi_db" in client.get_all_databases()

    plaintext = make_client(hive.ThriftHiveMetastore, "127.0.0.1", hms_port, timeout=10_000)
    with pytest.raises((TTransportException, ConnectionError, OSError)):
        plaintext.get_all_databases()
    with pytest.raises((ssl.SSLError, OSError, TTransportException)):  # TLS to the plaintext port
        _client(server.port, certs).get_all_databases()
    assert client.get_all_databases() == ["default", "hudi_db"]  # the server kept serving
    assert server.client().get_all_databases() == ["default", "hudi_db"]

    # a renewed certificate is served to new connections, without a restart
    assert _peer_subject(hms_port, certs) == "hudi-metastore"
    shutil.copy(certs / "server2.key", key)
    shutil.copy(certs / "server2.pem", cert)
    assert _peer_subject(hms_port, certs) == "hudi-metastore-renewed"
    assert client.get_all_databases() == ["default", "hudi_db"]  # open connections carry on
    assert _client(hms_port, certs).get_all_databases() == ["default", "hudi_db"]


def test_only_modern_tls_and_a_ca_option_requires_client_certificates(catalog, certs):
    tls = ServerTls(TlsFiles(str(certs / "server.pem"), str(certs / "server.key"), str(certs / "ca.pem")))
    assert tls.context().minimum_version == ssl.TLSVersion.TLSv1_2
    served = Served(make_server(catalog, "127.0.0.1", 0, tls=tls))
    try:
        port = served.server.port
        with pytest.raises((ssl.SSLError, OSError, TTransportException)):
            _client(port, certs).get_all_databases()
        context = ssl.create_default_context(cafile=str(certs / "ca.pem"))
        context.load_cert_chain(str(certs / "client.pem"), str(certs / "client.key"))
        with_certificate = make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=10_000, ssl_context=context)
        assert with_certificate.get_all_databases() == ["default"]
    finally:
        served.stop()


@pytest.mark.spark
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_spark_connects_over_tls_with_a_truststore(java, tls_servers, certs, tmp_path):
    hms_port = tls_servers[0]
    truststore = tmp_path / "trust.jks"
    subprocess.run(
        [
            "keytool",
            "-importcert",
            "-noprompt",
            "-alias",
            "ca",
            "-file",
            str(certs / "ca.pem"),
            "-keystore",
            str(truststore),
            "-storepass",
            "changeit",
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    statements = tmp_path / "statements.json"
    statements.write_text(
        '["CREATE DATABASE tls_db", "CREATE TABLE tls_db.t (id INT) STORED AS PARQUET", '
        '"INSERT INTO tls_db.t VALUES (1), (2)", "SELECT count(*) FROM tls_db.t", '
        '"SHOW TABLES IN tls_db"]'
    )
    results = run_statements(
        tmp_path,
        f"thrift://localhost:{hms_port}",
        statements,
        {
            "spark.hadoop.hive.metastore.use.SSL": "true",
            "spark.hadoop.hive.metastore.truststore.path": str(truststore),
            "spark.hadoop.hive.metastore.truststore.password": "changeit",
        },
    )
    assert results["SELECT count(*) FROM tls_db.t"] == {"rows": [["2"]]}
    assert results["SHOW TABLES IN tls_db"]["rows"] == [["tls_db", "t", "False"]]


def test_serve_takes_the_tls_options_from_the_command_line_and_the_environment(certs, tmp_path):
    port = free_port()
    env = {**os.environ, "HUDI_METASTORE_TLS_KEY": str(certs / "server.key")}
    process = subprocess.Popen(
        serve_command(
            port,
            db_url=f"sqlite:///{tmp_path / 'c.db'}",
            warehouse=tmp_path / "wh",
            extra=["--tls-cert", str(certs / "server.pem")],
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        wait_for_port(port, process)
        assert _client(port, certs).get_all_databases() == ["default"]
    finally:
        process.terminate()
        process.wait(30)
    refused = subprocess.run(
        CLI
        + [
            "serve",
            "--port",
            str(port),
            "--db-url",
            f"sqlite:///{tmp_path / 'd.db'}",
            "--tls-ca",
            str(certs / "ca.pem"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode != 0 and "--tls-cert and --tls-key go together" in refused.stderr


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_status_checks_a_server_that_requires_client_certificates(catalog, certs):
    tls = ServerTls(TlsFiles(str(certs / "server.pem"), str(certs / "server.key"), str(certs / "ca.pem")))
    served = Served(make_server(catalog, "127.0.0.1", 0, tls=tls))
    try:
        uri = f"thrift://127.0.0.1:{served.server.port}"
        status = CLI + ["status", "--uri", uri, "--tls-ca", str(certs / "ca.pem")]
        with_certificate = subprocess.run(
            status + ["--tls-cert", str(certs / "client.pem"), "--tls-key", str(certs / "client.key")],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert with_certificate.returncode == 0, with_certificate.stderr
        assert with_certificate.stdout.startswith(f"ok {uri}: get_all_databases answered in ")
        without = subprocess.run(status, capture_output=True, text=True, timeout=60)
        assert without.returncode == 1 and without.stderr.startswith("failed: thrift://127.0.0.1:")
    finally:
        served.stop()
