"""Hudi's metaserver protocol (``ThriftHoodieMetaserver``) over the catalog's timeline and snapshot.

Hudi writers configured with ``hoodie.metaserver.enabled=true`` and ``hoodie.metaserver.uris`` create
instants and move them through their states here instead of writing instant files; completing an instant
applies it to the table's file snapshot in the same transaction. The snapshot calls at the end of the IDL
(``listPartitions``, ``getLatestFileSlices``, ``getFilesChanged``, ``listPartitionsByWhere``) are ours; a
remote ``hudi_catalog.spark.read_table`` reads through them (``metaserver_client.py``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from hudi_catalog import Catalog
from hudi_catalog.errors import (
    AlreadyExistsError,
    InvalidOperationError,
    NoSuchDatabaseError,
    NoSuchObjectError,
    StorageError,
)
from hudi_catalog.hudi.properties import TABLE_TYPE, TABLE_VERSION, stored_table_config
from hudi_catalog.instant_times import is_instant_time
from hudi_catalog.model import EXTERNAL_TABLE, Column, Database, InstantState, StorageDescriptor, Table
from hudi_catalog.read_source import LocalCatalogSource

from .convert.instants import from_thrift_instant, to_thrift_instant
from .errors import ErrorPreferences
from .idl import ThriftStruct, metaserver

log = logging.getLogger(__name__)

METASERVER_PREFERENCES: ErrorPreferences = [
    (NoSuchDatabaseError, (metaserver.NoSuchObjectException, metaserver.MetaserverException)),
    (NoSuchObjectError, (metaserver.NoSuchObjectException, metaserver.MetaserverException)),
    (AlreadyExistsError, (metaserver.AlreadyExistException, metaserver.MetaserverException)),
    (StorageError, (metaserver.MetaserverStorageException,)),
    (Exception, (metaserver.MetaserverException, metaserver.MetaserverStorageException)),
]
"""Catalog errors as the metaserver's exceptions; every method declares at least the storage exception."""

METASERVER_TABLE_VERSION = "6"
"""The Hudi table version of tables created through the metaserver without one: its instants carry no
completion time, as in version 6 timelines."""


