"""File slicing rules, against hudi-rs on the real tables and on small cases written out by hand."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import fastavro
import pytest

from tests.conftest import require_module

require_module("hudi")  # skips this module without the Spark extras

from hudi import HudiReadOptions, HudiTable, HudiTableBuilder

from hudi_catalog.hudi.file_slices import DataFile, FileSlice, latest_file_slices
from tests.hudi.tables import all_tables, unpack

_WRITE_ACTIONS = "commit|deltacommit|replacecommit"
_COMPLETED_V6 = re.compile(rf"(\d+)\.({_WRITE_ACTIONS})")
_COMPLETED_V8 = re.compile(rf"(\d+)_(\d+)\.({_WRITE_ACTIONS})")
_COMPACTION_PLAN = re.compile(r"(\d+)\.compaction\.requested")
_LOG_INSTANT = re.compile(r"\.[^_]+_(\d+)\.log\.")


@dataclass
class _Table:
    """A real table's inputs, read from its folders the plain way, and hudi-rs opened on it."""

    version: int
    files: list[DataFile]
    completion_times: dict[str, str]
    pending_compactions: dict[tuple[str, str], str]
    replaced_file_groups: dict[tuple[str, str], str]
    oracle: HudiTable

    def slices(self, as_of: str | None = None) -> list[FileSlice]:
        return latest_file_slices(
            self.files,
            self.completion_times,
            self.version,
            as_of=as_of,
            pending_compactions=self.pending_compactions,
            replaced_file_groups=self.replaced_file_groups,
        )

    def oracle_slices(self, as_of: str | None = None) -> list[FileSlice]:
        options = HudiReadOptions() if as_of is None else HudiReadOptions().with_as_of_timestamp(as_of)
        return sorted(
            (
                FileSlice(
                    s.partition_path, s.file_id, s.creation_instant_time, s.base_file_name, tuple(s.log_file_names)
                )
                for s in self.oracle.get_file_slices(options)
            ),
            key=lambda s: (s.partition_path, s.file_id),
        )


def _read_table(base: Path) -> _Table:
    properties = (base / ".hoodie" / "hoodie.properties").read_text()
    version = int(re.search(r"^hoodie\.table\.version=(\d+)$", properties, re.M).group(1))
    folder = base / ".hoodie" / "timeline" if version >= 8 else base / ".hoodie"
    completion_times, replaced = {}, {}
    for path in folder.iterdir():
        if version >= 8 and (m := _COMPLETED_V8.fullmatch(path.name)):
            requested, completed, action = m.groups()
        elif version < 8 and (m := _COMPLETED_V6.fullmatch(path.name)):
            requested, action = m.groups()
            completed = _as_instant(path.stat().st_mtime)  # v6 records no completion time: the file's mtime
        else:
            continue
        completion_times[requested] = completed
        if action == "replacecommit":
            for partition, file_ids in _commit_metadata(path, version)["partitionToReplaceFileIds"].items():
                replaced.update({(partition, file_id): requested for file_id in file_ids})
    pending = {}
    for path in folder.iterdir():
        if (m := _COMPACTION_PLAN.fullmatch(path.name)) and m.group(1) not in completion_times:
            with path.open("rb") as plan:
                for record in fastavro.reader(plan):
                    operations = record["operations"]
                    pending.update({(op["partitionPath"], op["fileId"]): m.group(1) for op in operations})
    files = [
        DataFile("/".join(path.relative_to(base).parts[:-1]), path.name)
        for path in base.rglob("*")
        if path.is_file() and ".hoodie" not in path.relative_to(base).parts
    ]
    oracle = HudiTableBuilder.from_base_uri(str(base)).build()
    return _Table(version, files, completion_times, pending, replaced, oracle)


def _as_instant(epoch_seconds: float) -> str:
    moment = datetime.fromtimestamp(epoch_seconds, tz=timezone.utc)
    return moment.strftime("%Y%m%d%H%M%S") + f"{moment.microsecond // 1000:03d}"


def _commit_metadata(path: Path, version: int) -> dict:
    if version >= 8:
        with path.open("rb") as avro:
            return next(iter(fastavro.reader(avro)))
    return json.loads(path.read_text())


@pytest.fixture(scope="module", params=all_tables())
def table(request, tmp_path_factory) -> _Table:
    return _read_table(unpack(request.param, tmp_path_factory.mktemp("tables")))


