"""Fast appends and byte-copied manifests, read back by PyIceberg: an instant that only opens new file groups
in a partition adds a manifest of its own; a partition holds a bounded number of them, merged into its bucket
manifests by the next instant that updates or replaces a file there; the manifest list copies the blocks of
untouched partitions; views written before the view kept record lengths (plain fastavro files) still update."""

from __future__ import annotations

import io
import os
import uuid
from pathlib import Path

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyarrow import fs as pafs

from hudi_catalog.hudi import read_table_config
from hudi_catalog.iceberg import InstantChanges, TableInfo, ViewBuilder, completed_changes, load_metadata
from hudi_catalog.iceberg.builder import APPENDED_MANIFESTS_MAX
from tests.hudi.tables import unpack
from tests.iceberg.helpers import PARQUET_COW_TABLES, live_files, load

LOCAL = pafs.LocalFileSystem()
SCHEMA = '{"type":"record","name":"r","fields":[{"name":"id","type":"long"},{"name":"region","type":"string"}]}'
REGIONS = ("region=eu", "region=us")


class Table:
    """A Hudi table made of hard links to one small Parquet file, and its view, one instant at a time."""

    def __init__(self, root: Path) -> None:
        self.base = root / "trips"
        self.samples = {}  # partition -> a Parquet file of three rows in it
        for partition in REGIONS:
            self.samples[partition] = root / f"{partition}.parquet"
            region = partition.split("=")[1]
            pq.write_table(
                pa.table({"id": pa.array([1, 2, 3], pa.int64()), "region": [region] * 3}), self.samples[partition]
            )
        self.info = TableInfo(str(self.base), partition_fields=("region",))
        self.location: str | None = None
        self.instants = 0
        self.live: dict[str, str] = {}  # file group -> file name (what the view should list)

    def commit(
        self,
        writes: dict[str, list[int]],
        new_groups: bool,
        replaced: dict[str, list[int]] | None = None,
    ):
        """An instant writing a version of file groups ``writes`` (per partition); ``new_groups``: they are
        opened by it (Hudi's ``prevCommit`` null); ``replaced``: file groups it removes."""
        self.instants += 1
        instant = f"202501010000{self.instants:02d}000"
        added: dict[str, tuple[str, ...]] = {}
        for partition, groups in writes.items():
            (self.base / partition).mkdir(parents=True, exist_ok=True)
            names = []
            for group in groups:
                name = f"{_file_id(group)}_0-1-1_{instant}.parquet"
                os.link(self.samples[partition], self.base / partition / name)
                names.append(name)
                self.live[_file_id(group)] = f"{partition}/{name}"
            added[partition] = tuple(names)
        replaced_ids = {p: tuple(_file_id(g) for g in groups) for p, groups in (replaced or {}).items()}
        for ids in replaced_ids.values():
            for file_id in ids:
                self.live.pop(file_id)
        opened = {p: tuple(_file_id(g) for g in groups) for p, groups in writes.items()} if new_groups else {}
        previous = load_metadata(LOCAL, self.location) if self.location else None
        builder = ViewBuilder(LOCAL, self.info, previous=previous)
        builder.apply(
            InstantChanges(
                instant,
                "commit",
                instant,
                added,
                replaced_file_ids=replaced_ids,
                new_file_groups=opened,
                schema=SCHEMA if previous is None else None,
            )
        )
        update = builder.commit()
        self.location = update.metadata.location
        return update

    def expected(self) -> list[str]:
        return sorted(f"{self.base}/{path}" for path in self.live.values())

    def manifests(self) -> list[str]:
        view = load(self.location)
        return [m.manifest_path for m in view.current_snapshot().manifests(view.io)]


def _file_id(group: int) -> str:
    return f"{uuid.UUID(int=group)}-0"


def _appended(manifests: list[str]) -> list[str]:
    return [m for m in manifests if ".a." in m.rsplit("/", 1)[-1]]


@pytest.fixture
def table(tmp_path) -> Table:
    table = Table(tmp_path)
    table.commit({p: list(range(n * 1000, n * 1000 + 300)) for n, p in enumerate(REGIONS)}, new_groups=True)
    return table


def test_an_insert_only_commit_adds_one_manifest_per_partition_and_rewrites_none(table):
    before = set(table.manifests())
    assert len(before) == 4  # 300 files a partition: two buckets each

    update = table.commit({"region=eu": [5000, 5001], "region=us": [6000]}, new_groups=True)

    after = table.manifests()
    assert len(update.manifests_written) == 2 and set(update.manifests_written) == set(_appended(after))
    assert before <= set(after)  # nothing rewritten: every earlier manifest is still listed, same path
    view = load(table.location)
    assert sorted(task.file.file_path for task in view.scan().plan_files()) == table.expected()
    assert view.scan(row_filter="region = 'eu'").to_arrow().num_rows == 3 * 302
    assert view.current_snapshot().summary.operation.value == "append"
    assert view.current_snapshot().summary["added-data-files"] == "3"
    assert view.current_snapshot().summary["total-data-files"] == str(603)


def test_a_file_group_not_known_to_be_new_is_not_appended(table):
    """Without ``new_file_groups`` (an update, or a caller that cannot tell), the bucket manifests are
    rewritten: the older version of the file group is marked deleted."""
    update = table.commit({"region=eu": [7]}, new_groups=False)

    assert not _appended(table.manifests()) and len(update.manifests_written) == 1
    assert sorted(live_files(load(table.location))) == table.expected()


