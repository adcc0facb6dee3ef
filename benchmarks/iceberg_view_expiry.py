"""How large a Hudi table's Iceberg view grows with its history, and what snapshot expiry leaves of it.

The table is ``benchmarks/import_scale.py``'s synthetic COPY_ON_WRITE table (``--instants`` instants, each commit
writing ``--files-per-commit`` base files over ``--partitions`` partitions, most of them new versions of file
groups already there), its base files hard links to one real base file of a Hudi 1.0 table, as
``benchmarks/iceberg_timeline_build.py`` makes it. The view is kept as a server keeps it: one metadata version
per instant (``update_view``), so the metadata log and its files are what a server leaves too.

Two histories of the same length:

- **no clean** (``--clean-every 0``): every commit stays a snapshot. Measured after the last commit, then after
  ``expire_view(retain_last=--retain-last)``, what ``hudi-metastore iceberg DB.TABLE --expire-snapshots
  --retain-last N`` does;
- **a clean every ``--clean-every`` instants**: each clean expires the snapshots before its earliest retained
  commit, as it is taken (the generator's cleans retain only the latest commit, Hudi's
  ``KEEP_LATEST_FILE_VERSIONS`` policy).

Each prints the current metadata JSON's size and snapshot count, and the manifest lists, manifests and metadata
files in the folder, beside how many of each the history wrote (what the folder held before expiry deleted
files). ``--instants 1000`` by default::

    python benchmarks/iceberg_view_expiry.py
    python benchmarks/iceberg_view_expiry.py --instants 2000 --files-per-commit 50 --partitions 200
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from pyarrow import fs as pafs

sys.path.insert(0, str(Path(__file__).parent))
from iceberg_timeline_build import SAMPLE_TABLE, link_base_files, sample_base_file  # noqa: E402
from import_scale import generate  # noqa: E402

from hudi_catalog.hudi import read_table_config  # noqa: E402
from hudi_catalog.iceberg import completed_changes, expire_view, table_info, update_view  # noqa: E402

FS = pafs.LocalFileSystem()


def folder_figures(folder: Path, location: str) -> str:
    """The current metadata file's size and snapshots, and the files of each kind in ``folder``."""
    current = json.loads(Path(location).read_text())
    names = [p.name for p in folder.iterdir()]
    lists = sum(1 for n in names if n.startswith("snap-"))
    manifests = sum(1 for n in names if n.startswith("manifest-"))
    metadata = sum(1 for n in names if n.endswith(".metadata.json"))
    size = sum(p.stat().st_size for p in folder.iterdir()) / 2**20
    return (
        f"metadata JSON {Path(location).stat().st_size / 1024:,.0f} KiB, {len(current['snapshots']):,} snapshots, "
        f"{len(current['snapshot-log']):,} snapshot-log and {len(current['metadata-log'])} metadata-log entries; "
        f"folder: {lists:,} manifest lists, {manifests:,} manifests, {metadata:,} metadata files, {size:,.1f} MiB"
    )


def keep_view(base: Path, folder: Path) -> tuple[str, dict[str, int]]:
    """One metadata version per instant; returns the last version's location and what the history wrote."""
    config = read_table_config(FS, str(base))
    table = table_info(config, str(base))
    written = {"lists": 0, "manifests": 0, "versions": 0, "expired": 0}
    started = time.perf_counter()
    location = ""
    for change in completed_changes(FS, str(base), config):
        update = update_view(FS, table, [change], str(folder))
        written["lists"] += len(update.lists_written)
        written["manifests"] += len(update.manifests_written)
        written["versions"] += 1
        written["expired"] += len(update.expired.snapshots)
        location = update.metadata.location if update.metadata else location
    print(f"  kept commit by commit in {time.perf_counter() - started:,.1f} s")
    return location, written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--instants", type=int, default=1000)
    parser.add_argument("--files-per-commit", type=int, default=20)
    parser.add_argument("--partitions", type=int, default=100)
    parser.add_argument("--clean-every", type=int, default=10)
    parser.add_argument("--retain-last", type=int, default=10)
    args = parser.parse_args()
    if not SAMPLE_TABLE.exists():
        print(f"skipped: {SAMPLE_TABLE} is absent (the shared Hudi tables are not beside this checkout)")
        return 0
    root = Path(tempfile.mkdtemp(prefix="iceberg-view-expiry-"))
    try:
        sample = sample_base_file(root)
        for clean_every in sorted({0, args.clean_every}):
            base = generate(
                root / f"table-c{clean_every}", args.instants, args.files_per_commit, args.partitions, clean_every
            )
            link_base_files(base, sample)
            folder = root / f"view-c{clean_every}"
            label = "no clean" if not clean_every else f"a clean every {clean_every} instants"
            print(f"{args.instants:,} instants, {label}:")
            location, written = keep_view(base, folder)
            print(
                f"  the history wrote {written['versions']:,} metadata versions, {written['lists']:,} manifest lists, "
                f"{written['manifests']:,} manifests; cleans expired {written['expired']:,} snapshots"
            )
            print(f"  now: {folder_figures(folder, location)}")
            if not clean_every:
                started = time.perf_counter()
                update = expire_view(FS, str(base), int(time.time() * 1000), args.retain_last, str(folder))
                took = time.perf_counter() - started
                print(
                    f"  expire_snapshots(retain_last={args.retain_last}) in {took:,.1f} s: "
                    f"{len(update.expired.snapshots):,} snapshots, {len(update.expired.manifest_lists):,} manifest "
                    f"lists, {len(update.expired.manifests):,} manifests deleted"
                )
                print(f"  then: {folder_figures(folder, update.metadata.location)}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
