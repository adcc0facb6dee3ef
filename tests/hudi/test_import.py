"""``hudi-metastore import`` of the real Hudi tables, on SQLite and MariaDB, checked against hudi-rs.

After an import the catalog's latest file slices, completed commits and time-travel base files equal what
the ``hudi`` package (hudi-rs) reads from storage; a second import records nothing; the table is visible
through the catalog the way Hudi's hive sync registers it; a corrupt instant fails before any write.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

from tests.conftest import require_module

require_module("hudi")  # skips this module without the Spark extras

from hudi import HudiReadOptions, HudiTableBuilder

from hudi_catalog.errors import HudiMetadataError, NoSuchTableError
from hudi_catalog.model import InstantState
from hudi_catalog.services.hudi_import import COPY_ON_WRITE_INPUT, LAST_COMMIT_SYNC, MERGE_ON_READ_INPUT, HudiImporter
from tests.hudi.tables import tables_on_stores, unpack
from tests.support.hudi_oracles import oracle_slices, our_slices

WRITE_ACTIONS = {"commit", "deltacommit", "replacecommit", "compaction", "clustering"}
LISTED_AS = {"compaction": "commit", "clustering": "replacecommit"}
"""hudi-rs lists completed compactions and clusterings by the action of their completed file."""


@pytest.mark.parametrize(("db_url", "name"), tables_on_stores(), indirect=["db_url"])
def test_import_matches_hudi_rs(catalog, tmp_path, name):
    base = unpack(name, tmp_path)
    result = HudiImporter(catalog).run(str(base), database="h", table="t")
    oracle = HudiTableBuilder.from_base_uri(str(base)).build()

    assert our_slices(catalog, "t") == oracle_slices(oracle)

    timeline = oracle.get_timeline()
    theirs = {
        (i.timestamp, i.action)
        for i in timeline.get_completed_commits()
        + timeline.get_completed_deltacommits()
        + timeline.get_completed_replacecommits()
    }
    ours = {
        (i.requested_time, LISTED_AS.get(i.action, i.action))
        for i in catalog.timeline.instants("h", "t", states=[InstantState.COMPLETED])
        if i.action in WRITE_ACTIONS
    }
    assert ours == theirs

    for ts, _ in sorted(theirs):
        ours_then = {(p, f, b) for p, f, b, _ in our_slices(catalog, "t", as_of=ts)}
        theirs_then = {(p, f, b) for p, f, b, _ in oracle_slices(oracle, as_of=ts)}
        assert ours_then == theirs_then, f"as of {ts}"

    for path, found in catalog.snapshot.latest_file_slices("h", "t").items():
        live = set(catalog.snapshot.live_files("h", "t", path))
        assert {n for s in found for n in (s.base_file, *s.log_files) if n} <= live

    assert HudiImporter(catalog).run(str(base), database="h", table="t").recorded == 0
    assert result.latest_commit == (max(ts for ts, _ in theirs) if theirs else None)


@pytest.mark.parametrize(
    "name", ["sample_table_cow_v6_complexkeygen_hivestyle", "sample_table_mor_avro_v9_txns_simple_meta"]
)
def test_imported_table_is_registered_like_hive_sync(catalog, tmp_path, name):
    base = unpack(name, tmp_path)
    HudiImporter(catalog).run(str(base), database="h", table="t")
    table = catalog.tables.get("h", "t")
    merge_on_read = "_mor_" in name
    assert table.sd.input_format == (MERGE_ON_READ_INPUT if merge_on_read else COPY_ON_WRITE_INPUT)
    assert table.parameters["spark.sql.sources.provider"] == "hudi"
    assert table.parameters["EXTERNAL"] == "TRUE"
    assert table.parameters[LAST_COMMIT_SYNC] == max(
        i.requested_time
        for i in catalog.timeline.instants("h", "t", states=[InstantState.COMPLETED])
        if i.action in WRITE_ACTIONS
    )
    assert table.sd.location == f"file:{base}"
    assert [c.name for c in table.sd.columns[:5]] == [
        "_hoodie_commit_time",
        "_hoodie_commit_seqno",
        "_hoodie_record_key",
        "_hoodie_partition_path",
        "_hoodie_file_name",
    ]
    names = [p.values for p in catalog.partitions.list("h", "t")]
    paths = catalog.snapshot.partition_paths("h", "t")
    assert len(names) == len(paths) == 3
    if merge_on_read:
        for suffix, input_format in (("_ro", COPY_ON_WRITE_INPUT), ("_rt", MERGE_ON_READ_INPUT)):
            view = catalog.tables.get("h", "t" + suffix)
            assert view.sd.input_format == input_format and view.sd.location == table.sd.location
            assert view.parameters[LAST_COMMIT_SYNC] == table.parameters[LAST_COMMIT_SYNC]
            assert view.parameters["hoodie.query.as.ro.table"] == ("true" if suffix == "_ro" else "false")
            assert [p.values for p in catalog.partitions.list("h", "t" + suffix)] == names
        assert [k.name for k in table.partition_keys] == ["region"]
        assert [p.values for p in catalog.partitions.by_filter("h", "t", 'region = "eu"')] == [["eu"]]
        assert catalog.partitions.get("h", "t", ["eu"]).sd.location == f"file:{base}/region=eu"
    else:
        assert [(k.name, k.type) for k in table.partition_keys] == [("byteField", "int"), ("shortField", "int")]
        assert all(len(v) == 2 for v in names)
        smallest = min(int(v[0]) for v in names)
        assert [p.values[0] for p in catalog.partitions.by_filter("h", "t", f"byteField > {smallest}")] == sorted(
            {v[0] for v in names if int(v[0]) > smallest}
        )


def test_corrupt_instant_fails_naming_it_and_writes_nothing(catalog, tmp_path):
    base = unpack("sample_table_cow_v8_simplekeygen_nonhivestyle", tmp_path)
    completed = sorted((base / ".hoodie" / "timeline").glob("*_*.commit"))[-1]
    completed.write_bytes(completed.read_bytes()[:40])
    with pytest.raises(HudiMetadataError, match=completed.name.split("_")[0]):
        HudiImporter(catalog).run(str(base), database="h", table="t")
    with pytest.raises(NoSuchTableError):
        catalog.tables.get("h", "t")


def test_a_corrupt_inflight_file_of_a_completed_commit_fails_the_import(catalog, tmp_path):
    """The states a completed instant has left are checked, not decoded: a cut one still stops the import."""
    base = unpack("sample_table_cow_v8_simplekeygen_nonhivestyle", tmp_path)
    inflight = sorted((base / ".hoodie" / "timeline").glob("*.inflight"))[-1]  # its commit completed
    inflight.write_bytes(inflight.read_bytes()[:-20])
    with pytest.raises(HudiMetadataError, match=re.escape(inflight.name)):
        HudiImporter(catalog).run(str(base), database="h", table="t")
    with pytest.raises(NoSuchTableError):
        catalog.tables.get("h", "t")


def test_refresh_records_only_new_instants(catalog, tmp_path):
    base = unpack("sample_table_cow_v8_simplekeygen_nonhivestyle", tmp_path)
    timeline = base / ".hoodie" / "timeline"
    latest = sorted(timeline.glob("*_*.commit"))[-1]
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    shutil.move(latest, hidden / latest.name)
    first = HudiImporter(catalog).run(str(base), database="h", table="t")
    assert first.latest_commit < latest.name.split("_")[0]
    shutil.move(hidden / latest.name, latest)
    second = HudiImporter(catalog).run(str(base), database="h", table="t")
    assert second.recorded == 1
    assert second.latest_commit == latest.name.split("_")[0]
    oracle = HudiTableBuilder.from_base_uri(str(base)).build()
    assert our_slices(catalog, "t") == oracle_slices(oracle)


def test_cli_import_timeline_and_snapshot_json(db_url, tmp_path):
    base = unpack("sample_table_mor_parquet_v6_nonpartitioned_rollback", tmp_path)
    common = ["--db-url", db_url, "--warehouse", str(tmp_path / "wh")]

    def run(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "hms_adapter.cli", *args, *common], capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "instants recorded" in run("import", str(base), "--database", "h", "--table", "t")
    timeline = json.loads(run("timeline", "h.t", "--json"))
    assert timeline["table"] == "h.t"
    assert sorted(i["action"] for i in timeline["instants"]) == ["deltacommit", "deltacommit", "rollback"]
    requested = [i["requested"] for i in timeline["instants"]]
    assert requested == sorted(requested)
    assert all(i["state"] == "completed" and i["completed"] >= i["requested"] for i in timeline["instants"])
    snapshot = json.loads(run("snapshot", "h.t", "--json"))
    oracle = HudiTableBuilder.from_base_uri(str(base)).build()
    [expected] = oracle.get_file_slices(HudiReadOptions())
    assert snapshot == {
        "table": "h.t",
        "latest_instant": requested[-1],
        "partitions": {
            "": [
                {
                    "file_id": expected.file_id,
                    "base_file": expected.base_file_name,
                    "log_files": list(expected.log_file_names),
                }
            ]
        },
    }
    assert run("timeline", "h.t").splitlines()[0].split() == ["requested", "completed", "action", "state"]


def test_imported_table_through_the_hms_protocol(catalog, client, tmp_path):
    base = unpack("sample_table_mor_avro_v9_txns_simple_meta", tmp_path)
    HudiImporter(catalog).run(str(base), database="h", table="t")
    assert set(client.get_all_tables("h")) == {"t", "t_ro", "t_rt"}
    table = client.get_table("h", "t_ro")
    assert table.sd.inputFormat == COPY_ON_WRITE_INPUT and table.tableType == "EXTERNAL_TABLE"
    assert [k.name for k in table.partitionKeys] == ["region"]
    names = client.get_partition_names("h", "t_rt", -1)
    assert names == [f"region={p.split('=')[1]}" for p in catalog.snapshot.partition_paths("h", "t")]
    [eu] = client.get_partitions_by_filter("h", "t", 'region = "eu"', -1)
    assert eu.values == ["eu"] and eu.sd.location == f"file:{base}/region=eu"
    assert client.get_num_partitions_by_filter("h", "t_ro", 'region > "b"') == len([n for n in names if n > "region=b"])


@pytest.mark.parametrize(
    "name", ["sample_table_cow_v6_empty", "sample_table_mor_parquet_v6_empty", "sample_table_cow_v8_empty"]
)
def test_a_table_without_writes_has_the_columns_of_its_create_schema(catalog, tmp_path, name):
    """As Hudi's ``TableSchemaResolver`` falls back to ``hoodie.table.create.schema``: an engine reading the
    registration (Trino) sees the table's columns, not a table without any."""
    base = unpack(name, tmp_path)
    HudiImporter(catalog).run(str(base), database="h", table="t")
    oracle = HudiTableBuilder.from_base_uri(str(base)).build()
    assert not oracle.get_timeline().get_completed_commits() + oracle.get_timeline().get_completed_deltacommits()
    table = catalog.tables.get("h", "t")
    assert [c.name for c in table.sd.columns] == [f.name for f in oracle.get_schema_with_meta_fields()]
    assert [c.type for c in table.sd.columns[5:8]] == ["int", "string", "boolean"]
