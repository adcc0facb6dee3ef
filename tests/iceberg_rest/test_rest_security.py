"""The REST port's security: bearer tokens from the OAuth2 token endpoint (``--auth password``) or delegation
tokens (as a Kerberos user gets over Thrift), accepted by every server on the catalog database and refused
once cancelled; the same ``--authorization`` decisions as the Thrift calls; one audit line per request, with
no secret in it; and TLS with the Thrift ports' certificates, through ``hudi-metastore serve`` itself."""

from __future__ import annotations

import http.client
import json
import signal
import ssl
import subprocess
import urllib.error
import urllib.parse
import urllib.request

import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import ForbiddenError, NoSuchTableError, OAuthError, UnauthorizedError
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField

from hms_adapter.audit import AuditLog
from hms_adapter.passwords import PasswordFile
from hudi_catalog import Catalog
from hudi_catalog.authorization import AccessMode, AccessPolicy
from iceberg_rest.security import RestSecurity
from iceberg_rest.server import RestServer
from tests.support.authorization import USERS, _password
from tests.support.servers import free_port, serve_command, wait_for_port, write_passwords

SCHEMA = Schema(NestedField(1, "id", LongType(), required=False))


@pytest.fixture(scope="module")
def passwords(tmp_path_factory):
    path = tmp_path_factory.mktemp("rest-passwords") / "passwords"
    write_passwords(path, {user: _password(user) for user in USERS})
    return PasswordFile(str(path))


def start(catalog: Catalog, security: RestSecurity) -> RestServer:
    server = RestServer(catalog, "127.0.0.1", 0, security=security)
    server.start()
    return server


def as_user(uri: str, user: str, **properties) -> RestCatalog:
    """PyIceberg's REST client as ``user``, through the client credentials flow."""
    properties = {"oauth2-server-uri": f"{uri}/v1/oauth/tokens", "credential": f"{user}:{_password(user)}"} | properties
    return RestCatalog(user, uri=uri, **properties)


def uri_of(server: RestServer) -> str:
    return f"http://127.0.0.1:{server.port}"


def request_json(
    port: int, method: str, path: str, data: bytes | None = None, headers=None, scheme="http", context=None
):
    request = urllib.request.Request(
        f"{scheme}://127.0.0.1:{port}{path}", data=data, method=method, headers=headers or {}
    )
    try:
        with urllib.request.urlopen(request, timeout=30, context=context) as response:
            return response.status, response.headers, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, error.headers, json.loads(error.read() or b"null")


def token_of(port: int, user: str, password: str):
    form = urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": user, "client_secret": password})
    return request_json(
        port, "POST", "/v1/oauth/tokens", form.encode(), {"Content-Type": "application/x-www-form-urlencoded"}
    )


@pytest.fixture
def password_server(catalog, passwords, tmp_path):
    audit_path = tmp_path / "audit.log"
    audit = AuditLog(str(audit_path))
    server = start(catalog, RestSecurity("password", passwords.check, passwords.groups_of, audit=audit))
    yield server, audit_path
    server.stop()
    for handler in list(audit.logger.handlers):
        audit.logger.removeHandler(handler)
        handler.close()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_password_users_get_bearer_tokens_and_nothing_passes_without_one(password_server, catalog, client):
    server, audit_path = password_server
    status, headers, body = request_json(server.port, "GET", "/v1/namespaces")
    assert (status, body["error"]["type"]) == (401, "NotAuthorizedException")
    assert headers["WWW-Authenticate"].startswith("Bearer")
    status, _, body = request_json(
        server.port, "GET", "/v1/namespaces", headers={"Authorization": "Bearer not-a-token"}
    )
    assert status == 401 and body["error"]["code"] == 401

    status, headers, body = token_of(server.port, "alice", "wrong")
    assert (status, body["error"]) == (401, "invalid_client")
    status, _, body = token_of(server.port, "nobody", "whatever")
    assert (status, body["error"]) == (401, "invalid_client")
    with pytest.raises(OAuthError):
        as_user(uri_of(server), "alice", credential="alice:wrong")

    status, headers, body = token_of(server.port, "alice", _password("alice"))
    assert status == 200 and body["token_type"] == "bearer" and body["expires_in"] > 0
    assert headers["Cache-Control"] == "no-store"
    token = body["access_token"]
    status, _, body = request_json(server.port, "GET", "/v1/namespaces", headers={"Authorization": f"Bearer {token}"})
    assert status == 200 and body["namespaces"] == [["default"]]

    alice = as_user(uri_of(server), "alice")
    alice.create_namespace("shop")
    alice.create_table("shop.t", SCHEMA)
    assert client.get_table("shop", "t").owner == "alice"
    assert client.get_database("shop").ownerName == "alice"

    # a token is a delegation token of the catalog database: cancelled, it is refused at once
    catalog.delegation_tokens.cancel(token, "alice")
    status, _, body = request_json(server.port, "GET", "/v1/namespaces", headers={"Authorization": f"Bearer {token}"})
    assert (status, body["error"]["type"]) == (401, "NotAuthorizedException")

    audit = audit_path.read_text()
    assert "principal=alice\tugi=-\tclient=127.0.0.1:" in audit
    assert "method=createTable\tobject=shop.t\toutcome=ok" in audit
    assert "method=getToken\tobject=token:alice\toutcome=http-401" in audit
    assert "method=listNamespaces\tobject=-\toutcome=http-401" in audit
    assert _password("alice") not in audit and token not in audit


