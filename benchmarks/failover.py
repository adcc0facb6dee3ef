"""Failover under load: several servers on one catalog database, clients like engines' given every server's
address, a fault in the middle, and a count of what the clients were told against what the catalog holds.

The load (``Load``) is a mix of worker threads, each with its own connection and ledger:

- **hive sync**: as Hudi's hive sync after a commit: ``add_partitions_req`` with ``ifNotExists`` (the new
  partition), then ``alter_table`` setting ``last_commit_time_sync``;
- **partitions**: ``add_partition`` of a new partition, then ``drop_partition`` of the one three steps back;
- **locks**: ``open_txns``, an EXCLUSIVE table ``lock`` in the transaction (two workers share a table, so
  one waits and polls ``check_lock``), ``commit_txn``;
- **iceberg**: a lock-free compare-and-set commit as Iceberg's Hive catalog makes it: ``alter_table`` with the
  new ``metadata_location`` and the expected old one in the environment context;
- **coherence**: a table parameter set through one server and read at once through another (a stale read
  is counted: a read cache, or a Galera node that had not applied the write yet);
- **reads**: ``get_table``, ``get_partition_names``, ``get_partitions_by_filter``.

A client (``FailoverClient``) moves to the next address when its connection breaks, as Hive's client moves
along ``hive.metastore.uris``, and also when a server answers that its database failed without changing
anything (``hms_adapter.errors.RETRY_ELSEWHERE``, as Hive's client retries). A call cut off without an
answer has an unknown outcome: the worker reads the catalog to learn whether it applied before it goes on
(and never sends a write again that did), as an engine's next run would.

After the fault the load runs until every worker has had steps acknowledged that it began once the fault was
over; then the locks and transactions the fault cut off are given their timeout, and the catalog is read:

- **lost**: acknowledged writes that are not there (a partition added, a drop, a commit, a sync time);
- **duplicated**: writes applied twice (the notification log's ``ADD_PARTITION`` events against the adds
  that applied, a transaction opened twice);
- **exclusive locks held twice**, **stale reads** (across servers);
- **answered as not applied, yet applied**: a write a server answered ``NothingApplied`` for that the next
  send found done (reported, not a failure of the scenario: see ``Ledger.misreported``);
- **left behind**: locks and open transactions of the load past their timeout;
- **longest error window**: per worker, from the start of a failed call to the end of the next call that
  succeeded;
- **serving again**: from the fault's end until every server answered again (``Probe``).

Scenarios need the database clusters of ``db_clusters.py``; ``tests/availability`` runs them, and
``python benchmarks/failover.py SCENARIO`` prints their figures (see ``main``).
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import make_url
from thriftpy2.rpc import make_client
from thriftpy2.thrift import TApplicationException
from thriftpy2.transport import TTransportException

from hms_adapter.errors import RETRY_ELSEWHERE
from hms_adapter.idl import hive

sys.path.insert(0, str(Path(__file__).parent))
import db_clusters  # noqa: E402
from bench_base import READY_SECONDS, NotReady, free_port, wait_until  # noqa: E402

log = logging.getLogger("failover")

DATABASE = "ha"
CLIENT_TIMEOUT_S = 60.0
"""A call's answer may take this long (Hive's ``hive.metastore.client.socket.timeout`` is 600 s): a server
waiting on a database that fails over answers within its retry budget."""
TXN_TIMEOUT_S = 5
"""The servers' ``--txn-timeout``: locks and transactions of a client cut off are gone after it."""
RETRY_BUDGET_S = 30
"""The servers' ``--db-retry-budget``: longer than a failover takes on a loaded machine."""
PACE_S = 0.02
"""A worker's pause between steps: engines' clients do work between their calls, and the load is to leave the
machine (two cores in CI) to the servers and databases, not to spin."""
RECOVERED_STEPS = 2
"""Steps each worker must have acknowledged, begun after the fault, before the load stops."""
ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------------------------------- servers


@dataclass
class Server:
    """One ``hudi-metastore serve`` of the fleet, started and killed as a unit (its process group)."""

    db_url: str
    warehouse: Path
    log_path: Path
    port: int = field(default_factory=free_port)
    host: str = "127.0.0.1"
    namespace: str | None = None
    """A network namespace to run in (``ip netns exec``)."""
    code: Path | None = None
    """The root of another build to run (put first on ``PYTHONPATH``); this checkout's when None."""
    process: subprocess.Popen | None = None

    @property
    def address(self) -> tuple[str, int]:
        return self.host, self.port

    def command(self) -> list[str]:
        prefix = ["ip", "netns", "exec", self.namespace] if self.namespace else []
        return prefix + [
            sys.executable,
            "-m",
            "hms_adapter.cli",
            "serve",
            "--host",
            self.host,
            "--port",
            str(self.port),
            "--no-metaserver",
            "--db-url",
            self.db_url,
            "--warehouse",
            str(self.warehouse),
            "--txn-timeout",
            str(TXN_TIMEOUT_S),
            "--db-retry-budget",
            str(RETRY_BUDGET_S),
        ]

    def start(self) -> None:
        """Start it and return once it says it listens (its own line, not the port: another process may have
        the port meanwhile)."""
        env = dict(os.environ)
        if self.code is not None:
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(self.code), env.get("PYTHONPATH")]))
        offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        with open(self.log_path, "a") as out:
            out.write(f"--- start {time.strftime('%H:%M:%S')} {' '.join(self.command())}\n")
            out.flush()
            self.process = subprocess.Popen(
                self.command(), stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )
        wait_until(
            lambda: "listening on thrift://" in self.log_path.read_bytes()[offset:].decode(errors="replace"),
            what=f"the server on port {self.port} (log {self.log_path})",
            process=self.process,
            seconds=READY_SECONDS,
        )

    def kill(self) -> None:
        """SIGKILL to every process of the server, as a crash or a lost machine."""
        self._signal(signal.SIGKILL)

    def stop(self) -> None:
        """SIGTERM (a graceful stop: the calls under way are answered), then SIGKILL after a minute."""
        self._signal(signal.SIGTERM)

    def _signal(self, sig: int) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        with suppress(ProcessLookupError):
            os.killpg(self.process.pid, sig)
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(30)


