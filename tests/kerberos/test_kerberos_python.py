"""``serve --auth kerberos`` with Python clients: Apache Thrift's ``TSaslClientTransport`` with pure-sasl's
GSSAPI (what PyIceberg's ``HiveCatalog`` uses with ``hive.kerberos-authentication``), each quality of
protection, PyIceberg itself, and a raw SASL client written on ``gssapi`` for what real clients never send:
a ticket for another service, an authorization id naming someone else, garbage tokens."""

from __future__ import annotations

import secrets
import socket
import struct
import threading
import time

import pytest
from hive_metastore import ThriftHiveMetastore

from .conftest import USERS, receive_sasl_message, sasl_client, send_sasl_message, start_kerberized_server, stop

SECRET_NAME = "db_" + secrets.token_hex(6)


class RecordingProxy:
    """Forwards one port to another and keeps every byte the client sent, to see what crosses the wire."""

    def __init__(self, target_port: int) -> None:
        self.sent = bytearray()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._target = target_port
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        client, _ = self._listener.accept()
        upstream = socket.create_connection(("127.0.0.1", self._target))

        def pump(source, sink, record) -> None:
            while data := source.recv(65536):
                if record:
                    self.sent += data
                sink.sendall(data)
            sink.close()

        threading.Thread(target=pump, args=(client, upstream, True), daemon=True).start()
        threading.Thread(target=pump, args=(upstream, client, False), daemon=True).start()


@pytest.mark.parametrize("qop", [b"auth", b"auth-int", b"auth-conf"])
def test_each_quality_of_protection_serves_calls(kdc, kerberized_server, alice_cache, use_ticket, qop):
    use_ticket(alice_cache)
    proxy = RecordingProxy(kerberized_server.port)
    client, transport = sasl_client(proxy.port, qop)
    assert transport.sasl.qop == qop
    client.set_ugi("root", [])  # a claim: the identity stays alice's principal
    client.create_database(ThriftHiveMetastore.Database(name=SECRET_NAME, parameters={}))
    assert client.get_database(SECRET_NAME).name == SECRET_NAME
    big = "x" * 200_000  # a frame far larger than one GSS wrap token's usual size (in a parameter: a description
    # holds at most 65,535 bytes, as a MySQL TEXT column)
    client.alter_database(SECRET_NAME, ThriftHiveMetastore.Database(name=SECRET_NAME, parameters={"big": big}))
    assert client.get_database(SECRET_NAME).parameters["big"] == big
    transport.close()
    # only auth-conf hides the calls; auth-int signs them (readable), auth sends them as they are
    assert (SECRET_NAME.encode() in proxy.sent) == (qop != b"auth-conf")
    lines = kerberized_server.audit.read_text().splitlines()
    assert lines and all(
        f"principal=alice@{kdc.realm}" in line and "ugi=root" in line
        for line in lines
        if "method=create_database" in line
    )


def test_pyiceberg_hive_catalog_with_kerberos(kdc, kerberized_server, alice_cache, use_ticket):
    from pyiceberg.catalog.hive import HiveCatalog
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField

    use_ticket(alice_cache)
    catalog = HiveCatalog(
        "krb",
        uri=f"thrift://localhost:{kerberized_server.port}",
        **{"hive.kerberos-authentication": "true", "warehouse": f"file://{kerberized_server.audit.parent / 'iceberg'}"},
    )
    catalog.create_namespace("lake")
    catalog.create_table("lake.events", Schema(NestedField(1, "id", LongType(), required=False)))
    assert catalog.load_table("lake.events").schema().find_field("id").field_id == 1
    assert ("lake", "events") in catalog.list_tables("lake")


# -- a raw SASL GSSAPI client, for what real clients never send ------------------------------------------


