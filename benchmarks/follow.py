"""What following a Hudi table costs an alter: the incremental follow against reading the whole timeline.

Every alter of a Hudi table makes the server look at its storage (``hudi_catalog/services/hive_sync_follow.py``).
This times, on Hudi tables already on disk (``benchmarks/import_scale.py`` generates tables of 500 to 8,000
active instants in ``--workdir``), each imported once into a fresh SQLite catalog:

- ``follow, nothing new``: ``HudiImporter.follow`` when storage has nothing the catalog lacks (an alter that
  follows a sync whose commit was already followed, or an alter of the columns);
- ``follow, one new commit``: the same after the table's last commit is taken back from the catalog, so the
  follow reads and writes exactly one instant;
- ``whole timeline, nothing new``: ``HudiImporter.run`` with nothing new, what the server did at every sync
  that moved ``last_commit_time_sync`` before following became incremental.

Each figure is the median of ``--repeat`` runs, in milliseconds, printed as JSON lines and a markdown table.

Usage: python benchmarks/follow.py [--workdir DIR] [--repeat 5] [TABLE_DIR ...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hudi_catalog import Catalog  # noqa: E402
from hudi_catalog.model import InstantState  # noqa: E402
from hudi_catalog.services.hudi_import import HudiImporter  # noqa: E402
from hudi_catalog.store import instants as instant_store  # noqa: E402
from hudi_catalog.store import tables as table_store  # noqa: E402


def _median_ms(action: Callable[[], object], repeat: int, before: Callable[[], object] = lambda: None) -> float:
    times = []
    for _ in range(repeat):
        before()
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def measure(table_dir: Path, repeat: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="follow-bench-") as work:
        catalog = Catalog.open(f"sqlite:///{work}/catalog.db", f"{work}/warehouse")
        try:
            importer = HudiImporter(catalog)
            imported = importer.run(str(table_dir), database="bench", table="t")
            path = str(table_dir)
            latest = catalog.timeline.instants("bench", "t", states=[InstantState.COMPLETED])[-1]

            def forget_latest() -> None:
                """The catalog as it was before the table's last commit completed."""
                with catalog.store.write() as conn:
                    keys = table_store.get_keys(conn, "bench", "t")
                    instant_store.delete_instants(conn, keys.id, [latest.requested_time])

            figures = {
                "table": table_dir.name,
                "instants": imported.recorded,
                "follow, nothing new": _median_ms(lambda: importer.follow(path, "bench", "t"), repeat),
                "follow, one new commit": _median_ms(
                    lambda: importer.follow(path, "bench", "t"), repeat, before=forget_latest
                ),
                "whole timeline, nothing new": _median_ms(lambda: importer.run(path, "bench", "t"), repeat),
            }
        finally:
            catalog.close()
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", nargs="*", type=Path, help="Hudi table folders (default: those in --workdir)")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "hudi-import-scale")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    tables = args.tables or sorted(p.parent.parent for p in args.workdir.glob("*/.hoodie/hoodie.properties"))
    if not tables:
        print(f"no Hudi tables given or in {args.workdir}: run benchmarks/import_scale.py first", file=sys.stderr)
        return 2
    rows = []
    for table_dir in tables:
        figures = measure(table_dir, args.repeat)
        print(json.dumps(figures), flush=True)
        rows.append(figures)
    columns = ["follow, nothing new", "follow, one new commit", "whole timeline, nothing new"]
    print("\n| table | instants | " + " | ".join(f"{c} (ms)" for c in columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    for row in rows:
        print(f"| {row['table']} | {row['instants']} | " + " | ".join(f"{row[c]:.1f}" for c in columns) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