@contextmanager
def fleet(db_urls: Sequence[str], home: Path, code: Path | None = None) -> Iterator[list[Server]]:
    """One server per URL in ``db_urls`` (all on one catalog database), started; stopped on leaving."""
    servers = [Server(url, home / "warehouse", home / f"server-{i}.log", code=code) for i, url in enumerate(db_urls)]
    try:
        servers[0].start()  # the first creates the catalog schema
        for server in servers[1:]:
            server.start()
        yield servers
    finally:
        for server in servers:
            server.kill()


# --------------------------------------------------------------------------------------------------- clients


class CallCutOff(Exception):
    """The connection broke before the answer: the call may or may not have applied."""


class NothingApplied(Exception):
    """The server's database failed and the call changed nothing (``RETRY_ELSEWHERE``)."""


class FailoverClient:
    """A Hive Metastore client given every server's address. A broken connection moves it to the next
    address (``CallCutOff``); so does a server whose database failed (``NothingApplied``)."""

    def __init__(self, addresses: Sequence[tuple[str, int]], first: int = 0) -> None:
        self.addresses = list(addresses)
        self.index = first % len(self.addresses)
        self._client = None

    def call(self, method: str, *args):
        if self._client is None:
            host, port = self.addresses[self.index]
            try:
                self._client = make_client(hive.ThriftHiveMetastore, host, port, timeout=int(CLIENT_TIMEOUT_S * 1000))
            except (TTransportException, OSError) as error:
                self.move()
                raise NothingApplied(f"cannot connect to {host}:{port}: {error}") from error
        try:
            return getattr(self._client, method)(*args)
        except (TTransportException, OSError, EOFError) as error:
            self.move()
            raise CallCutOff(f"{method}: {type(error).__name__}: {error}") from error
        except (hive.MetaException, TApplicationException) as error:  # the latter where none is declared
            if (error.message or "").startswith(RETRY_ELSEWHERE):
                self.move()
                raise NothingApplied(f"{method}: {error.message}") from error
            raise

    def move(self) -> None:
        """Leave the current server for the next address."""
        if self._client is not None:
            with suppress(Exception):
                self._client.close()
        self._client = None
        self.index = (self.index + 1) % len(self.addresses)

    def close(self) -> None:
        if self._client is not None:
            with suppress(Exception):
                self._client.close()
            self._client = None


# ---------------------------------------------------------------------------------------------------- ledger


@dataclass
class Ledger:
    """What one worker did and was told."""

    name: str
    calls: list[tuple[float, float, bool]] = field(default_factory=list)
    """(start, end, succeeded) of every call."""
    errors: Counter = field(default_factory=Counter)
    steps: list[tuple[float, int]] = field(default_factory=list)
    """(start, step) of each acknowledged step."""
    cut_off: int = 0
    """Calls whose outcome was unknown (read back before going on)."""
    duplicated: int = 0
    lost: int = 0
    misreported: int = 0
    """Writes a server answered as having changed nothing (``NothingApplied``) that had applied: the next send
    found them done (applied once all the same: the notification log counts the adds)."""
    last_error: str = ""
    failed_steps: Counter = field(default_factory=Counter)
    """Steps given up, by the error that ended them."""

    def call(self, client: FailoverClient, method: str, *args):
        started = time.monotonic()
        try:
            result = client.call(method, *args)
        except CallCutOff as error:
            self.cut_off += 1
            self._failed(started, error)
            raise
        except hive.NoSuchObjectException:  # an answer (a read-back finding nothing), not a failure
            self.calls.append((started, time.monotonic(), True))
            raise
        except Exception as error:
            self._failed(started, error)
            raise
        self.calls.append((started, time.monotonic(), True))
        return result

    def _failed(self, started: float, error: Exception) -> None:
        self.calls.append((started, time.monotonic(), False))
        self.errors[type(error).__name__] += 1
        self.last_error = f"{type(error).__name__}: {error}"
        log.debug("%s: %s", self.name, error)

    def acknowledged_since(self, moment: float) -> int:
        return sum(1 for started, _ in self.steps if started >= moment)

    def longest_error_window(self) -> float:
        """The longest time from the start of a failed call to the end of the next call that succeeded."""
        longest, failing_since = 0.0, None
        for started, ended, succeeded in sorted(self.calls):
            if not succeeded and failing_since is None:
                failing_since = started
            elif succeeded and failing_since is not None:
                longest, failing_since = max(longest, ended - failing_since), None
        if failing_since is not None and self.calls:
            longest = max(longest, max(end for _, end, _ in self.calls) - failing_since)
        return longest