class MetaserverHandler:
    def __init__(self, catalog: Catalog, on_commit: Callable[[], None] = lambda: None) -> None:
        """``on_commit`` hears of each instant completed through the metaserver (metrics)."""
        self.catalog = catalog
        self._on_commit = on_commit

    def run_call(self, api: str, action):
        """Each call through ``Catalog.call``: tried again through a short database outage."""
        return self.catalog.call(action, api)

    # -- databases and tables -----------------------------------------------------------------------

    def createDatabase(self, db):
        self.catalog.databases.create(Database(db))

    def createTable(self, table):
        """As Hudi's own metaserver, a table whose database does not exist yet is created with it. What the
        writer does not send (Hudi's client sends neither version, type nor partition keys) comes from the
        ``hoodie.properties`` it wrote at the table's location, when the server can read it."""
        parameters = dict(table.parameters or {})
        stored = stored_table_config(table.location) if table.location else None
        partition_keys = [Column(k.name, k.type or "string", k.comments) for k in table.partitionKeys or []]
        if stored is not None:
            parameters.setdefault(TABLE_VERSION, str(stored.version))
            parameters.setdefault(TABLE_TYPE, stored.table_type)
            partition_keys = partition_keys or [Column(name, "string") for name in stored.partition_fields]
        parameters.setdefault(TABLE_VERSION, METASERVER_TABLE_VERSION)
        if table.tableType:
            parameters.setdefault(TABLE_TYPE, table.tableType)
        parameters.setdefault("EXTERNAL", "TRUE")
        created = Table(
            table.databaseName,
            table.tableName,
            owner=table.owner,
            create_time=table.createTime or 0,
            table_type=EXTERNAL_TABLE,
            parameters=parameters,
            partition_keys=partition_keys,
            sd=StorageDescriptor(location=table.location),
        )
        try:
            self.catalog.tables.create(created)
        except NoSuchDatabaseError:
            try:
                self.catalog.databases.create(Database(table.databaseName))
            except AlreadyExistsError:
                pass  # another writer made it meanwhile
            self.catalog.tables.create(created)

    def getTable(self, db, tb):
        table = self.catalog.tables.get(db, tb)
        return metaserver.Table(
            tableName=table.name,
            databaseName=table.database,
            owner=table.owner,
            createTime=table.create_time,
            location=table.sd.location,
            # Hudi's client reads the type as an enum; its own metaserver answers COPY_ON_WRITE for every table
            tableType=table.parameters.get(TABLE_TYPE) or "COPY_ON_WRITE",
            partitionKeys=[
                metaserver.FieldSchema(name=k.name, type=k.type, comments=k.comment) for k in table.partition_keys
            ],
            parameters=dict(table.parameters),
            columns=[metaserver.FieldSchema(name=c.name, type=c.type, comments=c.comment) for c in table.sd.columns],
        )

    # -- timeline -----------------------------------------------------------------------------------

    def listInstants(self, db, tb, num):
        """The table's instants in timeline order; ``num`` > 0 keeps only the latest ``num``."""
        instants = self.catalog.timeline.instants(db, tb, limit=num if num and num > 0 else None)
        return [to_thrift_instant(i) for i in instants]

    def getInstantMetadata(self, db, tb, instant):
        ts, action, state = from_thrift_instant(instant)
        return self.catalog.timeline.metadata(db, tb, ts, action, state)

    def createNewInstantTime(self, db, tb):
        return self.catalog.timeline.new_instant_time(db, tb)

    def createNewInstantWithTime(self, db, tb, instant, content):
        ts, action, state = from_thrift_instant(instant)
        created = self.catalog.timeline.create(db, tb, ts, action, state, content or None)
        return metaserver.HoodieInstantChangeResult(success=True, instant=to_thrift_instant(created))

    def transitionInstantState(self, db, tb, fromInstant, toInstant, metadata):
        ts, action, from_state = from_thrift_instant(fromInstant)
        to_ts, to_action, to_state = from_thrift_instant(toInstant)
        if (to_ts, to_action) != (ts, action):
            raise InvalidOperationError(f"a transition keeps the instant: {ts} {action} -> {to_ts} {to_action}")
        moved = self.catalog.timeline.transition(db, tb, ts, action, from_state, to_state, metadata or None)
        if moved.state is InstantState.COMPLETED:
            self._on_commit()
        return metaserver.HoodieInstantChangeResult(success=True, instant=to_thrift_instant(moved))

    def deleteInstant(self, db, tb, instant):
        ts, action, _ = from_thrift_instant(instant)
        self.catalog.timeline.delete(db, tb, ts, action)
        return metaserver.HoodieInstantChangeResult(success=True, instant=instant)

    # -- snapshot (hudi-metastore's additions) ------------------------------------------------------

    def listPartitions(self, db, tb):
        return self.catalog.snapshot.partition_paths(db, tb)

    def getLatestFileSlices(self, db, tb, partition, asOfInstant):
        if asOfInstant and not is_instant_time(asOfInstant):
            raise InvalidOperationError(f"not an instant time: {asOfInstant!r}")
        slices = self.catalog.snapshot.latest_file_slices(db, tb, partition or "", asOfInstant or None)
        return [
            metaserver.THoodieFileSlice(
                partition=s.partition_path,
                fileId=s.file_id,
                baseInstant=s.base_instant,
                baseFile=s.base_file,
                logFiles=list(s.log_files),
            )
            for found in slices.values()
            for s in found
        ]

    def listPartitionsByWhere(self, db, tb, whereClause):
        """The partitions a remote ``read_table`` reads, pruned as an in-process read prunes them."""
        return [
            metaserver.THoodiePartition(path=p.path, values=list(p.values))
            for p in LocalCatalogSource(self.catalog).partitions(db, tb, whereClause or None)
        ]

    def getFilesChanged(self, db, tb, beginInstant, endInstant):
        """One entry per file group that instants in ``(begin, end]`` touched, with the files they added."""
        for ts in (beginInstant, endInstant):
            if not is_instant_time(ts or ""):
                raise InvalidOperationError(f"not an instant time: {ts!r}")
        groups: dict[tuple[str, str], ThriftStruct] = {}
        for path, file_id, name, instant_ts in self.catalog.snapshot.files_changed(db, tb, beginInstant, endInstant):
            entry = groups.setdefault(
                (path, file_id),
                metaserver.THoodieFileSlice(
                    partition=path, fileId=file_id, baseInstant=instant_ts, baseFile=None, logFiles=[]
                ),
            )
            if name.startswith("."):
                entry.logFiles.append(name)
            else:
                entry.baseFile, entry.baseInstant = name, instant_ts
        return list(groups.values())
