"""docs/security.md's Kerberos clients (``tests/support/doc_examples.py``), run as written against a
Kerberized ``serve`` with the private realm: ``kinit`` and ``hudi-metastore status --auth kerberos``, then
the Python helper on the same ticket; ``status`` over TLS with ``auth-int``; and its one-line failures
without a ticket and for a service whose key the server does not hold."""

from __future__ import annotations

import subprocess

from tests.support.doc_examples import REPOSITORY, examples, run_example
from tests.support.servers import CLI

from .conftest import USERS, start_kerberized_server, stop

DOC = REPOSITORY / "docs" / "security.md"


def _status(env: dict[str, str], port: int, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        CLI + ["status", "--uri", f"thrift://localhost:{port}", "--auth", "kerberos", *options],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_documented_kerberos_clients_connect(kdc, kerberized_server, tmp_path):
    documented = examples(DOC)
    port = kerberized_server.port
    replace = {"localhost:9083": f"localhost:{port}", "EXAMPLE.COM": kdc.realm}
    env = kdc.client_env(tmp_path / "alice-ticket")  # kinit of the example writes this cache
    status = run_example(documented["kerberos-status"], tmp_path, replace, env=env, stdin=USERS["alice"] + "\n")
    assert status.returncode == 0, status.stderr
    answer = status.stdout.splitlines()[-1]  # after kinit's prompt
    assert answer.startswith(f"ok thrift://localhost:{port}: get_all_databases answered in "), status.stdout
    python = run_example(documented["kerberos-python"], tmp_path, replace, env=env)
    assert (python.returncode, python.stdout) == (0, "['default']\n"), python.stderr
    assert f"principal=alice@{kdc.realm}" in kerberized_server.audit.read_text()

    no_ticket = _status(kdc.client_env(None), port)
    assert no_ticket.returncode == 1 and len(no_ticket.stderr.splitlines()) == 1, no_ticket.stderr
    assert no_ticket.stderr.startswith(f"failed: thrift://localhost:{port}: Kerberos: ") and (
        "No Kerberos credentials available" in no_ticket.stderr
    )
    other = _status(env, port, "--kerberos-service-principal", "hive/otherhost")  # the default realm
    assert other.returncode == 1 and len(other.stderr.splitlines()) == 1, other.stderr
    assert other.stderr.startswith(
        f"failed: thrift://localhost:{port}: the server refused the GSSAPI authentication: Kerberos: "
    )


def test_status_over_tls_with_integrity_only(kdc, tmp_path):
    made = run_example(examples(DOC)["openssl"], tmp_path, {})
    assert made.returncode == 0, made.stderr
    home = tmp_path / "server"
    home.mkdir()
    tls = ["--tls-cert", str(tmp_path / "server.pem"), "--tls-key", str(tmp_path / "server.key")]
    server = start_kerberized_server(kdc, home, *tls, "--sasl-qop", "auth,auth-int")
    try:
        env = kdc.client_env(kdc.kinit("bob", USERS["bob"]))
        answered = _status(env, server.port, "--tls-ca", str(tmp_path / "server.pem"))
        assert answered.returncode == 0, answered.stderr
        assert f"principal=bob@{kdc.realm}" in server.audit.read_text()
        plain = _status(env, server.port)
        assert plain.returncode == 1 and "closed the connection during the SASL negotiation" in plain.stderr
    finally:
        stop(server)