def until_done(ledger: Ledger, client: FailoverClient, method: str, *args, stop: threading.Event):
    """Call until an answer comes: a call that changed nothing is tried again (on the next server); a cut-off
    one is raised for the caller to read back."""
    while True:
        try:
            return ledger.call(client, method, *args)
        except NothingApplied:
            if stop.is_set():
                raise
            time.sleep(0.1)


# --------------------------------------------------------------------------------------------------- workers


def _table(name: str, keys: Sequence[str] = ("dt",), parameters: dict[str, str] | None = None):
    sd = hive.StorageDescriptor(
        cols=[hive.FieldSchema(name="x", type="int")],
        location=None,
        inputFormat="org.apache.hadoop.mapred.TextInputFormat",
        outputFormat="org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
        serdeInfo=hive.SerDeInfo(serializationLib="org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", parameters={}),
        parameters={},
    )
    return hive.Table(
        tableName=name,
        dbName=DATABASE,
        sd=sd,
        partitionKeys=[hive.FieldSchema(name=k, type="string") for k in keys],
        parameters=dict(parameters or {}),
        tableType="EXTERNAL_TABLE",
    )


def _partition(table: str, value: str):
    return hive.Partition(values=[value], dbName=DATABASE, tableName=table, parameters={})


class Worker:
    """One thread of the load; ``step`` does one acknowledged unit of work or raises."""

    kind = "worker"

    def __init__(self, number: int, addresses: Sequence[tuple[str, int]]) -> None:
        self.number = number
        self.ledger = Ledger(f"{self.kind}-{number}")
        self.client = FailoverClient(addresses, first=number)

    def setup(self, client: FailoverClient) -> None:
        """Make what the worker needs (through ``client``, before the load)."""

    def step(self, i: int, stop: threading.Event) -> None:
        raise NotImplementedError

    def verify(self, client: FailoverClient) -> None:
        """Count ``lost`` and ``duplicated`` in the ledger from the catalog's state."""

    def run(self, stop: threading.Event) -> None:
        i = 0
        while not stop.is_set():
            started = time.monotonic()
            try:
                self.step(i, stop)
                self.ledger.steps.append((started, i))
            except Exception as error:  # a step that failed: counted in the ledger, the next one goes on
                log.debug("%s step %d: %s: %s", self.ledger.name, i, type(error).__name__, error)
                self.ledger.failed_steps[type(error).__name__] += 1
                time.sleep(0.05)
            i += 1
            stop.wait(PACE_S)
        self.client.close()


class HiveSyncWorker(Worker):
    kind = "hive-sync"

    @property
    def table(self) -> str:
        return f"sync_{self.number}"

    def setup(self, client: FailoverClient) -> None:
        client.call("create_table", _table(self.table))
        self.synced: int = -1

    def step(self, i: int, stop: threading.Event) -> None:
        request = hive.AddPartitionsRequest(
            dbName=DATABASE, tblName=self.table, parts=[_partition(self.table, f"{i:06d}")], ifNotExists=True
        )
        self._until_applied("add_partitions_req", request, stop=stop)
        table = until_done(self.ledger, self.client, "get_table", DATABASE, self.table, stop=stop)
        table.parameters["last_commit_time_sync"] = f"{i:06d}"
        self._until_applied("alter_table", DATABASE, self.table, table, stop=stop)
        self.synced = i

    def _until_applied(self, method: str, *args, stop: threading.Event) -> None:
        """Idempotent writes (as hive sync's): one cut off is sent again."""
        while True:
            try:
                until_done(self.ledger, self.client, method, *args, stop=stop)
                return
            except CallCutOff:
                if stop.is_set():
                    raise

    def verify(self, client: FailoverClient) -> None:
        names = set(client.call("get_partition_names", DATABASE, self.table, -1))
        acknowledged = {f"dt={i:06d}" for _, i in self.ledger.steps}
        self.ledger.lost += len(acknowledged - names)
        synced = client.call("get_table", DATABASE, self.table).parameters.get("last_commit_time_sync", "")
        if self.synced >= 0 and synced < f"{self.synced:06d}":
            self.ledger.lost += 1


