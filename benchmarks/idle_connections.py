"""What idle connections cost the clients that work: calls per second of ``get_table`` and of a one-partition
``get_partitions_by_filter`` on one connection, with no other connection open and with ``--idle`` (2,000)
idle connections open, on ours and on Apache Hive Metastore 2.3.10 alike, side by side; plus the server's
threads and resident memory with the idle connections open.

The table has ``--partitions`` (200) partitions. Each figure is the median of three ``--seconds`` (2) runs
after a second of unreported calls. Hive Metastore 2.3 serves a connection per thread from a pool of
``hive.metastore.server.max.threads`` (1,000): its idle connections hold its threads.

Usage: python benchmarks/idle_connections.py [--compare | --peer | --ours] [--idle 2000] [--seconds 2]
       [--json idle.json]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from thriftpy2.rpc import make_client

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchmarks.bench_server import add_server_options, emit_json, start_targets  # noqa: E402
from hms_adapter.idl import hive  # noqa: E402

DB, TABLE = "idlebench", "events"


def _status(pid: int | None) -> dict[str, float]:
    if pid is None:
        return {}
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    return {"threads": int(fields["Threads"]), "rss_mib": round(int(fields["VmRSS"].split()[0]) / 1024, 1)}


def _prepare(client, partitions: int, location: str) -> None:
    client.create_database(hive.Database(name=DB, locationUri=f"{location}/{DB}.db", parameters={}))
    sd = hive.StorageDescriptor(
        cols=[hive.FieldSchema(name="x", type="int")],
        location=f"{location}/{DB}.db/{TABLE}",
        inputFormat="org.apache.hadoop.mapred.TextInputFormat",
        outputFormat="org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
        serdeInfo=hive.SerDeInfo(serializationLib="org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", parameters={}),
        parameters={},
    )
    client.create_table(
        hive.Table(
            tableName=TABLE,
            dbName=DB,
            owner="bench",
            sd=sd,
            parameters={},
            partitionKeys=[hive.FieldSchema(name="ds", type="string")],
            tableType="MANAGED_TABLE",
        )
    )
    parts = []
    for i in range(partitions):
        part_sd = hive.StorageDescriptor(**{**sd.__dict__, "location": f"{sd.location}/ds={i:05d}"})
        parts.append(hive.Partition(values=[f"{i:05d}"], dbName=DB, tableName=TABLE, sd=part_sd, parameters={}))
    client.add_partitions(parts)


def _rate(call, seconds: float) -> float:
    calls, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        call()
        calls += 1
    return calls / (time.perf_counter() - started)


def _measure(client, seconds: float) -> dict[str, float]:
    calls = {
        "get_table": lambda: client.get_table(DB, TABLE),
        "one-partition filter": lambda: client.get_partitions_by_filter(DB, TABLE, "ds = '00042'", -1),
    }
    figures = {}
    for name, call in calls.items():
        _rate(call, 1.0)
        figures[name] = round(statistics.median(_rate(call, seconds) for _ in range(3)))
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_server_options(parser, "sqlite:///{home}/catalog.db", "mysql://root@127.0.0.1:3306/idlebench_hms")
    parser.add_argument("--idle", type=int, default=2000)
    parser.add_argument("--partitions", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--json")
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="idlebench-")
    args.ours_db_url = args.ours_db_url.format(home=home)
    result: dict = {
        "settings": {"idle": args.idle, "partitions": args.partitions, "seconds": args.seconds},
        "servers": {},
    }
    with ExitStack() as stack:
        for target in start_targets(stack, args, result["settings"], args.ours_option, f"{home}/warehouse"):
            client = make_client(hive.ThriftHiveMetastore, target.host, target.port, timeout=120_000)
            _prepare(client, args.partitions, f"file://{home}/data-{target.key}")
            alone = _measure(client, args.seconds)
            before = _status(target.pid)
            idle = []
            for _ in range(args.idle):
                idle.append(socket.create_connection((target.host, target.port), timeout=30))
            time.sleep(1.0)
            crowded = _measure(client, args.seconds)
            during = _status(target.pid)
            for sock in idle:
                sock.close()
            client.close()
            result["servers"][target.key] = {
                "alone": alone,
                "with idle": crowded,
                "status before": before,
                "status with idle": during,
            }
    print(f"| server | call | calls/s alone | calls/s with {args.idle} idle connections | ratio |")
    print("|---|---|---:|---:|---:|")
    for key, figures in result["servers"].items():
        for call, rate in figures["alone"].items():
            crowded = figures["with idle"][call]
            print(f"| {key} | {call} | {rate:,} | {crowded:,} | {crowded / rate:.0%} |")
    for key, figures in result["servers"].items():
        print(f"{key}: threads and RSS before {figures['status before']}, with idle {figures['status with idle']}")
    emit_json(result, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
