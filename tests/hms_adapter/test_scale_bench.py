"""``benchmarks/scale.py``, small: a table of 1,000 partitions is loaded and every call timed through both
clients, on the local MariaDB; with a partition limit below the table's size, getPartitions (all) is refused
in Hive's words and the rest answers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.mysql]  # about 50 s: a JVM loads, then times the calls

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "scale.py"
READS = {
    "getTable",
    "getPartition",
    "getPartitionsByNames (100)",
    "getPartitionsByFilter (1 partition)",
    "getPartitionsByFilter (10% range)",
    "listPartitionNames (max 100)",
    "listPartitionNames (all)",
    "getPartitions (all)",
}


def test_the_benchmark_times_every_call_and_reports_a_refused_list(mysql_server_url, tmp_path):
    db_url = mysql_server_url.rsplit("/", 1)[0] + "/scale_bench_test"
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            "--db-url",
            db_url,
            "--warehouse",
            str(tmp_path / "warehouse"),
            "--sizes",
            "1000",
            "--iterations",
            "2",
            "--batch",
            "250",
            "--ours-option=--max-batch-partitions=500",
            "--json",
            str(tmp_path / "scale.json"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]  # the refused list is an error
    run = json.loads((tmp_path / "scale.json").read_text())["servers"]["ours"]["1000"]
    assert run["load_s"] > 0 and run["peak_rss_mib"] > 0
    assert [e.split(":")[0] for e in run["errors"]] == ["getPartitions (all)"]
    assert "Number of partitions scanned (=1000) on table 'scale.t1000' exceeds limit (=500)" in run["errors"][0]
    assert READS <= set(run["server"]) and READS - {"getPartitions (all)"} <= set(run["java"])
    assert all(run["server"][op]["p50_ms"] > 0 and run["server"][op]["reply_bytes"] > 0 for op in READS)
    assert run["server"]["listPartitionNames (all)"]["reply_bytes"] > 1000 * len("dt=2000-01-01/hr=0")
    assert run["java"]["dropPartition"]["samples"] == run["java"]["addPartition"]["samples"] == 2
    assert "| getPartitionsByFilter (10% range) |" in done.stdout