@pytest.mark.parametrize("db_url", ["mysql"], indirect=True)
def test_a_token_from_one_server_is_good_on_another_over_the_same_database(db_url, warehouse, passwords):
    catalogs = [Catalog.open(db_url, str(warehouse)) for _ in range(2)]
    servers = [start(c, RestSecurity("password", passwords.check, passwords.groups_of)) for c in catalogs]
    try:
        status, _, body = token_of(servers[0].port, "bob", _password("bob"))
        assert status == 200
        bearer = {"Authorization": f"Bearer {body['access_token']}"}
        assert request_json(servers[1].port, "GET", "/v1/namespaces", headers=bearer)[0] == 200
    finally:
        for server in servers:
            server.stop()
        for catalog in catalogs:
            catalog.close()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_kerberos_users_delegation_token_is_a_bearer_token(catalog):
    server = start(catalog, RestSecurity("kerberos"))
    try:
        token = catalog.delegation_tokens.issue("carol", "carol")  # what get_delegation_token gives a ticket holder
        carol = RestCatalog("carol", uri=f"http://127.0.0.1:{server.port}", token=token)
        carol.create_namespace("lab")
        assert catalog.databases.get("lab").owner_name == "carol"
        status, _, body = token_of(server.port, "carol", "anything")  # no passwords under Kerberos
        assert (status, body["error"]) == (400, "unsupported_grant_type")
        assert "delegation token" in body["error_description"]
    finally:
        server.stop()


@pytest.mark.parametrize("mode", ["owner", "privileges"])
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_authorization_decides_as_for_thrift_calls(db_url, warehouse, passwords, mode):
    catalog = Catalog.open(db_url, str(warehouse), access_policy=AccessPolicy(AccessMode(mode), frozenset({"root"})))
    server = start(catalog, RestSecurity("password", passwords.check, passwords.groups_of))
    try:
        alice, bob, root = (as_user(uri_of(server), user) for user in ("alice", "bob", "root"))
        alice.create_namespace("shop")
        table = alice.create_table("shop.t", SCHEMA)
        table.transaction().set_properties(owner_note="alice's").commit_transaction()  # the owner changes it
        with pytest.raises(ForbiddenError):
            bob.drop_table("shop.t")
        with pytest.raises(ForbiddenError):
            bob.rename_table("shop.t", "shop.stolen")
        if mode == "owner":  # everyone reads; only the owner and admins change
            loaded = bob.load_table("shop.t")
            with pytest.raises(ForbiddenError):
                loaded.transaction().set_properties(x="bob").commit_transaction()
            assert bob.list_tables("shop") == [("shop", "t")]
        else:  # privileges: bob holds none on the table
            with pytest.raises(ForbiddenError):
                bob.load_table("shop.t")
            assert bob.list_tables("shop") == []
        assert "x" not in alice.load_table("shop.t").properties
        root.drop_table("shop.t")  # an admin may
        with pytest.raises(NoSuchTableError):
            alice.load_table("shop.t")
    finally:
        server.stop()
        catalog.close()


def test_serve_gives_the_rest_port_tls_and_password_authentication(certs, tmp_path, monkeypatch):
    """``hudi-metastore serve`` as a user runs it: the REST port has the Thrift ports' TLS and users."""
    for variable in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):  # requests lets them override PyIceberg's CA
        monkeypatch.delenv(variable, raising=False)
    passwords = tmp_path / "passwords"
    write_passwords(passwords, {"alice": _password("alice")})
    port, rest_port = free_port(), free_port()
    options = ["--auth", "password", "--password-file", str(passwords), "--tls-cert", str(certs / "server.pem")]
    options += ["--tls-key", str(certs / "server.key"), "--iceberg-rest-port", str(rest_port)]
    log = tmp_path / "serve.log"
    with log.open("w") as stderr:
        process = subprocess.Popen(
            serve_command(port, db_url=f"sqlite:///{tmp_path / 'c.db'}", warehouse=tmp_path / "wh", extra=options),
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        wait_for_port(rest_port, process, log=log)
        alice = as_user(f"https://127.0.0.1:{rest_port}", "alice", ssl={"cabundle": str(certs / "ca.pem")})
        alice.create_namespace("secure")
        assert alice.list_namespaces() == [("default",), ("secure",)]
        with pytest.raises((urllib.error.URLError, http.client.HTTPException, ConnectionError)):  # plain HTTP
            urllib.request.urlopen(f"http://127.0.0.1:{rest_port}/v1/config", timeout=10)
        with pytest.raises(UnauthorizedError):
            RestCatalog("anon", uri=f"https://127.0.0.1:{rest_port}", ssl={"cabundle": str(certs / "ca.pem")})
        untrusted = ssl.create_default_context()
        with pytest.raises(urllib.error.URLError):
            urllib.request.urlopen(f"https://127.0.0.1:{rest_port}/v1/config", timeout=10, context=untrusted)
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0, log.read_text()[-3000:]
