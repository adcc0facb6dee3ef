"""The README's "First 10 minutes", run as written: its shell blocks in order in one bash script (the Python
blocks through ``python -`` at their place), in an empty folder, in a network namespace of its own (so that
the section's fixed ports 9083 and 9090 are free whatever else runs), with ``HUDI_TABLE`` set to a real Hudi
table. The rows Spark and PyIceberg print must be the table's rows as hudi-rs reads them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import skip_or_fail
from tests.hudi.tables import unpack

pytestmark = pytest.mark.slow

README = Path(__file__).resolve().parents[1] / "README.md"
SECTION = "## First 10 minutes"
TABLE_PLACEHOLDER = "export HUDI_TABLE=/path/to/a/hudi/table"
TABLE = "sample_table_cow_v9_txns_simple_meta"
BLOCK = re.compile(r"```(sh|python)\n(.*?)```", re.DOTALL)


def section_blocks() -> list[tuple[str, str]]:
    """The fenced blocks of the section, in order: ``(language, text)``."""
    text = README.read_text()
    start = text.index(SECTION)
    end = text.index("\n## ", start + len(SECTION))
    return BLOCK.findall(text[start:end])


def script(blocks: list[tuple[str, str]], table: Path) -> str:
    """One bash script of the blocks; the only line changed is the placeholder of the table's path."""
    parts = ["set -e"]
    for language, text in blocks:
        if language == "python":
            parts.append(f"{sys.executable} - <<'PYTHON'\n{text}PYTHON")
        else:
            assert text.count(TABLE_PLACEHOLDER) <= 1
            parts.append(text.replace(TABLE_PLACEHOLDER, f"export HUDI_TABLE={table}"))
    return "\n".join(parts) + "\n"


def test_the_first_ten_minutes_run_as_written(tmp_path):
    blocks = section_blocks()
    assert [language for language, _ in blocks] == ["sh", "sh", "python", "python", "python", "sh"]
    assert sum(TABLE_PLACEHOLDER in text for _, text in blocks) == 1
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        skip_or_fail("the README's ports need a network namespace of its own: root and unshare")
    if shutil.which("java") is None:
        skip_or_fail("the README's Spark block needs Java")
    table = unpack(TABLE, tmp_path / "tables")
    hudi = pytest.importorskip("hudi")
    expected = sum(batch.num_rows for batch in hudi.HudiTableBuilder.from_base_uri(str(table)).build().read())
    work = tmp_path / "first-10-minutes"
    work.mkdir()
    (work / "readme.sh").write_text(script(blocks, table))
    environment = {
        **os.environ,
        "SPARK_LOCAL_IP": "127.0.0.1",
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
    }
    done = subprocess.run(
        ["unshare", "--net", "bash", "-c", "ip link set lo up && bash readme.sh"],
        cwd=work,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = (work / "metastore.log").read_text() if (work / "metastore.log").exists() else ""
    assert done.returncode == 0, f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}\n{log[-2000:]}"
    assert re.search(r"^ok thrift://127\.0\.0\.1:9083: ", done.stdout, re.MULTILINE), done.stdout
    assert re.search(r"\|\s*lake\|\s*trips\|", done.stdout) and "trips_iceberg" in done.stdout, done.stdout
    assert f"spark read {expected} rows" in done.stdout, done.stdout
    # the console's timeline page, read as the section reads it: the table's newest instant first
    instants = [p.name for p in (table / ".hoodie" / "timeline").iterdir() if p.name[:1].isdigit()]
    newest = max(name.split(".")[0].split("_")[0] for name in instants)
    assert re.search(rf"^last instant {newest} \w+ completed$", done.stdout, re.MULTILINE), done.stdout
    assert f"pyiceberg read {expected} rows" in done.stdout, done.stdout
    assert (work / "metastore.db").exists()
