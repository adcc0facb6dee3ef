"""The console's security: sessions are delegation tokens of the catalog database (signed in with a password or
a Kerberos user's token, accepted by every server on the database, cancelled on sign-out); scripts may send
HTTP Basic credentials or a bearer token; the same ``--authorization`` decisions as the Thrift reads; one audit
line per request with no secret in it; sign-in never sends a browser to another site."""

from __future__ import annotations

import base64
from urllib.parse import quote, urlencode

import pytest

from console.security import SESSION_COOKIE, ConsoleSecurity
from hms_adapter.audit import AuditLog
from hms_adapter.passwords import PasswordFile
from hudi_catalog import Catalog
from hudi_catalog.authorization import AccessMode, AccessPolicy, Principal, PrivilegeGrant, SecuredObject
from hudi_catalog.catalog_scope import catalog_scope
from hudi_catalog.model import Column, Database, DatabaseCatalog, StorageDescriptor, Table
from tests.console.pages import get, request, rows
from tests.support.authorization import USERS, _password
from tests.support.servers import write_passwords

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


@pytest.fixture(scope="module")
def passwords(tmp_path_factory):
    path = tmp_path_factory.mktemp("console-passwords") / "passwords"
    write_passwords(path, {user: _password(user) for user in USERS})
    return PasswordFile(str(path))


def sign_in(port: int, user: str, password: str, next_path: str = "/") -> tuple[int, str, str]:
    """(status, where it sends the browser, the session cookie's header)."""
    body = urlencode({"user": user, "password": password, "next": next_path}).encode()
    answer = request(port, "POST", "/login", body, FORM)
    cookie = next((c for c in answer.cookies() if c.startswith(SESSION_COOKIE + "=")), "")
    return answer.status, answer.header("location"), cookie


def session_of(cookie_header: str) -> dict[str, str]:
    return {"Cookie": cookie_header.split(";", 1)[0]}


def _tables(catalog: Catalog) -> None:
    catalog.databases.create(Database("shop", owner_name="alice", owner_type="USER"))
    for name in ("orders", "secret_plans"):
        catalog.tables.create(
            Table("shop", name, sd=StorageDescriptor(columns=[Column("x", "int")]), owner="alice", owner_type="USER")
        )


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_password_session_is_a_delegation_token_every_server_accepts_until_sign_out(
    db_url, warehouse, passwords, serve_console, tmp_path
):
    catalogs = [Catalog.open(db_url, str(warehouse)) for _ in range(2)]
    audit_path = tmp_path / "audit.log"
    audit = AuditLog(str(audit_path))
    try:
        security = ConsoleSecurity("password", passwords.check, passwords.groups_of, audit=audit)
        first, second = (serve_console(c, security) for c in catalogs)

        stylesheet = get(first.port, "/static/console.css")  # the sign-in page's too: no session needed
        assert stylesheet.status == 200 and stylesheet.header("content-type").startswith("text/css")
        answer = get(first.port, "/health?x=1")
        assert answer.status == 303 and answer.header("location") == "/login?next=" + quote("/health?x=1", safe="")
        assert get(first.port, "/login").status == 200
        assert sign_in(first.port, "alice", "wrong")[0] == 401
        assert sign_in(first.port, "nobody", "whatever")[0] == 401

        status, location, cookie = sign_in(first.port, "alice", _password("alice"), "/health")
        assert (status, location) == (303, "/health")
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
        assert "Secure" not in cookie  # plain HTTP here; under TLS the cookie is Secure
        page = get(second.port, "/health", session_of(cookie))  # the other server knows the session
        assert page.status == 200 and '<span id="viewer">alice</span>' in page.body

        # a sign-in only ever sends the browser to a page of this console
        for elsewhere in ("https://evil.example/", "//evil.example/x", "/\\evil.example"):
            assert sign_in(first.port, "bob", _password("bob"), elsewhere)[1] == "/"

        out = request(first.port, "POST", "/logout", b"", session_of(cookie))
        assert out.status == 303 and out.header("location") == "/login"
        assert get(second.port, "/health", session_of(cookie)).status == 303  # cancelled: back to sign-in

        # scripts: HTTP Basic credentials, or a bearer token; refused ones get 401, not a redirect
        basic = {"Authorization": "Basic " + base64.b64encode(f"bob:{_password('bob')}".encode()).decode()}
        assert get(first.port, "/health", basic).status == 200
        assert get(first.port, "/health", {"Authorization": "Basic Ym9iOm5vcGU="}).status == 401
        token = catalogs[0].delegation_tokens.issue("carol", "carol")
        assert get(second.port, "/", {"Authorization": f"Bearer {token}"}).status == 200
        assert get(second.port, "/", {"Authorization": "Bearer not-a-token"}).status == 401
    finally:
        for catalog in catalogs:
            catalog.close()
        for handler in list(audit.logger.handlers):
            audit.logger.removeHandler(handler)
            handler.close()
    logged = audit_path.read_text()
    assert "principal=alice\tugi=-\tclient=127.0.0.1:" in logged and "method=console.health" in logged
    assert "method=console.login\tobject=-\toutcome=http-401" in logged
    assert "principal=carol" in logged and "method=console.catalogs\tobject=-\toutcome=ok" in logged
    assert "principal=anonymous\tugi=-\tclient=127.0.0.1:" in logged and "method=console.stylesheet" in logged
    cookie_value = cookie.split(";", 1)[0].split("=", 1)[1]
    for secret in (_password("alice"), _password("bob"), cookie_value, token):
        assert secret not in logged


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_kerberos_user_signs_in_with_a_delegation_token(catalog, serve_console):
    console = serve_console(catalog, ConsoleSecurity("kerberos"))
    form = get(console.port, "/login")
    assert 'name="token"' in form.body and 'name="password"' not in form.body
    token = catalog.delegation_tokens.issue("carol", "carol")  # what get_delegation_token gives a ticket holder
    answer = request(console.port, "POST", "/login", urlencode({"token": token, "next": "/"}).encode(), FORM)
    assert answer.status == 303
    page = get(console.port, "/", session_of(answer.cookies()[0]))
    assert '<span id="viewer">carol</span>' in page.body
    refused = request(console.port, "POST", "/login", urlencode({"token": "garbage"}).encode(), FORM)
    assert refused.status == 401 and "not accepted" in refused.body
    huge = request(console.port, "POST", "/login", b"token=" + b"x" * 10_000, FORM)
    assert huge.status == 413


