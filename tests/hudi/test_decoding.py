"""Decoding a Hudi table's own metadata (``hudi_catalog.hudi``) against the 42 real tables, with hudi-rs (the
``hudi`` package) and the tables' README as independent oracles, plus synthetic files for what the tables
do not contain (archived timelines, cleans, restores, savepoints).
"""

from __future__ import annotations

import dataclasses
import functools
import io
import json
import os
import re
import struct
from collections import Counter
from datetime import datetime, timezone

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyarrow import fs as pafs

from hudi_catalog.errors import HudiMetadataError
from hudi_catalog.hudi import (
    BaseFileName,
    CleanMetadata,
    CleanPlan,
    ClusteringPlan,
    CommitMetadata,
    CompactionPlan,
    InstantFile,
    LogFileName,
    RestoreMetadata,
    RestorePlan,
    RollbackMetadata,
    RollbackPlan,
    SavepointMetadata,
    decode_instant,
    hive_columns,
    instant_file_name,
    latest_schema,
    list_archived_instants,
    list_instants,
    parse_instant_file_name,
    read_archived_instants,
    read_instant,
    read_table_config,
)
from hudi_catalog.hudi.properties import TIMELINE_TIMEZONE, parse_properties, table_config_from_properties
from hudi_catalog.model import Action, InstantState
from tests.conftest import require_module
from tests.hudi.tables import TABLES_DIR, all_tables, unpack

hudi = require_module("hudi")

FS = pafs.LocalFileSystem()
WRITE_ACTIONS = ("commit", "deltacommit", "replacecommit")


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """``table(name)`` -> (base path, TableConfig); each zip is unpacked once per module, read-only."""
    root = tmp_path_factory.mktemp("tables")
    cache: dict[str, tuple[str, object]] = {}

    def get(name: str):
        if name not in cache:
            base = str(unpack(name, root))
            cache[name] = (base, read_table_config(FS, base))
        return cache[name]

    return get


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


def _decoded(base, config):
    return [
        (i, decode_instant(i, read_instant(FS, base, config, i), config.version))
        for i in list_instants(FS, base, config)
    ]


# -- hoodie.properties -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", all_tables())
def test_table_config_matches_readme(table, name):
    base, config = table(name)
    expected = readme_rows()[name]
    assert config.version == expected["version"]
    assert config.table_type == expected["type"]
    assert config.partition_fields == expected["partition_fields"]
    assert config.hive_style_partitioning is expected["hive_style"]
    assert config.timeline_dir == (".hoodie" if config.version < 8 else ".hoodie/timeline")
    rs = _hudi_rs(base)
    assert (config.name, config.table_type) == (rs.table_name, rs.table_type)
    assert config.record_key_fields and config.database == "default"
    assert config.base_file_format in ("PARQUET", "LANCE")


def test_properties_syntax():
    text = (
        "# comment\n! other comment\n"
        "a=1\n"
        "b : two words \n"
        "c three\n"
        "d=line\\\n    continued\n"
        "e=tab\\there\\u00e9\\:\\=\n"
        "key\\ with\\ spaces=x\n"
        "empty=\n"
        "a=overridden\n"
    )
    assert parse_properties(text) == {
        "a": "overridden",
        "b": "two words ",
        "c": "three",
        "d": "linecontinued",
        "e": "tab\there\u00e9:=",
        "key with spaces": "x",
        "empty": "",
    }
    with pytest.raises(HudiMetadataError, match=r"hoodie.properties: .*\\u00zz"):
        parse_properties("a=\\u00zz\n")


def test_table_config_details():
    config = table_config_from_properties(
        {
            "hoodie.table.name": "t",
            "hoodie.table.version": "9",
            "hoodie.table.type": "MERGE_ON_READ",
            "hoodie.table.partition.fields": "ts:TIMESTAMP,city:SIMPLE",
            "hoodie.timeline.path": "tl",
            "hoodie.table.ordering.fields": "ts,seq",
            "hoodie.table.keygenerator.type": "CUSTOM",
            "hoodie.populate.meta.fields": "false",
        }
    )
    assert config.partition_fields == ["ts", "city"]
    assert config.timeline_dir == ".hoodie/tl" and config.history_dir == ".hoodie/tl/history"
    assert config.precombine_field == "ts" and config.key_generator == "CUSTOM"
    assert config.is_merge_on_read and not config.populate_meta_fields and config.database is None
    v6 = table_config_from_properties({"hoodie.table.name": "t", "hoodie.table.version": "6"})
    assert v6.timeline_dir == ".hoodie" and v6.archive_dir == ".hoodie/archived"
    with pytest.raises(HudiMetadataError, match="hoodie.table.name"):
        table_config_from_properties({"hoodie.table.version": "6"})
    with pytest.raises(HudiMetadataError, match="hoodie.table.version"):
        table_config_from_properties({"hoodie.table.name": "t", "hoodie.table.version": "six"})


def test_missing_properties_and_backup(tmp_path):
    with pytest.raises(HudiMetadataError, match=str(tmp_path)):
        read_table_config(FS, str(tmp_path))
    (tmp_path / ".hoodie").mkdir()
    (tmp_path / ".hoodie" / "hoodie.properties.backup").write_text("hoodie.table.name=from_backup\n")
    assert read_table_config(FS, str(tmp_path)).name == "from_backup"


