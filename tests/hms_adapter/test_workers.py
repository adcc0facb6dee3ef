"""``hudi-metastore serve --workers N``: N processes on one port, restarted when they die, stopped together."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from thriftpy2.rpc import make_client

from tests.conftest import hive
from tests.support.servers import READY_SECONDS, children, serve_command, wait_until


def listening_socket_inodes(port: int) -> set[str]:
    """Inodes of the TCP sockets listening on ``port`` (state 0A in /proc/net/tcp)."""
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port and fields[3] == "0A":
            inodes.add(fields[9])
    return inodes


def socket_inodes_of(pid: int) -> set[str]:
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def running(pid: int) -> bool:
    """Whether process ``pid`` exists and has not exited (a zombie waiting to be reaped has)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_each_worker_listens_on_the_one_port_and_all_answer(workers):
    process, port, metaserver_port = workers
    pids = children(process.pid)
    assert len(pids) == 2
    for inodes in (listening_socket_inodes(port), listening_socket_inodes(metaserver_port)):
        assert len(inodes) == 2
        assert all(socket_inodes_of(pid) & inodes for pid in pids)

    first = make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=30_000)
    first.create_database(hive.Database(name="shared", description="", locationUri="", parameters={}))
    first.close()

    def answer(_):
        client = make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=30_000)
        try:
            return client.get_database("shared").name, client.get_all_databases()
        finally:
            client.close()

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(answer, range(40)))
    assert answers == [("shared", ["default", "shared"])] * 40


def test_a_dead_worker_is_replaced_and_sigterm_stops_all(workers):
    process, port, _ = workers
    before = children(process.pid)
    victim = min(before)
    os.kill(victim, signal.SIGKILL)
    wait_until(lambda: len(children(process.pid) - {victim}) == 2, "a replacement worker", process)
    replacement = (children(process.pid) - before).pop()
    wait_until(
        lambda: socket_inodes_of(replacement) & listening_socket_inodes(port), "the replacement to listen", process
    )

    client = make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=30_000)
    assert client.get_all_databases() == ["default"]
    client.close()

    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=90) == 0
    assert children(process.pid) == set()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


def test_workers_stop_when_their_supervisor_is_killed(workers):
    """SIGKILL to the supervisor: no handler runs there, yet no worker keeps serving the port on its own."""
    process, port, _ = workers
    pids = children(process.pid)
    assert len(pids) == 2
    process.kill()
    process.wait(timeout=30)
    wait_until(lambda: not any(running(pid) for pid in pids), "the workers to exit")
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


def test_a_port_in_use_is_one_error_before_any_worker_starts(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        done = subprocess.run(
            serve_command(
                taken.getsockname()[1],
                db_url=f"sqlite:///{tmp_path / 'c.db'}",
                warehouse=tmp_path / "wh",
                extra=["--workers", "2"],
            ),
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 1
    assert "hudi-metastore: cannot listen on 127.0.0.1" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "c.db").exists()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_sigterm_while_the_workers_start_stops_them_cleanly(db_url, tmp_path):
    """A stop that comes before the workers listen is a stop, not a failed start: exit code 0, no worker left."""
    process = subprocess.Popen(
        serve_command(0, db_url=db_url, warehouse=tmp_path / "wh", extra=["--workers", "2"]),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + READY_SECONDS  # only a ceiling: the loop ends at the second worker
        while len(pids := children(process.pid)) < 2:  # polled closely: a worker listens within a second
            assert time.monotonic() < deadline and process.poll() is None, "no two forked workers"
            time.sleep(0.002)
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=90)
        stderr = process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
    assert code == 0, stderr
    assert "did not start" not in stderr and "Traceback" not in stderr
    assert not any(running(pid) for pid in pids)
