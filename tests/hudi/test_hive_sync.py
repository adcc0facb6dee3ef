"""Hudi's hive sync replayed over the HMS protocol against tables the catalog knows from their timeline.

``HiveSync`` below makes, call by call, the HMS calls of Hudi's ``HiveSyncTool`` in hive sync mode ``hms``
(``HoodieHiveSyncClient`` + ``HMSDDLExecutor``), as Hive 2.3's ``IMetaStoreClient`` (the client Spark and
the Hudi bundles use) sends them: ``tableExists`` is ``get_table``, ``createTable`` is
``create_table_with_environment_context``, ``alter_table`` is ``alter_table_with_environment_context``,
``add_partitions(parts, true, false)`` is ``add_partitions_req`` (batches of ``hoodie.datasource.hive_sync
.batch_num`` = 1000), ``alter_partitions`` is ``alter_partitions_with_environment_context``, ``dropPartition``
by name is ``drop_partition_by_name_with_environment_context`` (deleteData false). The pushed-down filter has
the form of Hudi's ``PartitionFilterGenerator``. The rule these tests hold the server to is in
``docs/hive-sync.md``: one partition row serves the HMS view and the Hudi view of a table.
"""

from __future__ import annotations

import copy
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import pyarrow.fs as pafs
import pytest

from tests.conftest import require_module

require_module("hudi")  # skips this module without the Spark extras

from hudi import HudiTableBuilder

from hudi_catalog import Catalog
from hudi_catalog.errors import HudiMetadataError, NoSuchObjectError
from hudi_catalog.hudi.avro_schema import hive_columns
from hudi_catalog.hudi.metadata import latest_schema
from hudi_catalog.hudi.properties import read_table_config
from hudi_catalog.model import Instant, InstantState
from hudi_catalog.services.hudi_import import (
    COPY_ON_WRITE_INPUT,
    MERGE_ON_READ_INPUT,
    PARQUET_OUTPUT,
    PARQUET_SERDE,
    HudiImporter,
    timeline_entries,
)
from tests.conftest import RunningServer, hive
from tests.hudi.tables import unpack
from tests.support.hudi_oracles import oracle_slices, our_slices

BATCH_NUM = 1000
"""``hoodie.datasource.hive_sync.batch_num`` (default): partitions per ``add_partitions`` call."""
PUSHDOWN_MAX_SIZE = 1000
"""``hoodie.datasource.hive_sync.filter_pushdown_max_size`` (default): above keys x partitions, min/max form."""
LAST_COMMIT_SYNC = "last_commit_time_sync"
LAST_COMPLETION_SYNC = "last_commit_completion_time_sync"
WRITES = {"commit", "deltacommit", "replacecommit", "compaction", "clustering"}
CHANGES = {
    "add_partitions_req",
    "alter_partitions_with_environment_context",
    "drop_partition_by_name_with_environment_context",
}

COW = "sample_table_cow_v6_complexkeygen_hivestyle"  # keys byteField, shortField (int), hive style
MOR = "sample_table_mor_avro_v9_txns_simple_meta"  # key region (string); syncs t_ro, t_rt and t
NON_HIVE_STYLE = "sample_table_cow_v8_simplekeygen_nonhivestyle"  # key byteField, paths "10", "20", "30"


# -- what hive sync reads from storage ------------------------------------------------------------------


@dataclass
class Storage:
    base: str
    """The base path as Hudi names it (``file:/...``)."""
    name: str
    merge_on_read: bool
    columns: list[tuple[str, str]]
    partition_fields: list[tuple[str, str]]
    partitions: list[str]
    """Every partition path on storage, relative to the base path."""
    last_commit: str | None
    last_completion: str | None = None


def storage_of(base: Path, name: str = "t") -> Storage:
    """The storage side of a real table: schema of the latest commit, partition folders, latest instant."""
    fs = pafs.LocalFileSystem()
    config = read_table_config(fs, str(base))
    columns, keys = hive_columns(latest_schema(fs, str(base), config), config.partition_fields)
    partitions = sorted(
        str(p.parent.relative_to(base))
        for p in base.rglob(".hoodie_partition_metadata*")
        if ".hoodie" not in p.parent.relative_to(base).parts
    )
    completed = [
        e.instant
        for e in timeline_entries(fs, str(base), config)
        if e.instant.state is InstantState.COMPLETED and e.instant.action in WRITES
    ]
    last = max(completed, key=lambda i: i.requested_time, default=None)
    return Storage(
        f"file:{base}",
        name,
        config.table_type == "MERGE_ON_READ",
        [(c.name, c.type) for c in columns],
        [(k.name, k.type) for k in keys],
        partitions,
        last and last.requested_time,
        last and last.completion_time,
    )


def values_of(path: str) -> list[str]:
    """Hudi's ``MultiPartKeysValueExtractor``: one value per path segment, after ``=`` when there is one."""
    return [segment.split("=", 1)[-1] for segment in path.split("/")]


