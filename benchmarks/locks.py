"""HMS locks under load: lock/unlock throughput, lock hand-off between contending writers, and PyIceberg
appends, on ours and on Apache Hive Metastore 2.3.10 side by side.

Three workloads, each client a process of its own with its own connection (thriftpy2, the project's IDL,
binary protocol over a buffered socket transport, as PyIceberg and most Python clients connect):

1. **Uncontended lock + unlock.** Each of C clients (``--clients 1,8``) locks its own table (one EXCLUSIVE
   TABLE component, no transaction) and unlocks it, in a loop, for ``--seconds``. Reported: pairs per
   second (all clients), p50/p95 of ``lock`` and of ``unlock``, and the CPU the server and MariaDB spent
   per pair.
2. **Hand-off.** ``--handoff-writers`` (8) writers contend for ONE table's EXCLUSIVE lock. Each loop:
   ``lock``; while WAITING, sleep ``--poll-ms`` (10 ms) and ``check_lock`` (as Iceberg's MetastoreLock and
   PyIceberg poll, with a short interval so that the server is measured more than the sleep); hold the
   lock ``--hold-ms`` (1 ms); ``unlock``. Reported: hand-offs (commits) per second, and the time from a
   holder's ``unlock`` returning to the next holder receiving ACQUIRED (``time.monotonic`` stamps taken in
   the writer processes; CLOCK_MONOTONIC is one clock for every process of a Linux machine). Mutual
   exclusion is checked: no ACQUIRED answer may come before the previous holder started its ``unlock``.
3. **The SQL floor** (``--floor``, with ``--ours``/``--compare``): C client processes send this server's
   own statements of a lock + unlock pair (draw the id from the ``lock`` counter, which is the grant mutex;
   read the live locks near the table; insert the lock; commit; delete it; commit) straight to its MariaDB
   database through mysqlclient, no metastore between: the pairs/s the database allows this design, which
   no server code can beat. Then the same without the mutex (ids made up by the clients): what the database
   allows any design with those statements and commits.
4. **PyIceberg appends.** ``--iceberg-writers 1,4`` processes append 10-row batches to one Iceberg table
   through PyIceberg's ``HiveCatalog`` (which takes the Hive table lock for every commit) on a local
   ``file:`` warehouse, for ``--iceberg-seconds``; a commit that fails after PyIceberg's own retries is
   retried after a refresh. Reported: acknowledged appends per second and the p50 of an append.
   ``--iceberg-poll-ms`` (10) sets PyIceberg's ``lock-check-min/max-wait-time`` (its default first wait is
   2 s) and ``--iceberg-retry-wait-ms`` (10) the table's ``commit.retry.min-wait-ms`` (default 100).

Servers: ``--ours`` starts ``hudi-metastore serve --workers 2`` (``--workers``) on its own MariaDB database,
``--peer`` Apache Hive Metastore 2.3.10 from the pyspark wheel on another (``benchmarks/peer.py``),
``--compare`` both, ``--uri thrift://host:port`` any running metastore. Before the figures each server gets
``--warmup-seconds`` of unreported lock/unlock from 2 clients (the JVM compiles its hot paths).

Prints one markdown table (ours/HMS ratios when both run), then the result as JSON (or writes it to
``--json PATH``).

Usage: python benchmarks/locks.py [--compare | --ours | --peer | --uri thrift://host:port] [--seconds 10]
       [--clients 1,8] [--handoff-writers 8] [--poll-ms 10] [--floor] [--iceberg-writers 1,4]
       [--json locks.json]
"""

from __future__ import annotations

import argparse
import itertools
import logging
import multiprocessing
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
import traceback
import zlib
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

import thriftpy2
from thriftpy2.rpc import make_client

from hms_adapter.idl import hive

sys.path.insert(0, str(Path(__file__).parent))
from bench_server import (  # noqa: E402
    Target,
    add_server_options,
    emit_json,
    int_list,
    percentile,
    start_targets,
)

OURS_URL = "mysql://root@127.0.0.1:3306/locksbench_ours"
PEER_URL = "mysql://root@127.0.0.1:3306/locksbench_peer"
DB = "locksbench"
ICEBERG_NS = "locksbench_ice"
ROOT = Path(__file__).resolve().parents[1]
CTX = multiprocessing.get_context("fork")
ACQUIRED, WAITING = hive.LockState.ACQUIRED, hive.LockState.WAITING
CHILD_TIMEOUT_S = 120