class PartitionWorker(Worker):
    """Adds and drops that are not idempotent: one cut off is read back, never sent again blindly."""

    kind = "partitions"
    KEEP = 3

    @property
    def table(self) -> str:
        return f"churn_{self.number}"

    def setup(self, client: FailoverClient) -> None:
        client.call("create_table", _table(self.table))
        self.added: set[str] = set()
        """Partitions whose add applied (acknowledged, or cut off and found there)."""
        self.dropped: set[str] = set()
        self.adds_applied = 0

    def _exists(self, value: str, stop: threading.Event) -> bool:
        try:
            until_done(self.ledger, self.client, "get_partition", DATABASE, self.table, [value], stop=stop)
            return True
        except hive.NoSuchObjectException:
            return False

    def step(self, i: int, stop: threading.Event) -> None:
        value = f"{i:06d}"
        self._write_once(
            lambda: until_done(self.ledger, self.client, "add_partition", _partition(self.table, value), stop=stop),
            lambda: self._exists(value, stop),
            hive.AlreadyExistsException,
        )
        self.added.add(value)
        self.adds_applied += 1
        if i >= self.KEEP:
            old = f"{i - self.KEEP:06d}"
            if old in self.added:
                self._write_once(
                    lambda: until_done(
                        self.ledger, self.client, "drop_partition", DATABASE, self.table, [old], False, stop=stop
                    ),
                    lambda: not self._exists(old, stop),
                    hive.NoSuchObjectException,
                )
                self.dropped.add(old)

    def _write_once(self, write: Callable[[], object], applied: Callable[[], bool], repeated: type) -> None:
        """``write``; when cut off, or failed (a ``MetaException``: a commit whose outcome the server cannot
        know), ``applied()`` tells whether it applied, and it is sent again only if it did not. ``repeated``
        (the answer to a write already applied) on a first send counts as misreported."""
        while True:
            try:
                write()
                return
            except (CallCutOff, hive.MetaException):
                while True:
                    try:
                        if applied():
                            return
                        break
                    except CallCutOff:
                        continue
            except repeated:  # a first send answered as if it had applied before: an earlier send did apply
                self.ledger.misreported += 1
                return

    def verify(self, client: FailoverClient) -> None:
        names = set(client.call("get_partition_names", DATABASE, self.table, -1))
        expected = {f"dt={v}" for v in self.added - self.dropped}
        gone = {f"dt={v}" for v in self.dropped}
        self.ledger.lost += len(expected - names) + len(gone & names)


class LockWorker(Worker):
    kind = "locks"

    @property
    def table(self) -> str:
        return f"locked_{self.number % 2}"

    def setup(self, client: FailoverClient) -> None:
        with suppress(hive.AlreadyExistsException):
            client.call("create_table", _table(self.table))
        self.committed: list[int] = []
        self.held: list[tuple[float, float]] = []
        """From the answer ``ACQUIRED`` to the ``commit_txn`` that released the lock, for each acknowledged
        step: inside the time the server held the lock for it."""

    def agent(self, i: int) -> str:
        return f"ha-{self.ledger.name}-{i}"

    def step(self, i: int, stop: threading.Event) -> None:
        opened = until_done(
            self.ledger,
            self.client,
            "open_txns",
            hive.OpenTxnRequest(num_txns=1, user="ha", hostname=self.ledger.name, agentInfo=self.agent(i)),
            stop=stop,
        )
        txn = opened.txn_ids[0]
        request = hive.LockRequest(
            component=[
                hive.LockComponent(
                    type=hive.LockType.EXCLUSIVE, level=hive.LockLevel.TABLE, dbname=DATABASE, tablename=self.table
                )
            ],
            txnid=txn,
            user="ha",
            hostname=self.ledger.name,
        )
        state = until_done(self.ledger, self.client, "lock", request, stop=stop)
        while state.state == hive.LockState.WAITING:
            time.sleep(0.02)
            state = until_done(
                self.ledger, self.client, "check_lock", hive.CheckLockRequest(lockid=state.lockid), stop=stop
            )
        if state.state != hive.LockState.ACQUIRED:
            raise hive.MetaException(message=f"lock {state.lockid} is {state.state}")
        acquired = time.monotonic()
        time.sleep(0.005)  # the work under the lock
        releasing = time.monotonic()
        until_done(self.ledger, self.client, "commit_txn", hive.CommitTxnRequest(txnid=txn), stop=stop)
        self.committed.append(txn)
        self.held.append((acquired, releasing))

    def verify(self, client: FailoverClient) -> None:
        """A committed transaction listed as open or aborted is lost; an acknowledged step's agent on an aborted
        one means its ``open_txns`` applied twice."""
        listed = client.call("get_open_txns_info").open_txns
        by_id = {t.id: t for t in listed}
        self.ledger.lost += sum(1 for txn in self.committed if txn in by_id)
        acknowledged = {self.agent(i) for _, i in self.ledger.steps}
        self.ledger.duplicated += sum(1 for t in listed if t.agentInfo in acknowledged)


class IcebergWorker(Worker):
    """Lock-free compare-and-set commits (Iceberg's ``HiveTableOperations`` with ``iceberg.engine.hive.lock-enabled``
    off): a commit that was cut off or failed is read back; one whose value is there applied."""

    kind = "iceberg"

    @property
    def table(self) -> str:
        return f"ice_{self.number}"

    def setup(self, client: FailoverClient) -> None:
        client.call(
            "create_table",
            _table(self.table, keys=(), parameters={"table_type": "ICEBERG", "metadata_location": "m-000000"}),
        )
        self.location = "m-000000"
        self.applied: list[str] = []

    def step(self, i: int, stop: threading.Event) -> None:
        table = until_done(self.ledger, self.client, "get_table", DATABASE, self.table, stop=stop)
        current = table.parameters["metadata_location"]
        new = f"m-{i + 1:06d}"
        table.parameters.update(metadata_location=new, previous_metadata_location=current)
        context = hive.EnvironmentContext(
            properties={"expected_parameter_key": "metadata_location", "expected_parameter_value": current}
        )
        try:
            until_done(
                self.ledger,
                self.client,
                "alter_table_with_environment_context",
                DATABASE,
                self.table,
                table,
                context,
                stop=stop,
            )
        except (CallCutOff, hive.MetaException):  # cut off, or failed (a commit whose outcome the server
            # cannot know, a compare-and-set refused): read back, as Iceberg's commit-status check does
            if self._location(stop) != new:
                raise
        self.location = new
        self.applied.append(new)

    def _location(self, stop: threading.Event) -> str:
        while True:
            with suppress(CallCutOff):
                return until_done(self.ledger, self.client, "get_table", DATABASE, self.table, stop=stop).parameters[
                    "metadata_location"
                ]

    def verify(self, client: FailoverClient) -> None:
        if client.call("get_table", DATABASE, self.table).parameters["metadata_location"] != self.location:
            self.ledger.lost += 1


