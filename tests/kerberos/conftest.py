"""A private Kerberos realm for the session (``kdc.PrivateKdc``), a Kerberized server per test, and clients.

The realm has the metastore's service principal ``hive/localhost`` (with a keytab), a second service
``hive/otherhost`` whose key the server does not hold, and the users ``alice`` and ``bob`` with passwords.
Outside CI, a machine that cannot install the Kerberos tools skips these tests; in CI it fails them.
"""

from __future__ import annotations

import socket
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchmarks.kdc import PrivateKdc, ensure_kerberos
from tests.conftest import require_module, skip_or_fail
from tests.support.servers import free_port, serve_command, wait_for_port

SERVICE = "hive/localhost"
# DataNucleus makes the peer's tables on first use, in a connection of its own. Under Kerberos, Spark's
# create_table carries its owner's grants: the first one persists TBLS and TBL_PRIVS rows in one transaction,
# and ``ALTER TABLE TBL_PRIVS ADD CONSTRAINT ... REFERENCES TBLS`` then waits forever for the metadata lock
# that transaction holds (seen with MariaDB). Tables and columns without foreign keys avoid it.
PEER_TABLES_WITHOUT_FOREIGN_KEYS = {
    "datanucleus.schema.autoCreateAll": "false",
    "datanucleus.schema.autoCreateTables": "true",
    "datanucleus.schema.autoCreateColumns": "true",
    "datanucleus.schema.autoCreateConstraints": "false",
}
USERS = {"alice": "alice-krb-pass-1", "bob": "bob-krb-pass-2"}


@pytest.fixture(scope="session")
def kdc(tmp_path_factory):
    problem = ensure_kerberos()
    if problem:
        skip_or_fail(problem)
    realm = PrivateKdc(tmp_path_factory.mktemp("kdc"))
    realm.keytab = realm.add_service(SERVICE)
    realm.add_service("hive/otherhost")
    for user, password in USERS.items():
        realm.add_user(user, password)
    try:
        yield realm
    finally:
        realm.stop()


@dataclass
class KerberizedServer:
    port: int
    process: subprocess.Popen
    audit: Path
    log: Path
    principal: str


def start_kerberized_server(kdc: PrivateKdc, home: Path, *extra: str, db_url: str | None = None) -> KerberizedServer:
    port, audit = free_port(), home / "audit.log"
    log_path = home / f"server-{port}.log"
    options = ["--auth", "kerberos", "--kerberos-principal", f"hive/_HOST@{kdc.realm}"]
    options += ["--kerberos-keytab", str(kdc.keytab), "--audit-log", str(audit), *extra]
    command = serve_command(port, db_url=db_url or f"sqlite:///{home / 'c.db'}", warehouse=home / "wh", extra=options)
    env = {**kdc.env, "KRB5CCNAME": f"FILE:{home}/server-has-no-ticket"}
    process = subprocess.Popen(command, stdout=open(log_path, "w"), stderr=subprocess.STDOUT, text=True, env=env)
    wait_for_port(port, process, log=log_path)
    return KerberizedServer(port, process, audit, log_path, kdc.principal(SERVICE))


def stop(server: KerberizedServer) -> None:
    server.process.terminate()
    server.process.wait(30)


@pytest.fixture
def kerberized_server(kdc, tmp_path):
    server = start_kerberized_server(kdc, tmp_path)
    try:
        yield server
    finally:
        stop(server)


@pytest.fixture
def alice_cache(kdc):
    return kdc.kinit("alice", USERS["alice"])


@pytest.fixture
def use_ticket(kdc, monkeypatch):
    """Points this process's Kerberos library at the realm and at a ticket cache (None: no ticket)."""

    def use(cache: Path | None) -> None:
        for name, value in kdc.client_env(cache).items():
            if name.startswith("KRB5"):
                monkeypatch.setenv(name, value)

    return use


def sasl_client(port: int, qop: bytes | None = None, service: str = "hive"):
    """A Hive Metastore client over Apache Thrift's ``TSaslClientTransport`` with pure-sasl's GSSAPI (as
    PyIceberg's), on this process's ticket cache; returns the client and its open transport."""
    from hive_metastore import ThriftHiveMetastore
    from thrift.protocol import TBinaryProtocol
    from thrift.transport import TSocket, TTransport

    sock = TSocket.TSocket("localhost", port)
    sock.setTimeout(10_000)
    kwargs = {"qops": [qop]} if qop else {}
    transport = TTransport.TSaslClientTransport(sock, "localhost", service, **kwargs)
    transport.open()
    return ThriftHiveMetastore.Client(TBinaryProtocol.TBinaryProtocol(transport)), transport


def send_sasl_message(sock: socket.socket, status: int, payload: bytes) -> None:
    """One message of Thrift's SASL negotiation: status byte, 4-byte length, payload."""
    sock.sendall(struct.pack(">BI", status, len(payload)) + payload)


def receive_sasl_message(sock: socket.socket) -> tuple[int, bytes]:
    """The server's next negotiation message; status 0 when the connection closed first."""
    data = b""
    while len(data) < 5:
        chunk = sock.recv(5 - len(data))
        if not chunk:
            return 0, b""
        data += chunk
    status, length = struct.unpack(">BI", data)
    payload = b""
    while len(payload) < length:
        chunk = sock.recv(length - len(payload))
        if not chunk:
            break
        payload += chunk
    return status, payload


def hadoop_conf_dir(home: Path, protection: str = "privacy") -> Path:
    """A ``HADOOP_CONF_DIR`` whose ``core-site.xml`` turns Kerberos on for Hadoop's login (read before any
    ``spark.hadoop.*`` setting applies) with ``hadoop.rpc.protection`` (authentication, integrity, privacy)."""
    from benchmarks.peer import write_conf

    return write_conf(
        home / "hadoop-conf",
        {"hadoop.security.authentication": "kerberos", "hadoop.rpc.protection": protection},
        "core-site.xml",
    ).parent


@pytest.fixture(scope="module")
def kerberized_peer(kdc, mysql_server_url, tmp_path_factory):
    """Apache Hive Metastore 2.3.10 from the pyspark wheel, Kerberized as ours: SASL on, the same service
    principal and keytab, ``hadoop.rpc.protection=privacy``."""
    from sqlalchemy.engine import make_url

    from tests.locks.conftest import _drop_database, _peer_module

    require_module("pyspark")
    peer = _peer_module()
    try:
        peer.driver_jar()
    except SystemExit as error:
        skip_or_fail(f"the Hive Metastore peer needs the MariaDB JDBC driver: {error}")
    url = make_url(mysql_server_url).set(database=f"hms_peer_krb_{free_port()}")
    settings = {
        "hive.metastore.sasl.enabled": "true",
        "hive.metastore.kerberos.principal": kdc.principal(SERVICE),
        "hive.metastore.kerberos.keytab.file": str(kdc.keytab),
        **PEER_TABLES_WITHOUT_FOREIGN_KEYS,
    }
    core_site = {"hadoop.security.authentication": "kerberos", "hadoop.rpc.protection": "privacy"}
    try:
        with peer.running_peer(
            db_url=url.render_as_string(hide_password=False),
            settings=settings,
            core_site=core_site,
            jvm_options=(f"-Djava.security.krb5.conf={kdc.krb5_conf}",),
            env=kdc.env,
            work_dir=str(tmp_path_factory.mktemp("krb-peer")),
        ) as running:
            yield running
    finally:
        _drop_database(url)
