"""The ``hudi-metastore`` command in a process of its own, as the tests start it: the command line, a free port
to serve on, the wait until it listens, its password file, and the worker processes it forks."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "hms_adapter.cli"]


def write_passwords(path, passwords: dict[str, str]) -> None:
    """Add each user with their password to the password file ``path``, through ``hudi-metastore passwd``."""
    for user, password in passwords.items():
        subprocess.run(
            CLI + ["passwd", str(path), user],
            input=password + "\n",
            text=True,
            check=True,
            capture_output=True,
            timeout=60,
        )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port: int, process: subprocess.Popen, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"server did not listen on {port}")


def children(pid: int) -> set[int]:
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found