class CoherenceWorker(Worker):
    """Writes through one server and reads at once through another (read caches, a Galera node behind): a
    table parameter set through the first must be what the second answers. The reader starts on the next
    address; after a fault both may end on one server."""

    kind = "coherence"

    def __init__(self, number: int, addresses: Sequence[tuple[str, int]]) -> None:
        super().__init__(number, addresses)
        self.reader = FailoverClient(addresses, first=number + 1)

    @property
    def table(self) -> str:
        return f"seen_{self.number}"

    def setup(self, client: FailoverClient) -> None:
        client.call("create_table", _table(self.table))
        self.stale = 0

    def step(self, i: int, stop: threading.Event) -> None:
        table = until_done(self.ledger, self.client, "get_table", DATABASE, self.table, stop=stop)
        table.parameters["written"] = str(i)
        until_done(self.ledger, self.client, "alter_table", DATABASE, self.table, table, stop=stop)
        read = until_done(self.ledger, self.reader, "get_table", DATABASE, self.table, stop=stop)
        self.stale += read.parameters.get("written") != str(i)

    def run(self, stop: threading.Event) -> None:
        super().run(stop)
        self.reader.close()


class ReadWorker(Worker):
    kind = "reads"

    def step(self, i: int, stop: threading.Event) -> None:
        table = f"sync_{i % 2}"
        self.ledger.call(self.client, "get_table", DATABASE, table)
        self.ledger.call(self.client, "get_partition_names", DATABASE, table, 100)
        self.ledger.call(self.client, "get_partitions_by_filter", DATABASE, table, "dt >= '000002'", 100)
        time.sleep(0.02)


WORKLOAD: tuple[tuple[type[Worker], int], ...] = (
    (HiveSyncWorker, 2),
    (PartitionWorker, 2),
    (LockWorker, 2),
    (IcebergWorker, 2),
    (CoherenceWorker, 1),
    (ReadWorker, 2),
)


# ---------------------------------------------------------------------------------------------------- probes


class Probe:
    """Asks one server every 0.2 s (``get_all_databases``, a fresh connection after a failure); remembers its
    failures."""

    def __init__(self, address: tuple[str, int]) -> None:
        self.address = address
        self.failures: list[float] = []
        self.successes: list[float] = []

    def run(self, stop: threading.Event) -> None:
        client = None
        while not stop.is_set():
            try:
                if client is None:
                    client = make_client(hive.ThriftHiveMetastore, *self.address, timeout=10_000)
                client.get_all_databases()
                self.successes.append(time.monotonic())
            except Exception:
                self.failures.append(time.monotonic())
                if client is not None:
                    with suppress(Exception):
                        client.close()
                client = None
            stop.wait(0.2)

    def serving_again_after(self, moment: float) -> float | None:
        """Seconds from ``moment`` until it answered after its last failure (0 when none came after ``moment``);
        None when it never answered again."""
        failed = [t for t in self.failures if t >= moment]
        if not failed:
            return 0.0
        answered = [t for t in self.successes if t > failed[-1]]
        return answered[0] - moment if answered else None


# ---------------------------------------------------------------------------------------------------- report


@dataclass
class Report:
    scenario: str
    calls: int
    failed_calls: int
    cut_off: int
    steps: int
    lost: int
    duplicated: int
    locks_left: int
    txns_left: int
    exclusive_overlaps: int
    """Times two clients held one table's EXCLUSIVE lock at once."""
    stale_reads: int
    """Reads through one server that missed a write just acknowledged through another."""
    misreported: int
    """Writes answered as having changed nothing that had applied (``Ledger.misreported``)."""
    longest_error_window_s: float
    longest_error_window_of: str
    serving_again_s: float | None
    fault_s: float
    errors: dict[str, int]
    """Failed calls by error."""
    failed_steps: dict[str, int]
    """Steps given up (the next went on), by the error that ended them."""
    notes: dict[str, object] = field(default_factory=dict)
    """What the scenario measured of its database (Galera's commits per node, its certification failures)."""

    def line(self) -> str:
        serving = "never" if self.serving_again_s is None else f"{self.serving_again_s:.1f} s"
        return (
            f"{self.scenario}: {self.steps} steps acknowledged, {self.calls} calls, {self.failed_calls} failed "
            f"({self.cut_off} cut off, read back); lost {self.lost}, duplicated {self.duplicated}, "
            f"locks left {self.locks_left}, transactions left {self.txns_left}, exclusive locks held twice "
            f"{self.exclusive_overlaps}, stale reads {self.stale_reads}, answered as not applied yet applied "
            f"{self.misreported}; longest error window "
            f"{self.longest_error_window_s:.1f} s ({self.longest_error_window_of}); fault took {self.fault_s:.1f} s, "
            f"every server serving {serving} after it; failed calls {self.errors}, steps given up {self.failed_steps}"
            + "".join(f"; {name} {value}" for name, value in self.notes.items())
        )


