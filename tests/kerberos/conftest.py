"""A private Kerberos realm for the session (``kdc.PrivateKdc``), a Kerberized server per test, and clients.

The realm has the metastore's service principal ``hive/localhost`` (with a keytab), a second service
``hive/otherhost`` whose key the server does not hold, and the users ``alice`` and ``bob`` with passwords.
Outside CI, a machine that cannot install the Kerberos tools skips these tests; in CI it fails them.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import skip_or_fail
from tests.hms_adapter.test_cli import CLI, _wait_for_port, free_port

from .kdc import PrivateKdc, ensure_kerberos

SERVICE = "hive/localhost"
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
    command = CLI + ["serve", "--host", "127.0.0.1", "--port", str(port), "--no-metaserver",
                     "--db-url", db_url or f"sqlite:///{home / 'c.db'}", "--warehouse", str(home / "wh"),
                     "--auth", "kerberos", "--kerberos-principal", f"hive/_HOST@{kdc.realm}",
                     "--kerberos-keytab", str(kdc.keytab), "--audit-log", str(audit), *extra]
    env = {**kdc.env, "KRB5CCNAME": f"FILE:{home}/server-has-no-ticket"}
    process = subprocess.Popen(command, stdout=open(log_path, "w"), stderr=subprocess.STDOUT, text=True, env=env)
    _wait_for_port(port, process)
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

