"""What ``serve --metrics-port`` costs a call: ``get_database('default')`` in a loop on one connection to each of
two servers, one with metrics off and one on, both running at once on fresh SQLite catalogs; the client
alternates between them in slices of ``--slice`` seconds, so load from other processes on the machine falls
on both alike. Prints the calls per second of each over all slices (and the median of the per-round figures),
then the cost of the recording alone in this process (``record_call`` and the pool observer, in
prometheus_client's multiprocess mode, as ``serve`` runs it).

Usage: python benchmarks/metrics_overhead.py [--seconds 3] [--rounds 3] [--slice 0.25]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_server import free_port, ours  # noqa: E402
from thriftpy2.rpc import make_client  # noqa: E402

from hms_adapter.idl import hive  # noqa: E402

MODES = ("off", "on")


def interleaved_rounds(
    ports: dict[str, int], rounds: int, seconds: float, slice_seconds: float
) -> dict[str, list[float]]:
    """Calls per second of each server in each round of ``seconds`` (each server gets half of a round)."""
    clients = {
        mode: make_client(hive.ThriftHiveMetastore, "127.0.0.1", port, timeout=30_000) for mode, port in ports.items()
    }
    try:
        for client in clients.values():
            for _ in range(200):  # warm-up
                client.get_database("default")
        results: dict[str, list[float]] = {mode: [] for mode in clients}
        for _ in range(rounds):
            calls = dict.fromkeys(clients, 0)
            spent = dict.fromkeys(clients, 0.0)
            round_end = time.perf_counter() + seconds
            while time.perf_counter() < round_end:
                for mode, client in clients.items():
                    started = time.perf_counter()
                    while time.perf_counter() - started < slice_seconds:
                        client.get_database("default")
                        calls[mode] += 1
                    spent[mode] += time.perf_counter() - started
            for mode in clients:
                results[mode].append(calls[mode] / spent[mode])
        return results
    finally:
        for client in clients.values():
            client.close()


def recording_cost_us(count: int = 100_000) -> float:
    """Microseconds per call of what the processor and the store record for one call."""
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="metrics-bench-")
    from hms_adapter import metrics

    observer = metrics.PrometheusObserver()
    started = time.perf_counter()
    for _ in range(count):
        observer.connection_acquired(0.0001)
        observer.connection_released()
        metrics.record_call("get_database", 0.0003, None)
    return (time.perf_counter() - started) / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="length of a round (both servers)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--slice", type=float, default=0.25, help="seconds on one server before the other")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="metrics-overhead-"))
    with ExitStack() as servers:
        ports = {}
        for mode in MODES:
            options = ["--metrics-port", str(free_port())] if mode == "on" else []
            db_url = f"sqlite:///{home / f'{mode}.db'}"
            target = servers.enter_context(ours(db_url, ["--log-level", "WARNING", *options], str(home / f"wh-{mode}")))
            ports[mode] = target.port
        results = interleaved_rounds(ports, args.rounds, args.seconds, args.slice)
    off, on = statistics.median(results["off"]), statistics.median(results["on"])
    cost = recording_cost_us()
    print(f"| metrics | get_database calls/s (median of {args.rounds} interleaved rounds of {args.seconds:g} s) |")
    print("|---|---:|")
    print(f"| off | {off:,.0f} |")
    print(f"| on | {on:,.0f} ({(on / off - 1) * 100:+.1f}%) |")
    print(f"\nrecording one call (record_call + pool observer) in process: {cost:.1f} µs")
    print(json.dumps({"calls_per_s": results, "recording_us": cost}))


if __name__ == "__main__":
    main()