class Progress:
    """What a fault waits on between its steps: every worker's steps acknowledged after a moment."""

    def __init__(self, workers: Sequence[Worker], seconds: float) -> None:
        self.workers, self.seconds = workers, seconds

    def wait(self, what: str) -> None:
        """Return once every worker had ``RECOVERED_STEPS`` steps acknowledged that began from now on."""
        since = time.monotonic()
        try:
            wait_until(
                lambda: all(w.ledger.acknowledged_since(since) >= RECOVERED_STEPS for w in self.workers),
                what=f"{what} (every worker's steps acknowledged)",
                seconds=self.seconds,
            )
        except NotReady as error:
            behind = [
                f"{w.ledger.name} ({w.ledger.acknowledged_since(since)} steps, last error: {w.ledger.last_error})"
                for w in self.workers
                if w.ledger.acknowledged_since(since) < RECOVERED_STEPS
            ]
            raise NotReady(f"{error}; behind: {'; '.join(behind)}") from error


def run_load(
    scenario: str,
    addresses: Sequence[tuple[str, int]],
    fault: Callable[[Progress], None],
    *,
    probes: Sequence[tuple[str, int]] | None = None,
    recovery_seconds: float = 600.0,
) -> Report:
    """Run the load on ``addresses``, ``fault()`` once every worker had steps acknowledged, the load until
    every worker had steps acknowledged that began after it, then count (``Report``)."""
    setup = FailoverClient(addresses)
    _until_answered(
        setup, "create_database", hive.Database(name=DATABASE, parameters={}), tolerate=hive.AlreadyExistsException
    )
    workers = [kind(n, addresses) for kind, count in WORKLOAD for n in range(count)]
    for worker in workers:
        worker.setup(setup)
    probe_list = [Probe(a) for a in (probes or addresses)]
    stop, probe_stop = threading.Event(), threading.Event()
    threads = [threading.Thread(target=w.run, args=(stop,), name=w.ledger.name, daemon=True) for w in workers]
    threads += [threading.Thread(target=p.run, args=(probe_stop,), daemon=True) for p in probe_list]
    for thread in threads:
        thread.start()
    try:
        wait_until(
            lambda: all(w.ledger.acknowledged_since(0) >= RECOVERED_STEPS for w in workers),
            what="the load before the fault (every worker's steps acknowledged)",
            seconds=READY_SECONDS,
        )
        progress = Progress(workers, recovery_seconds)
        fault_started = time.monotonic()
        fault(progress)
        fault_ended = time.monotonic()
        log.info("%s: fault over after %.1f s", scenario, fault_ended - fault_started)
        progress.wait("the load after the fault")
    finally:
        stop.set()
        for thread in threads[: len(workers)]:
            thread.join(CLIENT_TIMEOUT_S * 2)
        probe_stop.set()
    locks_left, txns_left = _left_behind(setup)
    for worker in workers:
        worker.verify(setup)
    setup.close()
    ledgers = [w.ledger for w in workers]
    windows = {ledger.name: ledger.longest_error_window() for ledger in ledgers}
    worst = max(windows, key=lambda name: windows[name])
    serving = [p.serving_again_after(fault_ended) for p in probe_list]
    return Report(
        scenario=scenario,
        calls=sum(len(ledger.calls) for ledger in ledgers),
        failed_calls=sum(1 for ledger in ledgers for *_, ok in ledger.calls if not ok),
        cut_off=sum(ledger.cut_off for ledger in ledgers),
        steps=sum(len(ledger.steps) for ledger in ledgers),
        lost=sum(ledger.lost for ledger in ledgers),
        duplicated=sum(ledger.duplicated for ledger in ledgers) + _duplicated_adds(setup, workers),
        locks_left=locks_left,
        txns_left=txns_left,
        exclusive_overlaps=_exclusive_overlaps(workers),
        stale_reads=sum(w.stale for w in workers if isinstance(w, CoherenceWorker)),
        misreported=sum(ledger.misreported for ledger in ledgers),
        longest_error_window_s=windows[worst],
        longest_error_window_of=worst,
        serving_again_s=None if None in serving else max(s for s in serving if s is not None),
        fault_s=fault_ended - fault_started,
        errors=dict(sum((ledger.errors for ledger in ledgers), Counter())),
        failed_steps=dict(sum((ledger.failed_steps for ledger in ledgers), Counter())),
    )


def _until_answered(client: FailoverClient, method: str, *args, tolerate: type | None = None):
    deadline = time.monotonic() + READY_SECONDS
    while True:
        try:
            return client.call(method, *args)
        except (CallCutOff, NothingApplied):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
        except Exception as error:
            if tolerate is not None and isinstance(error, tolerate):
                return None
            raise


