"""Fixtures several adapter test modules share: a client on Hive 4's Thrift code, test certificates, a server
in an authorization mode with a client per user, a ``serve --workers 2`` process."""

from __future__ import annotations

import os
import re
import signal
import subprocess

import pytest
from hive_metastore import ThriftHiveMetastore
from thrift.protocol import TBinaryProtocol
from thrift.transport import TSocket, TTransport

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
