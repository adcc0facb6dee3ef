"""Catalog stores of earlier schema layouts, made by the code of the main commit that had the layout (taken
from this checkout's git history), for the tests that upgrade them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import skip_or_fail

PREVIOUS_LAYOUT_COMMIT = "52f222d"
"""The last main commit with layout version 7 (before column statistics, events and catalogs)."""
LAYOUT_13_COMMIT = "c811622"
"""The main commit before the schema tool, with layout version 13 and the runner that created it."""

MAKE_OLD_STORE = """
import sys
from hudi_catalog import Catalog, catalog
from hudi_catalog.model import Column, Database, Partition, StorageDescriptor, Table
from hudi_catalog.store import schema
assert catalog.__file__.startswith(sys.argv[3]), catalog.__file__
assert schema.SCHEMA_VERSION == int(sys.argv[4]), schema.SCHEMA_VERSION
c = Catalog.open(sys.argv[1], sys.argv[2])
c.databases.create(Database("old"))
c.tables.create(Table("old", "t", sd=StorageDescriptor(columns=[Column("x", "int")]),
                      partition_keys=[Column("ds", "string")], parameters={"metadata_location": "v1"}))
c.partitions.add("old", "t", [Partition("old", "t", ["a"]), Partition("old", "t", ["b"])])
c.close()
"""


def make_previous_layout_store(
    db_url: str, warehouse: Path, tmp_path: Path, commit: str = PREVIOUS_LAYOUT_COMMIT, layout: int = 7
) -> None:
    """A store of layout ``layout`` with a database, a table and two partitions, made by the code of main at
    ``commit`` (from git)."""
    root = Path(__file__).resolve().parents[2]
    old_code = tmp_path / f"code_{commit}"
    if not old_code.exists():
        old_code.mkdir()
        try:
            archive = subprocess.run(
                ["git", "-C", str(root), "archive", commit, "hudi_catalog"], capture_output=True, check=True, timeout=60
            ).stdout
        except (OSError, subprocess.CalledProcessError) as error:
            skip_or_fail(f"the previous release's code is not in this checkout's git history: {error}")
        subprocess.run(["tar", "-x", "-C", str(old_code)], input=archive, check=True, timeout=60)
    made = subprocess.run(
        [sys.executable, "-c", MAKE_OLD_STORE, db_url, str(warehouse), str(old_code), str(layout)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=old_code,
        env={**os.environ, "PYTHONPATH": str(old_code)},
    )
    assert made.returncode == 0, made.stderr[-3000:]