def _left_behind(client: FailoverClient) -> tuple[int, int]:
    """The load's locks and open transactions once their timeout (and the sweep after it) has passed: waits
    while any is left, up to three timeouts."""

    def count() -> tuple[int, int]:
        locks = _until_answered(client, "show_locks", hive.ShowLocksRequest(dbname=DATABASE)).locks or []
        txns = _until_answered(client, "get_open_txns_info").open_txns
        return len(locks), sum(1 for t in txns if t.state == hive.TxnState.OPEN and t.user == "ha")

    deadline = time.monotonic() + 3 * TXN_TIMEOUT_S + 10
    left = count()
    while any(left) and time.monotonic() < deadline:
        time.sleep(0.5)
        left = count()
    return left


def _exclusive_overlaps(workers: Sequence[Worker]) -> int:
    """Pairs of times two lock workers of one table both held its EXCLUSIVE lock (must be none)."""
    by_table: dict[str, list[tuple[float, float, str]]] = {}
    for worker in workers:
        if isinstance(worker, LockWorker):
            by_table.setdefault(worker.table, []).extend((a, b, worker.ledger.name) for a, b in worker.held)
    overlaps = 0
    for spans in by_table.values():
        spans.sort()
        for (_, end, holder), (start, _, other) in zip(spans, spans[1:]):
            overlaps += holder != other and start < end
    return overlaps


def _duplicated_adds(client: FailoverClient, workers: Sequence[Worker]) -> int:
    """``ADD_PARTITION`` events of each partition worker's table beyond the adds that applied."""
    churn = {w.table: w for w in workers if isinstance(w, PartitionWorker)}
    events: Counter = Counter()
    last = 0
    while True:
        batch = _until_answered(
            client, "get_next_notification", hive.NotificationEventRequest(lastEvent=last, maxEvents=1000)
        )
        if not batch.events:
            break
        for event in batch.events:
            if event.eventType == "ADD_PARTITION" and event.dbName == DATABASE and event.tableName in churn:
                events[event.tableName] += 1
        last = batch.events[-1].eventId
    return sum(max(0, events[table] - worker.adds_applied) for table, worker in churn.items())


# ------------------------------------------------------------------------------------------------- scenarios

PREVIOUS_LAYOUT_BUILD = "604fa6d"
"""The last main commit of schema layout 14 (the next added ``db.revision``): the build a rolling upgrade
starts from."""


def previous_build(home: Path, commit: str = PREVIOUS_LAYOUT_BUILD) -> Path:
    """The code of main at ``commit``, from this checkout's git history, unpacked into ``home``."""
    code = home / f"build-{commit}"
    if not code.exists():
        code.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", commit], capture_output=True, check=True, timeout=120
        )
        subprocess.run(["tar", "-x", "-C", str(code)], input=archive.stdout, check=True, timeout=120)
    return code


def postgresql_failover(home: Path) -> Report:
    """Two servers on a PostgreSQL primary with a synchronous streaming replica, through libpq's list of
    both hosts (``target_session_attrs=read-write``); the primary killed, the replica promoted."""
    pair = db_clusters.PostgreSQLPair(home / "postgresql", synchronous=True)
    try:
        pair.start()
        pair.create_database(DATABASE)
        url = pair.url(DATABASE)
        with fleet([url, url], home) as servers:

            def fault(progress: Progress) -> None:
                pair.kill_primary()
                pair.promote_replica()

            return run_load("PostgreSQL primary killed, replica promoted", [s.address for s in servers], fault)
    finally:
        pair.stop()


def galera_node_loss(home: Path) -> Report:
    """Three servers on a three-node Galera cluster through HAProxy spreading connections over the nodes
    (``roundrobin``); one node killed, the load going on over the other two, then the node rejoining."""
    cluster = db_clusters.GaleraCluster(home / "galera")
    proxy = db_clusters.HAProxy(home / "haproxy", cluster.backends, balance="roundrobin")
    try:
        cluster.start()
        cluster.create_database(DATABASE)
        proxy.start()
        url = proxy.url("mysql+pymysql", DATABASE)
        with fleet([url] * 3, home) as servers:

            def fault(progress: Progress) -> None:
                cluster.kill_node(1)
                progress.wait("the load on two Galera nodes")
                cluster.start_node(1)

            report = run_load("Galera node killed, then rejoining", [s.address for s in servers], fault)
        statuses = [node.status() for node in cluster.nodes]
        report.notes["commits by node"] = [int(status.get("wsrep_local_commits", 0)) for status in statuses]
        report.notes["refused at certification or aborted by a replicated write"] = sum(
            int(status.get("wsrep_local_cert_failures", 0)) + int(status.get("wsrep_local_bf_aborts", 0))
            for status in statuses
        )
        return report
    finally:
        proxy.stop()
        cluster.stop()


def rolling_upgrade(home: Path, db_url: str) -> Report:
    """Three servers of the previous schema layout's build on ``db_url`` (an empty MySQL/MariaDB or PostgreSQL
    database); one killed; the schema upgraded (``schema upgrade``) while the other two serve; the killed one
    started on this build, then the other two stopped and started on it in turn."""
    with fleet([db_url] * 3, home, code=previous_build(home)) as servers:

        def fault(progress: Progress) -> None:
            servers[0].kill()
            subprocess.run(
                [sys.executable, "-m", "hms_adapter.cli", "schema", "upgrade", "--db-url", db_url],
                check=True,
                capture_output=True,
                timeout=READY_SECONDS,
                cwd=ROOT,
            )
            for server in servers:
                server.stop()
                server.code = None
                server.start()
                progress.wait(f"the load with the server on port {server.port} upgraded")

        return run_load("server killed, rolling restart with a schema upgrade", [s.address for s in servers], fault)