# -- instant files ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", all_tables())
def test_completed_instants_match_hudi_rs_and_readme(table, name):
    base, config = table(name)
    instants = list_instants(FS, base, config)
    completed = [i for i in instants if i.is_completed]
    timeline = _hudi_rs(base).get_timeline()
    theirs = sorted(
        (i.timestamp, i.action)
        for getter in (
            timeline.get_completed_commits,
            timeline.get_completed_deltacommits,
            timeline.get_completed_replacecommits,
        )
        for i in getter()
    )
    assert sorted((i.requested_time, i.action) for i in completed if i.action in WRITE_ACTIONS) == theirs
    assert Counter(i.action for i in completed) == readme_rows()[name]["completed"]
    states = ["requested", "inflight", "completed"]
    for earlier, later in zip(instants, instants[1:]):
        assert earlier.requested_time < later.requested_time or (
            earlier.requested_time == later.requested_time
            and states.index(earlier.state.value) < states.index(later.state.value)
        ), (earlier, later)
    for instant in completed:
        assert re.fullmatch(r"\d{17}", instant.completion_time), instant
        if config.version >= 8:
            assert instant.completion_time > instant.requested_time
            assert instant.file_name.startswith(f"{instant.requested_time}_{instant.completion_time}.")
    assert all(i.completion_time is None for i in instants if not i.is_completed)


@pytest.mark.parametrize("name", all_tables())
def test_file_names_round_trip(table, name):
    base, config = table(name)
    for instant in list_instants(FS, base, config):
        assert parse_instant_file_name(instant.file_name, config.version).requested_time == instant.requested_time
        assert (
            instant_file_name(
                instant.requested_time,
                instant.action,
                instant.state,
                config.version,
                instant.completion_time if config.version >= 8 else None,
            )
            == instant.file_name
        )


@pytest.mark.parametrize(
    "file_name, version, expected",
    [
        ("20240101000000000.commit", 6, ("20240101000000000", "commit", InstantState.COMPLETED, None)),
        ("20240101000000000.inflight", 6, ("20240101000000000", "commit", InstantState.INFLIGHT, None)),
        ("20240101000000000.inflight", 9, ("20240101000000000", "commit", InstantState.INFLIGHT, None)),
        (
            "20240101000000000.deltacommit.inflight",
            6,
            ("20240101000000000", "deltacommit", InstantState.INFLIGHT, None),
        ),
        (
            "20240101000000000.compaction.requested",
            6,
            ("20240101000000000", "compaction", InstantState.REQUESTED, None),
        ),
        (
            "20240101000000000.clustering.requested",
            8,
            ("20240101000000000", "clustering", InstantState.REQUESTED, None),
        ),
        (
            "20240101000000000_20240101000001000.indexing",
            9,
            ("20240101000000000", "indexing", InstantState.COMPLETED, "20240101000001000"),
        ),
        ("20240101000000.savepoint", 6, ("20240101000000", "savepoint", InstantState.COMPLETED, None)),
        ("20240101000000000_20240101000001000.commit", 6, None),
        ("20240101000000000_20240101000001000.commit.requested", 9, None),
        ("20240101000000000.frobnicate", 6, None),
        ("20240101000000000.commit.done", 6, None),
        (".20240101000000000.commit.crc", 6, None),
        ("hoodie.properties", 6, None),
        ("history", 9, None),
        (".aux", 6, None),
    ],
)
def test_parse_instant_file_name(file_name, version, expected):
    instant = parse_instant_file_name(file_name, version)
    if expected is None:
        assert instant is None
    else:
        assert (instant.requested_time, instant.action, instant.state, instant.completion_time) == expected
        assert instant.file_name == file_name


def test_instant_file_names_by_layout():
    assert instant_file_name("1", "clustering", InstantState.INFLIGHT, 6) == "1.replacecommit.inflight"
    assert instant_file_name("1", "clustering", InstantState.INFLIGHT, 8) == "1.clustering.inflight"
    assert instant_file_name("1", "clustering", InstantState.COMPLETED, 8, "2") == "1_2.replacecommit"
    assert instant_file_name("1", "logcompaction", InstantState.COMPLETED, 6) == "1.deltacommit"
    assert instant_file_name("1", "commit", InstantState.INFLIGHT, 9) == "1.inflight"
    assert instant_file_name("1", "commit", InstantState.COMPLETED, 9) == "1.commit"  # a 0.x instant left on 1.x


@pytest.mark.parametrize("table_version", [6, 8])
def test_instant_file_names_round_trip(table_version):
    """Every action in every state renders to a name that parses back to the same instant, except where a
    name stands for another action: a completed compaction is a commit, a layout 1 clustering a replacecommit."""
    for action in Action:
        for state in InstantState:
            completion = "20240101000001000" if state is InstantState.COMPLETED and table_version >= 8 else None
            name = instant_file_name("20240101000000000", action, state, table_version, completion)
            parsed = parse_instant_file_name(name, table_version)
            written_as = (
                action.completed_as
                if state is InstantState.COMPLETED
                else (Action.REPLACECOMMIT if action is Action.CLUSTERING and table_version < 8 else action)
            )
            assert parsed == InstantFile("20240101000000000", written_as, state, completion, name), name
            assert instant_file_name(parsed.requested_time, parsed.action, state, table_version, completion) == name


