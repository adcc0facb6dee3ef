"""Instant file names (``hudi_catalog.hudi.instant_files``): those of the real tables round-trip, and every
action in every state of both timeline layouts parses and renders as Hudi names it.
"""

from __future__ import annotations

import pytest

from hudi_catalog.hudi import InstantFile, instant_file_name, list_instants, parse_instant_file_name
from hudi_catalog.model import Action, InstantState
from tests.hudi.tables import all_tables
from tests.support.hudi_metadata import FS


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
