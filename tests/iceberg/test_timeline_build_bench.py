"""``benchmarks/iceberg_timeline_build.py``, small: a table of a few dozen instants whose base files are a real
Hudi base file, its view built with a snapshot per commit, the figures printed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import skip_or_fail
from tests.hudi.tables import TABLES_DIR

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "iceberg_timeline_build.py"


def test_the_benchmark_builds_a_snapshot_per_commit_of_real_base_files(tmp_path):
    if not (TABLES_DIR / "sample_table_cow_v8_simplekeygen_nonhivestyle.zip").exists():
        skip_or_fail(f"the shared Hudi tables are not in {TABLES_DIR}")
    arguments = ["--instants", "40", "--files-per-commit", "4", "--partitions", "5"]
    done = subprocess.run(
        [sys.executable, str(BENCH), *arguments, "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    table = re.search(r"table: 40 instants, ([\d,]+) base files of ([\d,]+) KiB", done.stdout)
    assert table is not None, done.stdout
    assert int(table.group(1).replace(",", "")) == 40 * 4  # no clean
    assert int(table.group(2).replace(",", "")) > 400  # the real file, its bloom filter in the footer
    build = re.search(r"build: ([\d.]+) s .*: ([\d,]+) files/s.*; ([\d,]+) snapshots, ([\d,]+) manifests", done.stdout)
    assert build is not None, done.stdout
    assert float(build.group(1)) > 0 and int(build.group(2).replace(",", "")) > 0
    assert int(build.group(3)) == 40 and int(build.group(4)) >= 40
    assert re.search(r"one footer read alone: [\d,]+ µs", done.stdout), done.stdout
    assert len(list((tmp_path / "view").glob("*.metadata.json"))) == 1
