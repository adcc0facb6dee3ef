"""``benchmarks/call_layers.py``, small: every configuration is served and answers, every in-process step is
timed, and the figures are positive, on the local MariaDB."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "call_layers.py"


def test_the_benchmark_measures_every_configuration_and_step(mysql_server_url):
    db_url = mysql_server_url.rsplit("/", 1)[0] + "/call_layers_test"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--db-url", db_url, "--calls", "50", "--slice", "0.05", "--loops", "20"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    served = {row["configuration"]: row for row in result["served"]}
    assert len(served) == 6 and "PyMySQL" in served
    assert all(row["calls"] >= 50 and 0 < row["p50_us"] <= row["p90_us"] for row in served.values())
    assert result["meta_conf_p50_us"] > 0
    steps = result["in_process_us"]
    assert "PyMySQL" in steps
    last = steps[list(steps)[-1]]
    assert {
        "decode the request",
        "the revision (a driver read of one statement)",
        "a cache miss adds: the database with its parameters (one more driver read)",
        "an audit line (--audit-log)",
    } <= set(last)
    assert all(value > 0 for value in last.values())