def test_v6_completion_time_is_file_mtime(tmp_path):
    base = str(unpack("sample_table_cow_v6_nonpartitioned", tmp_path))
    config = read_table_config(FS, base)
    first = next(i for i in list_instants(FS, base, config) if i.is_completed)
    moment = datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=timezone.utc)
    mtime_ns = int(moment.timestamp()) * 1_000_000_000 + 678_123_456
    os.utime(os.path.join(base, ".hoodie", first.file_name), ns=(mtime_ns, mtime_ns))

    utc = dataclasses.replace(config, raw={**config.raw, TIMELINE_TIMEZONE: "UTC"})
    assert _completion(list_instants(FS, base, utc), first) == "20240102030405678"
    local = moment.astimezone().strftime("%Y%m%d%H%M%S") + "678"
    assert _completion(list_instants(FS, base, config), first) == local


def _completion(instants, wanted):
    return next(i.completion_time for i in instants if i.file_name == wanted.file_name)


def test_read_missing_instant(table):
    base, config = table("sample_table_cow_v8_nonpartitioned")
    ghost = InstantFile(
        "20990101000000000", Action.COMMIT, InstantState.REQUESTED, None, "20990101000000000.commit.requested"
    )
    with pytest.raises(HudiMetadataError, match="20990101000000000.commit.requested"):
        read_instant(FS, base, config, ghost)


# -- instant contents ------------------------------------------------------------------------------

EXPECTED_TYPES = {
    ("commit", InstantState.REQUESTED): CommitMetadata,
    ("commit", InstantState.INFLIGHT): CommitMetadata,
    ("commit", InstantState.COMPLETED): CommitMetadata,
    ("deltacommit", InstantState.REQUESTED): CommitMetadata,
    ("deltacommit", InstantState.INFLIGHT): CommitMetadata,
    ("deltacommit", InstantState.COMPLETED): CommitMetadata,
    ("replacecommit", InstantState.REQUESTED): ClusteringPlan,
    ("replacecommit", InstantState.INFLIGHT): CommitMetadata,
    ("replacecommit", InstantState.COMPLETED): CommitMetadata,
    ("clustering", InstantState.REQUESTED): ClusteringPlan,
    ("clustering", InstantState.INFLIGHT): ClusteringPlan,
    ("compaction", InstantState.REQUESTED): CompactionPlan,
    ("compaction", InstantState.INFLIGHT): CompactionPlan,
    ("rollback", InstantState.REQUESTED): RollbackPlan,
    ("rollback", InstantState.INFLIGHT): RollbackPlan,
    ("rollback", InstantState.COMPLETED): RollbackMetadata,
}


@pytest.mark.parametrize("name", all_tables())
def test_every_instant_decodes(table, name):
    base, config = table(name)
    written = 0
    for instant, metadata in _decoded(base, config):
        if (instant.action, instant.state) in EXPECTED_TYPES:
            assert type(metadata) is EXPECTED_TYPES[instant.action, instant.state], instant
        if instant.is_completed and instant.action in WRITE_ACTIONS:
            assert metadata.operation_type, instant
            assert metadata.schema and json.loads(metadata.schema)["type"] == "record"
            written += len(metadata.write_stats)  # an upsert that matched nothing writes no file
    assert written or not readme_rows()[name]["completed"]


@pytest.mark.parametrize("name", all_tables())
def test_write_stats_name_real_files(table, name):
    base, config = table(name)
    decoded = _decoded(base, config)
    removed, log_files = set(), set()
    for _, metadata in decoded:
        if isinstance(metadata, RollbackMetadata):
            removed.update(f for files in metadata.deleted_files.values() for f in files)
            # a rollback's command block and the failed commit's blocks stay in the file slice
            log_files.update(
                f
                for by_partition in (metadata.appended_log_files, metadata.failed_commit_log_files)
                for files in by_partition.values()
                for f in files
            )
    base_files = set()
    for instant, metadata in decoded:
        if not (instant.is_completed and isinstance(metadata, CommitMetadata)):
            continue
        for stat in metadata.write_stats:
            assert stat.path.startswith(f"{stat.partition_path}/" if stat.partition_path else "")
            if stat.is_log:
                log = LogFileName.parse(stat.file_name)
                file_id = log.file_id
                assert stat.prev_commit == log.base_instant_time and log.version >= 1 and log.write_token
                log_files.add(stat.file_name)
            else:
                base_file = BaseFileName.parse(stat.file_name)
                file_id = base_file.file_id
                assert base_file.instant_time == instant.requested_time
                base_files.add(stat.file_name)
            assert file_id == stat.file_id
            assert stat.file_name in removed or os.path.isfile(os.path.join(base, stat.path)), stat.path
            assert stat.file_size > 0
    for file_slice in _hudi_rs(base).get_file_slices(hudi.HudiReadOptions()):
        assert file_slice.base_file_name in base_files
        assert set(file_slice.log_file_names) <= log_files


