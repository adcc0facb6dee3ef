"""Run ``benchmarks/java/HmsCallTimer.java`` (Hive 2.3.10's Thrift client from the pyspark wheel) on calls.

Benchmarks time calls through this Java client because engines (Spark, Hive, Trino) are Java clients: a
Python client would spend more time decoding large answers than either server spends making them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pyspark

SOURCE = Path(__file__).parent / "java" / "HmsCallTimer.java"
JARS = Path(pyspark.__file__).parent / "jars"


def compile_timer() -> Path:
    """Compile the timer against the wheel's jars; returns the class directory."""
    if shutil.which("javac") is None:
        raise SystemExit("the benchmarks need a JDK (javac and java on PATH)")
    out = Path(tempfile.mkdtemp(prefix="hms-timer-"))
    subprocess.run(["javac", "-cp", f"{JARS}/*", "-d", str(out), str(SOURCE)], check=True, timeout=300)
    return out


def time_calls(classes: Path, host: str, port: int, calls: Sequence[tuple[str, int, Sequence[str]]]) -> list[dict]:
    """Time ``(label, repeat, [method, args...])`` calls on one connection; one result dict per call."""
    lines = "".join("\t".join([label, str(repeat), *call]) + "\n" for label, repeat, call in calls)
    done = subprocess.run(
        ["java", "-cp", f"{classes}:{JARS}/*", "HmsCallTimer", host, str(port)],
        input=lines, capture_output=True, text=True, timeout=3600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"HmsCallTimer failed:\n{done.stderr[-3000:]}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
