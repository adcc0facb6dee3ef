"""A drop whose data cannot be deleted (a file the server may not remove) still succeeds, as in Hive: the
metadata is gone, the files stay, and the server log says so."""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path

import pytest

from hudi_catalog.errors import NoSuchPartitionError, NoSuchTableError
from hudi_catalog.model import Column, Database, Partition, StorageDescriptor, Table
from tests.conftest import skip_or_fail


@pytest.fixture
def immutable():
    """Makes files undeletable even for root (``chattr +i``); undone after the test."""
    made: list[Path] = []

    def make(path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("data")
        done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
        if done.returncode:
            skip_or_fail(f"chattr +i is not available here: {done.stderr.strip()}")
        made.append(path)
        return path

    yield make
    for path in made:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_drops_succeed_when_their_data_cannot_be_deleted(catalog, immutable, caplog):
    catalog.databases.create(Database("u"))
    catalog.tables.create(
        Table("u", "t", sd=StorageDescriptor(columns=[Column("x", "int")]), partition_keys=[Column("ds", "string")])
    )
    catalog.partitions.add("u", "t", [Partition("u", "t", ["1"]), Partition("u", "t", ["2"])])
    table_dir = Path(catalog.tables.get("u", "t").sd.location.removeprefix("file:"))
    kept = immutable(table_dir / "ds=1" / "part-0.parquet")

    with caplog.at_level(logging.ERROR, logger="hudi_catalog.warehouse"):
        catalog.partitions.drop("u", "t", ["1"], delete_data=True)
    with pytest.raises(NoSuchPartitionError):
        catalog.partitions.get("u", "t", ["1"])
    assert kept.exists() and "its files stay" in caplog.text

    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="hudi_catalog.warehouse"):
        catalog.tables.drop("u", "t", delete_data=True)
    with pytest.raises(NoSuchTableError):
        catalog.tables.get("u", "t")
    assert kept.exists() and str(table_dir) in caplog.text