@pytest.mark.parametrize("name", all_tables())
def test_plans_agree_with_their_commits(table, name):
    """A clustering plan's input file groups are what its replacecommit replaced; a compaction plan's file
    groups are the ones its commit rewrote, each from the plan's base instant."""
    base, config = table(name)
    decoded = _decoded(base, config)
    completed = {i.requested_time: m for i, m in decoded if i.is_completed}
    for instant, plan in decoded:
        if instant.state is not InstantState.REQUESTED:
            continue
        if isinstance(plan, ClusteringPlan) and plan.input_slices:
            replaced = completed[instant.requested_time].replaced_file_ids
            assert sorted(plan.file_groups()) == sorted((p, f) for p, ids in replaced.items() for f in ids)
            for planned in plan.input_slices:
                assert BaseFileName.parse(planned.base_file).file_id == planned.file_id
        if isinstance(plan, CompactionPlan):
            stats = completed[instant.requested_time].write_stats
            assert sorted((s.partition_path, s.file_id) for s in stats) == sorted(
                (op.partition_path, op.file_id) for op in plan.operations
            )
            for op in plan.operations:
                base_file = BaseFileName.parse(op.base_file)
                assert (base_file.file_id, base_file.instant_time) == (op.file_id, op.base_instant)
                assert all(LogFileName.parse(d).file_id == op.file_id for d in op.delta_files)


def test_rollback_metadata(table):
    base, config = table("sample_table_mor_parquet_v6_nonpartitioned_rollback")
    by_state = {i.state: m for i, m in _decoded(base, config) if i.action == "rollback"}
    failed = "cd329d8f-0ce4-4654-84ab-2f769aae5034-0_1-33-44_20250126040826878.parquet"
    log = ".0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0_20250126040823628.log.{}"
    assert by_state[InstantState.REQUESTED] == RollbackPlan(
        "20250126040826878", "deltacommit", {"": [failed]}, {"": [log.format("1_0-33-43")]}
    )
    # the lengths of the log files after the rollback: the failed write's, and the rollback block's file
    assert by_state[InstantState.COMPLETED] == RollbackMetadata(
        ["20250126040826878"],
        {"": [failed]},
        {"": [log.format("2_1-0-1")]},
        {"": [log.format("1_0-33-43")]},
        {log.format("1_0-33-43"): 11828, log.format("2_1-0-1"): 105},
    )


def test_insert_overwrite_table_replaces_every_file_group(table):
    base, config = table("sample_table_cow_v6_simplekeygen_nonhivestyle_overwritetable")
    decoded = _decoded(base, config)
    ((instant, replace),) = [(i, m) for i, m in decoded if i.action == "replacecommit" and i.is_completed]
    assert replace.operation_type == "INSERT_OVERWRITE_TABLE"
    earlier = {
        (s.partition_path, s.file_id)
        for i, m in decoded
        if i.is_completed and i.action == "commit"
        for s in m.write_stats
    }
    assert {(p, f) for p, ids in replace.replaced_file_ids.items() for f in ids} == earlier
    requested = next(m for i, m in decoded if i.action == "replacecommit" and i.state is InstantState.REQUESTED)
    assert requested == ClusteringPlan()  # insert-overwrite has no clustering plan