def path_only(location: str) -> str:
    """``Path.getPathWithoutSchemeAndAuthority(...).toUri().getPath()``."""
    return urlparse(location).path.rstrip("/")


def _chain(terms: list[str], connective: str) -> str:
    """Hudi's filter visitor: a left-deep chain, each pair in parentheses; empty terms drop out."""
    terms = [t for t in terms if t]
    if not terms:
        return ""
    result = terms[0]
    for term in terms[1:]:
        result = f"({result} {connective} {term})"
    return result


def _literal(value: str, type_: str) -> str:
    if type_ == "string":
        return f'"{value}"' if '"' not in value else f"'{value}'"
    return value if type_ in ("int", "bigint", "date") else ""


def pushdown_filter(partitions: list[str], fields: list[tuple[str, str]]) -> str:
    """The filter Hudi's ``PartitionFilterGenerator`` pushes down for the written partitions."""
    rows = [values_of(p) for p in partitions]
    if len(fields) * len(rows) <= PUSHDOWN_MAX_SIZE:
        return _chain(
            [
                _chain(
                    [
                        f"{name} = {_literal(v, type_)}" if _literal(v, type_) else ""
                        for (name, type_), v in zip(fields, row)
                    ],
                    "AND",
                )
                for row in rows
            ],
            "OR",
        )
    terms = []
    for i, (name, type_) in enumerate(fields):
        if type_ not in ("int", "bigint", "date", "string"):
            continue
        values = sorted({row[i] for row in rows}, key=int if type_ in ("int", "bigint") else str)
        low, high = _literal(values[0], type_), _literal(values[-1], type_)
        terms.append(f"{name} = {low}" if len(values) == 1 else f"({name} >= {low} AND {name} <= {high})")
    return _chain(terms, "AND")


# -- the replay --------------------------------------------------------------------------------------------


