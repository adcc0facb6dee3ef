"""``serve --auth password``: SASL PLAIN on the Hive Metastore port, over TLS, against a password file made
by ``hudi-metastore passwd``. The client is the Hive 4 client PyIceberg ships (Apache Thrift) over
``thrift_sasl`` with ``pure-sasl``'s PLAIN, as Python clients connect to a SASL metastore. A wrong
password, an unknown user, another mechanism, a client that sends no SASL, garbage and oversized
negotiation frames are refused; the server keeps serving; the audit log names the authenticated user,
whatever ``set_ugi`` claims; the password reaches no log."""

from __future__ import annotations

import socket
import ssl
import struct
import subprocess

import pytest
from hive_metastore import ThriftHiveMetastore
from puresasl.client import SASLClient
from thrift.protocol import TBinaryProtocol
from thrift.transport import TSSLSocket
from thrift.transport.TTransport import TTransportException
from thrift_sasl import TSaslClientTransport

from tests.support.sasl import _SaslClient
from tests.support.servers import CLI, free_port, serve_command, wait_for_port, write_passwords

PASSWORD = "correct horse battery staple"
BOB_PASSWORD = "bob-s3cret-2"


def _client(port: int, ca: str, user: str, password: str, mechanism: str = "PLAIN"):
    sock = TSSLSocket.TSSLSocket(
        "127.0.0.1", port, ssl_context=ssl.create_default_context(cafile=ca), server_hostname="localhost"
    )
    sock.setTimeout(10_000)
    transport = TSaslClientTransport(
        lambda: _SaslClient(SASLClient("localhost", "hive", mechanism=mechanism, username=user, password=password)),
        mechanism,
        sock,
    )
    transport.open()
    return ThriftHiveMetastore.Client(TBinaryProtocol.TBinaryProtocol(transport)), transport


@pytest.fixture
def password_server(certs, tmp_path):
    passwords, audit, port = tmp_path / "passwords", tmp_path / "audit.log", free_port()
    write_passwords(passwords, {"alice": PASSWORD, "bob": BOB_PASSWORD})
    log = open(tmp_path / "server.log", "w")
    options = ["--auth", "password", "--password-file", str(passwords), "--audit-log", str(audit)]
    options += ["--tls-cert", str(certs / "server.pem"), "--tls-key", str(certs / "server.key")]
    process = subprocess.Popen(
        serve_command(port, db_url=f"sqlite:///{tmp_path / 'c.db'}", warehouse=tmp_path / "wh", extra=options),
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_for_port(port, process, log=tmp_path / "server.log")
        yield port, str(certs / "ca.pem"), audit, tmp_path / "server.log"
    finally:
        process.terminate()
        process.wait(30)
        log.close()


def test_users_authenticate_and_others_are_refused(password_server):
    port, ca, audit, server_log = password_server
    alice, transport = _client(port, ca, "alice", PASSWORD)
    alice.set_ugi("root", [])  # a claim: the principal stays alice
    assert alice.get_all_databases() == ["default"]
    alice.create_database(ThriftHiveMetastore.Database(name="shop", parameters={}))

    for user, password in (("alice", "wrong"), ("mallory", PASSWORD), ("bob", PASSWORD)):
        with pytest.raises(TTransportException, match="authentication failed"):
            _client(port, ca, user, password)
    with pytest.raises(TTransportException, match="unsupported SASL mechanism"):
        _client(port, ca, "alice", PASSWORD, mechanism="ANONYMOUS")

    def raw(payload: bytes, wait: float = 10) -> bytes:
        """Send bytes on a fresh TLS connection; what the server answers before it closes."""
        context = ssl.create_default_context(cafile=ca)
        with context.wrap_socket(
            socket.create_connection(("127.0.0.1", port), timeout=wait), server_hostname="localhost"
        ) as tls:
            tls.sendall(payload)
            try:
                return tls.recv(1024)
            except OSError:
                return b""

    # BAD (status 3) for a Thrift call sent without SASL, an oversized START and a malformed PLAIN response
    assert raw(struct.pack(">i", -2147418111) + b"\x00\x00\x00\x11get_all_databases").startswith(b"\x03")
    assert raw(b"\x01\x7f\xff\xff\xff" + b"x" * 100).startswith(b"\x03")
    assert raw(b"\x01\x00\x00\x00\x05PLAIN\x02\x00\x00\x00\x03a\x00b").startswith(b"\x03")
    raw(b"\x01\x00\x00", wait=0.5)  # a truncated message, left hanging: the server serves others meanwhile

    bob, bob_transport = _client(port, ca, "bob", BOB_PASSWORD)
    assert bob.get_all_databases() == ["default", "shop"]  # the server kept serving
    assert alice.get_database("shop").name == "shop"
    transport.close()
    bob_transport.close()

    lines = [dict(f.split("=", 1) for f in line.split("\t")) for line in audit.read_text().splitlines()]
    assert [(l["principal"], l["ugi"], l["method"]) for l in lines] == [
        ("alice", "root", "set_ugi"),
        ("alice", "root", "get_all_databases"),
        ("alice", "root", "create_database"),
        ("bob", "-", "get_all_databases"),
        ("alice", "root", "get_database"),
    ]
    for text in (audit.read_text(), server_log.read_text()):
        assert PASSWORD not in text and BOB_PASSWORD not in text


def test_password_mode_refuses_unsafe_setups(certs, tmp_path):
    passwords = tmp_path / "passwords"
    write_passwords(passwords, {"alice": "x"})
    base = CLI + [
        "serve",
        "--port",
        str(free_port()),
        "--db-url",
        f"sqlite:///{tmp_path / 'c.db'}",
        "--auth",
        "password",
    ]
    for extra, message in (
        ([], "needs --password-file"),
        (["--password-file", str(passwords), "--no-metaserver"], "sends passwords in clear without TLS"),
        (
            [
                "--password-file",
                str(passwords),
                "--tls-cert",
                str(certs / "server.pem"),
                "--tls-key",
                str(certs / "server.key"),
            ],
            "metaserver protocol has no authentication",
        ),
    ):
        refused = subprocess.run(base + extra, capture_output=True, text=True, timeout=60)
        assert refused.returncode != 0 and message in refused.stderr, refused.stderr
