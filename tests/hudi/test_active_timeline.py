"""The active timeline (``hudi_catalog.hudi.active_timeline``): the instants of the 42 real tables, listed in
timeline order, against hudi-rs (the ``hudi`` package) and the tables' README; layout 1 completion times from
file modification times; an instant file that is not there.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections import Counter
from datetime import datetime, timezone

import pytest

from hudi_catalog.errors import HudiMetadataError
from hudi_catalog.hudi import InstantFile, list_instants, read_instant, read_table_config
from hudi_catalog.hudi.properties import TIMELINE_TIMEZONE
from hudi_catalog.model import Action, InstantState
from tests.hudi.tables import all_tables, unpack
from tests.support.hudi_metadata import FS
from tests.support.hudi_oracles import WRITE_ACTIONS, _hudi_rs, readme_rows


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
