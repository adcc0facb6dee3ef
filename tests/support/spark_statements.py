"""SQL statements run in a fresh PySpark process (``tests/spark/statements.py``) against a metastore, or
against Spark's own embedded one: each statement's rows or error, with the times and the warehouse path that
differ between two runs masked."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "spark" / "statements.py"
RUN_TIMEOUT_SECONDS = 900
_TIME = re.compile(r"\b\w{3} \w{3} \d{1,2} \d{2}:\d{2}:\d{2} \w+ \d{4}\b")
_DDL_TIME = re.compile(r"(transient_lastDdlTime\W{1,5})\d+")


def run_statements(
    work_dir: Path,
    metastore_uri: str | None,
    statements: Path | None = None,
    spark_conf: dict[str, str] | None = None,
    env: dict[str, str] | None = None,
) -> dict[str, dict]:
    """Results of ``statements.py``'s statements (or those listed in the JSON file ``statements``), with more
    Spark settings ``spark_conf`` and environment variables ``env``."""
    warehouse = work_dir / "spark-warehouse"
    command = [sys.executable, str(SCRIPT), str(warehouse)] + ([metastore_uri] if metastore_uri else [])
    command += [str(statements)] if statements else []
    env = {
        **os.environ,
        "PYSPARK_PYTHON": sys.executable,
        "SPARK_LOCAL_IP": "127.0.0.1",
        "HMS_TEST_SPARK_CONF": json.dumps(spark_conf or {}),
        **(env or {}),
    }
    done = subprocess.run(command, cwd=work_dir, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_SECONDS)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert done.returncode == 0 and lines, f"Spark run failed:\n{done.stderr[-4000:]}"
    return {entry["sql"]: _masked(entry, str(warehouse)) for entry in lines}


def _masked(entry: dict, warehouse: str) -> dict:
    def mask(value):
        if value is None:
            return None
        value = value.replace(warehouse, "<warehouse>")
        return _DDL_TIME.sub(r"\1<time>", _TIME.sub("<time>", value))

    if "rows" in entry:
        return {"rows": [[mask(v) for v in row] for row in entry["rows"]]}
    return {"error": entry["error"]}