def test_latest_slices_match_hudi_rs(table):
    assert table.slices() == table.oracle_slices()


def test_time_travel_matches_hudi_rs(table):
    timeline = table.oracle.get_timeline()
    instants = (
        timeline.get_completed_commits()
        + timeline.get_completed_deltacommits()
        + timeline.get_completed_replacecommits()
    )
    for as_of in sorted({instant.timestamp for instant in instants}):
        ours, theirs = table.slices(as_of), table.oracle_slices(as_of)
        assert [(s.partition_path, s.file_id, s.base_instant, s.base_file) for s in ours] == [
            (s.partition_path, s.file_id, s.base_instant, s.base_file) for s in theirs
        ], as_of
        # hudi-rs lists a slice's log files whatever wrote them and leaves later ones to the reader
        if table.version >= 8:
            theirs = [_logs_up_to(s, as_of) for s in theirs]
        assert [s.log_files for s in ours] == [s.log_files for s in theirs], as_of


def _logs_up_to(file_slice: FileSlice, as_of: str) -> FileSlice:
    logs = tuple(name for name in file_slice.log_files if _LOG_INSTANT.match(name).group(1) <= as_of)
    return FileSlice(file_slice.partition_path, file_slice.file_id, file_slice.base_instant, file_slice.base_file, logs)


# --- small cases --------------------------------------------------------------------------------------------

P = "p"


def _files(*names: str) -> list[DataFile]:
    return [DataFile(P, name) for name in names]


def test_latest_base_file_of_completed_instants_only():
    files = _files(
        "f1_0-1-1_100.parquet",
        "f1_0-2-2_200.parquet",
        "f1_0-3-3_300.parquet",
        ".hoodie_partition_metadata",
        ".f1_200.log.1_0-1-1.cdc",
        "f2_0-1-1_300.parquet",
    )
    assert latest_file_slices(files, {"100": "101", "200": "201"}, 6) == [
        FileSlice(P, "f1", "200", "f1_0-2-2_200.parquet", ()),
    ]


def test_v6_log_joins_the_slice_its_name_gives():
    files = _files(
        "f1_0-1-1_100.parquet",
        "f1_0-1-1_300.parquet",
        ".f1_100.log.1_0-1-1",
        ".f1_300.log.1_0-1-1",
        ".f1_300.log.2_0-1-1",
    )
    completion = {"100": "101", "200": "201", "300": "301", "400": "401"}
    assert latest_file_slices(files, completion, 6) == [
        FileSlice(P, "f1", "300", "f1_0-1-1_300.parquet", (".f1_300.log.1_0-1-1", ".f1_300.log.2_0-1-1")),
    ]


def test_v6_log_only_slice_needs_a_completed_instant():
    files = _files("f1_0-1-1_100.parquet", ".f1_500.log.1_0-1-1", ".f2_400.log.1_0-1-1")
    assert latest_file_slices(files, {"100": "101", "400": "401"}, 6) == [
        FileSlice(P, "f1", "100", "f1_0-1-1_100.parquet", ()),
        FileSlice(P, "f2", "400", None, (".f2_400.log.1_0-1-1",)),
    ]


def test_v8_log_joins_the_slice_started_before_its_commit_completed():
    # compaction requested at 300; delta commit 250 completes after it, delta commit 280 before it
    files = _files(
        "f1_0-1-1_100.parquet",
        "f1_0-1-1_300.parquet",
        ".f1_250.log.1_0-1-1",
        ".f1_280.log.1_0-1-1",
        ".f1_400.log.1_0-1-1",
    )
    completion = {"100": "110", "250": "350", "280": "290", "300": "320", "400": "410"}
    assert latest_file_slices(files, completion, 8) == [
        FileSlice(P, "f1", "300", "f1_0-1-1_300.parquet", (".f1_250.log.1_0-1-1", ".f1_400.log.1_0-1-1")),
    ]


def test_v8_log_of_an_uncompleted_commit_is_not_visible():
    files = _files("f1_0-1-1_100.parquet", ".f1_200.log.1_0-1-1", ".f1_300.log.1_0-1-1")
    assert latest_file_slices(files, {"100": "110", "300": "310"}, 9) == [
        FileSlice(P, "f1", "100", "f1_0-1-1_100.parquet", (".f1_300.log.1_0-1-1",)),
    ]