@dataclass(frozen=True)
class Host:
    """A network namespace joined to this one by two veth pairs: one its clients reach ``address`` by, one it
    reaches its database by (``database_gateway``, this namespace's end of the second pair); cutting the
    second (``cut``) leaves the first alone."""

    namespace: str
    link: str
    """The clients' veth end in this namespace."""
    database_link: str
    address: str
    database_gateway: str


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


def _pair(namespace: str, outside: str, inside: str, subnet: str) -> None:
    """A veth pair ``outside`` (here, ``subnet``.1) -- ``inside`` (in ``namespace``, ``subnet``.2)."""
    _ip("link", "add", outside, "type", "veth", "peer", "name", inside)
    _ip("link", "set", inside, "netns", namespace)
    _ip("addr", "add", f"{subnet}.1/24", "dev", outside)
    _ip("link", "set", outside, "up")
    _ip("netns", "exec", namespace, "ip", "addr", "add", f"{subnet}.2/24", "dev", inside)
    _ip("netns", "exec", namespace, "ip", "link", "set", inside, "up")


@contextmanager
def hosts(count: int, subnet_base: int = 180) -> Iterator[list[Host]]:
    """``count`` namespaces: host ``n``'s clients' link on ``10.78.<subnet_base + n>.0/24``, its database link
    on ``10.79.<subnet_base + n>.0/24``. Deleted on leaving."""
    tag = os.urandom(2).hex()
    made: list[Host] = []
    try:
        for n in range(count):
            name = f"hmsha{n}{tag}"
            clients, database = f"10.78.{subnet_base + n}", f"10.79.{subnet_base + n}"
            host = Host(name, f"{name}c", f"{name}d", f"{clients}.2", f"{database}.1")
            _ip("netns", "add", name)
            made.append(host)
            _pair(name, host.link, f"{name}C", clients)
            _pair(name, host.database_link, f"{name}D", database)
            _ip("netns", "exec", name, "ip", "link", "set", "lo", "up")
        yield made
    finally:
        for host in made:
            for link in (host.link, host.database_link):
                subprocess.run(["ip", "link", "del", link], capture_output=True, timeout=30)
            subprocess.run(["ip", "netns", "del", host.namespace], capture_output=True, timeout=30)


def cut(host: Host) -> None:
    """Take ``host``'s database link down: what it sends its database is lost, without an answer."""
    _ip("link", "set", host.database_link, "down")


def mend(host: Host) -> None:
    _ip("link", "set", host.database_link, "up")


def database_cut_off(home: Path, mysql_database: str, mysql_port: int = 3306) -> Report:
    """Two servers, each in a network namespace of its own, on the local MariaDB's ``mysql_database`` through
    HAProxy; one server's packets to the database dropped (its clients still reach it) until every worker
    has gone on through the other, then let through again."""
    proxy = db_clusters.HAProxy(home / "haproxy", [("127.0.0.1", mysql_port)], bind="0.0.0.0")
    proxy.start()
    try:
        with hosts(2) as (isolated, other):
            servers = [
                Server(
                    f"mysql+pymysql://root@{host.database_gateway}:{proxy.port}/{mysql_database}",
                    home / "warehouse",
                    home / f"server-{n}.log",
                    host=host.address,
                    namespace=host.namespace,
                )
                for n, host in enumerate((isolated, other))
            ]
            try:
                for server in servers:
                    server.start()

                def fault(progress: Progress) -> None:
                    cut(isolated)
                    try:
                        progress.wait("the load with one server cut off from its database")
                    finally:
                        mend(isolated)

                return run_load("one server cut off from the database", [s.address for s in servers], fault)
            finally:
                for server in servers:
                    server.kill()
    finally:
        proxy.stop()


# ------------------------------------------------------------------------------------------------------- CLI


def _partition_by_hand(home: Path) -> Report:
    url = make_url(os.environ["FAILOVER_DB_URL"])
    return database_cut_off(home, url.database or "", url.port or 3306)


SCENARIOS: dict[str, Callable[[Path], Report]] = {
    "postgresql": postgresql_failover,
    "galera": galera_node_loss,
    "rolling": lambda home: rolling_upgrade(home, os.environ["FAILOVER_DB_URL"]),
    "partition": _partition_by_hand,
}
NEEDS_DATABASE = {"rolling", "partition"}
"""The scenarios run on the empty database named by ``FAILOVER_DB_URL`` (``partition``: a local MariaDB's)."""


def main() -> None:
    """``python benchmarks/failover.py SCENARIO``: run one scenario by hand and print its figures (the tests of
    ``tests/availability`` print the same lines)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", choices=sorted(SCENARIOS))
    args = parser.parse_args()
    if args.scenario in NEEDS_DATABASE and not os.environ.get("FAILOVER_DB_URL"):
        parser.error(f"{args.scenario} runs on the empty database named by FAILOVER_DB_URL (mysql://...)")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    problem = db_clusters.ensure_packages()
    if problem:
        sys.exit(problem)
    home = Path(tempfile.mkdtemp(prefix="hms-failover-"))
    os.chmod(home, 0o755)  # the database servers' users reach their folders through it
    try:
        print(SCENARIOS[args.scenario](home).line())
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
