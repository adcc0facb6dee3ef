"""A MariaDB server of the test's own (``PrivateMariaDB``: its data directory and port), to kill and restart
while a metastore works on it. It runs as the ``mysql`` user, as MariaDB insists; without ``mariadbd`` the
tests skip, or fail in CI."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
from pathlib import Path

import pymysql
import pytest

from tests.conftest import skip_or_fail
from tests.support.servers import free_port, wait_until

DATABASE = "faults"


class PrivateMariaDB:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.port = free_port()
        self.bind_address = "127.0.0.1"
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"mysql+pymysql://root@127.0.0.1:{self.port}/{DATABASE}"

    def install(self) -> None:
        data, run = self.home / "data", self.home / "run"
        for folder in (data, run):
            folder.mkdir()
            shutil.chown(folder, "mysql", "mysql")
        subprocess.run(
            [
                "mariadb-install-db",
                "--no-defaults",
                "--user=mysql",
                f"--datadir={data}",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )

    def start(self) -> None:
        """Start the server and wait until it answers."""
        self.process = subprocess.Popen(
            [
                "mariadbd",
                "--no-defaults",
                "--user=mysql",
                f"--datadir={self.home / 'data'}",
                f"--socket={self.home / 'run' / 's.sock'}",
                f"--port={self.port}",
                f"--bind-address={self.bind_address}",
                f"--pid-file={self.home / 'run' / 'm.pid'}",
                f"--log-error={self.home / 'run' / 'error.log'}",
                "--skip-grant-tables",
                "--innodb-buffer-pool-size=64M",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(self._answers, "the private MariaDB to answer", self.process, log=self.home / "run" / "error.log")

    def _answers(self) -> bool:
        try:
            pymysql.connect(host="127.0.0.1", port=self.port, user="root", connect_timeout=10).close()
            return True
        except pymysql.err.OperationalError:
            return False

    def kill(self) -> None:
        """SIGKILL, as a crash: by its own process id."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def private_mariadb():
    if shutil.which("mariadbd") is None or shutil.which("mariadb-install-db") is None:
        skip_or_fail("the fault tests need MariaDB's server (mariadbd, mariadb-install-db)")
    home = Path(tempfile.mkdtemp(prefix="hms-mariadb-"))
    os.chmod(home, 0o755)  # the mysql user reaches its data directory through it
    server = PrivateMariaDB(home)
    try:
        server.install()
        server.start()
        admin = pymysql.connect(host="127.0.0.1", port=server.port, user="root", autocommit=True)
        with admin.cursor() as cur:
            cur.execute(f"CREATE DATABASE {DATABASE} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
        admin.close()
        yield server
    finally:
        server.stop()
        shutil.rmtree(home, ignore_errors=True)


def port_open(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False