def _raw_gssapi(port: int, service_principal: str, authorization_id: bytes = b"") -> tuple[int, bytes]:
    """Runs the GSSAPI exchange by hand; returns the server's last status and payload."""
    import gssapi

    name = gssapi.Name(service_principal, gssapi.NameType.kerberos_principal)
    context = gssapi.SecurityContext(name=name, usage="initiate", flags=[gssapi.RequirementFlag.mutual_authentication])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        send_sasl_message(sock, 1, b"GSSAPI")
        send_sasl_message(sock, 2, context.step())
        while True:
            status, payload = receive_sasl_message(sock)
            if status != 2:
                return status, payload
            if not context.complete:
                send_sasl_message(sock, 2, context.step(payload) or b"")
                continue
            offer = context.unwrap(payload).message
            choice = struct.pack(">I", 1 << 24 | (struct.unpack(">I", offer)[0] & 0xFFFFFF)) + authorization_id
            send_sasl_message(sock, 2, context.wrap(choice, False).message)


def test_refusals_leave_the_server_serving(kdc, kerberized_server, alice_cache, use_ticket, tmp_path):
    use_ticket(alice_cache)
    port = kerberized_server.port
    assert _raw_gssapi(port, kerberized_server.principal)[0] == 5  # the raw client itself works: COMPLETE
    status, reason = _raw_gssapi(port, kerberized_server.principal, authorization_id=f"bob@{kdc.realm}".encode())
    assert (status, reason) == (3, f"alice@{kdc.realm} may not act as bob@{kdc.realm}".encode())
    import gssapi

    # a ticket for another service: the server holds no key for it
    status, reason = _raw_gssapi(port, kdc.principal("hive/otherhost"))
    assert status == 3 and reason.startswith(b"Kerberos:"), reason
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:  # a garbage token
        send_sasl_message(sock, 1, b"GSSAPI")
        send_sasl_message(sock, 2, secrets.token_bytes(300))
        assert receive_sasl_message(sock)[0] == 3
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:  # an oversized declared length
        sock.sendall(b"\x01\x00\x00\x00\x06GSSAPI\x02\x7f\xff\xff\xff")
        assert receive_sasl_message(sock)[0] == 3

    use_ticket(None)  # no ticket at all: the client cannot even start
    with pytest.raises(Exception, match="(?i)credential|ticket|No Kerberos"):
        sasl_client(port)
    with pytest.raises(gssapi.exceptions.GSSError):
        _raw_gssapi(port, kerberized_server.principal)

    expiring = kdc.kinit("bob", USERS["bob"], lifetime="3s")
    use_ticket(expiring)
    time.sleep(4)
    with pytest.raises(Exception, match="(?i)expired|credential"):
        sasl_client(port)

    use_ticket(alice_cache)
    client, transport = sasl_client(port)
    assert "default" in client.get_all_databases()
    transport.close()
    assert kerberized_server.process.poll() is None
    assert "alice-krb-pass" not in kerberized_server.log.read_text()


def test_kerberos_options_are_checked_before_listening(kdc, tmp_path):
    import subprocess

    from tests.support.servers import CLI

    base = CLI + [
        "serve",
        "--port",
        "0",
        "--db-url",
        f"sqlite:///{tmp_path / 'c.db'}",
        "--no-metaserver",
        "--auth",
        "kerberos",
    ]
    for extra, message in (
        ([], "needs --kerberos-principal and --kerberos-keytab"),
        (
            ["--kerberos-principal", "hive/_HOST@X", "--kerberos-keytab", "k", "--sasl-qop", "auth,secret"],
            "unknown quality of protection 'secret'",
        ),
        (
            ["--kerberos-principal", f"nobody/localhost@{kdc.realm}", "--kerberos-keytab", str(kdc.keytab)],
            f"cannot use the key of nobody/localhost@{kdc.realm}",
        ),
    ):
        refused = subprocess.run(base + extra, capture_output=True, text=True, timeout=60, env=kdc.env)
        assert refused.returncode != 0 and message in refused.stderr, refused.stderr


def test_a_server_allowing_only_auth_conf_refuses_weaker_choices(kdc, tmp_path, alice_cache, use_ticket):
    server = start_kerberized_server(kdc, tmp_path, "--sasl-qop", "auth-conf")
    try:
        use_ticket(alice_cache)
        status, reason = _raw_gssapi(server.port, server.principal)  # the raw client chooses auth
        assert status == 3 and b"does not allow (auth-conf)" in reason
        client, transport = sasl_client(server.port)  # pure-sasl picks what the server offers
        assert transport.sasl.qop == b"auth-conf" and client.get_all_databases() == ["default"]
        transport.close()
    finally:
        stop(server)
