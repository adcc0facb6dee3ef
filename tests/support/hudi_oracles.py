"""The independent oracles of the Hudi tests: hudi-rs (the ``hudi`` package) and the real tables' README; and
the catalog's latest file slices in the shape hudi-rs gives them.

Importing this module skips the importing test module without the Spark extras (``hudi`` is one of them).
"""

from __future__ import annotations

import functools
import re
from collections import Counter

from tests.conftest import require_module
from tests.hudi.tables import TABLES_DIR

hudi = require_module("hudi")  # skips the importing module without the Spark extras

from hudi import HudiReadOptions

WRITE_ACTIONS = ("commit", "deltacommit", "replacecommit")
"""The actions whose completed instants hudi-rs lists as commits (``get_completed_commits`` and the like)."""


@functools.cache
def readme_rows() -> dict[str, dict]:
    """The rows of the tables' README (read on first use, never at import)."""
    rows = {}
    for line in (TABLES_DIR / "README.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0].endswith(".zip"):
            name, version, table_type, fields, hive_style, _, instants = cells
            rows[name[: -len(".zip")]] = {
                "version": int(version),
                "type": table_type,
                "partition_fields": [] if fields == "-" else fields.split(","),
                "hive_style": hive_style == "true",
                "completed": Counter()
                if instants == "-"
                else Counter({action: int(count) for action, count in re.findall(r"(\w+) x(\d+)", instants)}),
            }
    return rows


def _hudi_rs(base: str):
    return hudi.HudiTableBuilder.from_base_uri(base).build()


def our_slices(catalog, table: str, as_of: str | None = None, database: str = "h") -> set[tuple]:
    return {
        (s.partition_path, s.file_id, s.base_file, tuple(s.log_files))
        for found in catalog.snapshot.latest_file_slices(database, table, as_of=as_of).values()
        for s in found
    }


def oracle_slices(oracle, as_of: str | None = None) -> set[tuple]:
    options = HudiReadOptions() if as_of is None else HudiReadOptions().with_as_of_timestamp(as_of)
    return {
        (s.partition_path, s.file_id, s.base_file_name or None, tuple(s.log_file_names))
        for s in oracle.get_file_slices(options)
    }
