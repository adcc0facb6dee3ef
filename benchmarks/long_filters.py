"""Server time of ``get_partitions_by_filter`` with long ``IN`` lists: ``name IN (v0, ..., vN)`` for N of
``--sizes`` (1,000, 10,000, 100,000) over a table of ``--partitions`` (200) partitions, through the Thrift
socket, on ours and on Apache Hive Metastore 2.3.10 alike: the first call of each filter, then the median
of ``--repeat`` (3) more (ours answers a repeated filter on an unchanged table from its read cache). A call
that fails (or takes over ``--timeout`` seconds) is reported as such.

Usage: python benchmarks/long_filters.py [--compare | --peer | --ours] [--sizes 1000,10000,100000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from thriftpy2.rpc import make_client

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchmarks.bench_server import add_server_options, emit_json, int_list, start_targets  # noqa: E402
from benchmarks.idle_connections import DB, TABLE, _prepare  # noqa: E402
from hms_adapter.idl import hive  # noqa: E402


def _time(client, text: str, repeat: int) -> dict:
    samples, found = [], 0
    for _ in range(repeat + 1):
        started = time.perf_counter()
        try:
            found = len(client.get_partitions_by_filter(DB, TABLE, text, -1))
        except Exception as error:  # reported: Hive's parser has its limits
            return {"first": None, "repeated": None, "partitions": f"{type(error).__name__}: {str(error)[:80]}"}
        samples.append(time.perf_counter() - started)
    return {"first": samples[0], "repeated": statistics.median(samples[1:]), "partitions": found}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_server_options(parser, "sqlite:///{home}/catalog.db", "mysql://root@127.0.0.1:3306/filterbench_hms")
    parser.add_argument("--sizes", type=int_list, default=[1000, 10_000, 100_000])
    parser.add_argument("--partitions", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--json")
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="filterbench-")
    args.ours_db_url = args.ours_db_url.format(home=home)
    result: dict = {"settings": {"sizes": args.sizes, "partitions": args.partitions}, "servers": {}}
    with ExitStack() as stack:
        for target in start_targets(stack, args, result["settings"], args.ours_option, f"{home}/warehouse"):
            client = make_client(hive.ThriftHiveMetastore, target.host, target.port, timeout=int(args.timeout * 1000))
            _prepare(client, args.partitions, f"file://{home}/data-{target.key}")
            figures = result["servers"][target.key] = {}
            for size in args.sizes:
                text = "ds in (" + ", ".join(f"'{i:05d}'" for i in range(size)) + ")"
                figures[size] = _time(client, text, args.repeat)
            client.close()
    print("| server | IN list values | first call (s) | repeated (s) | partitions |")
    print("|---|---:|---:|---:|---:|")
    for key, figures in result["servers"].items():
        for size, figure in figures.items():
            first, repeated = (
                ("failed", "failed")
                if figure["first"] is None
                else (f"{figure['first']:.3f}", f"{figure['repeated']:.3f}")
            )
            print(f"| {key} | {size:,} | {first} | {repeated} | {figure['partitions']} |")
    emit_json(result, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
