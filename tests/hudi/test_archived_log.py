"""The archived timeline of table versions before 8 (``hudi_catalog.hudi.archived_log``): archive files
written here as Hudi log files of Avro blocks read back as the instants they hold; a truncated one is named.
"""

from __future__ import annotations

import io
import json
import os
import struct

import fastavro
import pytest

from hudi_catalog.errors import HudiMetadataError
from hudi_catalog.hudi import (
    CommitMetadata,
    RollbackMetadata,
    decode_instant,
    list_archived_instants,
    read_archived_instants,
    read_table_config,
)
from hudi_catalog.model import InstantState
from tests.hudi.tables import unpack
from tests.support.hudi_metadata import FS, NS, ROLLBACK, _schema

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
