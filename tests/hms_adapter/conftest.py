"""Fixtures several adapter test modules share: a client on Hive 4's Thrift code, test certificates, a server
in an authorization mode with a client per user, a ``serve --workers 2`` process."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from hive_metastore import ThriftHiveMetastore
from thrift.protocol import TBinaryProtocol
from thrift.transport import TSocket, TTransport

from tests.conftest import skip_or_fail
from tests.support.authorization import USERS, _connect, _password
from tests.support.servers import children, free_port, serve_command, wait_for_port, write_passwords

LISTENING = re.compile(r"listening on thrift://[^:]+:(\d+) \((\d+) worker processes\)")
METASERVER = re.compile(r"metaserver protocol on thrift://[^:]+:(\d+)")


@pytest.fixture
def hive4_metastore(server):
    transport = TTransport.TBufferedTransport(TSocket.TSocket("127.0.0.1", server.port))
    transport.open()
    yield ThriftHiveMetastore.Client(TBinaryProtocol.TBinaryProtocol(transport))
    transport.close()


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def _signed(cwd: Path, name: str, ca: str, subject: str, server: bool) -> None:
    _openssl(
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        f"{name}.key",
        "-out",
        f"{name}.csr",
        "-subj",
        f"/CN={subject}",
        cwd=cwd,
    )
    extensions = cwd / f"{name}.ext"
    extensions.write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n" if server else "extendedKeyUsage=clientAuth\n")
    _openssl(
        "x509",
        "-req",
        "-in",
        f"{name}.csr",
        "-CA",
        f"{ca}.pem",
        "-CAkey",
        f"{ca}.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-out",
        f"{name}.pem",
        "-extfile",
        extensions.name,
        cwd=cwd,
    )


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> Path:
    """A CA, a server certificate for localhost/127.0.0.1 signed by it (and a second one), a client one."""
    if shutil.which("openssl") is None:
        skip_or_fail("openssl is needed to make test certificates")
    cwd = tmp_path_factory.mktemp("tls")
    _openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=test-ca",
        cwd=cwd,
    )
    _signed(cwd, "server", "ca", "hudi-metastore", server=True)
    _signed(cwd, "server2", "ca", "hudi-metastore-renewed", server=True)
    _signed(cwd, "client", "ca", "alice", server=False)
    return cwd


@pytest.fixture
def serve(tmp_path):
    """Starts a server in an authorization mode; returns a client per user."""
    started = []

    def start(mode: str) -> dict[str, ThriftHiveMetastore.Client]:
        passwords, port = tmp_path / "passwords", free_port()
        write_passwords(passwords, {user: _password(user) for user in USERS})
        log = open(tmp_path / "server.log", "w")
        options = ["--auth", "password", "--password-file", str(passwords), "--allow-plaintext-passwords"]
        options += ["--authorization", mode, "--admin", "root"]
        process = subprocess.Popen(
            serve_command(port, db_url=f"sqlite:///{tmp_path / 'c.db'}", warehouse=tmp_path / "wh", extra=options),
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
        )
        started.append((process, log))
        wait_for_port(port, process)
        clients = {}
        for user in USERS:
            clients[user], transport = _connect(port, user)
            started.append((None, transport))
        return clients

    yield start
    for process, resource in reversed(started):
        resource.close()
        if process is not None:
            process.terminate()
            process.wait(30)


@pytest.fixture
def workers(db_url, tmp_path):
    """A ``serve --workers 2`` process on port 0; yields (process, port, metaserver port)."""
    process = subprocess.Popen(
        serve_command(0, metaserver_port=0, db_url=db_url, warehouse=tmp_path / "wh", extra=["--workers", "2"]),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = [process.stdout.readline() for _ in range(2)]
        assert process.poll() is None, process.stderr.read()
        listening = LISTENING.search(lines[1])
        assert listening and listening.group(2) == "2", lines
        yield process, int(listening.group(1)), int(METASERVER.search(lines[0]).group(1))
    finally:
        if process.poll() is None:
            workers = children(process.pid)  # before the kill: the kill gives them to init
            process.kill()
            for child in workers:
                try:
                    os.kill(child, signal.SIGKILL)
                except ProcessLookupError:  # gone with their supervisor
                    pass
