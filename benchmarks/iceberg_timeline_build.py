"""A full build of the Iceberg view of a table with a long timeline and real Hudi base files: what
``hudi-metastore iceberg PATH`` does for a table that has been written to for a while, one snapshot per
completed write.

The table is ``benchmarks/import_scale.py``'s synthetic COPY_ON_WRITE table (``--instants`` instants, each
commit writing ``--files-per-commit`` base files over ``--partitions`` partitions, a clean every
``--clean-every``-th instant, none by default). With cleans the build no longer makes a snapshot per commit:
the writes a clean expires are taken as part of the next write it keeps, reading only the files live then
(``hudi_catalog/iceberg/expiry.merge_expired_writes``), and the footers read are printed. Every base file
its timeline names is a hard link to one real base file of
``../shared/hudi-tables/sample_table_cow_v8_simplekeygen_nonhivestyle`` (written by Hudi 1.0: 27 columns, the
``_hoodie_*`` meta columns, and the bloom filter of its record keys in the footer, as Hudi's writers put
there), so every footer the view reads is a real one of the size Hudi writes. ``benchmarks/iceberg_views.py``
measures the other shape, one commit of a million small files.

    python benchmarks/iceberg_timeline_build.py                    # 2,000 instants, 100,000 files
    python benchmarks/iceberg_timeline_build.py --instants 8000
    python benchmarks/iceberg_timeline_build.py --clean-every 10   # 90,000 files, a clean every 10th instant

Prints the build's wall-clock and CPU time, files and instants per second, the metadata written, the
process's peak resident memory, and the cost of reading one such footer alone (the floor of a build that
reads every footer once).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from pyarrow import fs as pafs

sys.path.insert(0, str(Path(__file__).parent))
from import_scale import ROOT, generate  # noqa: E402

from hudi_catalog.hudi import read_table_config  # noqa: E402
from hudi_catalog.iceberg import build_view, completed_changes  # noqa: E402
from hudi_catalog.iceberg.expiry import merge_expired_writes  # noqa: E402
from hudi_catalog.iceberg.parquet_footer import read_footer  # noqa: E402

SAMPLE_TABLE = ROOT.parent / "shared" / "hudi-tables" / "sample_table_cow_v8_simplekeygen_nonhivestyle.zip"
LINKS_PER_SOURCE = 60_000
"""ext4 allows 65,000 links to one file: a copy of the sample per this many names."""
FS = pafs.LocalFileSystem()


def sample_base_file(folder: Path) -> Path:
    """A real base file of the sample table, unpacked into ``folder``."""
    with zipfile.ZipFile(SAMPLE_TABLE) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".parquet") and "__MACOSX" not in n)
        target = folder / "sample.parquet"
        target.write_bytes(archive.read(name))
    return target


def link_base_files(base: Path, sample: Path) -> int:
    """Hard links to ``sample`` under every base file name the timeline's completed writes name."""
    config = read_table_config(FS, str(base))
    made = 0
    source = sample
    for changes in completed_changes(FS, str(base), config):
        for partition, names in changes.added_base_files.items():
            folder = base / partition
            folder.mkdir(parents=True, exist_ok=True)
            for name in names:
                target = folder / name
                if target.exists():
                    continue
                if made % LINKS_PER_SOURCE == 0:
                    source = sample.with_name(f"sample-{made // LINKS_PER_SOURCE}.parquet")
                    shutil.copyfile(sample, source)
                os.link(source, target)
                made += 1
    return made


def footer_read_us(sample: Path, reads: int = 500) -> float:
    """Microseconds to read the sample's footer, once warm."""
    read_footer(FS, str(sample))
    started = time.perf_counter()
    for _ in range(reads):
        read_footer(FS, str(sample))
    return (time.perf_counter() - started) / reads * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--instants", type=int, default=2000)
    parser.add_argument("--files-per-commit", type=int, default=50)
    parser.add_argument("--partitions", type=int, default=200)
    parser.add_argument("--clean-every", type=int, default=0)
    parser.add_argument("--dir", help="where the table is made (default: a temporary folder, removed after)")
    args = parser.parse_args()
    if not SAMPLE_TABLE.exists():
        print(f"skipped: {SAMPLE_TABLE} is absent (the shared Hudi tables are not beside this checkout)")
        return 0
    root = Path(args.dir or tempfile.mkdtemp(prefix="iceberg-timeline-bench-"))
    try:
        started = time.perf_counter()
        base = generate(root / "table", args.instants, args.files_per_commit, args.partitions, args.clean_every)
        sample = sample_base_file(root)
        files = link_base_files(base, sample)
        print(
            f"table: {args.instants:,} instants, {files:,} base files of {sample.stat().st_size / 1024:,.0f} KiB "
            f"(a real Hudi 1.0 file: footer with the bloom filter), made in {time.perf_counter() - started:.1f} s"
        )
        metadata_dir = root / "view"
        wall, cpu = time.perf_counter(), time.process_time()
        update = build_view(FS, str(base), str(metadata_dir))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if update.error is not None:
            print(f"the view stopped: {update.error}")
            return 1
        written_mib = sum(p.stat().st_size for p in metadata_dir.iterdir()) / 2**20
        manifests, snapshots = len(update.manifests_written), len(update.snapshots_added)
        if args.clean_every:
            merged, _ = merge_expired_writes(completed_changes(FS, str(base), read_table_config(FS, str(base))))
            read = sum(len(names) for c in merged if c is not None for names in c.added_base_files.values())
            print(f"the cleans' expired writes taken merged: {read:,} footers read of {files:,} files")
        peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"build: {wall:.1f} s (CPU {cpu:.1f} s): {files / wall:,.0f} files/s, {args.instants / wall:,.1f} "
            f"instants/s; {snapshots:,} snapshots, {manifests:,} manifests, {written_mib:,.1f} MiB of metadata; "
            f"peak RSS of the process {peak_mib:,.0f} MiB"
        )
        footer = footer_read_us(sample)
        print(
            f"one footer read alone: {footer:,.0f} µs, so reading each file's footer once takes "
            f"{files * footer / 1e6:,.1f} s of the build ({footer * files / 1e6 / wall:.0%})"
        )
        print(f"issue 30's target for a full build: >= 20,000 files/s; here {files / wall:,.0f}")
    finally:
        if not args.dir:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
