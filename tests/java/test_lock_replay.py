"""Apache Hudi's and Apache Iceberg's table locks, replayed with Hive 2.3.10's own metastore client.

``LockReplay.java`` (its header has the details) makes the metastore calls a writer makes, in the same order:

* Hudi 1.x, ``HiveMetastoreBasedLockProvider`` under its ``LockManager``: ``lock`` of one EXCLUSIVE TABLE
  component; a WAITING answer is unlocked at once and the whole request made again later (Hudi never
  polls ``check_lock``); once ACQUIRED, ``heartbeat(0, id)`` every interval; ``unlock`` to release.
* Iceberg, ``MetastoreLock``: ``lock`` (agentInfo ``Iceberg-<uuid>``), then ``check_lock`` with exponential
  backoff while WAITING; once ACQUIRED, ``heartbeat(0, id)`` every interval; ``unlock`` to release.

Each writer is a JVM of its own talking to a real server over a socket, with shortened timings. Hive's
semantics the scenarios rely on (checked against Hive Metastore 2.3.10): lock ids are global (a lock is not
tied to the connection that took it, and outlives it), ``heartbeat`` with txnid 0 renews the lock alone,
``check_lock`` renews the lock it checks, ``show_locks`` times are milliseconds since the epoch, a lock whose
last heartbeat is older than the transaction timeout is dropped, ``check_lock`` and ``heartbeat`` of a dropped
lock id raise NoSuchLockException while ``unlock`` of it succeeds (Hive's unlock is idempotent).
"""

from __future__ import annotations

import queue
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from thriftpy2.rpc import make_client

from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_table
from tests.java.wheel_jars import JARS, compile_source
from tests.support.servers import READY_SECONDS, free_port, serve_command, wait_for_port

SOURCE = Path(__file__).with_name("LockReplay.java")
TXN_TIMEOUT_S = 3
# lines of a writer that end the scenario unless it expects them
FAILURE = re.compile(r"(ERROR|ATTEMPT_ERROR|LOCK_FAILED|HEARTBEAT_FAILED|UNLOCK_FAILED) .*")


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> Path:
    return compile_source(SOURCE, tmp_path_factory.mktemp("java"))