@dataclass
class HiveSync:
    client: object
    database: str
    storage: Storage
    pushdown: bool = False
    """``hoodie.datasource.hive_sync.filter_pushdown_enabled``."""
    calls: list[str] = field(default_factory=list)
    batches: list[int] = field(default_factory=list)
    """Sizes of the ``add_partitions_req`` calls."""

    def call(self, method: str, *args):
        self.calls.append(method)
        return getattr(self.client, method)(*args)

    def sync(self, written: list[str] | None = None, dropped: set[str] = frozenset(), full: bool = False) -> None:
        """``HiveSyncTool.doSync``: a COPY_ON_WRITE table syncs ``<t>``; MERGE_ON_READ syncs ``<t>_ro``, ``<t>_rt``
        and ``<t>``. ``written``/``dropped``: partitions the timeline wrote/dropped since the last synced commit;
        ``full``: the last synced commit is before the active timeline, so every storage partition is listed."""
        name = self.storage.name
        tables = (
            [(f"{name}_ro", False, True), (f"{name}_rt", True, False), (name, True, False)]
            if self.storage.merge_on_read
            else [(name, False, False)]
        )
        for table, realtime, read_optimized in tables:
            self.sync_table(table, realtime, read_optimized, written or [], dropped, full)

    def sync_table(self, table, realtime, read_optimized, written, dropped, full) -> None:
        try:
            self.call("get_database", self.database)
        except hive.NoSuchObjectException:
            self.call(
                "create_database", hive.Database(name=self.database, description="automatically created by hoodie")
            )
        exists = self.table_exists(table)
        if exists:
            self.sync_schema(table)
            self.sync_serde_properties(table, realtime, read_optimized)
            self.sync_table_properties(table)
            last = self.call("get_table", self.database, table).parameters.get(LAST_COMMIT_SYNC)
        else:
            self.create_table(table, realtime, read_optimized)
            last = None
        if self.storage.partition_fields:
            if last is None or full:
                in_metastore = self.call("get_partitions", self.database, table, -1)
                self.apply(table, self.events(in_metastore, self.storage.partitions, set(), drop_missing=True))
            elif written:
                self.apply(table, self.events(self.table_partitions(table, written), written, dropped))
        self.update_last_commit_time_synced(table)

    def table_exists(self, table: str) -> bool:
        try:
            self.call("get_table", self.database, table)
            return True
        except hive.NoSuchObjectException:
            return False

    def input_format(self, realtime: bool) -> str:
        return MERGE_ON_READ_INPUT if realtime else COPY_ON_WRITE_INPUT

    def serde_properties(self, read_optimized: bool) -> dict[str, str]:
        return {
            "hoodie.query.as.ro.table": str(read_optimized).lower(),
            "path": self.storage.base,
            "serialization.format": "1",
        }

    def table_properties(self) -> dict[str, str]:
        fields = [
            {"name": n, "type": t, "nullable": True, "metadata": {}}
            for n, t in self.storage.columns + self.storage.partition_fields
        ]
        params = {
            "spark.sql.sources.provider": "hudi",
            "spark.sql.sources.schema.numParts": "1",
            "spark.sql.sources.schema.part.0": json.dumps({"type": "struct", "fields": fields}),
            "spark.sql.create.version": "3.5.1",
        }
        if self.storage.partition_fields:
            params["spark.sql.sources.schema.numPartCols"] = str(len(self.storage.partition_fields))
            for i, (key, _) in enumerate(self.storage.partition_fields):
                params[f"spark.sql.sources.schema.partCol.{i}"] = key
        return params

    def columns(self):
        return [hive.FieldSchema(name=n, type=t, comment=None) for n, t in self.storage.columns]

    def create_table(self, table: str, realtime: bool, read_optimized: bool) -> None:
        """``HMSDDLExecutor.createTable``: an external table at the base path, Hudi's formats, Spark's
        data source properties; the create time is Java's ``(int) System.currentTimeMillis()``."""
        millis = int(time.time() * 1000)
        sd = hive.StorageDescriptor(
            cols=self.columns(),
            location=self.storage.base,
            inputFormat=self.input_format(realtime),
            outputFormat=PARQUET_OUTPUT,
            compressed=False,
            numBuckets=0,
            storedAsSubDirectories=False,
            serdeInfo=hive.SerDeInfo(
                name=None, serializationLib=PARQUET_SERDE, parameters=self.serde_properties(read_optimized)
            ),
        )
        new = hive.Table(
            tableName=table,
            dbName=self.database,
            owner="hudi",
            createTime=(millis + 2**31) % 2**32 - 2**31,
            lastAccessTime=0,
            retention=0,
            sd=sd,
            tableType="EXTERNAL_TABLE",
            partitionKeys=[
                hive.FieldSchema(name=k, type=t.lower(), comment="") for k, t in self.storage.partition_fields
            ],
            parameters={"EXTERNAL": "TRUE", **self.table_properties()},
        )
        self.call("create_table_with_environment_context", new, None)

    def sync_schema(self, table: str) -> None:
        """``syncSchema``: compare the metastore schema with storage's; on a difference ``updateTableDefinition``
        (``alter_table`` with ``CASCADE`` for partitioned tables)."""
        self.table_exists(table)
        current = self.call("get_table", self.database, table)
        metastore = {c.name: c.type.upper() for c in current.sd.cols + current.partitionKeys}
        wanted = {n: t.upper() for n, t in self.storage.columns + self.storage.partition_fields}
        if metastore == wanted:
            return
        new = self.call("get_table", self.database, table)
        new.sd.cols = self.columns()
        context = hive.EnvironmentContext(properties={"CASCADE": "true"} if self.storage.partition_fields else {})
        self.call("alter_table_with_environment_context", self.database, table, new, context)

    def sync_serde_properties(self, table: str, realtime: bool, read_optimized: bool) -> None:
        current = self.call("get_table", self.database, table)
        wanted = self.serde_properties(read_optimized)
        serde = current.sd.serdeInfo
        if (
            wanted.items() <= (serde.parameters or {}).items()
            and current.sd.inputFormat == self.input_format(realtime)
            and current.sd.outputFormat == PARQUET_OUTPUT
        ):
            return
        current.sd.inputFormat, current.sd.outputFormat = self.input_format(realtime), PARQUET_OUTPUT
        current.sd.serdeInfo = hive.SerDeInfo(name=serde.name, serializationLib=PARQUET_SERDE, parameters=wanted)
        self.call("alter_table_with_environment_context", self.database, table, current, None)

    def sync_table_properties(self, table: str) -> None:
        current = self.call("get_table", self.database, table)
        wanted = self.table_properties()
        if wanted.items() <= current.parameters.items():
            return
        current.parameters.update(wanted)
        self.call("alter_table_with_environment_context", self.database, table, current, None)

    def table_partitions(self, table: str, written: list[str]) -> list:
        """``getTablePartitions``: all of them, or those the pushed-down filter of the written ones selects."""
        if not self.pushdown:
            return self.call("get_partitions", self.database, table, -1)
        keys = {k for k, _ in self.storage.partition_fields}
        fields = [
            (f.name, f.type)
            for f in self.call("get_schema_with_environment_context", self.database, table, None)
            if f.name in keys
        ]
        return self.call("get_partitions_by_filter", self.database, table, pushdown_filter(written, fields), -1)

    def events(self, in_metastore, on_storage, dropped, drop_missing=False) -> list[tuple[str, str]]:
        """``getPartitionEvents``: (ADD | UPDATE | DROP, storage partition path)."""
        locations = {", ".join(p.values): path_only(p.sd.location) for p in in_metastore}
        events = []
        for partition in on_storage:
            values = ", ".join(values_of(partition))
            if partition in dropped:
                events.append(("DROP", partition))
            elif values not in locations:
                events.append(("ADD", partition))
            elif locations[values] != path_only(f"{self.storage.base}/{partition}"):
                events.append(("UPDATE", partition))
        if drop_missing:
            on_storage_values = {", ".join(values_of(p)) for p in on_storage}
            events += [
                ("DROP", path_only(location)[len(path_only(self.storage.base)) + 1 :])
                for values, location in locations.items()
                if values not in on_storage_values
            ]
        return events

    def apply(self, table: str, events: list[tuple[str, str]]) -> None:
        """``syncPartitions``: adds, then updates, then drops."""
        self.add_partitions(table, [p for kind, p in events if kind == "ADD"])
        self.update_partitions(table, [p for kind, p in events if kind == "UPDATE"])
        self.drop_partitions(table, [p for kind, p in events if kind == "DROP"])

    def add_partitions(self, table: str, partitions: list[str]) -> None:
        """``addPartitionsToTable``: batches of 1000, ``add_partitions(parts, ifNotExists=true,
        needResults=false)``, each partition with the table's columns and formats at ``<base>/<path>``."""
        if not partitions:
            return
        sd = self.call("get_table", self.database, table).sd
        for start in range(0, len(partitions), BATCH_NUM):
            batch = partitions[start : start + BATCH_NUM]
            parts = [
                hive.Partition(
                    values=values_of(p),
                    dbName=self.database,
                    tableName=table,
                    createTime=0,
                    lastAccessTime=0,
                    sd=hive.StorageDescriptor(
                        cols=sd.cols,
                        inputFormat=sd.inputFormat,
                        outputFormat=sd.outputFormat,
                        serdeInfo=sd.serdeInfo,
                        location=f"{self.storage.base}/{p}",
                        compressed=False,
                        numBuckets=0,
                        storedAsSubDirectories=False,
                    ),
                    parameters=None,
                )
                for p in batch
            ]
            request = hive.AddPartitionsRequest(
                dbName=self.database, tblName=table, parts=parts, ifNotExists=True, needResult=False
            )
            self.call("add_partitions_req", request)
            self.batches.append(len(batch))

    def update_partitions(self, table: str, partitions: list[str]) -> None:
        """``updatePartitionsToTable``: the table's descriptor with the partition's location."""
        if not partitions:
            return
        sd = self.call("get_table", self.database, table).sd
        parts = []
        for p in partitions:
            partition_sd = copy.deepcopy(sd)
            partition_sd.location = f"{self.storage.base}/{p}"
            parts.append(
                hive.Partition(
                    values=values_of(p),
                    dbName=self.database,
                    tableName=table,
                    createTime=0,
                    lastAccessTime=0,
                    sd=partition_sd,
                    parameters=None,
                )
            )
        self.call("alter_partitions_with_environment_context", self.database, table, parts, None)

    def drop_partitions(self, table: str, partitions: list[str]) -> None:
        """``dropPartitionsToTable``: those that exist, one by one, by name, keeping the data."""
        for p in partitions:
            try:
                self.call("get_partition", self.database, table, values_of(p))
            except hive.NoSuchObjectException:
                continue
            name = "/".join(f"{k}={v}" for (k, _), v in zip(self.storage.partition_fields, values_of(p)))
            self.call("drop_partition_by_name_with_environment_context", self.database, table, name, False, None)

    def update_last_commit_time_synced(self, table: str) -> None:
        if self.storage.last_commit is None:
            return
        current = self.call("get_table", self.database, table)
        current.sd.location = self.storage.base
        current.sd.serdeInfo.parameters = {**(current.sd.serdeInfo.parameters or {}), "path": self.storage.base}
        current.parameters[LAST_COMMIT_SYNC] = self.storage.last_commit
        if self.storage.last_completion:
            current.parameters[LAST_COMPLETION_SYNC] = self.storage.last_completion
        self.call("alter_table_with_environment_context", self.database, table, current, None)


