"""The archived timeline of table versions 8 and later (``hudi_catalog.hudi.lsm_history``): an LSM history
written here from a real table's completed instants reads back as them; a missing or corrupt file is named.
"""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_catalog.errors import HudiMetadataError
from hudi_catalog.hudi import (
    decode_instant,
    list_archived_instants,
    list_instants,
    read_archived_instants,
    read_instant,
    read_table_config,
)
from hudi_catalog.model import InstantState
from tests.hudi.tables import unpack
from tests.support.hudi_metadata import FS

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
