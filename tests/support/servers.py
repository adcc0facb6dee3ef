"""The ``hudi-metastore`` command in a process of its own, as the tests start it: the command line (``CLI``, and
``serve_command`` for a server), a free port to serve on, the wait until it listens (``wait_for_port``; any
other readiness: ``wait_until``), its password file, and the worker processes it forks."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
if str(BENCHMARKS) not in sys.path:  # the benchmarks import each other by bare name, as they run
    sys.path.insert(0, str(BENCHMARKS))

# one record of the ports handed out in this process, shared with the benchmark modules the tests run; and the
# one wait for readiness the tests and benchmarks share
from bench_base import JVM_READY_SECONDS as JVM_READY_SECONDS  # noqa: E402  (re-exported)
from bench_base import READY_SECONDS as READY_SECONDS  # noqa: E402  (re-exported)
from bench_base import NotReady, accepts  # noqa: E402
from bench_base import free_port as free_port  # noqa: E402  (re-exported)
from bench_base import wait_until as _wait_until  # noqa: E402

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
    port: int,
    process: subprocess.Popen,
    seconds: float = READY_SECONDS,
    *,
    host: str = "127.0.0.1",
    log: Path | None = None,
) -> None:
    """Return once ``host:port`` accepts a connection; fail the test at once if ``process`` (the one meant to
    listen there) exits first. ``seconds`` only bounds a hang (a loaded machine may take minutes to start a
    server; a dead one fails at once): give a JVM ``JVM_READY_SECONDS``, nothing less. The failure shows the
    end of ``log`` when given, otherwise what the process wrote to its stderr when that is a pipe."""
    wait_until(lambda: accepts(port, host), f"a listener on {host}:{port}", process, seconds, log)


def wait_until(
    ready: Callable[[], object],
    what: str,
    process: subprocess.Popen | None = None,
    seconds: float = READY_SECONDS,
    log: Path | None = None,
) -> None:
    """Return once ``ready()`` holds; fail the test at once if ``process`` (when given: the one that is to
    make it hold) exits first, or after ``seconds``, a ceiling against a hang only (keep it generous). The
    failure names ``what`` was waited for and shows the end of ``log`` or of the process's stderr pipe."""
    try:
        _wait_until(ready, process=process, what=what, seconds=seconds)
    except NotReady as error:
        if error.returncode is not None and process is not None:
            pytest.fail(
                f"{_started(process)} exited with {error.returncode} while waiting for {what}{_output(process, log)}"
            )
        source = f" from {_started(process)}" if process is not None else ""
        pytest.fail(f"waited {seconds:g} s in vain for {what}{source}{_output(process, log)}")


def _started(process: subprocess.Popen) -> str:
    """The start of ``process``'s command line (``python -m hms_adapter.cli serve``, ``spark-submit ...``)."""
    if isinstance(process.args, (str, bytes, Path)):
        return str(process.args)[:100]
    args = [str(arg) for arg in process.args]
    return " ".join([Path(args[0]).name, *args[1:4]])


def _output(process: subprocess.Popen | None, log: Path | None, chars: int = 6000) -> str:
    """The end of ``log``, or of the stderr pipe of an exited ``process``, as a block after a colon."""
    if log is not None:
        text = log.read_text(errors="replace") if log.exists() else "(no log)"
    elif process is not None and process.stderr is not None and process.poll() is not None:
        text = process.stderr.read()
        text = text.decode(errors="replace") if isinstance(text, bytes) else text
    else:
        return ""
    return ":\n" + text[-chars:]


def stop_servers(processes: Iterable[subprocess.Popen], logs: Iterable[Path]) -> None:
    """SIGTERM to each server still running, a kill for any not gone 30 s later; then the end of each
    non-empty log, printed (pytest shows it when the test failed)."""
    processes = list(processes)
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
    for log in logs:
        if log.exists() and log.stat().st_size:
            print(f"--- {log.name}, last lines:\n" + "\n".join(log.read_text().splitlines()[-40:]))


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