# -- views of the catalog -----------------------------------------------------------------------------------


def hms_view(client, database: str, table: str) -> list[tuple]:
    """Each partition as HMS answers it: values, location, create time, columns."""
    return sorted(
        (tuple(p.values), p.sd.location, p.createTime, tuple(c.name for c in p.sd.cols))
        for p in client.get_partitions(database, table, -1)
    )


def hudi_view(catalog, database: str, table: str = "t") -> tuple[list[str], dict]:
    """The Hudi view: partition paths and, per path, the latest slices."""
    slices = {
        path: sorted((s.file_id, s.base_file, tuple(s.log_files)) for s in found)
        for path, found in catalog.snapshot.latest_file_slices(database, table).items()
    }
    return catalog.snapshot.partition_paths(database, table), slices


def tables_of(storage: Storage) -> list[str]:
    return [f"{storage.name}_ro", f"{storage.name}_rt", storage.name] if storage.merge_on_read else [storage.name]


def imported(catalog, tmp_path, name: str) -> Storage:
    base = unpack(name, tmp_path)
    HudiImporter(catalog).run(str(base), database="h", table="t")
    return storage_of(base)


def record(catalog, table: str, ts: str, action: str, metadata: dict, database: str = "h") -> None:
    """Complete an instant on the catalog's timeline, as a Hudi writer (metaserver) or an import would."""
    catalog.timeline.record(
        database,
        table,
        Instant(ts, action, InstantState.COMPLETED, ts),
        {InstantState.COMPLETED: json.dumps(metadata).encode()},
    )


