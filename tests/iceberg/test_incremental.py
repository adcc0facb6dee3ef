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
        # every manifest of an untouched partition is still listed, under the same path
        written_keys = {_key(path) for path in written}
        assert {p for p in previous if _key(p) not in written_keys and _has_live_files(view, p)} <= reused
        assert_same_rows(view.scan().to_arrow(), oracle_read(hudi_table, change.instant_time))
        previous = {path: _key(path) for path in manifests}
    assert len(load(update.metadata.location).snapshots()) == len(changes)
    assert update.metadata.version == len(changes)


def _key(manifest_path: str) -> str:
    return manifest_path.rsplit("/", 1)[-1].split("-")[1]


def _has_live_files(view, manifest_path: str) -> bool:
    manifest = next(
        m for m in view.current_snapshot().manifests(view.io) if _key(m.manifest_path) == _key(manifest_path)
    )
    return bool(manifest.added_files_count or manifest.existing_files_count)
