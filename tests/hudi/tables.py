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


def all_tables():
    """``pytest.mark.parametrize`` values for every table (one placeholder that skips when there are none)."""
    names = table_names()
    return names or [pytest.param("missing", marks=pytest.mark.skip(reason=f"no Hudi tables in {TABLES_DIR}"))]


def unpack(name: str, into: Path) -> Path:
    """Unzip table ``name`` under ``into``; returns the table's base path (the folder holding ``.hoodie``)."""
    archive = TABLES_DIR / f"{name}.zip"
    if not archive.exists():
        skip_or_fail(f"Hudi test table {archive} is missing (../shared/hudi-tables beside the checkout)")
    target = into / name
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(target)
    # the metadata table (.hoodie/metadata) has a hoodie.properties of its own
    bases = [p.parent.parent for p in target.rglob("hoodie.properties")
             if p.parent.name == ".hoodie" and "__MACOSX" not in p.parts and ".hoodie" not in p.parent.parent.parts]
    assert len(bases) == 1, f"{name}: expected one table base path, found {bases}"
    return bases[0]