def write_stat(path: str, file_id: str, ts: str) -> dict:
    return {
        "fileId": file_id,
        "path": f"{path}/{file_id}_0-1-1_{ts}.parquet",
        "partitionPath": path,
        "prevCommit": "null",
        "numWrites": 1,
        "fileSizeInBytes": 100,
    }


# -- the tests -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [COW, MOR])
def test_sync_of_an_imported_table_changes_no_partition(catalog, client, tmp_path, name):
    storage = imported(catalog, tmp_path, name)
    tables = tables_of(storage)
    hms_before = {t: hms_view(client, "h", t) for t in tables}
    hudi_before = hudi_view(catalog, "h")
    assert [tuple(values_of(p)) for p in storage.partitions] == [row[0] for row in hms_before["t"]]

    # the importer wrote last_commit_time_sync: nothing was written since, only the sync times are set
    sync = HiveSync(client, "h", storage)
    sync.sync(written=[])
    assert not CHANGES & set(sync.calls)
    assert "create_table_with_environment_context" not in sync.calls
    for table in tables:
        parameters = client.get_table("h", table).parameters
        assert parameters[LAST_COMMIT_SYNC] == storage.last_commit
        assert parameters[LAST_COMPLETION_SYNC] == storage.last_completion
        assert parameters["spark.sql.sources.provider"] == "hudi" and parameters["EXTERNAL"] == "TRUE"

    # every partition written since (filter pushed down), then a full listing: all are there already
    pushed = HiveSync(client, "h", storage, pushdown=True)
    pushed.sync(written=storage.partitions)
    assert pushed.calls.count("get_partitions_by_filter") == len(tables)
    full = HiveSync(client, "h", storage)
    full.sync(full=True)
    assert full.calls.count("get_partitions") == len(tables)
    assert not CHANGES & set(pushed.calls + full.calls)

    # a sync whose listing is stale re-adds them all: a no-op that keeps the Hudi view
    for table in tables:
        full.add_partitions(table, storage.partitions)
    assert full.batches == [len(storage.partitions)] * len(tables)
    assert {t: hms_view(client, "h", t) for t in tables} == hms_before
    assert hudi_view(catalog, "h") == hudi_before

    # storage gains a column: alter_table with CASCADE gives every partition the new columns, same rows
    storage.columns.append(("added_later", "string"))
    evolved = HiveSync(client, "h", storage)
    evolved.sync(written=[])
    assert evolved.calls.count("alter_table_with_environment_context") >= 2 * len(tables)
    for table in tables:
        assert client.get_table("h", table).sd.cols[-1].name == "added_later"
        after = hms_view(client, "h", table)
        assert [row[:3] for row in after] == [row[:3] for row in hms_before[table]]
        assert all(row[3][-1] == "added_later" for row in after)
    assert hudi_view(catalog, "h") == hudi_before


def test_hive_semantics_of_the_sync_calls(catalog, client, tmp_path):
    storage = imported(catalog, tmp_path, COW)
    sync = HiveSync(client, "h", storage)
    before = hms_view(client, "h", "t"), hudi_view(catalog, "h")
    values = values_of(storage.partitions[0])

    with pytest.raises(hive.AlreadyExistsException, match="Table t already exists"):
        sync.create_table("t", False, False)
    with pytest.raises(hive.NoSuchObjectException):
        client.get_database("nowhere")
    with pytest.raises(hive.NoSuchObjectException):
        client.get_table("h", "missing")
    schema = [(f.name, f.type) for f in client.get_schema("h", "t")]
    assert schema == [(f.name, f.type) for f in client.get_schema_with_environment_context("h", "t", None)]
    assert schema[-2:] == [("byteField", "int"), ("shortField", "int")] and schema[0][0] == "_hoodie_commit_time"
    part = hive.Partition(values=values, dbName="h", tableName="t", sd=client.get_table("h", "t").sd)
    with pytest.raises(hive.AlreadyExistsException, match="already exists"):
        client.add_partitions_req(
            hive.AddPartitionsRequest(dbName="h", tblName="t", parts=[part], ifNotExists=False, needResult=False)
        )
    with pytest.raises(hive.AlreadyExistsException):
        client.add_partitions([part])
    with pytest.raises(hive.MetaException, match="Duplicate partitions"):
        client.add_partitions_req(
            hive.AddPartitionsRequest(dbName="h", tblName="t", parts=[part, part], ifNotExists=True, needResult=False)
        )
    missing = ["99", "999"]
    with pytest.raises(hive.NoSuchObjectException):
        client.get_partition("h", "t", missing)
    with pytest.raises(hive.NoSuchObjectException):
        client.drop_partition_by_name_with_environment_context("h", "t", "byteField=99/shortField=999", False, None)
    with pytest.raises(hive.InvalidOperationException, match="alter is not possible"):
        client.alter_partitions_with_environment_context(
            "h", "t", [hive.Partition(values=missing, dbName="h", tableName="t", sd=part.sd)], None
        )
    # a failed call changes nothing: an add of a new and an existing partition adds neither
    new = hive.Partition(values=missing, dbName="h", tableName="t", sd=part.sd)
    with pytest.raises(hive.AlreadyExistsException):
        client.add_partitions_req(
            hive.AddPartitionsRequest(dbName="h", tblName="t", parts=[new, part], ifNotExists=False, needResult=True)
        )
    assert (hms_view(client, "h", "t"), hudi_view(catalog, "h")) == before
    # the answer with needResult: only what was added
    added = client.add_partitions_req(
        hive.AddPartitionsRequest(dbName="h", tblName="t", parts=[new, part], ifNotExists=True, needResult=True)
    )
    assert [p.values for p in added.partitions] == [missing]
    assert catalog.snapshot.partition_paths("h", "t") == before[1][0]  # a Hive-only partition


