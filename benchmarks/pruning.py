"""Partition pruning through the real Thrift socket: p50/p95 of three filters at several table sizes.

The server runs in its own process (``hudi-metastore serve``) on the given database; tables with two
partition keys (``dt`` string, ``hr`` int: 24 hours a day) are filled through the catalog, then each filter
is timed with Hive 2.3.10's Java Thrift client (``benchmarks/java_client.py``), as engines call it. Prints one
table, and the server's peak memory.

Usage: python benchmarks/pruning.py [--db-url URL] [--sizes 1000,10000,100000] [--repeat 30]
The default URL is a database ``hms_bench`` on the local MariaDB (created if missing).
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import tempfile
import time
from pathlib import Path

from hudi_catalog import Catalog
from hudi_catalog.model import Column, Database, Partition, StorageDescriptor, Table

sys.path.insert(0, str(Path(__file__).parent))
from bench_server import ensure_empty_database, free_port, peak_rss_mib, running_server  # noqa: E402
from java_client import compile_timer, time_calls  # noqa: E402

DEFAULT_URL = "mysql://root@127.0.0.1:3306/hms_bench"
BATCH = 5000
START = dt.date(2020, 1, 1)


def day(i: int) -> str:
    return (START + dt.timedelta(days=i)).isoformat()


def fill(catalog: Catalog, size: int) -> None:
    table = f"t{size}"
    catalog.tables.create(
        Table(
            "bench",
            table,
            sd=StorageDescriptor(columns=[Column("v", "string")], location=f"file:/tmp/bench/{table}"),
            partition_keys=[Column("dt", "string"), Column("hr", "int")],
        )
    )
    parts = [
        Partition(
            "bench",
            table,
            [day(i // 24), str(i % 24)],
            sd=StorageDescriptor(columns=[Column("v", "string")], location=f"file:/tmp/bench/{table}/p{i}"),
        )
        for i in range(size)
    ]
    for start in range(0, size, BATCH):
        catalog.partitions.add("bench", table, parts[start : start + BATCH])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db-url", default=DEFAULT_URL)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    classes = compile_timer()
    ensure_empty_database(args.db_url)
    warehouse = tempfile.mkdtemp(prefix="bench-wh-")
    catalog = Catalog.open(args.db_url, warehouse)
    catalog.databases.create(Database("bench", location=f"file:{warehouse}/bench.db"))
    for size in sizes:
        started = time.perf_counter()
        fill(catalog, size)
        print(f"filled t{size}: {size} partitions in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    catalog.close()

    port = free_port()
    with running_server(args.db_url, warehouse, ["--port", str(port), "--no-metaserver"], port) as server:
        calls = []
        for size in sizes:
            days = size // 24
            tenth = max(1, days // 10)
            hundredth = max(1, days // 100)
            middle = days // 2
            queries = {
                "selective (1 partition)": f'dt = "{day(middle)}" and hr = 7',
                "10% range": f'dt >= "{day(middle)}" and dt < "{day(middle + tenth)}"',
                "1% IN list": "(dt) in (" + ", ".join(f'"{day(middle + i)}"' for i in range(hundredth)) + ")",
            }
            calls += [
                (f"{size}|{label}", args.repeat, ["get_partitions_by_filter", "bench", f"t{size}", text, "-1"])
                for label, text in queries.items()
            ]
        print("| partitions | query | first call ms | p50 ms | p95 ms | returned |")
        print("|---:|---|---:|---:|---:|---:|")
        for timing in time_calls(classes, "127.0.0.1", port, calls):
            size, label = timing["label"].split("|")
            print(
                f"| {int(size):,} | {label} | {timing['first_ms']:.1f} | {timing['p50_ms']:.1f} | "
                f"{timing['p95_ms']:.1f} | {timing['result']:,} |"
            )
        print(f"server peak RSS: {peak_rss_mib(server.pid):.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
