"""What benchmark modules share that imports none of them: the versions of Apache Hive Metastore that
``peer.py`` runs, a free local port, the wait until a process they started is ready (``wait_until``,
``accepts``; the tests wait for theirs with it too), a Hadoop configuration file for the Java servers they
start (``write_conf``) and their stop (``stop_process``). (``bench_server`` re-exports the port and the 2.3
version.)"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from xml.sax.saxutils import escape

HIVE_2_3 = "2.3.10"
HIVE_4 = "4.0.1"
PEER_VERSIONS = (HIVE_2_3, HIVE_4)
"""The versions of Apache Hive Metastore that ``peer.py`` runs."""


_HANDED_OUT: set[int] = set()
"""The ports ``free_port`` gave this process: the kernel may pick a just-released port again, and the ports
asked for one server (``--port``, ``--iceberg-rest-port``) must differ."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now, and that this process was not given before."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port


READY_SECONDS = 300.0
"""How long a process may take to be ready (to listen, to answer) before the wait gives up. Only a ceiling
against a hang: the wait ends as soon as the process is ready, and at once when it exits first, so a
generous ceiling costs nothing on an idle machine and spares a loaded one (a CI machine at load 30 takes
many times the usual seconds to start a server)."""

JVM_READY_SECONDS = 900.0
"""``READY_SECONDS`` for a JVM server of many jars (Trino, Presto, Hive Metastore, Spark's Thrift server):
a minute on an idle machine, several on a loaded one."""


class NotReady(RuntimeError):
    """The process exited before it was ready (``returncode``: its exit status), or was not ready within its
    ceiling (``returncode`` None)."""

    def __init__(self, message: str, returncode: int | None = None) -> None:
        super().__init__(message)
        self.returncode = returncode


def wait_until(
    ready: Callable[[], object],
    *,
    process: subprocess.Popen | None = None,
    what: str = "the process",
    seconds: float = READY_SECONDS,
    interval: float = 0.2,
) -> None:
    """Return once ``ready()`` is true. Raise ``NotReady`` as soon as ``process`` (the one that is to become
    ready, when given) has exited, or once ``seconds`` passed (a ceiling against a hang, not a budget: keep it
    generous). ``what`` names it in the error."""
    deadline = time.monotonic() + seconds
    while True:
        if process is not None and process.poll() is not None:
            raise NotReady(f"{what} exited with {process.returncode} before it was ready", process.returncode)
        if ready():
            return
        if time.monotonic() > deadline:
            raise NotReady(f"{what} was not ready within {seconds:g} s")
        time.sleep(interval)


def accepts(port: int, host: str = "127.0.0.1") -> bool:
    """Whether ``host:port`` accepts a TCP connection now."""
    try:
        socket.create_connection((host, port), timeout=1).close()
        return True
    except OSError:
        return False


def wait_for_listening(
    port: int, process: subprocess.Popen, what: str, *, host: str = "127.0.0.1", seconds: float = READY_SECONDS
) -> None:
    """``wait_until`` ``host:port`` accepts connections, failing at once when ``process`` exits first."""
    wait_until(
        lambda: accepts(port, host), process=process, what=f"{what} (to listen on {host}:{port})", seconds=seconds
    )


def write_conf(conf_dir: Path, settings: dict[str, str], name: str = "hive-site.xml") -> Path:
    """A Hadoop configuration file (``hive-site.xml``, ``core-site.xml``) of ``settings`` in ``conf_dir``."""
    conf_dir.mkdir(parents=True, exist_ok=True)
    body = "".join(
        f"  <property><name>{escape(k)}</name><value>{escape(v)}</value></property>\n" for k, v in settings.items()
    )
    path = conf_dir / name
    path.write_text(f'<?xml version="1.0"?>\n<configuration>\n{body}</configuration>\n')
    return path


def stop_process(process: subprocess.Popen) -> None:
    """SIGTERM, a minute to exit, then SIGKILL."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(30)


def apt_install(packages: list[str]) -> str | None:
    """Install Debian ``packages`` (as root, through ``sudo -n`` when not root), refreshing the package lists
    once only when the first attempt fails; returns why they cannot be had, or None once installed."""
    prefix = [] if os.geteuid() == 0 else ["sudo", "-n"]

    def run(command: list[str]) -> None:
        subprocess.run(
            prefix + command,
            check=True,
            capture_output=True,
            timeout=900,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )

    install = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages]
    try:
        try:
            run(install)
        except subprocess.CalledProcessError:
            run(["apt-get", "update", "-qq"])
            run(install)
    except subprocess.CalledProcessError as error:
        return f"cannot install {' '.join(packages)}: {error.stderr.decode(errors='replace')[-500:]}"
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"cannot install {' '.join(packages)}: {error}"
    return None