def test_location_change_drop_and_recreation(catalog, client, tmp_path):
    storage = imported(catalog, tmp_path, COW)
    sync = HiveSync(client, "h", storage)
    moved, dropped = storage.partitions[0], storage.partitions[1]
    paths_before, slices_before = hudi_view(catalog, "h")

    # someone points a partition elsewhere; the next full sync sees the location differ and puts it back
    original = client.get_partition("h", "t", values_of(moved))
    elsewhere = copy.deepcopy(original)
    elsewhere.sd.location = f"file:{tmp_path}/elsewhere"
    client.alter_partitions_with_environment_context("h", "t", [elsewhere], None)
    assert client.get_partition("h", "t", values_of(moved)).sd.location == f"file:{tmp_path}/elsewhere"
    assert hudi_view(catalog, "h") == (paths_before, slices_before)  # the Hudi path is the partition's identity
    sync.sync(full=True)
    assert sync.calls.count("alter_partitions_with_environment_context") == 1
    restored = client.get_partition("h", "t", values_of(moved))
    assert restored.sd.location == f"{storage.base}/{moved}"
    assert restored.createTime == original.createTime
    assert hudi_view(catalog, "h") == (paths_before, slices_before)

    # Hudi deletes a partition (a replacecommit replacing all its file groups), hive sync drops it
    groups = [file_id for file_id, _, _ in slices_before[dropped]]
    delete_time = "20991231000000000"
    record(
        catalog,
        "t",
        delete_time,
        "replacecommit",
        {
            "partitionToWriteStats": {},
            "partitionToReplaceFileIds": {dropped: groups},
            "operationType": "DELETE_PARTITION",
            "extraMetadata": {},
        },
    )
    assert hudi_view(catalog, "h")[1][dropped] == []
    old_files = catalog.snapshot.live_files("h", "t", dropped)
    storage.last_commit = storage.last_completion = delete_time
    sync.sync(written=[dropped], dropped={dropped})
    assert sync.calls.count("drop_partition_by_name_with_environment_context") == 1
    with pytest.raises(hive.NoSuchObjectException):
        client.get_partition("h", "t", values_of(dropped))
    assert dropped not in catalog.snapshot.partition_paths("h", "t")
    with pytest.raises(NoSuchObjectError):
        catalog.snapshot.latest_file_slices("h", "t", partition=dropped)
    with pytest.raises(NoSuchObjectError):
        catalog.snapshot.live_files("h", "t", dropped)
    assert (Path(urlparse(storage.base).path) / dropped).is_dir()  # external, deleteData false: data stays
    with pytest.raises(hive.NoSuchObjectException):  # Hive: dropping it again is an error
        client.drop_partition_by_name_with_environment_context(
            "h",
            "t",
            "/".join(f"{k}={v}" for (k, _), v in zip(storage.partition_fields, values_of(dropped))),
            False,
            None,
        )

    # the cleaner then deletes the replaced files of the dropped partition: accepted, nothing to change
    record(
        catalog,
        "t",
        "20991231000000001",
        "clean",
        {
            "partitionMetadata": {dropped: {"partitionPath": dropped, "successDeleteFiles": old_files}},
            "earliestCommitToRetain": delete_time,
        },
    )
    # a clean of files this table never wrote, in a partition it never had, is still refused
    with pytest.raises(HudiMetadataError, match="does not have"):
        record(
            catalog,
            "t",
            "20991231000000002",
            "clean",
            {
                "partitionMetadata": {
                    "byteField=1/shortField=1": {
                        "partitionPath": "byteField=1/shortField=1",
                        "successDeleteFiles": ["x-0_0-1-1_1.parquet"],
                    }
                }
            },
        )

    # a later commit writes into the dropped partition: it is back in both views, with only the new files
    write_time = "20991231000000003"
    record(
        catalog,
        "t",
        write_time,
        "commit",
        {
            "partitionToWriteStats": {dropped: [write_stat(dropped, "new-group-0", write_time)]},
            "operationType": "INSERT",
            "extraMetadata": {},
        },
    )
    assert client.get_partition("h", "t", values_of(dropped)).sd.location == f"{storage.base}/{dropped}"
    assert catalog.snapshot.partition_paths("h", "t") == paths_before
    assert hudi_view(catalog, "h")[1][dropped] == [("new-group-0", f"new-group-0_0-1-1_{write_time}.parquet", ())]
    assert len(client.get_partition_names("h", "t", -1)) == len(paths_before)


