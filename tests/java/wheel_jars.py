"""Java programs compiled against the pyspark wheel's jars (Hive 2.3.10's metastore client among them)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.conftest import require_module, skip_or_fail

pyspark = require_module("pyspark")  # the jars come with the pyspark wheel; without it the importing module skips

JARS = Path(pyspark.__file__).parent / "jars"


def compile_source(source: Path, out: Path) -> Path:
    """Compile ``source`` into ``out`` (skipped without a JDK, failed in CI); returns ``out``."""
    if shutil.which("javac") is None or shutil.which("java") is None:
        skip_or_fail(f"a JDK (java, javac) is needed to run {source.name}")
    subprocess.run(
        ["javac", "-cp", f"{JARS}/*", "-d", str(out), str(source)], check=True, capture_output=True, timeout=300
    )
    return out