def connect(target: Target):
    return make_client(hive.ThriftHiveMetastore, target.host, target.port, timeout=CHILD_TIMEOUT_S * 1000)


def lock_request(table: str):
    return hive.LockRequest(
        component=[
            hive.LockComponent(type=hive.LockType.EXCLUSIVE, level=hive.LockLevel.TABLE, dbname=DB, tablename=table)
        ],
        user="locksbench",
        hostname=socket.gethostname(),
        agentInfo="locksbench",
    )


# -- CPU accounting ----------------------------------------------------------------------------------------

_TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of the processes and their children (``serve --workers`` forks its workers)."""
    parents = set(pids)
    members = set(pids)
    for stat in Path("/proc").glob("[0-9]*/stat"):
        fields = _stat(int(stat.parent.name))
        if fields and int(fields[1]) in parents:
            members.add(int(stat.parent.name))
    total = 0
    for pid in members:
        fields = _stat(pid)
        if fields:
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / _TICK


def mariadb_pids() -> list[int]:
    found = []
    for comm in Path("/proc").glob("[0-9]*/comm"):
        try:
            if comm.read_text().strip() in ("mariadbd", "mysqld"):
                found.append(int(comm.parent.name))
        except OSError:
            continue
    return found


def machine_ticks() -> tuple[int, int]:
    """(busy, total) CPU ticks of the whole machine since boot (``/proc/stat``)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


class CpuMeter:
    """CPU seconds the server and MariaDB spend between ``start`` and ``stop``, and how busy the whole
    machine was (every process: server, MariaDB, clients, anything else running)."""

    def __init__(self, target: Target) -> None:
        self.server = [target.pid] if target.pid else []
        self.db = mariadb_pids()

    def start(self) -> None:
        self._server0, self._db0 = cpu_seconds(self.server), cpu_seconds(self.db)
        self._machine0 = machine_ticks()

    def stop(self) -> dict:
        out = {"mariadb_cpu_s": round(cpu_seconds(self.db) - self._db0, 2) if self.db else None}
        out["server_cpu_s"] = round(cpu_seconds(self.server) - self._server0, 2) if self.server else None
        busy, total = (b - a for a, b in zip(self._machine0, machine_ticks()))
        out["machine_busy_pct"] = round(100 * busy / total, 1) if total else None
        return out


# -- running client processes ------------------------------------------------------------------------------


def percentile_of(samples: list[float], p: float) -> float | None:
    """``bench_server.percentile`` of unsorted samples; None when there are none."""
    return percentile(sorted(samples), p) if samples else None


def ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 3)


def run_clients(
    body: Callable, args_of: Callable[[int], tuple], count: int, seconds: float
) -> tuple[list[dict], float]:
    """``count`` processes, process ``i`` running ``body(*args_of(i), ready)``: the body connects and warms
    up, then calls ``ready()``, which returns ``(begin, end)`` of the measured window once every process is
    ready (the window starts 50 ms after the last one and lasts ``seconds``); the body returns its report.
    Returns the reports, in process order, and the window's start."""
    barrier = CTX.Barrier(count + 1)
    start_at = CTX.Value("d", 0.0)
    out = CTX.Queue()

    def child(i: int) -> None:
        try:

            def ready() -> tuple[float, float]:
                barrier.wait(CHILD_TIMEOUT_S)
                while start_at.value == 0.0:
                    time.sleep(0.001)
                begin = start_at.value
                time.sleep(max(0.0, begin - time.monotonic()))
                return begin, begin + seconds

            report = body(*args_of(i), ready)
        except BaseException:  # noqa: BLE001  (reported, the run goes on)
            report = {"error": traceback.format_exc()}
            barrier.abort()  # the others stop waiting for this one (harmless once the window started)
        report["client"] = i
        out.put(report)

    children = [CTX.Process(target=child, args=(i,), daemon=True) for i in range(count)]
    for c in children:
        c.start()
    try:
        barrier.wait(CHILD_TIMEOUT_S)
        begin = time.monotonic() + 0.05
    except Exception:  # noqa: BLE001  (a child failed before its barrier: its report says why)
        barrier.abort()
        begin = 0.0
    start_at.value = begin
    reports = []
    for _ in children:
        try:
            reports.append(out.get(timeout=seconds + CHILD_TIMEOUT_S))
        except Exception:  # noqa: BLE001
            reports.append({"error": "no report from a client process (timed out)"})
    for c in children:
        c.join(10)
        if c.is_alive():
            c.kill()
    return sorted(reports, key=lambda r: r.get("client", -1)), begin