def test_corrupt_and_truncated_content(table):
    for name, action in (
        ("sample_table_cow_v6_nonpartitioned", "commit"),
        ("sample_table_cow_v9_txns_simple_meta", "commit"),
        ("sample_table_mor_parquet_v6_nonpartitioned_rollback", "rollback"),
        ("quickstart_trips_table_mor_avro_v8_trips_8i3u1d", "compaction"),
    ):
        base, config = table(name)
        instant = next(
            i
            for i in list_instants(FS, base, config)
            if i.action == action and (i.is_completed or action == "compaction")
        )
        data = read_instant(FS, base, config, instant)
        assert decode_instant(instant, data, config.version) is not None
        for cut in (1, 3, 10, len(data) // 2, len(data) - 20):
            with pytest.raises(HudiMetadataError, match=re.escape(instant.file_name)):
                decode_instant(instant, data[:cut], config.version)
        flipped = data[:4] + bytes(b ^ 0x5A for b in data[4:])
        with pytest.raises(HudiMetadataError, match=re.escape(instant.file_name)):
            decode_instant(instant, flipped, config.version)


def test_wrong_shapes_and_unknown_actions():
    commit = InstantFile("20240101000000000", "commit", InstantState.COMPLETED, None, "20240101000000000.commit")
    for data in (b"[1, 2]", b"\xff\xfe", b'{"partitionToWriteStats": {"p": [{"numWrites": "many"}]}}'):
        with pytest.raises(HudiMetadataError, match="20240101000000000.commit"):
            decode_instant(commit, data, 6)
    unknown = InstantFile(
        "20240101000000000", "frobnicate", InstantState.COMPLETED, None, "20240101000000000.frobnicate"
    )
    with pytest.raises(HudiMetadataError, match="20240101000000000.frobnicate: unknown action"):
        decode_instant(unknown, b"", 6)
    alien = _avro_file({"type": "record", "name": "Alien", "fields": [{"name": "x", "type": "int"}]}, [{"x": 1}])
    with pytest.raises(HudiMetadataError, match="unexpected Avro record 'Alien'"):
        decode_instant(commit, alien, 9)
    two = _avro_file(
        _schema("HoodieCleanMetadata", [("earliestCommitToRetain", "string")]), [{"earliestCommitToRetain": "1"}] * 2
    )
    with pytest.raises(HudiMetadataError, match="2 HoodieCleanMetadata records"):
        decode_instant(commit, two, 9)


def test_empty_files_decode_to_empty_metadata():
    expected = {
        "commit": CommitMetadata(),
        "replacecommit": ClusteringPlan(),
        "compaction": CompactionPlan(),
        "clean": CleanPlan(),
        "rollback": RollbackPlan(),
        "restore": RestorePlan(),
        "savepoint": SavepointMetadata(),
    }
    for action in Action:
        instant = InstantFile("1", action, InstantState.REQUESTED, None, f"1.{action}.requested")
        metadata = decode_instant(instant, b"", 9)
        assert metadata == type(metadata)()
        if action in expected:
            assert metadata == expected[action]


# -- Avro content the tables do not have: written here in Hudi's record layouts ----------------------

NS = "org.apache.hudi.avro.model"


def _schema(name, fields):
    return {"type": "record", "name": name, "namespace": NS, "fields": [{"name": n, "type": t} for n, t in fields]}


def _avro_file(schema, records) -> bytes:
    out = io.BytesIO()
    fastavro.writer(out, fastavro.parse_schema(schema), records)
    return out.getvalue()


def _strings():
    return {"type": "array", "items": "string"}


CLEAN_PARTITION = _schema(
    "HoodieCleanPartitionMetadata",
    [
        ("partitionPath", "string"),
        ("policy", "string"),
        ("deletePathPatterns", _strings()),
        ("successDeleteFiles", _strings()),
        ("failedDeleteFiles", _strings()),
        ("isPartitionDeleted", ["null", "boolean"]),
    ],
)
ROLLBACK = _schema(
    "HoodieRollbackMetadata",
    [
        ("startRollbackTime", "string"),
        ("commitsRollback", _strings()),
        (
            "partitionMetadata",
            {
                "type": "map",
                "values": _schema(
                    "HoodieRollbackPartitionMetadata",
                    [
                        ("partitionPath", "string"),
                        ("successDeleteFiles", _strings()),
                        ("failedDeleteFiles", _strings()),
                        ("rollbackLogFiles", ["null", {"type": "map", "values": "long"}]),
                    ],
                ),
            },
        ),
    ],
)
INSTANT_INFO = _schema("HoodieInstantInfo", [("commitTime", "string"), ("action", "string")])


def _decode(action, state, schema, record):
    instant = InstantFile("20240101000000000", action, state, None, f"x.{action}")
    return decode_instant(instant, _avro_file(schema, [record]), 6)


def test_clean_metadata_and_plan():
    schema = _schema(
        "HoodieCleanMetadata",
        [
            ("startCleanTime", "string"),
            ("earliestCommitToRetain", "string"),
            ("partitionMetadata", {"type": "map", "values": CLEAN_PARTITION}),
        ],
    )
    record = {
        "startCleanTime": "2",
        "earliestCommitToRetain": "20240101000000000",
        "partitionMetadata": {
            "p=1": {
                "partitionPath": "p=1",
                "policy": "KEEP_LATEST_COMMITS",
                "deletePathPatterns": [],
                "successDeleteFiles": ["f1-0_0-1-2_1.parquet", "s3://b/t/p=1/.f1-0_1.log.1_0-1-2"],
                "failedDeleteFiles": [],
                "isPartitionDeleted": None,
            },
            "p=2": {
                "partitionPath": "p=2",
                "policy": "KEEP_LATEST_COMMITS",
                "deletePathPatterns": [],
                "successDeleteFiles": [],
                "failedDeleteFiles": [],
                "isPartitionDeleted": True,
            },
        },
    }
    assert _decode("clean", InstantState.COMPLETED, schema, record) == CleanMetadata(
        {"p=1": ["f1-0_0-1-2_1.parquet", ".f1-0_1.log.1_0-1-2"]}, "20240101000000000", ["p=2"]
    )
    file_info = _schema(
        "HoodieCleanFileInfo", [("filePath", ["null", "string"]), ("isBootstrapBaseFile", ["null", "boolean"])]
    )
    plan = _schema(
        "HoodieCleanerPlan",
        [
            (
                "earliestInstantToRetain",
                [
                    "null",
                    _schema(
                        "HoodieActionInstant", [("timestamp", "string"), ("action", "string"), ("state", "string")]
                    ),
                ],
            ),
            ("policy", "string"),
            (
                "filePathsToBeDeletedPerPartition",
                ["null", {"type": "map", "values": {"type": "array", "items": file_info}}],
            ),
            ("partitionsToBeDeleted", ["null", _strings()]),
        ],
    )
    assert _decode(
        "clean",
        InstantState.REQUESTED,
        plan,
        {
            "earliestInstantToRetain": {"timestamp": "5", "action": "commit", "state": "COMPLETED"},
            "policy": "KEEP_LATEST_COMMITS",
            "filePathsToBeDeletedPerPartition": {
                "p=1": [{"filePath": "/t/p=1/a_1-0-1_3.parquet", "isBootstrapBaseFile": False}]
            },
            "partitionsToBeDeleted": ["p=9"],
        },
    ) == CleanPlan({"p=1": ["a_1-0-1_3.parquet"]}, ["p=9"], "5")


def test_restore_savepoint_and_restore_plan():
    restore = _schema(
        "HoodieRestoreMetadata",
        [
            ("startRestoreTime", "string"),
            ("instantsToRollback", _strings()),
            ("hoodieRestoreMetadata", {"type": "map", "values": {"type": "array", "items": ["null", ROLLBACK]}}),
            ("restoreInstantInfo", {"type": "array", "items": INSTANT_INFO}),
        ],
    )
    rollback = {
        "startRollbackTime": "9",
        "commitsRollback": ["7"],
        "partitionMetadata": {
            "": {
                "partitionPath": "",
                "successDeleteFiles": ["file:/t/a-0_0-1-1_7.parquet"],
                "failedDeleteFiles": [],
                "rollbackLogFiles": None,
            }
        },
    }
    metadata = _decode(
        "restore",
        InstantState.COMPLETED,
        restore,
        {
            "startRestoreTime": "9",
            "instantsToRollback": ["7", "8"],
            "hoodieRestoreMetadata": {"7": [rollback]},
            "restoreInstantInfo": [{"commitTime": "7", "action": "commit"}, {"commitTime": "8", "action": "clean"}],
        },
    )
    assert metadata == RestoreMetadata(["7", "8"], [RollbackMetadata(["7"], {"": ["a-0_0-1-1_7.parquet"]})])
    plan = _schema(
        "HoodieRestorePlan",
        [
            ("instantsToRollback", {"type": "array", "items": INSTANT_INFO}),
            ("savepointToRestoreTimestamp", ["string", "null"]),
        ],
    )
    assert _decode(
        "restore",
        InstantState.REQUESTED,
        plan,
        {
            "instantsToRollback": [{"commitTime": "8", "action": "commit"}],
            "savepointToRestoreTimestamp": "6",
        },
    ) == RestorePlan(["8"], "6")
    savepoint = _schema(
        "HoodieSavepointMetadata",
        [
            ("savepointedBy", "string"),
            ("savepointedAt", "long"),
            ("comments", "string"),
            (
                "partitionMetadata",
                {
                    "type": "map",
                    "values": _schema(
                        "HoodieSavepointPartitionMetadata",
                        [("partitionPath", "string"), ("savepointDataFile", _strings())],
                    ),
                },
            ),
        ],
    )
    assert _decode(
        "savepoint",
        InstantState.COMPLETED,
        savepoint,
        {
            "savepointedBy": "me",
            "savepointedAt": 1,
            "comments": "before upgrade",
            "partitionMetadata": {"p=1": {"partitionPath": "p=1", "savepointDataFile": ["a-0_0-1-1_6.parquet"]}},
        },
    ) == SavepointMetadata({"p=1": ["a-0_0-1-1_6.parquet"]}, "before upgrade")


# -- archived timelines ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", all_tables())
def test_real_tables_have_no_archived_instants(table, name):
    base, config = table(name)
    assert list_archived_instants(FS, base, config) == []


LSM_SCHEMA = pa.schema(
    [
        ("instantTime", pa.string()),
        ("completionTime", pa.string()),
        ("action", pa.string()),
        ("metadata", pa.binary()),
        ("plan", pa.binary()),
        ("version", pa.int32()),
    ]
)


def _write_lsm_file(history, instants, base, config):
    rows = [
        {
            "instantTime": i.requested_time,
            "completionTime": i.completion_time,
            "action": i.action,
            "metadata": read_instant(FS, base, config, i),
            "plan": None,
            "version": 1,
        }
        for i in instants
    ]
    name = f"{instants[0].requested_time}_{instants[-1].requested_time}_0.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=LSM_SCHEMA), history / name)
    return {"fileName": name, "fileLen": (history / name).stat().st_size}


def test_lsm_timeline(tmp_path):
    base = str(unpack("sample_table_cow_v9_txns_simple_meta", tmp_path))
    config = read_table_config(FS, base)
    completed = [i for i in list_instants(FS, base, config) if i.is_completed]
    history = tmp_path / "sample_table_cow_v9_txns_simple_meta" / "v9_txns_simple_meta" / config.history_dir
    assert history.is_dir() and str(history).startswith(base)
    entries = [_write_lsm_file(history, completed[n : n + 5], base, config) for n in (5, 0, 10)]
    (history / "manifest_1").write_text(json.dumps({"files": entries[:1] + [{"fileName": "gone.parquet"}]}))
    (history / "manifest_2").write_text(json.dumps({"files": entries}))
    (history / "_version_").write_text("2")

    archived = read_archived_instants(FS, base, config)
    assert [(i.requested_time, i.action, i.completion_time) for i, _ in archived] == [
        (i.requested_time, i.action, i.completion_time) for i in completed
    ]
    for (instant, data), active in zip(archived, completed):
        assert instant.state is InstantState.COMPLETED and "#" in instant.file_name
        assert decode_instant(instant, data, config.version) == decode_instant(
            active, read_instant(FS, base, config, active), config.version
        )

    (history / "_version_").unlink()  # without the version file the highest manifest wins
    assert len(list_archived_instants(FS, base, config)) == len(completed) == 14
    (history / "_version_").write_text("1")
    with pytest.raises(HudiMetadataError, match="gone.parquet"):
        list_archived_instants(FS, base, config)
    (history / "_version_").write_text("2")
    (history / entries[1]["fileName"]).write_bytes(b"PAR1 not really")
    with pytest.raises(HudiMetadataError, match=entries[1]["fileName"]):
        list_archived_instants(FS, base, config)


ARCHIVED_ENTRY = {
    "type": "record",
    "name": "HoodieArchivedMetaEntry",
    "namespace": NS,
    "fields": [
        {
            "name": "hoodieCommitMetadata",
            "type": [
                "null",
                _schema(
                    "HoodieCommitMetadata",
                    [
                        (
                            "partitionToWriteStats",
                            [
                                "null",
                                {
                                    "type": "map",
                                    "values": {
                                        "type": "array",
                                        "items": _schema(
                                            "HoodieWriteStat",
                                            [
                                                ("fileId", ["null", "string"]),
                                                ("path", ["null", "string"]),
                                                ("prevCommit", ["null", "string"]),
                                                ("numWrites", ["null", "long"]),
                                                ("partitionPath", ["null", "string"]),
                                                ("fileSizeInBytes", ["null", "long"]),
                                            ],
                                        ),
                                    },
                                },
                            ],
                        ),
                        ("extraMetadata", ["null", {"type": "map", "values": "string"}]),
                        ("operationType", ["null", "string"]),
                    ],
                ),
            ],
            "default": None,
        },
        {"name": "hoodieRollbackMetadata", "type": ["null", ROLLBACK], "default": None},
        {"name": "commitTime", "type": ["null", "string"], "default": None},
        {"name": "actionType", "type": ["null", "string"], "default": None},
        {"name": "actionState", "type": ["null", "string"], "default": None},
    ],
}


def _log_block(block_type: int, header: dict[int, str], content: bytes) -> bytes:
    """A Hudi log block, log format version 1: magic, length, version, type, header, content, footer, length."""

    def metadata(entries):
        out = struct.pack(">i", len(entries))
        for key, value in entries.items():
            out += struct.pack(">ii", key, len(value.encode())) + value.encode()
        return out

    body = struct.pack(">ii", 1, block_type) + metadata(header) + struct.pack(">q", len(content)) + content
    body += metadata({})
    body += struct.pack(">q", len(body) + 8)
    return b"#HUDI#" + struct.pack(">q", len(body)) + body


def _avro_block(records) -> bytes:
    parsed = fastavro.parse_schema(ARCHIVED_ENTRY)
    content = struct.pack(">ii", 3, len(records))
    for record in records:
        out = io.BytesIO()
        fastavro.schemaless_writer(out, parsed, record)
        content += struct.pack(">i", len(out.getvalue())) + out.getvalue()
    return _log_block(3, {0: "20240105000000000", 2: json.dumps(ARCHIVED_ENTRY)}, content)


def test_v6_archived_timeline(tmp_path):
    base = str(unpack("sample_table_cow_v6_empty", tmp_path))
    config = read_table_config(FS, base)
    archive = os.path.join(base, config.archive_dir)
    commit = {
        "hoodieCommitMetadata": {
            "partitionToWriteStats": {
                "p=1": [
                    {
                        "fileId": "a-0",
                        "path": "p=1/a-0_0-1-1_20240101000000000.parquet",
                        "prevCommit": "null",
                        "numWrites": 3,
                        "partitionPath": "p=1",
                        "fileSizeInBytes": 100,
                    }
                ]
            },
            "extraMetadata": {"schema": "{}"},
            "operationType": "INSERT",
        },
        "hoodieRollbackMetadata": None,
        "commitTime": "20240101000000000",
        "actionType": "commit",
        "actionState": "COMPLETED",
    }
    requested = {**commit, "hoodieCommitMetadata": None, "actionState": "REQUESTED"}
    rollback = {
        "hoodieCommitMetadata": None,
        "commitTime": "20240102000000000",
        "actionType": "rollback",
        "actionState": None,
        "hoodieRollbackMetadata": {
            "startRollbackTime": "20240102000000000",
            "commitsRollback": ["20240101500000000"],
            "partitionMetadata": {},
        },
    }
    with open(os.path.join(archive, ".commits_.archive.2_1-0-1"), "wb") as f:
        f.write(_avro_block([rollback]))
    with open(os.path.join(archive, ".commits_.archive.1_1-0-1"), "wb") as f:
        f.write(_log_block(0, {0: "20240104000000000", 1: "20240103000000000", 3: "0"}, b""))  # a command block
        f.write(_avro_block([commit, requested]))

    archived = read_archived_instants(FS, base, config)
    assert [(i.requested_time, i.action, i.state) for i, _ in archived] == [
        ("20240101000000000", "commit", InstantState.REQUESTED),
        ("20240101000000000", "commit", InstantState.COMPLETED),
        ("20240102000000000", "rollback", InstantState.COMPLETED),
    ]
    assert archived[1][0].file_name == ".hoodie/archived/.commits_.archive.1_1-0-1#20240101000000000.commit"
    decoded = [decode_instant(i, data, config.version) for i, data in archived]
    assert decoded[0] == CommitMetadata()
    assert decoded[1].operation_type == "INSERT" and decoded[1].extra == {"schema": "{}"}
    (stat,) = decoded[1].write_stats
    assert (stat.partition_path, stat.file_id, stat.prev_commit, stat.num_writes, stat.file_size) == (
        "p=1",
        "a-0",
        None,
        3,
        100,
    )
    assert decoded[2] == RollbackMetadata(["20240101500000000"])

    data = open(os.path.join(archive, ".commits_.archive.2_1-0-1"), "rb").read()
    with open(os.path.join(archive, ".commits_.archive.2_1-0-1"), "wb") as f:
        f.write(data[:-30])
    with pytest.raises(HudiMetadataError, match=r"\.commits_\.archive\.2_1-0-1"):
        list_archived_instants(FS, base, config)


# -- schema -----------------------------------------------------------------------------------------


def _arrow_as_hive(t: pa.DataType) -> str:
    """hudi-rs's Arrow types, spelled as Hive types (the independent side of the comparison)."""
    simple = {
        pa.int32(): "int",
        pa.int64(): "bigint",
        pa.bool_(): "boolean",
        pa.float32(): "float",
        pa.float64(): "double",
        pa.string(): "string",
        pa.binary(): "binary",
        pa.date32(): "date",
    }
    if t in simple:
        return simple[t]
    if pa.types.is_decimal(t):
        return f"decimal({t.precision},{t.scale})"
    if pa.types.is_timestamp(t):
        return "timestamp"
    if pa.types.is_map(t):
        return f"map<{_arrow_as_hive(t.key_type)},{_arrow_as_hive(t.item_type)}>"
    if pa.types.is_list(t):
        return f"array<{_arrow_as_hive(t.value_type)}>"
    if pa.types.is_struct(t):
        return "struct<" + ",".join(f"{f.name}:{_arrow_as_hive(f.type)}" for f in t) + ">"
    raise AssertionError(f"no Hive spelling for {t}")


@pytest.mark.parametrize("name", all_tables())
def test_hive_columns_match_hudi_rs(table, name):
    base, config = table(name)
    data, partitions = hive_columns(latest_schema(FS, base, config), config.partition_fields)
    theirs = [(f.name, _arrow_as_hive(f.type)) for f in _hudi_rs(base).get_schema_with_meta_fields()]
    assert [(c.name, c.type) for c in partitions] == [(n, t) for n, t in theirs if n in config.partition_fields]
    assert [(c.name, c.type) for c in data] == [(n, t) for n, t in theirs if n not in config.partition_fields]


META = [
    ("_hoodie_commit_time", "string"),
    ("_hoodie_commit_seqno", "string"),
    ("_hoodie_record_key", "string"),
    ("_hoodie_partition_path", "string"),
    ("_hoodie_file_name", "string"),
]


def test_hive_columns_literally(table):
    base, config = table("sample_table_cow_v6_complexkeygen_hivestyle")
    data, partitions = hive_columns(latest_schema(FS, base, config), config.partition_fields)
    assert [(c.name, c.type) for c in data] == META + [
        ("id", "int"),
        ("name", "string"),
        ("isActive", "boolean"),
        ("intField", "int"),
        ("longField", "bigint"),
        ("floatField", "float"),
        ("doubleField", "double"),
        ("decimalField", "decimal(10,5)"),
        ("dateField", "date"),
        ("timestampField", "timestamp"),
        ("binaryField", "binary"),
        ("arrayField", "array<struct<arr_struct_f1:string,arr_struct_f2:int>>"),
        ("mapField", "map<string,struct<map_field_value_struct_f1:double,map_field_value_struct_f2:boolean>>"),
        (
            "structField",
            "struct<field1:string,field2:int,child_struct:struct<child_field1:double,child_field2:boolean>>",
        ),
    ]
    assert [(c.name, c.type) for c in partitions] == [("byteField", "int"), ("shortField", "int")]

    base, config = table("quickstart_trips_table_mor_avro_v8_trips_8i3u1d")
    data, partitions = hive_columns(latest_schema(FS, base, config), config.partition_fields)
    assert [(c.name, c.type) for c in data] == META + [
        ("ts", "bigint"),
        ("uuid", "string"),
        ("rider", "string"),
        ("driver", "string"),
        ("fare", "double"),
    ]
    assert [(c.name, c.type) for c in partitions] == [("city", "string")]


def test_hive_types_beyond_the_tables():
    schema = {
        "type": "record",
        "name": "r",
        "fields": [
            {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A"]}, "doc": "an enum"},
            {"name": "e2", "type": "E"},
            {"name": "f", "type": {"type": "fixed", "name": "F", "size": 4}},
            {"name": "d", "type": {"type": "bytes", "logicalType": "decimal", "precision": 5}},
            {"name": "ms", "type": {"type": "long", "logicalType": "timestamp-millis"}},
            {"name": "u", "type": ["null", "int", "string"]},
            {"name": "_hoodie_record_key", "type": ["null", "string"]},
        ],
    }
    data, partitions = hive_columns(json.dumps(schema), ["dt"])
    assert [(c.name, c.type, c.comment) for c in data][5:] == [
        ("e", "string", "an enum"),
        ("e2", "string", None),
        ("f", "binary", None),
        ("d", "decimal(5,0)", None),
        ("ms", "timestamp", None),
        ("u", "uniontype<int,string>", None),
    ]
    assert [(c.name, c.type) for c in partitions] == [("dt", "string")]
    assert [c.name for c in hive_columns(json.dumps(schema), [], meta_fields=False)[0]][-1] == "_hoodie_record_key"
    recursive = {"type": "record", "name": "Node", "fields": [{"name": "next", "type": ["null", "Node"]}]}
    for bad in ("not json", '"string"', json.dumps(recursive)):
        with pytest.raises(HudiMetadataError):
            hive_columns(bad, [])
