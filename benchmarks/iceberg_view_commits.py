"""What a metaserver commit of a table with an Iceberg view costs its writer: the view updated in the
committing call (before) and on the server's background thread (after, as ``serve`` runs).

Each of ``--commits`` commits inserts one Parquet file into one of three partitions of the table (the view
grows by one snapshot per commit); only the completing call (``transitionInstantState``) is timed, over a
real Thrift socket to a metaserver in this process, on SQLite (``--db-url``: an empty database of another
store).

    python benchmarks/iceberg_view_commits.py [--commits 40] [--db-url mysql://root@127.0.0.1/bench]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from thriftpy2.rpc import make_client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import metaserver_writer as writer  # noqa: E402
from hms_adapter.idl import metaserver as ms  # noqa: E402
from hms_adapter.serving import make_metaserver  # noqa: E402
from hudi_catalog import Catalog  # noqa: E402
from hudi_catalog.iceberg_views import ViewSettings  # noqa: E402


def run(db_url: str, root: Path, commits: int, background: bool) -> tuple[list[float], float]:
    """Commit latencies in ms, and the seconds the view took to catch up after the last commit."""
    catalog = Catalog.open(db_url, str(root / "wh"), iceberg_views=ViewSettings(all_tables=True))
    queue = catalog.iceberg_views.updates_in_background() if background else None
    if queue is not None:
        queue.start()
    server = make_metaserver(catalog, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    client = make_client(ms.ThriftHoodieMetaserver, "127.0.0.1", server.port, timeout=60_000)
    base, database = root / "trips", "bench_background" if background else "bench_inline"
    writer.make_table(base)
    writer.create(client, base, database)
    latencies = []
    for n in range(commits):
        prepared = writer.prepare(client, base, database, "trips", n)
        started = time.perf_counter()
        writer.complete(client, database, "trips", *prepared)
        latencies.append((time.perf_counter() - started) * 1000)
    started = time.perf_counter()
    if queue is not None:
        queue.wait_idle(300)
        queue.stop()
    catch_up = time.perf_counter() - started
    applied = catalog.tables.get(database, "trips_iceberg").parameters["hudi.iceberg.applied"]
    assert applied == catalog.timeline.instants(database, "trips")[-1].requested_time
    client.close()
    server.stop()
    catalog.close()
    return latencies, catch_up


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--commits", type=int, default=40)
    parser.add_argument("--db-url", help="a catalog database (default: a new SQLite file per mode)")
    args = parser.parse_args()
    print("| view update | commits | p50 ms | p95 ms | max ms | view caught up after the last commit |")
    print("|---|---:|---:|---:|---:|---:|")
    for background in (False, True):
        with tempfile.TemporaryDirectory(prefix="view-commits-") as folder:
            root = Path(folder)
            db_url = args.db_url or f"sqlite:///{root / 'catalog.db'}"
            latencies, catch_up = run(db_url, root, args.commits, background)
        ordered = sorted(latencies)
        p95 = ordered[int(0.95 * (len(ordered) - 1))]
        mode = "background thread (after)" if background else "in the commit (before)"
        print(
            f"| {mode} | {len(latencies)} | {statistics.median(latencies):.1f} | {p95:.1f} | "
            f"{ordered[-1]:.1f} | {catch_up * 1000:.0f} ms |"
        )


if __name__ == "__main__":
    main()
