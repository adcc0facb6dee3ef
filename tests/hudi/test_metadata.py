"""What instant files say (``hudi_catalog.hudi.metadata``): every instant of the 42 real tables decodes to
the metadata its action and state call for, with write stats naming real files (hudi-rs, the ``hudi``
package, as the oracle of the latest slices) and plans agreeing with their commits; corrupt, truncated and
empty content; Avro content the tables do not contain (cleans, restores, savepoints) written here.
"""

from __future__ import annotations

import json
import os
import re

import pytest

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
    check_instant,
    decode_instant,
    list_instants,
    read_instant,
)
from hudi_catalog.model import Action, InstantState
from tests.conftest import require_module
from tests.hudi.tables import all_tables
from tests.support.hudi_metadata import CLEAN_PARTITION, FS, INSTANT_INFO, ROLLBACK, _avro_file, _schema, _strings
from tests.support.hudi_oracles import WRITE_ACTIONS, _hudi_rs, readme_rows

hudi = require_module("hudi")


def _decoded(base, config):
    return [
        (i, decode_instant(i, read_instant(FS, base, config, i), config.version))
        for i in list_instants(FS, base, config)
    ]


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
def test_every_instant_file_is_whole_to_the_check(table, name):
    """What an import checks without decoding (the states an instant has left) passes for every real file."""
    base, config = table(name)
    for instant in list_instants(FS, base, config):
        check_instant(instant, read_instant(FS, base, config, instant), config.version)


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
        for read in (decode_instant, check_instant):  # the check refuses what decoding refuses
            for cut in (1, 3, 10, len(data) // 2, len(data) - 20):
                with pytest.raises(HudiMetadataError, match=re.escape(instant.file_name)):
                    read(instant, data[:cut], config.version)
            flipped = data[:4] + bytes(b ^ 0x5A for b in data[4:])
            with pytest.raises(HudiMetadataError, match=re.escape(instant.file_name)):
                read(instant, flipped, config.version)


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
