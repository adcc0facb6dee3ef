"""The real Hudi tables in ``../shared/hudi-tables`` (zips, one table each), unpacked for tests.

Tests take them read-only from there; on a clone without the folder they skip with a clear message (in CI
the folder must be there, so they fail instead).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tests.conftest import skip_or_fail

TABLES_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "hudi-tables"


def table_names() -> list[str]:
    """Names of the table zips (without ``.zip``), sorted; empty when the folder is absent."""
    return sorted(p.stem for p in TABLES_DIR.glob("*.zip"))


def all_tables(kind: str = ""):
    """``pytest.mark.parametrize`` values for every table whose name holds ``kind`` (``_cow_``, ``_mor_``;
    all by default), or one placeholder that skips when there are none."""
    names = [name for name in table_names() if kind in name]
    return names or [pytest.param("missing", marks=pytest.mark.skip(reason=f"no Hudi tables in {TABLES_DIR}"))]


SERVER_STORE_SAMPLE = (
    "quickstart_trips_table_mor_avro_v6_trips_8i3d",  # table version 6, merge on read, deletes
    "sample_table_mor_parquet_v6_nonpartitioned_rollback",  # a rollback, no partitions
    "sample_table_cow_v6_simplekeygen_nonhivestyle_overwritetable",  # replacecommits
    "sample_table_cow_v8_complexkeygen_hivestyle",  # table version 8, two partition fields
    "sample_table_mor_avro_v9_txns_simple_meta",  # table version 9 with the metadata table
    "sample_table_cow_v9_lance_txns_simple",  # Lance base files
)
"""The tables that the store-dependent all-tables tests also run on the server stores (MariaDB, PostgreSQL):
what differs between stores is how rows are written and read, which these cover; every table runs on
SQLite."""


def tables_on_stores(stores: tuple[str, ...] = ("mysql", "postgresql")):
    """``pytest.mark.parametrize(("db_url", "name"), ..., indirect=["db_url"])`` values: every table on
    SQLite, and ``SERVER_STORE_SAMPLE`` on each of ``stores``."""
    names = table_names()
    if not names:
        return [pytest.param("sqlite", "missing", marks=pytest.mark.skip(reason=f"no Hudi tables in {TABLES_DIR}"))]
    sample = [name for name in SERVER_STORE_SAMPLE if name in names]
    return [("sqlite", name) for name in names] + [(store, name) for store in stores for name in sample]


def sample_across_stores(stores: tuple[str, ...] = ("sqlite", "mysql", "postgresql")):
    """``SERVER_STORE_SAMPLE`` spread over ``stores``, each table on one store in turn (every store gets some):
    for paths whose table-by-table logic another test checks on every table and every store (the Spark import
    decodes and writes with the very functions the single-process import uses, which ``test_import.py`` checks
    on all tables against hudi-rs, and the sample on every store)."""
    names = table_names()
    sample = [name for name in SERVER_STORE_SAMPLE if name in names]
    if not sample:
        return [pytest.param("sqlite", "missing", marks=pytest.mark.skip(reason=f"no Hudi tables in {TABLES_DIR}"))]
    return [(stores[i % len(stores)], name) for i, name in enumerate(sample)]


def unpack(name: str, into: Path) -> Path:
    """Unzip table ``name`` under ``into``; returns the table's base path (the folder holding ``.hoodie``)."""
    archive = TABLES_DIR / f"{name}.zip"
    if not archive.exists():
        skip_or_fail(f"Hudi test table {archive} is missing (../shared/hudi-tables beside the checkout)")
    target = into / name
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(target)
    # the metadata table (.hoodie/metadata) has a hoodie.properties of its own
    bases = [
        p.parent.parent
        for p in target.rglob("hoodie.properties")
        if p.parent.name == ".hoodie" and "__MACOSX" not in p.parts and ".hoodie" not in p.parent.parent.parts
    ]
    assert len(bases) == 1, f"{name}: expected one table base path, found {bases}"
    return bases[0]
