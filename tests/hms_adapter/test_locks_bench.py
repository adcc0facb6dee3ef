"""``benchmarks/locks.py``, small: ours serves the uncontended and hand-off workloads without an error (the
hand-off checks mutual exclusion), and the SQL floor's statements still run against this server's schema."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "locks.py"


def test_the_benchmark_runs_every_lock_workload_and_the_sql_floor(mysql_server_url, tmp_path):
    db_url = mysql_server_url.rsplit("/", 1)[0] + "/locks_bench_test"
    out = tmp_path / "locks.json"
    done = subprocess.run(
        [
            *(sys.executable, str(BENCH), "--ours", "--ours-db-url", db_url, "--seconds", "1.5"),
            *("--warmup-seconds", "0", "--clients", "1,2", "--handoff-writers", "2", "--iceberg-writers", ""),
            *("--floor", "--json", str(out)),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    ours = json.loads(out.read_text())["servers"]["ours"]
    floors = [ours[section][c] for section in ("floor", "floor_no_mutex") for c in ("1", "2")]
    assert all(floor["pairs"] > 0 and not floor["errors"] for floor in floors)
    assert all(ours["uncontended"][c]["pairs"] > 0 for c in ("1", "2"))
    assert ours["handoff"]["handoffs"] > 0 and ours["handoff"]["overlaps"] == 0
    assert "SQL floor, 2 clients" in done.stdout
