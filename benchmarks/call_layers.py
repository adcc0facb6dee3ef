"""What one trivial call costs, layer by layer: ``get_database('default')``, from socket to socket.

Two parts, both on the local MariaDB (``--db-url``, a fresh database per server):

1. **Served, per configuration.** One ``hudi-metastore serve`` per configuration, all running at once, each on
   its own fresh database: the MySQL driver PyMySQL, then the default driver (mysqlclient when installed),
   then the default with one optional layer on: ``--audit-log``, ``--metrics-port``, ``--auth password``
   (SASL PLAIN), ``--auth password --authorization privileges``. One client per server
   (``hms_adapter.client``) calls ``get_database`` in slices of ``--slice`` seconds, server after server, so
   load from elsewhere on the machine falls on all alike; the table gives each server's p50 and p90 over
   ``--calls`` calls, and the p50 of ``getMetaConf`` (answered without the catalog database) on the plain
   server: the floor of socket, Thrift and dispatch.
2. **In process, per layer.** The processor's steps for the same call on the same objects ``serve`` builds,
   each timed alone in a loop (median of 5 loops of ``--loops`` calls): decoding the request, the call's
   scope, authorization (none), the retry wrapper, the database's revision (``Store.driver_read``: a pooled
   driver connection in autocommit mode, checked out for one statement), the model from the read cache (a
   copy), the conversion to Thrift, encoding the answer; what a cache miss adds (the database with its
   parameters, one more driver read);
   then what an optional layer adds to a call (an audit line, the metrics' recording) and the whole
   ``MetastoreProcessor.process`` of one request, for each driver.

Usage: python benchmarks/call_layers.py [--calls 3000] [--slice 0.2] [--loops 2000] [--db-url mysql://...]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_server import ensure_empty_database, free_port, ours, percentile  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402
from thriftpy2.protocol import TBinaryProtocol  # noqa: E402
from thriftpy2.thrift import TMessageType  # noqa: E402
from thriftpy2.transport import TMemoryBuffer  # noqa: E402

from hms_adapter.client import Security, connect  # noqa: E402
from hms_adapter.idl import hive  # noqa: E402
from hms_adapter.passwords import set_password  # noqa: E402
from hudi_catalog.store.engine import mysql_driver  # noqa: E402

DEFAULT_URL = "mysql://root@127.0.0.1:3306/call_layers"
DRIVER_NAMES = {"mysqldb": "mysqlclient", "pymysql": "PyMySQL"}
USER, PASSWORD = "bench", "bench-password"


@dataclass
class Configuration:
    """One server of part 1: its ``serve`` options and how its client connects."""

    name: str
    driver: str | None = None  # None: the default (mysql_driver())
    options: list[str] = field(default_factory=list)
    security: Security = field(default_factory=Security)


def configurations(home: Path) -> list[Configuration]:
    passwords = str(home / "passwords")
    set_password(passwords, USER, PASSWORD)
    password_options = ["--auth", "password", "--password-file", passwords, "--allow-plaintext-passwords"]
    by_password = Security(auth="password", user=USER, password=PASSWORD)
    default = DRIVER_NAMES[mysql_driver()]
    return [
        Configuration("PyMySQL", driver="pymysql"),
        Configuration(default),
        Configuration(f"{default} + --audit-log", options=["--audit-log", str(home / "audit.log")]),
        Configuration(f"{default} + --metrics-port", options=["--metrics-port", str(free_port())]),
        Configuration(f"{default} + --auth password", options=password_options, security=by_password),
        Configuration(
            f"{default} + --auth password --authorization privileges",
            options=[*password_options, "--authorization", "privileges"],
            security=by_password,
        ),
    ]


def with_driver(url: str, driver: str | None) -> str:
    """``url`` with ``driver`` named (left to the store's choice when None)."""
    if driver is None:
        return url
    parsed = make_url(url)
    return parsed.set(drivername=f"{parsed.get_backend_name()}+{driver}").render_as_string(hide_password=False)


def database_url(url: str, index: int) -> str:
    """A database of its own for server ``index`` on the server of ``url``."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return f"sqlite:///{Path(parsed.database).with_suffix('')}_{index}.db"
    return parsed.set(database=f"{parsed.database}_{index}").render_as_string(hide_password=False)


def served(args: argparse.Namespace, home: Path) -> tuple[list[dict], float]:
    """Part 1: per configuration, p50 and p90 of get_database in µs; and the plain server's getMetaConf p50."""
    configs = configurations(home)
    with ExitStack() as stack:
        clients = []
        for index, config in enumerate(configs):
            url = with_driver(database_url(args.db_url, index), config.driver)
            target = stack.enter_context(
                ours(url, ["--log-level", "WARNING", *config.options], str(home / f"warehouse-{index}"))
            )
            clients.append(stack.enter_context(connect(target.uri, config.security, timeout=30)))
        for client in clients:  # warm-up: pools filled, caches and code paths taken
            for _ in range(300):
                client.get_database("default")
        times: list[list[float]] = [[] for _ in configs]
        while min(len(t) for t in times) < args.calls:
            for client, spent in zip(clients, times):
                slice_end = time.perf_counter() + args.slice
                while time.perf_counter() < slice_end:
                    started = time.perf_counter()
                    client.get_database("default")
                    spent.append(time.perf_counter() - started)
        floor = []
        plain = clients[1]
        for _ in range(args.calls):
            started = time.perf_counter()
            plain.getMetaConf("hive.metastore.try.direct.sql")
            floor.append(time.perf_counter() - started)
    for spent in (*times, floor):
        spent.sort()
    rows = [
        {
            "configuration": config.name,
            "calls": len(spent),
            "p50_us": percentile(spent, 0.5) * 1e6,
            "p90_us": percentile(spent, 0.9) * 1e6,
        }
        for config, spent in zip(configs, times)
    ]
    return rows, percentile(floor, 0.5) * 1e6


def timed(action: Callable[[], object], loops: int) -> float:
    """Median over 5 loops of ``loops`` calls of ``action``, in µs per call."""
    for _ in range(min(loops, 200)):
        action()
    figures = []
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(loops):
            action()
        figures.append((time.perf_counter() - started) / loops * 1e6)
    return statistics.median(figures)


def request_bytes() -> bytes:
    buffer = TMemoryBuffer()
    protocol = TBinaryProtocol(buffer)
    protocol.write_message_begin("get_database", TMessageType.CALL, 1)
    hive.ThriftHiveMetastore.get_database_args(name="default").write(protocol)
    protocol.write_message_end()
    return buffer.getvalue()


def in_process(db_url: str, home: Path, loops: int, with_layers: bool) -> dict[str, float]:
    """Part 2 on one store: µs per call of each step of the processor's work for ``get_database``."""
    from hms_adapter.audit import AUDIT_LOGGER, AuditLog
    from hms_adapter.call_target import target_of_call
    from hms_adapter.convert.database import to_thrift_database
    from hms_adapter.event_messages import HiveJsonMessages
    from hms_adapter.handler import MetastoreHandler
    from hms_adapter.processor import MetastoreProcessor
    from hudi_catalog import Catalog
    from hudi_catalog.store.databases import find_revision, get_database

    ensure_empty_database(db_url)
    catalog = Catalog.open(db_url, str(home / "warehouse-in-process"), event_format=HiveJsonMessages())
    try:
        handler = MetastoreHandler(catalog)  # as make_server wires them
        processor = MetastoreProcessor(hive.ThriftHiveMetastore, handler)
        request = request_bytes()

        def whole_call() -> None:
            processor.process(TBinaryProtocol(TMemoryBuffer(request)), TBinaryProtocol(TMemoryBuffer()))

        def decode() -> None:
            protocol = TBinaryProtocol(TMemoryBuffer(request))
            protocol.read_message_begin()
            hive.ThriftHiveMetastore.get_database_args().read(protocol)
            protocol.read_message_end()

        def scope() -> None:
            with handler.call_scope(target_of_call(["default"])):
                pass

        def revision() -> tuple[int, int] | None:
            with catalog.store.driver_read() as conn:
                return find_revision(conn, "default")

        def whole_database() -> None:
            with catalog.store.driver_read() as conn:
                get_database(conn, "default")

        database = catalog.databases.get("default")
        found = revision()
        assert found is not None
        answer = to_thrift_database(database)
        target = target_of_call(["default"])

        def encode() -> None:
            protocol = TBinaryProtocol(TMemoryBuffer())
            protocol.write_message_begin("get_database", TMessageType.REPLY, 1)
            hive.ThriftHiveMetastore.get_database_result(success=answer).write(protocol)
            protocol.write_message_end()

        steps = {
            "decode the request": timed(decode, loops),
            "call target and scope (catalog, connection settings)": timed(scope, loops),
            "authorization (none)": timed(lambda: handler.authorize("get_database", ["default"], target), loops),
            "retry wrapper (Catalog.call)": timed(lambda: catalog.call(lambda: None, "get_database"), loops),
            "the revision (a driver read of one statement)": timed(revision, loops),
            "the model from the read cache (a copy)": timed(lambda: catalog.ctx.database_cache.get(*found), loops),
            "to Thrift": timed(lambda: to_thrift_database(database), loops),
            "encode the answer": timed(encode, loops),
        }
        steps["sum of the steps"] = sum(steps.values())
        steps["MetastoreProcessor.process (all of it)"] = timed(whole_call, loops)
        steps["a cache miss adds: the database with its parameters (one more driver read)"] = timed(
            whole_database, loops
        )
        if with_layers:
            audit = AuditLog(str(home / "audit-in-process.log"))
            steps["an audit line (--audit-log)"] = timed(
                lambda: audit.record("get_database", ["default"], target_of_call(["default"]), "ok", 0.3), loops
            )
            logging.getLogger(AUDIT_LOGGER).handlers.clear()
            steps["metrics recording (--metrics-port)"] = metrics_recording_us(loops)
        return steps
    finally:
        catalog.close()


def metrics_recording_us(loops: int) -> float:
    """What the processor and the store record for one call with metrics on (prometheus_client's
    multiprocess mode, as ``serve`` runs it)."""
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="call-layers-metrics-")
    from hms_adapter import metrics

    observer = metrics.PrometheusObserver()

    def record() -> None:
        observer.connection_acquired(0.0001)
        observer.connection_released()
        metrics.record_call("get_database", 0.0003, None)

    return timed(record, loops)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db-url", default=DEFAULT_URL, help="a server and database name prefix (default %(default)s)")
    parser.add_argument("--calls", type=int, default=3000, help="get_database calls per server (part 1)")
    parser.add_argument("--slice", type=float, default=0.2, help="seconds on one server before the next")
    parser.add_argument("--loops", type=int, default=2000, help="calls per timed loop (part 2)")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="call-layers-"))

    rows, floor = served(args, home)
    print(f"## Served: get_database('default'), one client per server, {args.calls:,} calls each\n")
    print("| configuration | p50 µs | p90 µs |")
    print("|---|---:|---:|")
    for row in rows:
        print(f"| {row['configuration']} | {row['p50_us']:.0f} | {row['p90_us']:.0f} |")
    print(f"\ngetMetaConf on the {rows[1]['configuration']} server (no catalog database): p50 {floor:.0f} µs\n")

    default = DRIVER_NAMES[mysql_driver()]
    drivers = {"PyMySQL": "pymysql", default: None} if default != "PyMySQL" else {"PyMySQL": None}
    steps = {}
    for index, (name, driver) in enumerate(drivers.items()):
        url = with_driver(database_url(args.db_url, 100 + index), driver)
        steps[name] = in_process(url, home, args.loops, with_layers=index == len(drivers) - 1)
    names = list(drivers)
    print("## In process: the processor's steps for one get_database, µs per call\n")
    print("| step | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for step in steps[names[-1]]:
        print(f"| {step} | " + " | ".join(f"{steps[n][step]:.1f}" if step in steps[n] else "" for n in names) + " |")
    print(json.dumps({"served": rows, "meta_conf_p50_us": floor, "in_process_us": steps}))


if __name__ == "__main__":
    main()
