"""A small Hudi writer for the Iceberg view tests and benchmarks: a COPY_ON_WRITE table (``hoodie.properties``
and real Parquet base files on local disk) whose commits go through a metaserver client, as a Hudi writer's do
with ``hoodie.metaserver.enabled``. Each commit inserts one new file group into one of a few partitions."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from hms_adapter.idl import metaserver as ms

SCHEMA = json.dumps(
    {
        "type": "record",
        "name": "trip",
        "fields": [{"name": "id", "type": "long"}, {"name": "region", "type": "string"}],
    }
)
PARTITIONS = ("region=eu", "region=us", "region=ap")


def make_table(base: Path) -> None:
    """The table's folder and ``hoodie.properties`` (version 6: instants without completion times)."""
    (base / ".hoodie").mkdir(parents=True)
    (base / ".hoodie" / "hoodie.properties").write_text(
        "hoodie.table.name=trips\n"
        "hoodie.table.type=COPY_ON_WRITE\n"
        "hoodie.table.version=6\n"
        "hoodie.table.partition.fields=region\n"
        "hoodie.table.recordkey.fields=id\n"
        "hoodie.datasource.write.hive_style_partitioning=true\n"
        "hoodie.table.keygenerator.class=org.apache.hudi.keygen.SimpleKeyGenerator\n"
        "hoodie.populate.meta.fields=false\n"
    )


def create(client, base: Path, database: str, table: str = "trips") -> None:
    """Register the table through the metaserver (its database too, when missing)."""
    try:
        client.createDatabase(database)
    except ms.AlreadyExistException:
        pass
    client.createTable(
        ms.Table(
            tableName=table,
            databaseName=database,
            owner="writer",
            createTime=0,
            location=f"file:{base}",
            tableType="COPY_ON_WRITE",
            partitionKeys=[ms.FieldSchema(name="region", type="string", comments=None)],
            parameters={"hoodie.table.version": "6"},
        )
    )


def write_commit(client, base: Path, database: str, table: str, n: int) -> str:
    """Write commit number ``n``: one Parquet file of 10 rows in a partition, completed through the metaserver;
    returns the instant time the server gave it."""
    return complete(client, database, table, *prepare(client, base, database, table, n))


def prepare(client, base: Path, database: str, table: str, n: int) -> tuple[str, bytes]:
    """Commit number ``n`` up to its completion: its instant inflight and its file written; returns the
    instant time and the commit metadata that completes it."""
    ts = client.createNewInstantTime(database, table)
    partition = PARTITIONS[n % len(PARTITIONS)]
    file_id = f"{uuid.UUID(int=n + 1)}-0"
    name = f"{file_id}_0-1-1_{ts}.parquet"
    (base / partition).mkdir(exist_ok=True)
    rows = pa.table({"id": pa.array(range(n * 10, n * 10 + 10), pa.int64()), "region": [partition[7:]] * 10})
    pq.write_table(rows, base / partition / name)
    stat = {
        "fileId": file_id,
        "path": f"{partition}/{name}",
        "prevCommit": "null",
        "numWrites": 10,
        "numInserts": 10,
        "fileSizeInBytes": (base / partition / name).stat().st_size,
        "partitionPath": partition,
    }
    metadata = {
        "partitionToWriteStats": {partition: [stat]},
        "extraMetadata": {"schema": SCHEMA},
        "operationType": "INSERT",
    }
    inflight = ms.THoodieInstant(timestamp=ts, action=ms.TAction.COMMIT, state=ms.TState.INFLIGHT)
    client.createNewInstantWithTime(database, table, inflight, b"")
    return ts, json.dumps(metadata).encode()


def complete(client, database: str, table: str, ts: str, metadata: bytes) -> str:
    """Complete a prepared commit through the metaserver; returns its instant time."""
    inflight = ms.THoodieInstant(timestamp=ts, action=ms.TAction.COMMIT, state=ms.TState.INFLIGHT)
    done = ms.THoodieInstant(timestamp=ts, action=ms.TAction.COMMIT, state=ms.TState.COMPLETED)
    assert client.transitionInstantState(database, table, inflight, done, metadata).success
    return ts
