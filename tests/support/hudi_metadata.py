"""What the tests of ``hudi_catalog.hudi`` read Hudi metadata through, and write it as: the local file system
the readers take, and Avro content in Hudi's record layouts (``org.apache.hudi.avro.model``) for what the real
tables do not contain (cleans, rollbacks, restores, archived entries)."""

from __future__ import annotations

import io

import fastavro
from pyarrow import fs as pafs

FS = pafs.LocalFileSystem()

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
