"""The clients of docs/security.md's "Connecting a client", run as written (``tests/support/doc_examples.py``)
against ``serve`` processes in each mode: no authentication, TLS with the document's openssl certificate,
passwords, passwords over TLS; and the one-line failures of ``status``: a wrong password, no ``--auth`` at a
password server, no ``--tls-ca`` at a TLS server. Kerberos: ``tests/kerberos/test_kerberos_doc.py``."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import skip_or_fail
from tests.support.doc_examples import REPOSITORY, examples, run_example
from tests.support.servers import CLI, free_port, serve_command, wait_for_port, write_passwords

DOC = REPOSITORY / "docs" / "security.md"
PASSWORD = "doc-example-pass-1"
KERBEROS_EXAMPLES = {"kerberos-status", "kerberos-python"}
MODES = {
    "none": [],
    "tls": ["--tls-cert", "server.pem", "--tls-key", "server.key"],
    "password": ["--auth", "password", "--password-file", "passwords", "--allow-plaintext-passwords"],
    "password-tls": [
        "--auth",
        "password",
        "--password-file",
        "passwords",
        "--tls-cert",
        "server.pem",
        "--tls-key",
        "server.key",
    ],
}


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """A folder with the document's test certificate and a password file for alice."""
    folder = tmp_path_factory.mktemp("security-doc")
    made = run_example(examples(DOC)["openssl"], folder, {})
    if made.returncode != 0 and "openssl: command not found" in made.stderr:
        skip_or_fail("openssl is needed to make the test certificate")
    assert made.returncode == 0, made.stderr
    write_passwords(folder / "passwords", {"alice": PASSWORD})
    return folder


def _serve(home: Path, mode: str) -> Iterator[int]:
    port = free_port()
    log = open(home / f"server-{mode}.log", "w")
    process = subprocess.Popen(
        serve_command(port, db_url=f"sqlite:///{home / mode}.db", warehouse=home / f"wh-{mode}", extra=MODES[mode]),
        cwd=home,
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_for_port(port, process)
        yield port
    finally:
        process.terminate()
        process.wait(30)
        log.close()


@pytest.fixture(params=sorted(MODES))
def served(request, home) -> Iterator[tuple[str, int]]:
    for port in _serve(home, request.param):
        yield request.param, port


def _status(home: Path, port: int, *options: str, password: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "HUDI_METASTORE_PASSWORD"}
    if password is not None:
        env["HUDI_METASTORE_PASSWORD"] = password
    return subprocess.run(
        CLI + ["status", "--uri", f"thrift://localhost:{port}", *options],
        cwd=home,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _one_line_failure(result: subprocess.CompletedProcess[str], port: int, message: str) -> None:
    assert result.returncode == 1, result
    assert result.stderr == f"failed: thrift://localhost:{port}: {message}\n", result.stderr
    assert result.stdout == ""


def test_every_tested_example_is_run():
    assert set(examples(DOC)) == {"openssl"} | {f"{mode}-{kind}" for mode in MODES for kind in ("status", "python")} | (
        KERBEROS_EXAMPLES
    )


def test_the_documented_clients_connect(served, home):
    mode, port = served
    documented = examples(DOC)
    replace = {"localhost:9083": f"localhost:{port}"}
    status = run_example(documented[f"{mode}-status"], home, replace, stdin=PASSWORD + "\n")  # asked for: stdin
    assert status.returncode == 0, status.stderr
    assert status.stdout.startswith(f"ok thrift://localhost:{port}: get_all_databases answered in "), status.stdout
    python = run_example(documented[f"{mode}-python"], home, replace, env={"HUDI_METASTORE_PASSWORD": PASSWORD})
    assert (python.returncode, python.stdout) == (0, "['default']\n"), python.stderr

    if mode.startswith("password"):
        tls = ["--tls-ca", "server.pem"] if mode == "password-tls" else []
        wrong = _status(home, port, "--auth", "password", "--user", "alice", *tls, password="wrong")
        _one_line_failure(wrong, port, "the server refused the PLAIN authentication: authentication failed")
        unknown = _status(home, port, "--auth", "password", "--user", "mallory", *tls, password=PASSWORD)
        _one_line_failure(unknown, port, "the server refused the PLAIN authentication: authentication failed")
        no_sasl = _status(home, port, *tls)
        _one_line_failure(
            no_sasl, port, "the server requires SASL authentication: connect with --auth password or --auth kerberos"
        )
        no_user = _status(home, port, "--auth", "password", *tls)
        assert (no_user.returncode, no_user.stderr) == (1, "failed: --auth password needs --user\n")
    if mode == "none":
        sasl = _status(home, port, "--auth", "password", "--user", "alice", "--timeout", "1", password=PASSWORD)
        _one_line_failure(
            sasl,
            port,
            "the server did not answer the SASL negotiation: is it started with this --auth "
            "(and with TLS only when --tls-ca is given)?",
        )
    if mode.endswith("tls"):
        without_tls = _status(home, port)
        _one_line_failure(
            without_tls,
            port,
            "the server closed the connection without answering (a server with TLS needs --tls-ca; "
            "one with --auth, the same --auth)",
        )
    else:
        with_tls = _status(home, port, "--tls-ca", "server.pem")
        assert with_tls.returncode == 1 and "failed (is the server started with --tls-cert?)" in with_tls.stderr, (
            with_tls.stderr
        )
        assert len(with_tls.stderr.splitlines()) == 1