def _synthetic(root: Path, partitions: int) -> tuple[Path, list[str]]:
    """A COPY_ON_WRITE table (version 6, key ``ds`` string, hive style) whose first commit writes
    ``partitions`` partitions; only ``.hoodie`` exists, which is all the importer reads."""
    base = root / "synth"
    (base / ".hoodie" / "archived").mkdir(parents=True)
    (base / ".hoodie" / "hoodie.properties").write_text(
        "hoodie.table.name=synth\nhoodie.table.type=COPY_ON_WRITE\nhoodie.table.version=6\n"
        "hoodie.table.partition.fields=ds\nhoodie.datasource.write.hive_style_partitioning=true\n"
        "hoodie.timeline.layout.version=1\nhoodie.archivelog.folder=archived\n"
    )
    paths = [f"ds=d{i:05d}" for i in range(partitions)]
    _commit(base, "20240101000000000", paths)
    return base, paths


_SCHEMA = json.dumps(
    {
        "type": "record",
        "name": "synth_record",
        "fields": [{"name": "id", "type": ["int", "null"]}, {"name": "ds", "type": ["string", "null"]}],
    }
)


def _commit(base: Path, ts: str, paths: list[str]) -> None:
    stats = {p: [write_stat(p, f"{p[3:]}-group-0", ts)] for p in paths}
    timeline = base / ".hoodie"
    (timeline / f"{ts}.commit.requested").write_bytes(b"")
    (timeline / f"{ts}.inflight").write_bytes(b"")
    (timeline / f"{ts}.commit").write_text(
        json.dumps({"partitionToWriteStats": stats, "operationType": "UPSERT", "extraMetadata": {"schema": _SCHEMA}})
    )


def test_many_partitions_sync_in_batches_of_1000(catalog, client, tmp_path):
    base, _ = _synthetic(tmp_path, 1200)
    HudiImporter(catalog).run(str(base), database="h", table="t")
    before = hudi_view(catalog, "h")
    assert len(before[0]) == 1200

    # storage gets a second commit rewriting those and writing 1300 more; the catalog has not seen it yet
    everything = [f"ds=d{i:05d}" for i in range(2500)]
    _commit(base, "20240102000000000", everything)
    storage = storage_of(base)
    storage.partitions = everything
    sync = HiveSync(client, "h", storage, pushdown=True)
    sync.add_partitions("t", everything[1200:])  # what the sync adds before it records the commit
    assert sync.batches == [1000, 300]
    assert hudi_view(catalog, "h") == before  # Hive-only partitions until a commit writes into them
    sync.sync(written=everything)  # 1 key x 2500 partitions > 1000: the min/max form; all there
    # a second sync that listed before the first one added re-adds all of them: no-ops
    sync.add_partitions("t", everything)
    assert sync.batches == [1000, 300, 1000, 1000, 500]
    names = client.get_partition_names("h", "t", -1)
    assert len(names) == len(set(names)) == 2500

    # the sync's last alter recorded the second commit: the server followed it, and the partitions hive
    # sync added are the ones it writes into
    assert catalog.snapshot.partition_paths("h", "t") == everything
    assert HudiImporter(catalog).run(str(base), database="h", table="t").recorded == 0
    assert len(client.get_partition_names("h", "t", -1)) == 2500
    slices = hudi_view(catalog, "h")[1]
    assert all(
        found == [(f"{p[3:]}-group-0", f"{p[3:]}-group-0_0-1-1_20240102000000000.parquet", ())]
        for p, found in slices.items()
    )
    assert [p.sd.location for p in client.get_partitions_by_names("h", "t", ["ds=d02499"])] == [
        f"{storage.base}/ds=d02499"
    ]

    # 1000 written partitions: the nested OR form, one pair of parentheses per partition
    written = everything[700:1700]
    text = pushdown_filter(written, [("ds", "string")])
    assert text.startswith("(" * 999 + 'ds = "d00700" OR ds = "d00701")')
    found = client.get_partitions_by_filter("h", "t", text, -1)
    assert sorted(p.values[0] for p in found) == [p[3:] for p in written]
    assert client.get_num_partitions_by_filter("h", "t", text) == 1000
    pushed = HiveSync(client, "h", storage, pushdown=True)
    pushed.sync(written=written)
    assert not CHANGES & set(pushed.calls)


