"""What the benchmarks share: a fresh MySQL database, a free port, ``hudi-metastore serve`` in its own
process, started, waited for and stopped, and the servers a benchmark compares (``Target``: ours, Apache
Hive Metastore 2.3.10 or 4.0.1 from ``peer.py``, or any URI)."""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import pymysql
from bench_base import HIVE_2_3, HIVE_4, PEER_VERSIONS, free_port, wait_for_listening
from sqlalchemy.engine import make_url


def ensure_empty_database(url: str) -> None:
    """Drop and create the MySQL or PostgreSQL database of ``url`` (nothing for SQLite)."""
    parsed = make_url(url)
    if parsed.drivername.startswith("postgres"):
        import psycopg

        admin_url = parsed.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {parsed.database} WITH (FORCE)")
            admin.execute(f"CREATE DATABASE {parsed.database}")
        return
    if not parsed.drivername.startswith("mysql"):
        return
    conn = pymysql.connect(
        host=parsed.host,
        port=parsed.port or 3306,
        user=parsed.username,
        password=parsed.password or "",
        autocommit=True,
    )
    with conn.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {parsed.database}")
        cur.execute(f"CREATE DATABASE {parsed.database} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
    conn.close()


def percentile(sorted_samples: list[float], p: float) -> float:
    """The nearest-rank ``p`` percentile (0 < p <= 1) of samples sorted in ascending order."""
    index = math.ceil(p * len(sorted_samples)) - 1
    return sorted_samples[max(0, min(index, len(sorted_samples) - 1))]


def peak_rss_mib(pid: int) -> float:
    """Peak resident memory of a process and its children (``serve --workers N`` forks N servers): the sum
    of each one's peak, an upper bound of what they held at once."""
    total = 0.0
    for member in (pid, *_children(pid)):
        try:
            status = Path(f"/proc/{member}/status").read_text()
        except OSError:  # ended meanwhile
            continue
        total += next((int(line.split()[1]) / 1024 for line in status.splitlines() if line.startswith("VmHWM:")), 0.0)
    return total or float("nan")


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue
    return found


@contextmanager
def running_server(db_url: str, warehouse: str, options: list[str], ready_port: int) -> Iterator[subprocess.Popen]:
    """``hudi-metastore serve`` on 127.0.0.1 with ``options``, once ``ready_port`` accepts connections (an
    error at once when the server exits first: ``bench_base.NotReady``)."""
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hms_adapter.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--db-url",
            db_url,
            "--warehouse",
            warehouse,
            "--log-level",
            "WARNING",
            *options,
        ]
    )
    try:
        wait_for_listening(ready_port, server, "hudi-metastore serve")
        yield server
    finally:
        server.terminate()
        server.wait(30)


@dataclass
class Target:
    """A server under test: ``key`` (``ours``, ``hms`` or the URI), where it listens, its process id if we
    started it."""

    key: str
    host: str
    port: int
    pid: int | None = None

    @property
    def uri(self) -> str:
        return f"thrift://{self.host}:{self.port}"


@contextmanager
def ours(db_url: str, options: list[str], warehouse: str) -> Iterator[Target]:
    """``hudi-metastore serve`` with ``options`` (no metaserver) on a fresh ``db_url``."""
    ensure_empty_database(db_url)
    port = free_port()
    with running_server(db_url, warehouse, ["--port", str(port), "--no-metaserver", *options], port) as server:
        yield Target("ours", "127.0.0.1", port, server.pid)


@contextmanager
def hms(db_url: str, heap: str, version: str = HIVE_2_3) -> Iterator[Target]:
    """Apache Hive Metastore ``version`` (``peer.py``) on a fresh ``db_url``; 4.0.1 with ``hive-exec``, as a
    Hive distribution runs it, so that it evaluates serialized partition expressions."""
    import hive4
    from maven_artifacts import fetch
    from peer import running_peer

    evaluator: dict = {}
    if version == HIVE_4:
        evaluator = {"extra_classpath": (str(fetch(hive4.HIVE_EXEC)),), "jvm_options": hive4.HIVE_EXEC_JVM_OPTIONS}
    with running_peer(db_url, heap=heap, version=version, **evaluator) as peer:
        yield Target("hms", peer.host, peer.port, peer.process.pid)


@contextmanager
def remote(uri: str) -> Iterator[Target]:
    """A server someone else started."""
    parsed = urlparse(uri)
    if parsed.scheme != "thrift" or not parsed.hostname:
        raise SystemExit(f"--uri wants thrift://host:port, not {uri}")
    yield Target(uri, parsed.hostname, parsed.port or 9083)


def int_list(text: str) -> list[int]:
    """``"1,8"`` -> ``[1, 8]`` (underscores allowed: ``100_000``)."""
    return [int(part.replace("_", "")) for part in text.split(",") if part.strip()]


def add_server_options(parser: argparse.ArgumentParser, ours_url: str, peer_url: str):
    """The options choosing the servers a benchmark compares; returns their group (to add more to it)."""
    servers = parser.add_argument_group("servers (default: --ours)")
    servers.add_argument("--ours", action="store_true", help="start hudi-metastore serve on --ours-db-url")
    servers.add_argument(
        "--peer", action="store_true", help="start Apache Hive Metastore (--peer-version) on --peer-db-url"
    )
    servers.add_argument("--compare", action="store_true", help="--ours and --peer, side by side")
    servers.add_argument("--uri", action="append", default=[], help="thrift://host:port of a running server")
    servers.add_argument("--ours-db-url", default=ours_url, help="dropped and created (default %(default)s)")
    servers.add_argument(
        "--ours-option",
        action="append",
        default=[],
        help="extra option of hudi-metastore serve (repeat; e.g. --ours-option=--workers=2)",
    )
    servers.add_argument("--peer-db-url", default=peer_url, help="dropped and created (default %(default)s)")
    servers.add_argument("--peer-heap", default="2g", help="the peer JVM's -Xmx (default %(default)s)")
    servers.add_argument(
        "--peer-version",
        choices=PEER_VERSIONS,
        default=HIVE_2_3,
        help="Hive Metastore's version: 2.3.10 from the pyspark wheel, 4.0.1 assembled by hive4.py from Maven "
        "Central (default %(default)s); a Java client (hmsbench, stats_events) is that version's on every server",
    )
    return servers


def start_targets(
    stack: ExitStack, args: argparse.Namespace, settings: dict, ours_options: list[str], warehouse: str
) -> list[Target]:
    """Start the servers ``add_server_options``' flags ask for on ``stack`` (stopped when it closes), in
    order ours, the peer, the URIs; records their settings in ``settings``."""
    start_ours, start_peer = args.ours or args.compare or not (args.peer or args.uri), args.peer or args.compare
    targets: list[Target] = []
    if start_ours:
        targets.append(stack.enter_context(ours(args.ours_db_url, ours_options, warehouse)))
        settings["ours"] = {"db_url": args.ours_db_url, "options": ours_options}
    if start_peer:
        print(f"starting Hive Metastore {args.peer_version} ...", file=sys.stderr, flush=True)
        targets.append(stack.enter_context(hms(args.peer_db_url, args.peer_heap, args.peer_version)))
        settings["hms"] = {"db_url": args.peer_db_url, "heap": args.peer_heap, "version": args.peer_version}
    targets.extend(stack.enter_context(remote(uri)) for uri in args.uri)
    return targets


def emit_json(result: dict, path: str | None) -> None:
    """The result as JSON: into ``path``, or printed."""
    text = json.dumps(result, indent=1)
    if path:
        Path(path).write_text(text + "\n")
        print(f"JSON written to {path}")
    else:
        print(text)