def errors_of(reports: list[dict]) -> list[str]:
    found = [r["error"].strip().splitlines()[-1][:300] for r in reports if "error" in r]
    for r in reports:
        found += r.get("errors", [])
    return found


# -- 1. uncontended lock + unlock ------------------------------------------------------------------------------


def _pairs_client(target: Target, table: str, warmup: int, ready) -> dict:
    client = connect(target)
    request = lock_request(table)
    for _ in range(warmup):
        client.unlock(hive.UnlockRequest(lockid=client.lock(request).lockid))
    begin, end = ready()
    lock_s, unlock_s, errors = [], [], []
    last = begin
    while time.monotonic() < end:
        t0 = time.monotonic()
        answer = client.lock(request)
        t1 = time.monotonic()
        client.unlock(hive.UnlockRequest(lockid=answer.lockid))
        last = time.monotonic()
        if answer.state != ACQUIRED:
            errors.append(f"{table}: uncontended lock answered state {answer.state}")
            continue
        lock_s.append(t1 - t0)
        unlock_s.append(last - t1)
    client.close()
    return {"lock_s": lock_s, "unlock_s": unlock_s, "last": last, "errors": errors[:5]}


def uncontended(target: Target, clients: int, seconds: float, warmup: int = 20, tag: str = "") -> dict:
    load = os.getloadavg()[0]
    meter = CpuMeter(target)
    meter.start()
    reports, begin = run_clients(_pairs_client, lambda i: (target, f"t{tag}{i}", warmup), clients, seconds)
    cpu = meter.stop()
    lock_s = [x for r in reports for x in r.get("lock_s", [])]
    unlock_s = [x for r in reports for x in r.get("unlock_s", [])]
    wall = max((r["last"] for r in reports if "last" in r), default=begin) - begin
    pairs = len(lock_s)
    out = {
        "clients": clients,
        "pairs": pairs,
        "wall_s": round(wall, 2),
        "pairs_per_s": round(pairs / wall, 1) if wall > 0 else None,
        "lock_p50_ms": ms(percentile_of(lock_s, 0.5)),
        "lock_p95_ms": ms(percentile_of(lock_s, 0.95)),
        "unlock_p50_ms": ms(percentile_of(unlock_s, 0.5)),
        "unlock_p95_ms": ms(percentile_of(unlock_s, 0.95)),
        "per_client_pairs": [len(r.get("lock_s", [])) for r in reports],
        "load_1m_before": load,
        "errors": errors_of(reports),
    }
    for key, value in cpu.items():
        out[key] = value
        if key.endswith("_cpu_s") and value is not None and pairs:
            out[key.replace("_s", "_ms_per_pair")] = round(value * 1000 / pairs, 3)
    return out


# -- 2. hand-off on one table ------------------------------------------------------------------------------


def _handoff_client(target: Target, table: str, poll_s: float, hold_s: float, warmup: int, ready) -> dict:
    client = connect(target)
    request = lock_request(table)

    def hold_once(check_s: list[float] | None = None) -> tuple[float, float, float, float, int]:
        t_req = time.monotonic()
        answer = client.lock(request)
        checks = 0
        while answer.state == WAITING:
            time.sleep(poll_s)
            t0 = time.monotonic()
            answer = client.check_lock(hive.CheckLockRequest(lockid=answer.lockid))
            if check_s is not None:
                check_s.append(time.monotonic() - t0)
            checks += 1
        t_acq = time.monotonic()
        if answer.state != ACQUIRED:
            client.unlock(hive.UnlockRequest(lockid=answer.lockid))
            raise RuntimeError(f"lock {answer.lockid} answered state {answer.state}")
        time.sleep(hold_s)
        t_unlock = time.monotonic()
        client.unlock(hive.UnlockRequest(lockid=answer.lockid))
        return t_req, t_acq, t_unlock, time.monotonic(), checks

    for _ in range(warmup):
        hold_once()
    _, end = ready()
    holds, check_s = [], []
    while time.monotonic() < end:
        holds.append(hold_once(check_s))
    client.close()
    return {"holds": holds, "check_s": check_s}