@pytest.mark.parametrize("mode", ["owner", "privileges"])
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_user_sees_only_what_thrift_would_show_them(db_url, warehouse, passwords, serve_console, mode):
    catalog = Catalog.open(db_url, str(warehouse), access_policy=AccessPolicy(AccessMode(mode), frozenset({"root"})))
    try:
        _tables(catalog)
        catalog.authorization.grant_privileges(
            [
                PrivilegeGrant(
                    SecuredObject.of_table("shop", "orders"), Principal("bob"), "SELECT", grantor=Principal("alice")
                )
            ],
            "alice",
        )
        console = serve_console(catalog, ConsoleSecurity("password", passwords.check, passwords.groups_of))
        bob = session_of(sign_in(console.port, "bob", _password("bob"))[2])
        root = session_of(sign_in(console.port, "root", _password("root"))[2])
        listing = rows(get(console.port, "/catalogs/hive/databases/shop", bob).body, "tables")
        secret_page = get(console.port, "/catalogs/hive/databases/shop/tables/secret_plans", bob)
        if mode == "owner":  # everyone reads
            assert [r[0] for r in listing] == ["orders", "secret_plans"] and secret_page.status == 200
        else:  # privileges: bob holds SELECT on orders only
            assert [r[0] for r in listing] == ["orders"]
            assert secret_page.status == 403 and "secret_plans" in secret_page.body
            assert get(console.port, "/catalogs/hive/databases/shop/tables/secret_plans/partitions", bob).status == 403
        assert get(console.port, "/catalogs/hive/databases/shop/tables/orders", bob).status == 200
        # events are an admin's read, as get_next_notification is
        assert get(console.port, "/events", bob).status == 403
        assert get(console.port, "/events", root).status == 200
    finally:
        catalog.close()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_table_of_another_catalog_is_authorized_in_that_catalog(db_url, warehouse, passwords, serve_console):
    policy = AccessPolicy(AccessMode("privileges"), frozenset({"root"}))
    catalog = Catalog.open(db_url, str(warehouse), access_policy=policy)
    try:
        catalog.catalogs.create(DatabaseCatalog("lab", location=str(warehouse / "lab")))
        with catalog_scope("lab"):
            _tables(catalog)
            grant = PrivilegeGrant(
                SecuredObject.of_table("shop", "orders"), Principal("bob"), "SELECT", grantor=Principal("alice")
            )
            catalog.authorization.grant_privileges([grant], "alice")
        _tables(catalog)  # the same names in hive, where bob holds nothing
        console = serve_console(catalog, ConsoleSecurity("password", passwords.check, passwords.groups_of))
        bob = session_of(sign_in(console.port, "bob", _password("bob"))[2])
        assert get(console.port, "/catalogs/lab/databases/shop/tables/orders", bob).status == 200
        assert get(console.port, "/catalogs/hive/databases/shop/tables/orders", bob).status == 403
        assert [r[0] for r in rows(get(console.port, "/catalogs/lab/databases/shop", bob).body, "tables")] == ["orders"]
    finally:
        catalog.close()
