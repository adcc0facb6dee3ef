"""One ``add_partitions`` of ``--partitions`` (100,000) partitions of a managed table through the Thrift
socket, while another client writes (``alter_database`` every ``--writer-interval`` seconds, on another
database): the call's time, the server's resident memory before, at its peak and after, and the other
writer's slowest call and failures. ``--with-locations`` sends each partition's location (as MSCK REPAIR and
Spark do) instead of letting the server choose (and make) it.

Usage: python benchmarks/large_batches.py [--partitions 100000] [--ours-db-url URL] [--json PATH]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path

from thriftpy2.rpc import make_client

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_server import add_server_options, emit_json, peak_rss_mib, start_targets  # noqa: E402
from hms_adapter.idl import hive  # noqa: E402


def rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return next(int(line.split()[1]) / 1024 for line in status.splitlines() if line.startswith("VmRSS:"))


def _partitions(count: int, table_sd: hive.StorageDescriptor, with_locations: bool) -> list[hive.Partition]:
    parts = []
    for i in range(count):
        location = f"{table_sd.location}/ds={i:06d}" if with_locations else None
        sd = hive.StorageDescriptor(**{**table_sd.__dict__, "location": location})
        parts.append(hive.Partition(values=[f"{i:06d}"], dbName="batch", tableName="t", sd=sd, parameters={}))
    return parts


class OtherWriter(threading.Thread):
    """Changes another database every ``interval`` seconds until stopped; keeps each call's time and
    failures."""

    def __init__(self, host: str, port: int, interval: float) -> None:
        super().__init__(daemon=True)
        self.client = make_client(hive.ThriftHiveMetastore, host, port, timeout=600_000)
        self.interval, self.times, self.failures = interval, [], []
        self.done = threading.Event()

    def run(self) -> None:
        n = 0
        while not self.done.is_set():
            n += 1
            started = time.perf_counter()
            try:
                self.client.alter_database("other", hive.Database(name="other", parameters={"n": str(n)}))
            except Exception as error:  # reported
                self.failures.append(f"{type(error).__name__}: {error}"[:200])
            self.times.append(time.perf_counter() - started)
            self.done.wait(self.interval)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_server_options(parser, "sqlite:///{home}/catalog.db", "mysql://root@127.0.0.1:3306/batchbench_hms")
    parser.add_argument("--partitions", type=int, default=100_000)
    parser.add_argument("--with-locations", action="store_true")
    parser.add_argument("--writer-interval", type=float, default=0.1)
    parser.add_argument("--json")
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="batchbench-")
    args.ours_db_url = args.ours_db_url.format(home=home)
    result: dict = {"settings": {"partitions": args.partitions, "with_locations": args.with_locations}, "servers": {}}
    with ExitStack() as stack:
        for target in start_targets(stack, args, result["settings"], args.ours_option, f"{home}/warehouse"):
            client = make_client(hive.ThriftHiveMetastore, target.host, target.port, timeout=1_800_000)
            location = f"file://{home}/data-{target.key}/batch.db/t"
            client.create_database(hive.Database(name="other", parameters={}))
            client.create_database(hive.Database(name="batch", locationUri=f"file://{home}/data-{target.key}/batch.db"))
            sd = hive.StorageDescriptor(
                cols=[hive.FieldSchema(name=c, type="string") for c in ("a", "b", "c")],
                location=location,
                inputFormat="org.apache.hadoop.mapred.TextInputFormat",
                outputFormat="org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
                serdeInfo=hive.SerDeInfo(serializationLib="org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe"),
                parameters={},
            )
            client.create_table(
                hive.Table(
                    tableName="t",
                    dbName="batch",
                    sd=sd,
                    parameters={},
                    partitionKeys=[hive.FieldSchema(name="ds", type="string")],
                    tableType="MANAGED_TABLE",
                )
            )
            parts = _partitions(args.partitions, sd, args.with_locations)
            before = rss_mib(target.pid) if target.pid else float("nan")
            writer = OtherWriter(target.host, target.port, args.writer_interval)
            writer.start()
            started = time.perf_counter()
            try:
                added: int | str = client.add_partitions(parts)
            except Exception as error:  # reported
                added = f"{type(error).__name__}: {error}"[:200]
            seconds = time.perf_counter() - started
            time.sleep(1)
            writer.done.set()
            writer.join()
            result["servers"][target.key] = {
                "seconds": seconds,
                "added": added,
                "rss_before_mib": before,
                "rss_peak_mib": peak_rss_mib(target.pid) if target.pid else None,
                "rss_after_mib": rss_mib(target.pid) if target.pid else None,
                "other_writer_calls": len(writer.times),
                "other_writer_slowest_s": max(writer.times, default=0.0),
                "other_writer_failures": writer.failures[:3],
                "other_writer_failed": len(writer.failures),
            }
            client.close()
    print(
        "| server | partitions | seconds | RSS before / peak / after (MiB) | other writer: calls, slowest (s), failed |"
    )
    print("|---|---:|---:|---|---|")
    for key, f in result["servers"].items():
        print(
            f"| {key} | {f['added']} | {f['seconds']:.1f} | {f['rss_before_mib']:.0f} / {f['rss_peak_mib'] or 0:.0f} / "
            f"{f['rss_after_mib'] or 0:.0f} | {f['other_writer_calls']}, {f['other_writer_slowest_s']:.2f}, "
            f"{f['other_writer_failed']} |"
        )
    emit_json(result, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
