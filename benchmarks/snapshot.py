"""The file snapshot at scale: latest slices of a partition, files changed lately, applying a big commit.

A synthetic COPY_ON_WRITE table (version 8 timeline) is loaded into the catalog database directly with bulk
inserts: ``--partitions`` partitions (default 10,000), ``--instants`` completed commits (default 5,000) and
``--files`` files (default 1,000,000), each commit writing new base files of 200 file groups. Then, with
``hudi-metastore serve`` in its own process, the Hudi metaserver protocol is timed over its socket:

- ``getLatestFileSlices`` of one partition (p50 of ``--repeat`` calls, a different partition each time);
- ``getFilesChanged`` over the last 10 instants;
- completing one commit that writes 1,000 files (``transitionInstantState`` to completed, which applies it).

Usage: python benchmarks/snapshot.py [--db-url URL] [--partitions N] [--instants N] [--files N] [--repeat N]
       [--reuse]
The default URL is a database ``hms_snapshot_bench`` on the local MariaDB (created if missing).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from sqlalchemy import insert, select
from thriftpy2.rpc import make_client

from hms_adapter.idl import metaserver as ms
from hudi_catalog import Catalog
from hudi_catalog.hudi.properties import TABLE_VERSION
from hudi_catalog.instant_times import format_instant_time
from hudi_catalog.model import Action, Column, Database, InstantState, Partition, StorageDescriptor, Table
from hudi_catalog.store import instants as instant_store
from hudi_catalog.store import schema

sys.path.insert(0, str(Path(__file__).parent))
from bench_server import ensure_empty_database, free_port, peak_rss_mib, running_server  # noqa: E402

DEFAULT_URL = "mysql://root@127.0.0.1:3306/hms_snapshot_bench"
BATCH = 20_000
START = datetime(2025, 1, 1, tzinfo=timezone.utc)


def instant_time(i: int) -> str:
    return format_instant_time(START + timedelta(seconds=60 * i))


def load(catalog: Catalog, partitions: int, instants: int, files: int) -> str:
    """Bulk-load the synthetic table; returns its location."""
    location = f"file:{tempfile.mkdtemp(prefix='snapshot-bench-')}/t"
    catalog.databases.create(Database("bench"))
    catalog.tables.create(
        Table(
            "bench",
            "t",
            table_type="EXTERNAL_TABLE",
            sd=StorageDescriptor(columns=[Column("v", "string")], location=location),
            partition_keys=[Column("p", "string")],
            parameters={"EXTERNAL": "TRUE", TABLE_VERSION: "8"},
        )
    )
    paths = [f"p={i:05d}" for i in range(partitions)]
    for start in range(0, partitions, 5000):
        batch = paths[start : start + 5000]
        catalog.partitions.add("bench", "t", [Partition("bench", "t", [p.split("=")[1]]) for p in batch])
    with catalog.store.write() as conn:
        tbl_id = conn.execute(select(schema.tbl.c.tbl_id).where(schema.tbl.c.name == "t")).scalar_one()
        rows = conn.execute(
            select(schema.partitions.c.part_id, schema.partitions.c.part_name).where(
                schema.partitions.c.tbl_id == tbl_id
            )
        ).all()
        ids = {name: part_id for part_id, name in rows}
        for name, part_id in ids.items():
            conn.execute(
                schema.partitions.update().where(schema.partitions.c.part_id == part_id).values(hudi_path=name)
            )
        conn.execute(
            insert(schema.instant),
            [
                {
                    "tbl_id": tbl_id,
                    "ts": instant_time(i),
                    "completion_ts": instant_time(i)[:-3] + "500",
                    "action": instant_store.ACTION_CODES[Action.COMMIT],
                    "state": instant_store.STATE_CODES[InstantState.COMPLETED],
                    "duration": 0,
                    "start_ts": 0,
                }
                for i in range(instants)
            ],
        )
        conn.execute(
            insert(schema.tbl_version),
            [
                {"tbl_id": tbl_id, "version": instant_time(i), "snapshot_status": 1, "create_time": 0}
                for i in range(instants)
            ],
        )
        conn.execute(insert(schema.tbl_timestamp).values(tbl_id=tbl_id, ts=instant_time(instants)))
    per_instant = max(1, files // instants)
    pending = []
    for n in range(files):
        i, k = divmod(n, per_instant)
        group = (i * per_instant + k) % (partitions * 10)
        path = paths[group % partitions]
        file_id = f"{group:08d}-0000-0000-0000-000000000000-0"
        ts = instant_time(min(i, instants - 1))
        pending.append(
            {
                "tbl_id": tbl_id,
                "part_id": ids[path],
                "name": f"{file_id}_0-1-{n}_{ts}.parquet",
                "file_id": file_id,
                "instant_ts": ts,
                "size": 1024,
                "is_deleted": False,
            }
        )
        if len(pending) == BATCH:
            with catalog.store.write() as conn:
                conn.execute(insert(schema.files), pending)
            pending = []
    if pending:
        with catalog.store.write() as conn:
            conn.execute(insert(schema.files), pending)
    return location


def timed(call, repeat: int) -> tuple[float, float]:
    samples = []
    for i in range(repeat):
        started = time.perf_counter()
        call(i)
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return statistics.median(samples), samples[max(0, int(len(samples) * 0.95) - 1)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db-url", default=DEFAULT_URL)
    parser.add_argument("--partitions", type=int, default=10_000)
    parser.add_argument("--instants", type=int, default=5_000)
    parser.add_argument("--files", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="time the table a previous run loaded (same sizes) instead of loading it again",
    )
    args = parser.parse_args()

    warehouse = tempfile.mkdtemp(prefix="snapshot-bench-wh-")
    if not args.reuse:
        ensure_empty_database(args.db_url)
        catalog = Catalog.open(args.db_url, warehouse)
        started = time.perf_counter()
        load(catalog, args.partitions, args.instants, args.files)
        print(
            f"loaded {args.partitions} partitions, {args.instants} instants, {args.files} files in "
            f"{time.perf_counter() - started:.0f} s",
            file=sys.stderr,
        )
        catalog.close()

    port, hms_port = free_port(), free_port()
    options = ["--port", str(hms_port), "--metaserver-port", str(port)]
    with running_server(args.db_url, warehouse, options, port) as server:
        client = make_client(ms.ThriftHoodieMetaserver, "127.0.0.1", port, timeout=600_000)
        step = max(1, args.partitions // args.repeat)
        slices = len(client.getLatestFileSlices("bench", "t", "p=00000", None))
        latest = timed(
            lambda i: client.getLatestFileSlices("bench", "t", f"p={(i * step) % args.partitions:05d}", None),
            args.repeat,
        )
        changed_count = len(
            client.getFilesChanged("bench", "t", instant_time(args.instants - 11), instant_time(args.instants - 1))
        )
        changed = timed(
            lambda i: client.getFilesChanged(
                "bench", "t", instant_time(args.instants - 11), instant_time(args.instants - 1)
            ),
            args.repeat,
        )
        ts = client.createNewInstantTime("bench", "t")
        stats = {}
        for n in range(1000):
            path = f"p={n % args.partitions:05d}"
            file_id = f"new{n:05d}-0000-0000-0000-000000000000-0"
            stats.setdefault(path, []).append(
                {
                    "fileId": file_id,
                    "path": f"{path}/{file_id}_0-1-{n}_{ts}.parquet",
                    "prevCommit": "null",
                    "numWrites": 10,
                    "fileSizeInBytes": 4096,
                    "partitionPath": path,
                }
            )
        commit = json.dumps({"partitionToWriteStats": stats, "extraMetadata": {}, "operationType": "UPSERT"})
        instant = ms.THoodieInstant(timestamp=ts, action=ms.TAction.COMMIT, state=ms.TState.INFLIGHT)
        client.createNewInstantWithTime("bench", "t", instant, b"")
        started = time.perf_counter()
        client.transitionInstantState(
            "bench",
            "t",
            instant,
            ms.THoodieInstant(timestamp=ts, action=instant.action, state=ms.TState.COMPLETED),
            commit.encode(),
        )
        apply_ms = (time.perf_counter() - started) * 1000
        client.close()
        print("| measure | p50 ms | p95 ms | answer |")
        print("|---|---:|---:|---:|")
        print(f"| latest slices of one partition | {latest[0]:.1f} | {latest[1]:.1f} | {slices} file groups |")
        print(
            f"| files changed in the last 10 instants | {changed[0]:.1f} | {changed[1]:.1f} | "
            f"{changed_count} file groups |"
        )
        print(f"| complete a commit writing 1,000 files (once) | {apply_ms:.0f} | | |")
        print(f"server peak RSS: {peak_rss_mib(server.pid):.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
