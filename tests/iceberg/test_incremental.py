"""Applying a table's commits one at a time: each rewrites only the manifests of the partitions it touched and
reuses the others by path, and every version reads what hudi-rs reads as of its commit."""

from __future__ import annotations

import pytest
from pyarrow import fs as pafs

from hudi_catalog.hudi import read_table_config
from hudi_catalog.iceberg import completed_changes, table_info, update_view
from tests.hudi.tables import unpack
from tests.iceberg.helpers import assert_same_rows, load, oracle, oracle_read

LOCAL = pafs.LocalFileSystem()


@pytest.mark.parametrize(
    "name", ["sample_table_cow_v9_txns_simple_nometa", "sample_table_cow_v6_simplekeygen_nonhivestyle_overwritetable"]
)
def test_each_commit_rewrites_only_the_manifests_of_its_partitions(tmp_path, name):
    base = unpack(name, tmp_path)
    config = read_table_config(LOCAL, str(base))
    table = table_info(config, str(base))
    hudi_table = oracle(base)
    previous: dict[str, str] = {}  # manifest path -> partition key, of the previous snapshot
    changes = completed_changes(LOCAL, str(base), config)
    assert len(changes) >= 3
    for change in changes:
        update = update_view(LOCAL, table, [change])
        view = load(update.metadata.location)
        manifests = {m.manifest_path for m in view.current_snapshot().manifests(view.io)}
        touched = {p for p, names in change.added_base_files.items() if names}
        touched |= {p for p, ids in change.replaced_file_ids.items() if ids}
        written = set(update.manifests_written)
        assert len(written) == len(touched)  # one manifest per touched partition, nothing else rewritten
        assert written <= manifests
        reused = manifests - written
        assert reused <= set(previous), "a manifest neither written now nor listed before"
        # every manifest of an untouched partition is still listed, under the same path (those of a touched
        # partition may be merged: its appended manifests, after insert-only commits)
        written_partitions = {_partition(path) for path in written}
        assert {p for p in previous if _partition(p) not in written_partitions and _has_live_files(view, p)} <= reused
        assert_same_rows(view.scan().to_arrow(), oracle_read(hudi_table, change.instant_time))
        previous = {path: _key(path) for path in manifests}
    assert len(load(update.metadata.location).snapshots()) == len(changes)
    assert update.metadata.version == len(changes)


def _key(manifest_path: str) -> str:
    return manifest_path.rsplit("/", 1)[-1].split("-")[1]


def _partition(manifest_path: str) -> str:
    return _key(manifest_path).split(".")[0]


def _has_live_files(view, manifest_path: str) -> bool:
    manifest = next(
        m for m in view.current_snapshot().manifests(view.io) if _key(m.manifest_path) == _key(manifest_path)
    )
    return bool(manifest.added_files_count or manifest.existing_files_count)


def test_a_large_partition_is_spread_over_manifests_and_a_commit_rewrites_only_its_file_groups(tmp_path):
    """600 file groups in one partition: four manifests (by a hash of the file group id); a new version of one
    file group rewrites the one manifest that lists it; PyIceberg lists every live file exactly once."""
    import os
    import uuid

    import pyarrow as pa
    import pyarrow.parquet as pq

    from hudi_catalog.iceberg import InstantChanges, TableInfo, ViewBuilder, load_metadata
    from hudi_catalog.iceberg.builder import MANIFEST_TARGET_FILES

    base = tmp_path / "trips"
    (base / "region=eu").mkdir(parents=True)
    sample = tmp_path / "sample.parquet"
    pq.write_table(pa.table({"id": pa.array([1, 2], pa.int64()), "region": ["eu", "eu"]}), sample)
    schema = '{"type":"record","name":"r","fields":[{"name":"id","type":"long"},{"name":"region","type":"string"}]}'

    def name(group: int, instant: str) -> str:
        return f"{uuid.UUID(int=group)}-0_0-1-1_{instant}.parquet"

    def write(names: list[str]) -> None:
        for file in names:
            os.link(sample, base / "region=eu" / file)

    first = [name(g, "20250101000000000") for g in range(600)]
    write(first)
    table = TableInfo(str(base), partition_fields=("region",))
    builder = ViewBuilder(LOCAL, table)
    builder.apply(
        InstantChanges("20250101000000000", "commit", "20250101000000000", {"region=eu": tuple(first)}, schema=schema)
    )
    built = builder.commit()
    assert 600 > 2 * MANIFEST_TARGET_FILES and len(built.manifests_written) == 4

    update = [name(7, "20250101000001000")]
    write(update)
    builder = ViewBuilder(LOCAL, table, previous=load_metadata(LOCAL, built.metadata.location))
    builder.apply(InstantChanges("20250101000001000", "commit", "20250101000001000", {"region=eu": tuple(update)}))
    committed = builder.commit()
    assert len(committed.manifests_written) == 1
    view = load(committed.metadata.location)
    listed = [task.file.file_path.rsplit("/", 1)[-1] for task in view.scan().plan_files()]
    assert sorted(listed) == sorted([f for f in first if not f.startswith(str(uuid.UUID(int=7)))] + update)
    manifests = {m.manifest_path for m in view.current_snapshot().manifests(view.io)}
    assert len(manifests) == 4 and len(manifests & set(built.manifests_written)) == 3
    assert view.scan().to_arrow().num_rows == 2 * 600
