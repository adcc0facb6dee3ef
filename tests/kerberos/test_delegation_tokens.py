"""Delegation tokens over the wire: a Kerberos-authenticated client gets one; a client without a ticket
authenticates with it by SASL DIGEST-MD5 (a client written here from RFC 2831; Hive's own Java client is in
``test_kerberos_java``); renewal, cancellation, expiry; two servers on
one catalog database accept each other's tokens; the token as a Kerberos user's bearer token on the Iceberg REST
port."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import socket
import struct
import time

import pytest
from hive_metastore import ThriftHiveMetastore
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import UnauthorizedError
from thrift.protocol import TBinaryProtocol
from thrift.transport import TSocket, TTransport

from hudi_catalog.delegation_tokens import TokenIdentifier, decode_token, encode_token
from tests.support.servers import free_port, wait_for_port

from .conftest import USERS, receive_sasl_message, sasl_client, send_sasl_message, start_kerberized_server, stop

START, OK, BAD, COMPLETE = 1, 2, 3, 5


def token_client(port: int, token: str):
    """A client authenticated by DIGEST-MD5 with ``token`` (qop ``auth``: frames as Thrift's framed
    transport writes them). pure-sasl's DIGEST-MD5 cannot serve here: it has no answer for the empty first
    challenge Thrift's SASL transport sends, so the negotiation is ``_negotiate``'s, written from RFC 2831."""
    sock = TSocket.TSocket("localhost", port)
    sock.setTimeout(10_000)
    sock.open()
    status, payload, _ = _negotiate_on(sock.handle, lambda challenge: _digest_response(token, challenge))
    if status != COMPLETE:
        sock.close()
        raise TTransport.TTransportException(
            TTransport.TTransportException.NOT_OPEN, f"DIGEST-MD5 refused: {payload.decode(errors='replace')}"
        )
    transport = TTransport.TFramedTransport(sock)
    return ThriftHiveMetastore.Client(TBinaryProtocol.TBinaryProtocol(transport)), transport


def _get_token(port: int, owner: str = "alice", renewer: str = "alice") -> str:
    client, transport = sasl_client(port)
    try:
        return client.get_delegation_token(owner, renewer)
    finally:
        transport.close()


@pytest.fixture
def alice_ticket(alice_cache, use_ticket):
    use_ticket(alice_cache)


def test_a_client_without_a_ticket_authenticates_with_a_token(kdc, kerberized_server, alice_ticket, use_ticket):
    token = _get_token(kerberized_server.port, "alice", f"alice@{kdc.realm}")
    identifier = TokenIdentifier.decode(decode_token(token)[0])
    assert (identifier.owner, identifier.renewer, identifier.real_user) == ("alice", "alice", "")
    assert identifier.max_date - identifier.issue_date == 7 * 86400 * 1000  # Hive's default max lifetime

    import kerberos  # installed by the kdc fixture when missing

    use_ticket(None)  # from here on, no Kerberos ticket
    with pytest.raises(kerberos.GSSError, match="No Kerberos credentials"):
        sasl_client(kerberized_server.port)
    client, transport = token_client(kerberized_server.port, token)
    client.create_database(ThriftHiveMetastore.Database(name="by_token", parameters={}))
    assert "by_token" in client.get_all_databases()
    # a token's holder may not get another token: only Kerberos issues them
    with pytest.raises(ThriftHiveMetastore.MetaException, match="only with kerberos authentication"):
        client.get_delegation_token("alice", "alice")
    transport.close()
    audit = kerberized_server.audit.read_text()
    assert any("principal=alice\t" in line and "method=create_database" in line for line in audit.splitlines())
    assert "method=get_delegation_token\tobject=token:alice\toutcome=ok" in audit
    log = kerberized_server.log.read_text()
    assert token not in log and token not in audit
    assert base64.b64encode(decode_token(token)[1]).decode() not in log


def test_renewal_and_cancellation(kdc, kerberized_server, alice_ticket, use_ticket):
    port = kerberized_server.port
    token = _get_token(port, "alice", f"alice@{kdc.realm}")
    client, transport = sasl_client(port)
    try:
        # only the renewer renews; a renewal moves the expiry to now + 1 day (Hive's default)
        expiry = client.renew_delegation_token(token)
        assert abs(expiry - (time.time() + 86400) * 1000) < 60_000
        with pytest.raises(ThriftHiveMetastore.MetaException, match="not allowed to impersonate bob"):
            client.get_delegation_token("bob", "alice")
        other = client.get_delegation_token("alice", "hive/localhost@" + kdc.realm)
        with pytest.raises(ThriftHiveMetastore.MetaException, match="non-matching renewer hive"):
            client.renew_delegation_token(other)
        with pytest.raises(ThriftHiveMetastore.MetaException, match="malformed delegation token"):
            client.renew_delegation_token("not a token")
        client.cancel_delegation_token(token)
        sequence = TokenIdentifier.decode(decode_token(token)[0]).sequence_number
        assert (
            f"method=cancel_delegation_token\tobject=token:alice#{sequence}\toutcome=ok"
            in kerberized_server.audit.read_text()
        )
        with pytest.raises(ThriftHiveMetastore.MetaException, match="Token not found"):
            client.renew_delegation_token(token)
    finally:
        transport.close()

    use_ticket(kdc.kinit("bob", USERS["bob"]))  # bob is neither owner nor renewer of alice's token
    client, transport = sasl_client(port)
    with pytest.raises(ThriftHiveMetastore.MetaException, match="bob is not authorized to cancel"):
        client.cancel_delegation_token(other)
    transport.close()

    use_ticket(None)
    with pytest.raises(TTransport.TTransportException):
        token_client(port, token)  # cancelled
    token_client(port, other)[1].close()  # still good


def test_an_expired_token_is_refused(kdc, tmp_path, alice_cache, use_ticket):
    server = start_kerberized_server(kdc, tmp_path, "--token-renew-interval", "2")
    try:
        use_ticket(alice_cache)
        token = _get_token(server.port)
        use_ticket(None)
        token_client(server.port, token)[1].close()
        time.sleep(2.5)
        with pytest.raises(TTransport.TTransportException):
            token_client(server.port, token)
        assert "Token has expired" in server.log.read_text()
        assert server.process.poll() is None
    finally:
        stop(server)


def test_two_servers_on_one_database_accept_each_others_tokens(kdc, tmp_path, alice_cache, use_ticket):
    db_url = f"sqlite:///{tmp_path / 'shared.db'}"
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    first = start_kerberized_server(kdc, tmp_path / "a", db_url=db_url)
    second = start_kerberized_server(kdc, tmp_path / "b", db_url=db_url)
    try:
        use_ticket(alice_cache)
        from_first, from_second = _get_token(first.port), _get_token(second.port)
        use_ticket(None)
        for port, token in ((second.port, from_first), (first.port, from_second)):
            client, transport = token_client(port, token)
            assert "default" in client.get_all_databases()
            transport.close()
        client, transport = token_client(second.port, from_first)
        client.cancel_delegation_token(from_first)  # its owner, authenticated by the token itself
        transport.close()
        with pytest.raises(TTransport.TTransportException):
            token_client(first.port, from_first)
    finally:
        stop(first), stop(second)


# -- a DIGEST-MD5 client written from RFC 2831, for replays and garbage ------------------------------------


def _digest_response(token: str, challenge: bytes, cnonce: str = "c0ffee") -> bytes:
    nonce = re.search(r'nonce="([^"]+)"', challenge.decode()).group(1)
    identifier, password = decode_token(token)
    user, secret = base64.b64encode(identifier).decode(), base64.b64encode(password)
    md5 = hashlib.md5
    ha1 = md5(md5(f"{user}:default:".encode() + secret).digest() + f":{nonce}:{cnonce}".encode()).digest()
    ha2 = md5(b"AUTHENTICATE:hive/default").hexdigest()
    response = md5(f"{ha1.hex()}:{nonce}:00000001:{cnonce}:auth:{ha2}".encode()).hexdigest()
    return (
        f'username="{user}",realm="default",nonce="{nonce}",cnonce="{cnonce}",nc=00000001,qop=auth,'
        f'digest-uri="hive/default",response={response},charset=utf-8'
    ).encode()


def _negotiate_on(sock: socket.socket, response_for) -> tuple[int, bytes, bytes]:
    """START DIGEST-MD5, the empty initial response, then ``response_for(challenge)``; returns the server's
    last status and payload, and the response sent."""
    send_sasl_message(sock, START, b"DIGEST-MD5")
    send_sasl_message(sock, OK, b"")
    status, challenge = receive_sasl_message(sock)
    assert status == OK, challenge
    response = response_for(challenge)
    send_sasl_message(sock, OK, response)
    status, payload = receive_sasl_message(sock)
    return status, payload, response


def _negotiate(port: int, response_for) -> tuple[int, bytes, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        return _negotiate_on(sock, response_for)


def test_bad_digest_negotiations_are_refused_and_the_server_keeps_serving(
    kdc, kerberized_server, alice_ticket, use_ticket
):
    port = kerberized_server.port
    token = _get_token(port)
    status, rspauth, sent = _negotiate(port, lambda challenge: _digest_response(token, challenge))
    assert status == COMPLETE and rspauth.startswith(b"rspauth=")
    # the same response replayed on a new connection meets a new nonce
    assert _negotiate(port, lambda challenge: sent)[0] == BAD
    # a forged password: the right identifier, another HMAC
    identifier, _ = decode_token(token)
    forged = encode_token(identifier, secrets.token_bytes(20))
    assert _negotiate(port, lambda challenge: _digest_response(forged, challenge))[0] == BAD
    for garbage in (
        b"",
        b"\xff\xfe\x00",
        b'username="x',
        b"a=1,a=2",
        b"=" * 60_000,
        b'username="!!!",nonce="n",cnonce="c",nc=00000001,digest-uri="hive/default",response=0',
    ):
        assert _negotiate(port, lambda challenge: garbage)[0] == BAD, garbage[:20]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:  # an oversized message
        send_sasl_message(sock, START, b"DIGEST-MD5")
        sock.sendall(struct.pack(">BI", OK, 1 << 30))
        assert receive_sasl_message(sock)[0] == BAD
    use_ticket(None)
    client, transport = token_client(port, token)
    assert "default" in client.get_all_databases()
    transport.close()
    assert kerberized_server.process.poll() is None
    assert token not in kerberized_server.log.read_text()


def test_a_kerberos_users_token_is_their_bearer_token_on_the_iceberg_rest_port(kdc, tmp_path, alice_ticket):
    """The REST port of a Kerberos server: no password to check, so a user brings the delegation token they got
    over Thrift with their ticket; requests run as them, and without it nothing passes."""
    rest_port = free_port()
    server = start_kerberized_server(kdc, tmp_path, "--iceberg-rest-port", str(rest_port))
    try:
        wait_for_port(rest_port, server.process, log=server.log)
        uri = f"http://127.0.0.1:{rest_port}"
        with pytest.raises(UnauthorizedError):
            RestCatalog("anonymous", uri=uri).list_namespaces()
        token = _get_token(server.port, "alice", "alice")
        alice = RestCatalog("alice", uri=uri, token=token)
        alice.create_namespace("kerberized")
        client, transport = sasl_client(server.port)
        try:
            assert client.get_database("kerberized").ownerName == "alice"
        finally:
            transport.close()
        audit = server.audit.read_text()
        assert "principal=alice\tugi=-\tclient=127.0.0.1:" in audit
        assert "method=createNamespace\tobject=kerberized\toutcome=ok" in audit
        assert token not in audit
    finally:
        stop(server)