class Replay:
    """One ``LockReplay`` JVM; its stdout read line by line with deadlines, its stderr in a file."""

    def __init__(self, classes: Path, log: Path, *args: str) -> None:
        self.args = args
        self.log = log
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        with open(log, "w") as err:
            # C1 only: a JVM that starts in half the time (the calls are the same)
            self.process = subprocess.Popen(
                ["java", "-XX:TieredStopAtLevel=1", "-cp", f"{classes}:{JARS}/*", "LockReplay", *args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
                bufsize=1,
            )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def __str__(self) -> str:
        stderr = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
        return f"LockReplay {' '.join(self.args)}\nstdout:\n" + "\n".join(self.lines) + f"\nstderr (end):\n{stderr}"

    def expect(self, pattern: str, timeout: float = READY_SECONDS) -> re.Match:
        """The next line matching ``pattern`` (whole line); lines before it are skipped unless they are
        failures (:data:`FAILURE`) the pattern does not match. ``timeout`` only bounds a hang (a JVM on a
        loaded machine may take minutes to start); an exit fails at once."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"no line matching {pattern!r} in {timeout} s from {self}")
            if line is None:
                self._queue.put(None)
                pytest.fail(f"exited ({self.process.wait()}) before a line matching {pattern!r}: {self}")
            self.lines.append(line)
            match = re.fullmatch(pattern, line)
            if match:
                return match
            if FAILURE.fullmatch(line):
                pytest.fail(f"{line!r} while waiting for {pattern!r} from {self}")

    def drain(self) -> None:
        """Reads the lines printed so far (a failure among them ends the scenario)."""
        while True:
            try:
                line = self._queue.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self._queue.put(None)
                return
            self.lines.append(line)
            if FAILURE.fullmatch(line):
                pytest.fail(f"{line!r} from {self}")

    def send(self, line: str) -> None:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def finish(self, timeout: float = 60, failures_expected: bool = False) -> None:
        """Closes stdin (a holder releases its lock) and expects a clean exit, with no failure line unless
        ``failures_expected``; the remaining lines are read."""
        self.process.stdin.close()
        code = self.process.wait(timeout)
        while (line := self._queue.get(timeout=10)) is not None:
            self.lines.append(line)
        assert code == 0, f"exit {code}: {self}"
        assert failures_expected or not [line for line in self.lines if FAILURE.fullmatch(line)], str(self)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(30)


class Replays:
    """Starts ``LockReplay`` JVMs (``writer``, ``probe``) and kills whatever is still running on close."""

    def __init__(self, classes: Path, log_dir: Path) -> None:
        self.classes = classes
        self.log_dir = log_dir
        self.started: list[Replay] = []

    def _start(self, *args: str) -> Replay:
        replay = Replay(self.classes, self.log_dir / f"replay-{len(self.started)}.log", *args)
        self.started.append(replay)
        return replay

    def writer(self, kind: str, uri: str, db: str, table: str, **options: int) -> Replay:
        return self._start(kind, uri, db, table, *(f"{k}={v}" for k, v in options.items()))

    def probe(self, uri: str) -> Replay:
        return self._start("probe", uri)

    def close(self) -> None:
        for replay in self.started:
            replay.kill()


@pytest.fixture
def replays(compiled, tmp_path):
    started = Replays(compiled, tmp_path)
    yield started
    started.close()


def show_locks(client, db: str | None = None, table: str | None = None) -> dict[int, object]:
    """``show_locks`` (of one table when given) by lock id."""
    response = client.show_locks(hive.ShowLocksRequest(dbname=db, tablename=table))
    return {lock.lockid: lock for lock in response.locks or []}


def ready(writer: Replay) -> tuple[str, str, str]:
    """``(agentInfo, user, host)`` of a writer's lock request, once it is connected."""
    return writer.expect(r"READY (\S+) (\S+) (\S+)").groups()


def acquire(writer: Replay) -> int:
    """Asks ``writer`` to lock; the id of the lock it got at once (ACQUIRED from its first ``lock`` call)."""
    writer.send("acquire")
    lock_id = int(writer.expect(r"LOCK (\d+) ACQUIRED").group(1))
    writer.expect(f"ACQUIRED {lock_id}")
    return lock_id


def release(writer: Replay, lock_id: int) -> None:
    writer.send("release")
    writer.expect(f"RELEASED {lock_id}")
    writer.finish()


def assert_lock(lock, db: str, table: str, state: int, request: tuple[str, str, str]) -> None:
    """One ``show_locks`` row: the writer's table lock, as its request had it, times in milliseconds."""
    agent, user, host = request
    assert (lock.dbname, lock.tablename, lock.partname) == (db, table, None)
    assert (lock.state, lock.type) == (state, hive.LockType.EXCLUSIVE)
    assert (lock.user, lock.hostname, lock.agentInfo) == (user, host, agent)
    assert lock.txnid in (None, 0)
    now_ms = time.time() * 1000
    assert abs(lock.lastheartbeat - now_ms) < 60_000, "lastheartbeat is milliseconds since the epoch"
    if state == hive.LockState.ACQUIRED:
        assert abs(lock.acquiredat - now_ms) < 60_000, "acquiredat is milliseconds since the epoch"


# ---------------------------------------------------------------------------------------------- scenarios
# Each takes the server's URI and a Python client of it, so that they can run against any metastore.


def hudi_handoff(replays: Replays, uri: str, client, db: str, table: str) -> None:
    """Two Hudi writers: B asks while A holds, gives its WAITING lock up and asks again until A unlocks."""
    a = replays.writer("hudi", uri, db, table, retryWait=200, heartbeat=400)
    b = replays.writer("hudi", uri, db, table, retryWait=200, heartbeat=400)
    a_request, b_request = ready(a), ready(b)
    a_id = acquire(a)
    a.expect(f"HEARTBEAT {a_id}")

    b.send("acquire")
    given_up = []
    for _ in range(2):  # two rounds of lock -> WAITING -> unlock
        b_id = int(b.expect(r"LOCK (\d+) WAITING").group(1))
        b.expect(f"UNLOCK {b_id}")
        given_up.append(b_id)
    assert len({a_id, *given_up}) == 3, "every lock call makes a new lock id"
    locks = show_locks(client, db, table)
    assert_lock(locks[a_id], db, table, hive.LockState.ACQUIRED, a_request)
    assert not set(given_up) & set(locks), "an unlocked WAITING lock is gone"
    assert all(lock.state == hive.LockState.WAITING for lock_id, lock in locks.items() if lock_id != a_id)

    release(a, a_id)
    b_id = int(b.expect(r"LOCK (\d+) ACQUIRED").group(1))
    b.expect(f"ACQUIRED {b_id}")
    b.expect(f"HEARTBEAT {b_id}")
    locks = show_locks(client, db, table)
    assert list(locks) == [b_id]
    assert_lock(locks[b_id], db, table, hive.LockState.ACQUIRED, b_request)
    release(b, b_id)
    assert show_locks(client, db, table) == {}
    assert show_locks(client) == {}


def iceberg_handoff(replays: Replays, uri: str, client, db: str, table: str) -> None:
    """Two Iceberg writers: B's lock waits (check_lock polling) while A holds it and heartbeats; A unlocks,
    B's next check_lock finds it ACQUIRED."""
    a = replays.writer("iceberg", uri, db, table, heartbeat=400)
    b = replays.writer("iceberg", uri, db, table, heartbeat=400, checkMax=300)
    a_request, b_request = ready(a), ready(b)
    a_id = acquire(a)

    b.send("acquire")
    b_id = int(b.expect(r"LOCK (\d+) WAITING").group(1))
    b.expect(f"CHECK {b_id} WAITING")
    a.expect(f"HEARTBEAT {a_id}")
    before = show_locks(client, db, table)
    assert set(before) == {a_id, b_id}
    assert_lock(before[a_id], db, table, hive.LockState.ACQUIRED, a_request)
    assert_lock(before[b_id], db, table, hive.LockState.WAITING, b_request)

    for _ in range(3):  # 1.2 s of heartbeats and check_lock calls
        a.expect(f"HEARTBEAT {a_id}")
    b.expect(f"CHECK {b_id} WAITING")
    after = show_locks(client, db, table)
    assert after[a_id].lastheartbeat > before[a_id].lastheartbeat, "heartbeat(0, id) renews the held lock"
    assert after[b_id].lastheartbeat > before[b_id].lastheartbeat, "check_lock renews the waiting lock"
    assert after[a_id].acquiredat == before[a_id].acquiredat

    release(a, a_id)
    b.expect(f"CHECK {b_id} ACQUIRED")
    b.expect(f"ACQUIRED {b_id}")
    b.expect(f"HEARTBEAT {b_id}")
    locks = show_locks(client, db, table)
    assert list(locks) == [b_id]
    assert_lock(locks[b_id], db, table, hive.LockState.ACQUIRED, b_request)
    release(b, b_id)
    assert show_locks(client, db, table) == {}
    assert show_locks(client) == {}


def killed_holder_times_out(replays: Replays, uri: str, client, db: str, table: str, timeout_s: float) -> None:
    """Two Iceberg writers on a metastore whose transaction timeout is ``timeout_s``: heartbeats (A's) and
    check_lock (B's) keep both locks past the timeout; A is killed (SIGKILL) and its lock outlives its
    connection until the timeout drops it; B then gets the lock; check_lock and heartbeat of A's lock id raise
    NoSuchLockException, and unlock of it succeeds."""
    a = replays.writer("iceberg", uri, db, table, heartbeat=1000)
    b = replays.writer("iceberg", uri, db, table, heartbeat=1000, checkMax=300)
    probe = replays.probe(uri)
    ready(a)
    ready(b)
    probe.expect("READY")
    a_id = acquire(a)
    b.send("acquire")
    b_id = int(b.expect(r"LOCK (\d+) WAITING").group(1))

    time.sleep(timeout_s + 1)
    locks = show_locks(client, db, table)
    assert (locks[a_id].state, locks[b_id].state) == (hive.LockState.ACQUIRED, hive.LockState.WAITING), (
        "locks kept alive (heartbeat, check_lock) outlive the timeout"
    )

    a.drain()
    a.expect(f"HEARTBEAT {a_id}")  # a fresh one: A dies right after its last heartbeat
    a.kill()
    killed_at = time.monotonic()
    assert a_id in show_locks(client, db, table), "a lock does not end with its writer's connection"
    b.expect(f"CHECK {b_id} ACQUIRED")
    waited = time.monotonic() - killed_at
    assert waited > timeout_s - 1, f"B got the lock {waited:.1f} s after A's last heartbeat: before the timeout"
    b.expect(f"ACQUIRED {b_id}")
    assert list(show_locks(client, db, table)) == [b_id]

    for op in ("check", "heartbeat"):
        probe.send(f"{op} {a_id}")
        probe.expect(rf"{op.upper()}_FAILED {a_id} NoSuchLockException .*")
    probe.send(f"unlock {a_id}")  # Hive's unlock of a lock that is gone succeeds: it is idempotent
    probe.expect(f"UNLOCK {a_id}")
    probe.finish(failures_expected=True)
    release(b, b_id)
    assert show_locks(client) == {}


# ---------------------------------------------------------------------------------------------- tests


def test_hudi_writers_take_turns(replays, server, client):
    # Hudi takes the lock before hive sync has created the database or the table: neither has to exist
    hudi_handoff(replays, server.uri, client, "hudi_db", "trips")


def test_iceberg_writers_take_turns(replays, server, client):
    client.create_database(hive.Database(name="ice"))
    client.create_table(make_table("ice", "events", columns=cols("id:bigint")))
    iceberg_handoff(replays, server.uri, client, "ice", "events")


@pytest.fixture
def short_timeout_server(tmp_path):
    """``hudi-metastore serve --txn-timeout 3`` in its own process (SQLite); yields its URI and a client."""
    port = free_port()
    process = subprocess.Popen(
        serve_command(
            port,
            db_url=f"sqlite:///{tmp_path / 'catalog.db'}",
            warehouse=tmp_path / "wh",
            extra=["--log-level", "WARNING", "--txn-timeout", str(TXN_TIMEOUT_S)],
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_port(port, process)
        client = make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=30_000)
        yield f"thrift://127.0.0.1:{port}", client
        client.close()
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()


def test_a_killed_holders_lock_times_out_and_the_waiter_gets_it(replays, short_timeout_server):
    uri, client = short_timeout_server
    killed_holder_times_out(replays, uri, client, "ice", "events", TXN_TIMEOUT_S)