def test_two_key_pushdown_filter_of_the_real_table(catalog, client, tmp_path):
    storage = imported(catalog, tmp_path, COW)
    fields = [("byteField", "int"), ("shortField", "int")]
    text = pushdown_filter(storage.partitions, fields)
    assert text.startswith("(((byteField = ") and text.count(" AND shortField = ") == 3
    found = client.get_partitions_by_filter("h", "t", text, -1)
    assert sorted(tuple(p.values) for p in found) == sorted(tuple(values_of(p)) for p in storage.partitions)
    one = pushdown_filter(storage.partitions[:1], fields)
    assert [p.values for p in client.get_partitions_by_filter("h", "t", one, -1)] == [values_of(storage.partitions[0])]
    # 500 partitions of two keys (the largest Hudi pushes as equalities), none of them there
    many = [f"byteField={i}/shortField={i}" for i in range(1000, 1500)]
    assert client.get_partitions_by_filter("h", "t", pushdown_filter(many, fields), -1) == []


@pytest.mark.parametrize("name", [NON_HIVE_STYLE, "sample_table_cow_v6_simplekeygen_nonhivestyle"])
def test_sync_first_then_the_followed_timeline_adopts_the_partitions(catalog, client, tmp_path, name):
    base = unpack(name, tmp_path)
    storage = storage_of(base)
    sync = HiveSync(client, "h", storage)
    sync.sync()
    assert sync.calls[:4] == ["get_database", "create_database", "get_table", "create_table_with_environment_context"]
    assert sync.batches == [3]
    hms_after = hms_view(client, "h", "t")
    assert [row[1] for row in hms_after] == [f"{storage.base}/{p}" for p in storage.partitions]

    # the sync's last alter recorded the latest commit: the server read the timeline from storage
    # (hive_sync_follow.py); the version of a table hive sync registered comes from storage
    assert catalog.tables.get("h", "t").parameters["hoodie.table.version"] == name.split("_v")[1][0]
    assert catalog.snapshot.partition_paths("h", "t") == storage.partitions
    assert our_slices(catalog, "t") == oracle_slices(HudiTableBuilder.from_base_uri(str(base)).build())
    assert HudiImporter(catalog).run(str(base), database="h", table="t").recorded == 0
    assert hms_view(client, "h", "t") == hms_after  # the same rows, Hive metadata kept
    again = HiveSync(client, "h", storage)
    again.sync(full=True)
    assert not CHANGES & set(again.calls)


def test_sync_ahead_of_the_asynchronous_snapshot(db_url, warehouse, tmp_path):
    """The timeline is recorded, its snapshot not applied yet: hive sync adds the partitions to the three
    tables, then applying the instants finds them and gives them their Hudi paths."""
    catalog = Catalog.open(db_url, str(warehouse), snapshot_sync="async")
    server = RunningServer(catalog)
    client = server.client()
    try:
        base = unpack(MOR, tmp_path)
        HudiImporter(catalog).run(str(base), database="h", table="t")
        storage = storage_of(base)
        assert catalog.partitions.list("h", "t") == []
        sync = HiveSync(client, "h", storage)
        sync.sync(full=True)
        assert sync.batches == [len(storage.partitions)] * 3
        hms_before = {t: hms_view(client, "h", t) for t in tables_of(storage)}

        assert catalog.snapshot.sync_pending() > 0
        assert {t: hms_view(client, "h", t) for t in tables_of(storage)} == hms_before
        assert catalog.snapshot.partition_paths("h", "t") == storage.partitions
        assert our_slices(catalog, "t") == oracle_slices(HudiTableBuilder.from_base_uri(str(base)).build())
    finally:
        client.close()
        server.stop()
        catalog.close()


def test_a_timeline_the_server_cannot_read_does_not_fail_the_sync(catalog, client, tmp_path, caplog):
    base = unpack(NON_HIVE_STYLE, tmp_path)
    storage = storage_of(base)
    client.create_database(hive.Database(name="h"))
    HiveSync(client, "h", storage).create_table("t", False, False)
    (base / ".hoodie" / "hoodie.properties").unlink()  # storage the server cannot read as a Hudi table
    table = client.get_table("h", "t")
    table.parameters[LAST_COMMIT_SYNC] = "20240101000000000"
    client.alter_table_with_environment_context("h", "t", table, hive.EnvironmentContext(properties={}))

    assert client.get_table("h", "t").parameters[LAST_COMMIT_SYNC] == "20240101000000000"  # the alter holds
    assert catalog.timeline.instants("h", "t") == []
    assert "its timeline at" in caplog.text and "could not be read" in caplog.text
