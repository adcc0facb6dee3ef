"""The ``hudi-metastore`` command in a process of its own, as the tests start it: the command line (``CLI``, and
``serve_command`` for a server), a free port to serve on, the wait until it listens, its password file, and the
worker processes it forks."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterable
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


_HANDED_OUT: set[int] = set()
"""The ports ``free_port`` gave this process: the kernel may pick a just-released port again, and two ports
asked for one server (``--port``, ``--metaserver-port``) must differ."""


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on at the time of the call, and that this process was not
    given before."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port


def serve_command(
    port: int,
    *,
    host: str = "127.0.0.1",
    metaserver_port: int | None = None,
    db_url: str | None = None,
    warehouse: str | Path | None = None,
    extra: Iterable[str] = (),
) -> list[str]:
    """The ``hudi-metastore serve`` command line, ``CLI`` first: the Hive Metastore port on ``host:port``
    (``--host 127.0.0.1`` unless told otherwise), Hudi's metaserver on ``metaserver_port`` or
    ``--no-metaserver`` when it is None, the catalog database ``db_url`` and the ``warehouse`` (each left to
    the server's default and environment when None), then the ``extra`` options as given.

    A port of 0 is passed on as it is (the server then picks one and logs it). Something to run before the
    command (``ip netns exec NAME``) goes in front of the list; the environment goes to ``Popen``."""
    command = [*CLI, "serve", "--host", host, "--port", str(port)]
    command += ["--no-metaserver"] if metaserver_port is None else ["--metaserver-port", str(metaserver_port)]
    if db_url is not None:
        command += ["--db-url", db_url]
    if warehouse is not None:
        command += ["--warehouse", str(warehouse)]
    return command + list(extra)


def wait_for_port(
    port: int, process: subprocess.Popen, seconds: float = 30, *, host: str = "127.0.0.1", log: Path | None = None
) -> None:
    """Return once ``host:port`` accepts a connection; fail the test if ``process`` (the one meant to listen
    there) exits first, or after ``seconds``. The failure shows the end of ``log`` when given, otherwise what
    the process wrote to its stderr when that is a pipe."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"{_started(process)} exited with {process.returncode}{_output(process, log)}")
        try:
            socket.create_connection((host, port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"{_started(process)} did not listen on {host}:{port} within {seconds} s{_output(process, log)}")


def _started(process: subprocess.Popen) -> str:
    """The start of ``process``'s command line (``python -m hms_adapter.cli serve``, ``spark-submit ...``)."""
    if isinstance(process.args, (str, bytes, Path)):
        return str(process.args)[:100]
    args = [str(arg) for arg in process.args]
    return " ".join([Path(args[0]).name, *args[1:4]])


def _output(process: subprocess.Popen, log: Path | None, chars: int = 6000) -> str:
    """The end of ``log``, or of the stderr pipe of an exited ``process``, as a block after a colon."""
    if log is not None:
        text = log.read_text(errors="replace") if log.exists() else "(no log)"
    elif process.stderr is not None and process.poll() is not None:
        text = process.stderr.read()
        text = text.decode(errors="replace") if isinstance(text, bytes) else text
    else:
        return ""
    return ":\n" + text[-chars:]


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