def test_v8_log_only_group_starts_at_its_first_log():
    files = _files(".f1_300.log.1_0-1-1", ".f1_200.log.1_0-1-1")
    assert latest_file_slices(files, {"200": "250", "300": "310"}, 8) == [
        FileSlice(P, "f1", "200", None, (".f1_200.log.1_0-1-1", ".f1_300.log.1_0-1-1")),
    ]


def test_pending_compaction_starts_a_slice_without_base_file():
    pending = {(P, "f1"): "300", (P, "f2"): "300"}
    v8 = _files(
        "f1_0-1-1_100.parquet",
        "f1_0-1-1_300.parquet",
        ".f1_250.log.1_0-1-1",
        ".f1_280.log.1_0-1-1",
        "f2_0-1-1_100.parquet",
    )
    completion = {"100": "110", "250": "350", "280": "290"}
    assert latest_file_slices(v8, completion, 8, pending_compactions=pending) == [
        FileSlice(P, "f1", "300", None, (".f1_250.log.1_0-1-1",)),
        FileSlice(P, "f2", "300", None, ()),
    ]
    v6 = _files("f1_0-1-1_100.parquet", ".f1_100.log.1_0-1-1", ".f1_300.log.1_0-1-1")
    assert latest_file_slices(v6, {"100": "110"}, 6, pending_compactions=pending) == [
        FileSlice(P, "f1", "300", None, (".f1_300.log.1_0-1-1",)),
    ]
    assert latest_file_slices(v6, {"100": "110"}, 6, as_of="200", pending_compactions=pending) == [
        FileSlice(P, "f1", "100", "f1_0-1-1_100.parquet", (".f1_100.log.1_0-1-1",)),
    ]


def test_replaced_groups_are_hidden_once_the_replace_commit_is_visible():
    files = _files("f1_0-1-1_100.parquet", "f2_0-1-1_100.parquet", "f3_0-1-1_200.parquet")
    completion = {"100": "110", "200": "210"}
    replaced = {(P, "f1"): "200", (P, "f2"): "300"}  # 300 never completed
    assert [s.file_id for s in latest_file_slices(files, completion, 9, replaced_file_groups=replaced)] == ["f2", "f3"]
    assert [
        s.file_id for s in latest_file_slices(files, completion, 9, as_of="150", replaced_file_groups=replaced)
    ] == ["f1", "f2"]


def test_log_files_in_hudi_order():
    names = [".f1_100.log.10_0-1-1", ".f1_100.log.2_1-1-1", ".f1_100.log.2_0-9-9", ".f1_100.log.1_5-1-1"]
    [file_slice] = latest_file_slices(_files("f1_0-1-1_100.parquet", *names), {"100": "110"}, 6)
    assert file_slice.log_files == (
        ".f1_100.log.1_5-1-1",
        ".f1_100.log.2_0-9-9",
        ".f1_100.log.2_1-1-1",
        ".f1_100.log.10_0-1-1",
    )
    names = [".f1_300.log.1_0-1-1", ".f1_200.log.2_0-1-1"]  # v8: instant first, not completion time
    [file_slice] = latest_file_slices(
        _files("f1_0-1-1_100.parquet", *names), {"100": "110", "200": "400", "300": "310"}, 8
    )
    assert file_slice.log_files == (".f1_200.log.2_0-1-1", ".f1_300.log.1_0-1-1")


def test_as_of_compares_requested_times():
    files = _files("f1_0-1-1_100.parquet", "f1_0-1-1_300.parquet", ".f1_200.log.1_0-1-1", ".f1_250.log.1_0-1-1")
    completion = {"100": "110", "200": "500", "250": "260", "300": "310"}
    # 200 was requested before as_of and completed long after: visible, as in Hudi's time travel
    assert latest_file_slices(files, completion, 8, as_of="210") == [
        FileSlice(P, "f1", "100", "f1_0-1-1_100.parquet", (".f1_200.log.1_0-1-1",)),
    ]
    assert latest_file_slices(files, completion, 8, as_of="050") == []


def test_table_version_7_is_refused():
    with pytest.raises(ValueError, match="version 7"):
        latest_file_slices([], {}, 7)
