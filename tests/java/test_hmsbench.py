"""``benchmarks/hmsbench.py`` on hudi-metastore, small: every call of the workload answers correctly through
Hive 2.3.10's Java client, with one server process and with ``--workers 2``, the reads in rounds."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import require_module, skip_or_fail

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "hmsbench.py"
OPERATIONS = {
    "getDatabase",
    "getTable",
    "getAllTables",
    "listPartitionNames",
    "getPartitionsByNames (100)",
    "getPartitions (all)",
    "getPartition",
    "alterPartition",
    "dropPartition",
}


@pytest.mark.parametrize(
    "options",
    [[], ["--ours-option=--workers=2"], ["--peer-version=4.0.1"]],
    ids=["one-process", "two-workers", "hive4-client"],
)
def test_the_workload_answers_correctly(mysql_server_url, tmp_path, options):
    require_module("pyspark")  # the Java client runs from the jars of the pyspark wheel
    if shutil.which("javac") is None:
        skip_or_fail("a JDK (java, javac) is needed for the Java client of hmsbench")
    db_url = mysql_server_url.rsplit("/", 1)[0] + "/hmsbench_test"
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            "--ours",
            "--ours-db-url",
            db_url,
            "--partitions",
            "250",
            "--iterations",
            "2",
            "--rounds",
            "2",
            "--batch",
            "100",
            "--concurrency",
            "2",
            "--concurrent-calls",
            "10",
            "--json",
            str(out),
            *options,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (run,) = json.loads(out.read_text())["servers"]["ours"].values()
    assert run["errors"] == []
    assert OPERATIONS <= set(run["ops"])
    by_expression = {"getPartitionsByExpr (1 partition)", "getPartitionsByExpr (10% range)"}
    assert (
        by_expression <= set(run["ops"]) if options == ["--peer-version=4.0.1"] else not by_expression & set(run["ops"])
    )
    assert {c["threads"] for c in run["concurrency"].values()} == {2}
    # the reads were made in two rounds of one call each (after each round's warm-up call)
    assert run["ops"]["getTable"]["samples"] == run["ops"]["alterPartition"]["samples"] == 2
    # the client's own share of each read, timed by decoding the answer's bytes and by the same call on a
    # server that answers them at once (which takes them off a socket as well); none for calls timed once
    partitions = run["ops"]["getPartitions (all)"]
    # (measured, not compared with the call's time: on a loaded machine either may be the larger)
    assert partitions["client_decode_ms"] > 0 and partitions["instant_server_ms"] > 0
    assert "client_decode_ms" not in run["ops"]["dropPartition"]
    assert "instant_server_ms" not in run["ops"]["dropPartition"]