def test_appended_manifests_stay_bounded_over_many_insert_only_commits(table):
    counts = []
    for n in range(3 * APPENDED_MANIFESTS_MAX):
        table.commit({"region=eu": [10_000 + n]}, new_groups=True)
        counts.append(len([m for m in _appended(table.manifests()) if _partition_of(table, m) == "region=eu"]))
    # one more each time, up to the limit; the commit after it merges them into the bucket manifests
    assert counts[: APPENDED_MANIFESTS_MAX + 2] == [*range(1, APPENDED_MANIFESTS_MAX + 1), 0, 1]
    assert max(counts) == APPENDED_MANIFESTS_MAX

    view = load(table.location)
    assert len(table.manifests()) <= 4 + APPENDED_MANIFESTS_MAX
    assert sorted(task.file.file_path for task in view.scan().plan_files()) == table.expected()
    assert len(view.snapshots()) == 1 + 3 * APPENDED_MANIFESTS_MAX


def test_an_update_after_appends_merges_them_and_deletes_the_old_version(table):
    for n in range(3):
        table.commit({"region=eu": [20_000 + n]}, new_groups=True)
    assert len(_appended(table.manifests())) == 3
    old_versions = {f"{table.base}/{table.live[_file_id(g)]}" for g in (20_001, 4)}

    update = table.commit({"region=eu": [20_001, 4]}, new_groups=False)  # a new version of an appended file

    after = table.manifests()
    assert not _appended(after), "the partition's appended manifests are merged into its bucket manifests"
    view = load(table.location)
    assert sorted(task.file.file_path for task in view.scan().plan_files()) == table.expected()
    summary = view.current_snapshot().summary
    assert (summary.operation.value, summary["added-data-files"], summary["deleted-data-files"]) == (
        "overwrite",
        "2",
        "2",
    )
    assert summary["total-data-files"] == str(len(table.expected()))
    # the deleted entries are in the new snapshot's manifests, as Iceberg records a delete
    deleted = [
        e.data_file.file_path
        for m in view.current_snapshot().manifests(view.io)
        for e in m.fetch_manifest_entry(view.io, discard_deleted=False)
        if e.status.value == 2
    ]
    assert sorted(deleted) == sorted(old_versions)
    assert set(update.manifests_written) <= set(after)


def test_replacing_appended_file_groups_removes_them(table):
    table.commit({"region=us": [30_000, 30_001]}, new_groups=True)
    table.commit({"region=us": [30_002]}, new_groups=True, replaced={"region=us": [30_000, 1000]})

    view = load(table.location)
    assert sorted(live_files(view)) == table.expected()
    assert not [m for m in _appended(table.manifests()) if _partition_of(table, m) == "region=us"]


def test_untouched_partitions_keep_their_manifest_list_block(table):
    """The manifest list is in blocks by partition: a commit touching one partition leaves the other's
    manifests listed byte for byte (PyIceberg reads the list whole)."""
    before = load(table.location)
    us_before = {m.manifest_path: m for m in before.current_snapshot().manifests(before.io) if _is_us(table, m)}

    table.commit({"region=eu": [40_000]}, new_groups=True)

    view = load(table.location)
    us_after = {m.manifest_path: m for m in view.current_snapshot().manifests(view.io) if _is_us(table, m)}
    assert us_after.keys() == us_before.keys()
    for path, manifest in us_after.items():
        assert (manifest.existing_files_count, manifest.added_files_count) == (
            us_before[path].existing_files_count,
            us_before[path].added_files_count,
        )
        assert manifest.partitions[0].lower_bound == us_before[path].partitions[0].lower_bound


def test_a_view_written_with_plain_avro_files_takes_the_next_commit(table):
    """Manifests and manifest lists without the view's record lengths (written before it kept them, or by
    another writer) are decoded whole once and the view goes on."""
    folder = Path(table.location).parent
    for path in folder.glob("*.avro"):
        _rewrite_without_record_lengths(path)
    assert not any(b"hudi.record-lengths" in p.read_bytes() for p in folder.glob("*.avro"))

    table.commit({"region=eu": [3]}, new_groups=False)
    table.commit({"region=us": [50_000]}, new_groups=True)

    view = load(table.location)
    assert sorted(task.file.file_path for task in view.scan().plan_files()) == table.expected()
    assert view.scan().to_arrow().num_rows == 3 * len(table.expected())


@pytest.mark.parametrize("name", PARQUET_COW_TABLES)
def test_file_groups_taken_as_new_are_never_ones_written_before(tmp_path, name):
    """What makes a fast append safe, on tables Hudi wrote: a file group whose base file says ``prevCommit``
    null was written by no earlier instant (the view lists no older file of it)."""
    base = unpack(name, tmp_path)
    seen: set[str] = set()
    opened_any = False
    for change in completed_changes(LOCAL, str(base), read_table_config(LOCAL, str(base))):
        written = {name.split("_", 1)[0] for names in change.added_base_files.values() for name in names}
        opened = {file_id for ids in change.new_file_groups.values() for file_id in ids}
        assert opened <= written and not opened & seen, change.instant_time
        opened_any |= bool(opened)
        seen |= written
    assert opened_any or not seen


def _rewrite_without_record_lengths(path: Path) -> None:
    with path.open("rb") as stream:
        reader = fastavro.reader(stream)
        schema, records = reader.writer_schema, list(reader)
        metadata = {k: v for k, v in reader.metadata.items() if not k.startswith(("avro.", "hudi."))}
    out = io.BytesIO()
    fastavro.writer(out, schema, records, codec="deflate", metadata=metadata)
    path.write_bytes(out.getvalue())


def _partition_of(table: Table, manifest_path: str) -> str:
    with open(manifest_path, "rb") as stream:
        first = next(iter(fastavro.reader(stream)))
    return first["data_file"]["file_path"][len(str(table.base)) + 1 :].split("/")[0]


def _is_us(table: Table, manifest) -> bool:
    return _partition_of(table, manifest.manifest_path) == "region=us"