def handoff(target: Target, writers: int, seconds: float, poll_ms: float, hold_ms: float) -> dict:
    load = os.getloadavg()[0]
    meter = CpuMeter(target)
    meter.start()
    reports, begin = run_clients(
        _handoff_client, lambda i: (target, "handoff", poll_ms / 1000, hold_ms / 1000, 2), writers, seconds
    )
    cpu = meter.stop()
    end = begin + seconds
    # (t_req, t_acq, t_unlock_start, t_unlock_end, checks, writer), in the order the lock was held
    holds = sorted(((*h, r["client"]) for r in reports for h in r.get("holds", [])), key=lambda h: h[1])
    inside = [h for h in holds if begin <= h[1] < end]
    gaps, overlaps = [], 0
    for prev, nxt in itertools.pairwise(holds):
        if nxt[1] < prev[2]:
            overlaps += 1
        if begin <= nxt[1] < end and begin <= prev[1]:
            gaps.append(nxt[1] - prev[3])
    check_s = [x for r in reports for x in r.get("check_s", [])]
    waits = [h[1] - h[0] for h in inside]
    errors = errors_of(reports)
    if overlaps:
        errors.append(f"{overlaps} time(s) a writer was told ACQUIRED before the holder had started its unlock")
    out = {
        "writers": writers,
        "poll_ms": poll_ms,
        "hold_ms": hold_ms,
        "handoffs": len(inside),
        "handoffs_per_s": round(len(inside) / seconds, 1),
        "handoff_p50_ms": ms(percentile_of(gaps, 0.5)),
        "handoff_p95_ms": ms(percentile_of(gaps, 0.95)),
        "acquire_wait_p50_ms": ms(percentile_of(waits, 0.5)),
        "acquire_wait_p95_ms": ms(percentile_of(waits, 0.95)),
        "check_lock_calls": len(check_s),
        "check_lock_per_acquisition": round(sum(h[4] for h in inside) / len(inside), 2) if inside else None,
        "check_lock_p50_ms": ms(percentile_of(check_s, 0.5)),
        "check_lock_p95_ms": ms(percentile_of(check_s, 0.95)),
        "per_writer_handoffs": [sum(1 for h in inside if h[5] == r.get("client")) for r in reports],
        "overlaps": overlaps,
        "load_1m_before": load,
        "errors": errors,
    }
    out.update(cpu)
    return out


# -- 3. the SQL floor ----------------------------------------------------------------------------------------

