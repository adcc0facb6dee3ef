"""Basic statistics of Hudi tables from the catalog's latest file slices, checked against hudi-rs on every
shared table: ``numFiles`` and ``totalSize`` of the table and of each partition equal the files and bytes of
hudi-rs's file slices; ``numRows`` of COPY_ON_WRITE tables equals the rows hudi-rs reads. They stay current
as commits complete through the metaserver, and an alter by Hudi's hive sync (no ``DO_NOT_UPDATE_STATS``)
does not replace them with a listing of the folders."""

from __future__ import annotations

from collections import defaultdict

import pytest

from tests.conftest import require_module

require_module("hudi")  # skips this module without the Spark extras

from hudi import HudiReadOptions, HudiTableBuilder

from hudi_catalog.hudi.properties import read_table_config
from hudi_catalog.hudi.storage import open_path
from hudi_catalog.services.hudi_import import HudiImporter
from tests.hudi.tables import tables_on_stores, unpack
from tests.support.metaserver_replay import replay

STATS = ("numFiles", "totalSize", "numRows")


def _hudi_rs(base) -> tuple[dict[str, tuple[int, int]], int]:
    """``{partition path: (files, bytes)}`` of hudi-rs's latest file slices, and the rows it reads."""
    table = HudiTableBuilder.from_base_uri(str(base)).build()
    by_path: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for file_slice in table.get_file_slices(HudiReadOptions()):
        found = by_path[file_slice.partition_path]
        found[0] += (1 if file_slice.base_file_name else 0) + len(file_slice.log_file_names)
        found[1] += file_slice.total_size_bytes()
    rows = sum(batch.num_rows for batch in table.read(HudiReadOptions()))
    return {path: (f, b) for path, (f, b) in by_path.items()}, rows


def _ours(catalog, database: str) -> tuple[dict, dict[str, dict]]:
    """The table's statistics, and its partitions' by Hudi partition path (their location below the
    table's, as the timeline made them)."""
    table = catalog.tables.get(database, "t")
    root = table.sd.location.rstrip("/") + "/"
    partitions = {
        p.sd.location[len(root) :]: {k: v for k, v in p.parameters.items() if k in STATS}
        for p in catalog.partitions.list(database, "t")
    }
    return {k: table.parameters.get(k) for k in STATS}, partitions


@pytest.mark.parametrize(("db_url", "name"), tables_on_stores(), indirect=["db_url"])
def test_statistics_equal_hudi_rs(catalog, tmp_path, name):
    base = unpack(name, tmp_path)
    HudiImporter(catalog).run(str(base), database="h", table="t")
    expected, rows = _hudi_rs(base)
    table_stats, partitions = _ours(catalog, "h")
    assert (int(table_stats["numFiles"]), int(table_stats["totalSize"])) == (
        sum(f for f, _ in expected.values()),
        sum(b for _, b in expected.values()),
    )
    cow = read_table_config(*open_path(str(base))).table_type == "COPY_ON_WRITE"
    assert table_stats["numRows"] == (str(rows) if cow else None)
    for path, params in partitions.items():  # every partition, those whose data was replaced included
        assert (int(params["numFiles"]), int(params["totalSize"])) == expected.get(path, (0, 0)), path
    assert set(expected) - {""} <= set(partitions)


def test_commits_through_the_metaserver_keep_them_current_and_hive_sync_keeps_them(
    catalog, metaserver_client, client, tmp_path
):
    base = unpack("sample_table_cow_v8_simplekeygen_nonhivestyle", tmp_path)
    HudiImporter(catalog).run(str(base), database="imported", table="t")
    replay(catalog, metaserver_client, base, "written", catalog.tables.get("imported", "t").partition_keys)
    assert _ours(catalog, "written") == _ours(catalog, "imported")
    expected, rows = _hudi_rs(base)
    table_stats, partitions = _ours(catalog, "written")
    assert table_stats["numRows"] == str(rows) and len(partitions) == len(expected)

    # Hudi's hive sync: alter_table and alter_partitions without DO_NOT_UPDATE_STATS (a listing would count
    # every file version)
    table = client.get_table("written", "t")
    table.parameters["last_commit_time_sync"] = "x"
    client.alter_table_with_environment_context("written", "t", table, None)
    parts = client.get_partitions("written", "t", -1)
    for part in parts:
        part.parameters.pop("numFiles")
    client.alter_partitions_with_environment_context("written", "t", parts, None)
    assert _ours(catalog, "written") == (table_stats, partitions)
