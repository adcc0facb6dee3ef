"""Shared pieces of the Iceberg view tests: the tables, the hudi-rs oracle and row comparison."""

from __future__ import annotations

import collections
import time
from pathlib import Path

import pyarrow as pa

from tests.conftest import require_module
from tests.hudi.tables import table_names

hudi = require_module("hudi")
require_module("pyiceberg", extra="test")

from pyiceberg.exceptions import NoSuchTableError  # noqa: E402
from pyiceberg.table import StaticTable  # noqa: E402

PARQUET_COW_TABLES = [n for n in table_names() if "_cow_" in n and "lance" not in n]
"""Every COPY_ON_WRITE table with Parquet base files (the empty ones included)."""


def oracle(base: Path):
    return hudi.HudiTableBuilder.from_base_uri(str(base)).build()


def oracle_read(table, as_of: str | None = None) -> pa.Table | None:
    options = hudi.HudiReadOptions() if as_of is None else hudi.HudiReadOptions().with_as_of_timestamp(as_of)
    found = [b for b in table.read(options) if b.num_rows]
    return pa.Table.from_batches(found) if found else None


def completed_writes(table) -> list[str]:
    timeline = table.get_timeline()
    return sorted(
        {
            i.timestamp
            for i in timeline.get_completed_commits()
            + timeline.get_completed_deltacommits()
            + timeline.get_completed_replacecommits()
        }
    )


def load(metadata_location: str) -> StaticTable:
    return StaticTable.from_metadata(metadata_location)


def live_files(view: StaticTable, snapshot_id: int | None = None) -> list[str]:
    """The paths of the data files a snapshot (the current one by default) lists, from its manifests."""
    snapshot = view.current_snapshot() if snapshot_id is None else view.snapshot_by_id(snapshot_id)
    return [
        entry.data_file.file_path
        for manifest in snapshot.manifests(view.io)
        for entry in manifest.fetch_manifest_entry(view.io, discard_deleted=True)
    ]


def assert_same_rows(ours: pa.Table, theirs: pa.Table | None) -> None:
    """``ours`` (PyIceberg's scan) holds exactly hudi-rs's rows, over hudi-rs's columns (hudi-rs leaves out
    the meta columns of tables that do not populate them; the view has them, null)."""
    if theirs is None:
        assert ours.num_rows == 0
        return
    columns = theirs.column_names
    assert set(columns) <= set(ours.column_names), set(columns) - set(ours.column_names)
    ours = ours.select(columns).cast(theirs.schema)
    assert _rows(ours) == _rows(theirs), f"ours {ours.num_rows} rows, hudi-rs {theirs.num_rows}"


def _rows(table: pa.Table) -> collections.Counter:
    return collections.Counter(repr(tuple(row.values())) for row in table.to_pylist())


def wait_for_view(hms, name: str, snapshots: int, seconds: float = 60):
    """The view ``name`` loaded through the HiveCatalog ``hms`` once it has ``snapshots`` snapshots: a server
    updates views after its commits have answered."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            view = hms.load_table(name)
            if len(view.snapshots()) >= snapshots or time.monotonic() > deadline:
                return view
        except NoSuchTableError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.1)


def local_path(uri: str) -> Path:
    """A path the view wrote (``file:/...``, ``file:///...`` or a plain path) as a local path."""
    return Path(uri.removeprefix("file://").removeprefix("file:"))


def view_files(metadata_dir: Path) -> dict[str, set[Path]]:
    """The files in a view's metadata folder by kind: ``metadata`` (JSON), ``lists`` (manifest lists) and
    ``manifests``."""
    found: dict[str, set[Path]] = {"metadata": set(), "lists": set(), "manifests": set()}
    for path in metadata_dir.iterdir():
        if path.name.endswith(".metadata.json"):
            found["metadata"].add(path)
        elif path.name.startswith("snap-"):
            found["lists"].add(path)
        elif path.name.startswith("manifest-"):
            found["manifests"].add(path)
    return found


def data_files(base: Path) -> set[Path]:
    """Every Parquet file under a table's base path, outside ``.hoodie``."""
    return {p for p in base.rglob("*.parquet") if ".hoodie" not in p.relative_to(base).parts}


def listed_files(view: StaticTable) -> dict[str, set[Path]]:
    """What the view's snapshots list, by kind as :func:`view_files` gives a folder: manifest lists and
    manifests (of every snapshot), metadata files (the current one and its log)."""
    snapshots = view.metadata.snapshots
    return {
        "metadata": {local_path(view.metadata_location)}
        | {local_path(e.metadata_file) for e in view.metadata.metadata_log},
        "lists": {local_path(s.manifest_list) for s in snapshots},
        "manifests": {local_path(m.manifest_path) for s in snapshots for m in s.manifests(view.io)},
    }
