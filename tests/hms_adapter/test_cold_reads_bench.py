"""``benchmarks/cold_reads.py``, small: the partitions are added, every read answers with the partitions it
selects, and the figures are positive, on the local MariaDB."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "cold_reads.py"


def test_the_benchmark_times_first_reads_with_and_without_stored_encodings(mysql_server_url):
    db_url = mysql_server_url.rsplit("/", 1)[0] + "/cold_reads_test"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--db-url", db_url, "--partitions", "500", "--batch", "200"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["partitions"] == 500 and result["add_s"] > 0
    for case in ("at_add", "at_read"):
        reads = result[case]
        assert reads["all_mb"] > 10 * reads["range_mb"] * 0.9 > 0  # all 500 against the 50 of the range
        assert all(reads[key] > 0 for key in ("range_first_ms", "all_first_ms", "range_again_ms", "all_again_ms"))