# this server's statements of a lock + unlock pair on MariaDB (hudi_catalog/store/sequences.py and locks.py)
_FLOOR_TAKE = (
    "UPDATE id_sequence SET next_value=LAST_INSERT_ID(id_sequence.next_value + %s) WHERE id_sequence.name = %s"
)
_FLOOR_NEAR = (
    "SELECT lock_id, component, txn_id, db_name, tbl_name, part_name, state, lock_type FROM hive_lock "
    "WHERE db_name = %s AND (tbl_name IS NULL OR tbl_name = %s) AND (txn_id != 0 OR last_heartbeat_ms >= %s) "
    "AND lock_id != %s"
)
_FLOOR_INSERT = (
    "INSERT INTO hive_lock (lock_id, component, txn_id, db_name, tbl_name, part_name, state, lock_type, "
    "last_heartbeat_ms, acquired_at_ms, heartbeat_count, user_name, host_name, agent_info, blocked_by_lock, "
    "blocked_by_component) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)
_FLOOR_DELETE = "DELETE FROM hive_lock WHERE hive_lock.lock_id = %s AND (hive_lock.txn_id = %s OR hive_lock.state = %s)"


def _floor_client(db_url: str, table: str, mutex: bool, warmup: int, ready) -> dict:
    import MySQLdb
    from sqlalchemy.engine import make_url

    url = make_url(db_url)
    connection = MySQLdb.connect(
        host=url.host or "127.0.0.1", port=url.port or 3306, user=url.username or "root", database=url.database
    )
    cursor = connection.cursor()
    made_up = itertools.count(10**15 + (zlib.crc32(table.encode()) << 24))

    def pair() -> None:
        now = int(time.time() * 1000)
        if mutex:
            cursor.execute(_FLOOR_TAKE, (1, "lock"))
            lock_id = cursor.lastrowid - 1
        else:
            lock_id = next(made_up)
        cursor.execute(_FLOOR_NEAR, (DB, table, now - 300_000, 0))
        cursor.fetchall()
        row = (lock_id, 1, 0, DB, table, None, 1, 3, now, now, 0, "floor", "floor", None, None, None)
        cursor.execute(_FLOOR_INSERT, row)
        connection.commit()
        cursor.execute(_FLOOR_DELETE, (lock_id, 0, 2))
        connection.commit()

    for _ in range(warmup):
        pair()
    begin, end = ready()
    pairs, last = 0, begin
    while time.monotonic() < end:
        pair()
        pairs += 1
        last = time.monotonic()
    connection.close()
    return {"pairs": pairs, "last": last}


def sql_floor(db_url: str, clients: int, seconds: float, mutex: bool) -> dict:
    reports, begin = run_clients(_floor_client, lambda i: (db_url, f"floor{i}", mutex, 20), clients, seconds)
    wall = max((r["last"] for r in reports if "last" in r), default=begin) - begin
    pairs = sum(r.get("pairs", 0) for r in reports)
    return {
        "clients": clients,
        "pairs": pairs,
        "pairs_per_s": round(pairs / wall, 1) if wall > 0 else None,
        "errors": errors_of(reports),
    }


# -- 4. PyIceberg appends ----------------------------------------------------------------------------------


def import_pyiceberg():
    """Import PyIceberg's Hive catalog once, before the servers start: fail early, and forked writers
    inherit the import."""
    try:
        from pyiceberg.catalog.hive import HiveCatalog  # noqa: F401
    except ImportError as error:
        raise SystemExit(f"the PyIceberg workload needs pyiceberg[hive]: {error}") from error


def iceberg_props(args) -> dict[str, str]:
    wait = str(args.iceberg_poll_ms / 1000)
    return {
        "lock-check-min-wait-time": wait,
        "lock-check-max-wait-time": wait,
        # PyIceberg gives up on a WAITING lock after this many checks; enough for a minute of waiting
        "lock-check-retries": str(int(60_000 / args.iceberg_poll_ms)),
    }


def _batch(writer: int, index: int):
    import pyarrow as pa

    return pa.table(
        {
            "id": pa.array([writer * 10_000_000 + index * 100 + r for r in range(10)], pa.int64()),
            "writer": pa.array([writer] * 10, pa.int32()),
        }
    )


def _append_client(uri: str, identifier: str, props: dict, writer: int, ready) -> dict:
    from pyiceberg.catalog.hive import HiveCatalog
    from pyiceberg.exceptions import CommitFailedException

    # PyIceberg warns at every WAITING check and every retried commit: thousands of lines with 4 writers
    logging.getLogger("pyiceberg").setLevel(logging.ERROR)

    table = HiveCatalog(f"w{writer}", uri=uri, **props).load_table(identifier)
    index = 0
    for _ in range(2):  # warm-up, not counted
        index += 1
        try:
            table.append(_batch(writer, index))
        except CommitFailedException:
            table.refresh()
    begin, end = ready()
    append_s, failures, last = [], 0, begin
    while time.monotonic() < end:
        index += 1
        t0 = time.monotonic()
        try:
            table.append(_batch(writer, index))
        except CommitFailedException:
            failures += 1
            table.refresh()
            continue
        finally:
            last = time.monotonic()
        append_s.append(last - t0)
    return {"append_s": append_s, "failures": failures, "last": last, "snapshot_id": table.metadata.current_snapshot_id}


def iceberg(target: Target, writers: int, seconds: float, work: Path, args) -> dict:
    from pyiceberg.catalog.hive import HiveCatalog
    from pyiceberg.schema import Schema
    from pyiceberg.types import IntegerType, LongType, NestedField

    props = iceberg_props(args)
    catalog = HiveCatalog("setup", uri=target.uri, **props)
    if (ICEBERG_NS,) not in catalog.list_namespaces():
        catalog.create_namespace(ICEBERG_NS)
    identifier = f"{ICEBERG_NS}.appends_{writers}"
    location = work / "iceberg" / target.key.replace("/", "_").replace(":", "_") / f"appends_{writers}"
    schema = Schema(
        NestedField(1, "id", LongType(), required=False), NestedField(2, "writer", IntegerType(), required=False)
    )
    catalog.create_table(
        identifier,
        schema,
        location=f"file://{location}",
        properties={"commit.retry.min-wait-ms": str(args.iceberg_retry_wait_ms)},
    )
    load = os.getloadavg()[0]
    meter = CpuMeter(target)
    meter.start()
    reports, begin = run_clients(_append_client, lambda i: (target.uri, identifier, props, i), writers, seconds)
    cpu = meter.stop()
    append_s = [x for r in reports for x in r.get("append_s", [])]
    wall = max((r["last"] for r in reports if "last" in r), default=begin) - begin
    table = catalog.load_table(identifier)
    snapshots = len(table.metadata.snapshots)
    expected = writers * 2 + len(append_s)  # warm-up appends that failed twice are the only difference
    out = {
        "writers": writers,
        "appends": len(append_s),
        "wall_s": round(wall, 2),
        "appends_per_s": round(len(append_s) / wall, 2) if wall > 0 else None,
        "append_p50_ms": ms(percentile_of(append_s, 0.5)),
        "append_p95_ms": ms(percentile_of(append_s, 0.95)),
        "failed_appends": sum(r.get("failures", 0) for r in reports),
        "snapshots": snapshots,
        "load_1m_before": load,
        "errors": errors_of(reports),
    }
    if snapshots > expected or snapshots < len(append_s):
        out["errors"].append(
            f"the table has {snapshots} snapshots after {len(append_s)} acknowledged appends "
            f"(and at most {writers * 2} warm-up ones)"
        )
    out.update(cpu)
    return out


# -- servers -----------------------------------------------------------------------------------------------

# -- output ------------------------------------------------------------------------------------------------

ROWS = [
    # (section, label, key, format, higher is better; None: no ratio)
    ("uncontended", "lock + unlock pairs/s", "pairs_per_s", "{:,.0f}", True),
    ("uncontended", "lock p50 / p95 ms", ("lock_p50_ms", "lock_p95_ms"), "{:.2f}", False),
    ("uncontended", "unlock p50 / p95 ms", ("unlock_p50_ms", "unlock_p95_ms"), "{:.2f}", False),
    ("uncontended", "server CPU ms per pair", "server_cpu_ms_per_pair", "{:.2f}", False),
    ("uncontended", "MariaDB CPU ms per pair", "mariadb_cpu_ms_per_pair", "{:.2f}", False),
    ("uncontended", "machine CPU busy %", "machine_busy_pct", "{:.0f}", None),
    ("handoff", "hand-offs (commits)/s", "handoffs_per_s", "{:,.1f}", True),
    (
        "handoff",
        "unlock returned -> next ACQUIRED, p50 / p95 ms",
        ("handoff_p50_ms", "handoff_p95_ms"),
        "{:.2f}",
        False,
    ),
    ("handoff", "lock call -> ACQUIRED, p50 / p95 ms", ("acquire_wait_p50_ms", "acquire_wait_p95_ms"), "{:.1f}", False),
    ("handoff", "check_lock p50 / p95 ms", ("check_lock_p50_ms", "check_lock_p95_ms"), "{:.2f}", False),
    ("handoff", "check_lock calls per acquisition", "check_lock_per_acquisition", "{:.2f}", None),
    ("handoff", "machine CPU busy %", "machine_busy_pct", "{:.0f}", None),
    ("floor", "lock + unlock pairs/s, the statements alone", "pairs_per_s", "{:,.0f}", None),
    ("floor_no_mutex", "the same without the grant mutex", "pairs_per_s", "{:,.0f}", None),
    ("iceberg", "appends/s", "appends_per_s", "{:.2f}", True),
    ("iceberg", "append p50 / p95 ms", ("append_p50_ms", "append_p95_ms"), "{:,.0f}", False),
    ("iceberg", "appends failed after PyIceberg's retries", "failed_appends", "{:,}", None),
    ("iceberg", "machine CPU busy %", "machine_busy_pct", "{:.0f}", None),
]


def _cell(run: dict | None, key, form: str) -> tuple[str, float | None]:
    if not run or "skipped" in run:
        return ("skipped" if run else ""), None
    if isinstance(key, tuple):
        values = [run.get(k) for k in key]
        return " / ".join("" if v is None else form.format(v) for v in values), values[0]
    value = run.get(key)
    return ("" if value is None else form.format(value)), value


def markdown(result: dict) -> str:
    servers: dict[str, dict] = result["servers"]
    keys = list(servers)
    pair = ("ours", "hms") if set(keys) >= {"ours", "hms"} else None
    settings = result["settings"]
    header = ["workload", "measure"] + [(f"HMS {settings['hms']['version']}" if k == "hms" else k) for k in keys]
    if pair:
        header.append("ours / HMS")
    lines = ["| " + " | ".join(header) + " |", "|---|---|" + "---:|" * (len(header) - 2)]
    sections = (
        [("uncontended", str(c), f"uncontended, {c} client{'s' * (c > 1)}") for c in settings["clients"]]
        + [
            (
                "handoff",
                "",
                (
                    f"hand-off, {settings['handoff_writers']} writers, one table, "
                    f"poll {settings['poll_ms']:g} ms, hold {settings['hold_ms']:g} ms"
                ),
            )
            for _ in range(1 if settings["handoff_writers"] else 0)
        ]
        + [
            (section, str(c), f"SQL floor, {c} client{'s' * (c > 1)}")
            for c in settings["clients"]
            for section in ("floor", "floor_no_mutex")
            if settings["floor"]
        ]
        + [("iceberg", str(w), f"PyIceberg, {w} writer{'s' * (w > 1)}, one table") for w in settings["iceberg_writers"]]
    )
    for section, sub, title in sections:
        for row_section, label, key, form, higher in ROWS:
            if row_section != section:
                continue
            runs = {k: (servers[k].get(section, {}).get(sub) if sub else servers[k].get(section)) for k in keys}
            cells, values = zip(*(_cell(runs[k], key, form) for k in keys))
            row = [title, label, *cells]
            if pair:
                a, b = values[keys.index("ours")], values[keys.index("hms")]
                if a is None or not b or higher is None:
                    row.append("")
                else:
                    better = (a / b > 1) == higher
                    row.append(f"{a / b:.2f} ({'better' if better else 'worse'})" if a != b else "1.00")
            lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    for key in keys:
        problems = []
        for section, runs in servers[key].items():
            items = runs.items() if section != "handoff" else [("", runs)]
            for sub, run in items:
                if "skipped" in run:
                    problems.append(f"{section} {sub}: skipped: {run['skipped']}")
                problems += [f"{section} {sub}: {e}" for e in run.get("errors", [])]
        lines.append(f"- {key}: errors: {sum(1 for p in problems if ': skipped:' not in p)}")
        lines += [f"  - {p}" for p in problems[:20]]
    return "\n".join(lines)


# -- main --------------------------------------------------------------------------------------------------


def source_commit() -> str | None:
    """The repository's commit, ``+dirty`` when files differ from it (which code the figures are of)."""
    import subprocess

    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            check=False,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
            check=False,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return (head + ("+dirty" if dirty else "")) or None


def run_target(target: Target, args, work: Path) -> dict:
    out: dict = {}
    if args.floor and target.key == "ours":
        out["floor"], out["floor_no_mutex"] = {}, {}
        for clients in args.clients:
            print(f"SQL floor, {clients} client(s) ...", file=sys.stderr, flush=True)
            out["floor"][str(clients)] = sql_floor(args.ours_db_url, clients, args.seconds, mutex=True)
            out["floor_no_mutex"][str(clients)] = sql_floor(args.ours_db_url, clients, args.seconds, mutex=False)
    if args.warmup_seconds > 0:
        print(f"{target.key}: warm-up ({args.warmup_seconds:g} s) ...", file=sys.stderr, flush=True)
        uncontended(target, 2, args.warmup_seconds, tag="warm")
    out["uncontended"] = {}
    for clients in args.clients:
        print(f"{target.key}: uncontended lock + unlock, {clients} client(s) ...", file=sys.stderr, flush=True)
        out["uncontended"][str(clients)] = uncontended(target, clients, args.seconds)
    if args.handoff_writers:
        print(f"{target.key}: hand-off, {args.handoff_writers} writers ...", file=sys.stderr, flush=True)
        out["handoff"] = handoff(target, args.handoff_writers, args.seconds, args.poll_ms, args.hold_ms)
    if args.iceberg_writers:
        out["iceberg"] = {}
        for writers in args.iceberg_writers:
            print(f"{target.key}: PyIceberg appends, {writers} writer(s) ...", file=sys.stderr, flush=True)
            try:
                out["iceberg"][str(writers)] = iceberg(target, writers, args.iceberg_seconds, work, args)
            except Exception as e:  # noqa: BLE001  (reported; the other server still runs)
                out["iceberg"][str(writers)] = {
                    "skipped": f"{type(e).__name__}: {e}"[:1000],
                    "traceback": traceback.format_exc(),
                }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__
    )
    servers = add_server_options(parser, OURS_URL, PEER_URL)
    servers.add_argument("--workers", type=int, default=2, help="serve --workers of ours (default %(default)s)")
    parser.add_argument("--seconds", type=float, default=10, help="window of each lock workload (default 10)")
    parser.add_argument(
        "--warmup-seconds",
        type=float,
        default=3,
        help="unreported lock/unlock per server before the figures (default 3)",
    )
    parser.add_argument("--clients", type=int_list, default=[1, 8], help="uncontended clients (default 1,8)")
    parser.add_argument("--handoff-writers", type=int, default=8, help="0 skips the hand-off (default 8)")
    parser.add_argument("--poll-ms", type=float, default=10, help="check_lock interval while WAITING (default 10)")
    parser.add_argument("--hold-ms", type=float, default=1, help="how long a writer holds the lock (default 1)")
    parser.add_argument(
        "--floor",
        action="store_true",
        help="also time ours' lock + unlock statements sent straight to its database (the SQL floor)",
    )
    parser.add_argument(
        "--iceberg-writers",
        type=int_list,
        default=[1, 4],
        help="PyIceberg writer counts, comma-separated; empty skips (default 1,4)",
    )
    parser.add_argument("--iceberg-seconds", type=float, default=15, help="window of each append run (default 15)")
    parser.add_argument(
        "--iceberg-poll-ms", type=float, default=10, help="PyIceberg's lock-check-min/max-wait-time (default 10)"
    )
    parser.add_argument(
        "--iceberg-retry-wait-ms",
        type=int,
        default=10,
        help="the table's commit.retry.min-wait-ms (default 10; PyIceberg's is 100)",
    )
    parser.add_argument("--json", metavar="PATH", help="write the JSON result here instead of printing it")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    if args.iceberg_writers:
        import_pyiceberg()

    work = Path(tempfile.mkdtemp(prefix="locksbench-"))
    result: dict = {
        "settings": {
            "seconds": args.seconds,
            "warmup_seconds": args.warmup_seconds,
            "clients": args.clients,
            "handoff_writers": args.handoff_writers,
            "poll_ms": args.poll_ms,
            "hold_ms": args.hold_ms,
            "floor": args.floor,
            "iceberg_writers": args.iceberg_writers,
            "iceberg_seconds": args.iceberg_seconds,
            "iceberg_catalog": iceberg_props(args) if args.iceberg_writers else None,
            "iceberg_table": {"commit.retry.min-wait-ms": args.iceberg_retry_wait_ms},
            "client": (
                f"thriftpy2 {thriftpy2.__version__}, binary protocol, buffered transport, "
                "one process and connection per client"
            ),
            "cpus": os.cpu_count(),
            "load_before": os.getloadavg(),
            "commit": source_commit(),
        },
        "servers": {},
    }
    started = time.monotonic()
    try:
        with ExitStack() as stack:
            workers = ["--workers", str(args.workers)] if args.workers > 1 else []
            targets = start_targets(stack, args, result["settings"], [*workers, *args.ours_option], str(work / "ours"))
            if "ours" in result["settings"]:
                result["settings"]["ours"]["workers"] = args.workers
            for target in targets:
                result["servers"][target.key] = run_target(target, args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result["wall_s"] = round(time.monotonic() - started, 1)
    result["settings"]["load_after"] = os.getloadavg()

    print(markdown(result))
    print(
        f"\nrun time {result['wall_s']} s; load average before {result['settings']['load_before'][0]:.2f}, "
        f"after {result['settings']['load_after'][0]:.2f}"
    )
    emit_json(result, args.json)
    failed = any(
        run.get("errors")
        for runs in result["servers"].values()
        for run in [
            *runs.get("uncontended", {}).values(),
            runs.get("handoff", {}),
            *runs.get("floor", {}).values(),
            *runs.get("floor_no_mutex", {}).values(),
            *runs.get("iceberg", {}).values(),
        ]
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
