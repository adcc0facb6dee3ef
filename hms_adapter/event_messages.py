"""Hive's JSON notification messages (``json-0.2``): the ``EventFormat`` the HMS front end opens the catalog
with, so every event a change writes is one Hive's ``JSONMessageDeserializer`` reads.

Each message carries the properties of Hive 2.3's message classes and those Hive 3 and 4 added (Impala's
catalogd reads ``tableObjJson``, ``partitionListJson``, ``dbJson``, ``isTruncateOp``...); deserializers
ignore properties they do not know. Objects are embedded as Thrift ``TJSONProtocol`` text.
"""

from __future__ import annotations

import json
from typing import TypeVar

from hudi_catalog.catalog_scope import current_catalog
from hudi_catalog.events import CatalogEvent, EventType
from hudi_catalog.model import Partition, Table
from hudi_catalog.partition_names import make_partition_name

from .convert.database import to_thrift_database
from .convert.function import to_thrift_function
from .convert.partition import to_thrift_partition
from .convert.table import to_thrift_table
from .convert.tjson import to_tjson

MESSAGE_FORMAT = "json-0.2"

T = TypeVar("T")


def _carried(value: T | None, what: str, event: CatalogEvent) -> T:
    """An object the event must carry for its message; a ``ValueError`` names an event built without it."""
    if value is None:
        raise ValueError(f"a {event.type} event carries no {what}")
    return value


def _table_json(table: Table) -> str:
    return to_tjson(to_thrift_table(table))


def _partition_json(partition: Partition) -> str:
    return to_tjson(to_thrift_partition(partition))


def _key_values(table: Table, partition: Partition) -> dict[str, str]:
    """The partition's values by key name, in key order (Hive's ``getPartitionKeyValues``)."""
    return {k.name: v for k, v in zip(table.partition_keys, partition.values)}


class HiveJsonMessages:
    """Renders ``CatalogEvent``s as Hive's JSON messages."""

    name = MESSAGE_FORMAT

    def render(self, event: CatalogEvent) -> str:
        message = {"server": "", "servicePrincipal": "", **self._body(event), "timestamp": event.timestamp}
        return json.dumps(message, separators=(",", ":"), ensure_ascii=False)

    @staticmethod
    def _body(event: CatalogEvent) -> dict:
        kind = event.type
        if kind in (EventType.CREATE_DATABASE, EventType.DROP_DATABASE):
            database = _carried(event.database, "database", event)
            return {"cat": current_catalog(), "db": database.name, "dbJson": to_tjson(to_thrift_database(database))}
        if kind == EventType.ALTER_DATABASE:
            database = _carried(event.database, "database", event)
            return {
                "cat": current_catalog(),
                "db": database.name,
                "dbObjBeforeJson": to_tjson(to_thrift_database(_carried(event.old_database, "old database", event))),
                "dbObjAfterJson": to_tjson(to_thrift_database(database)),
            }
        if kind == EventType.CREATE_FUNCTION:
            function = _carried(event.function, "function", event)
            return {"db": function.database, "functionObjJson": to_tjson(to_thrift_function(function))}
        if kind == EventType.DROP_FUNCTION:
            function = _carried(event.function, "function", event)
            return {"db": function.database, "functionName": function.name}
        table = _carried(event.table, "table", event)
        body = {"cat": current_catalog(), "db": table.database, "table": table.name, "tableType": table.table_type}
        truncated = "true" if event.truncate else "false"
        if kind == EventType.ALTER_TABLE:
            return {
                **body,
                "tableObjBeforeJson": _table_json(_carried(event.old_table, "old table", event)),
                "tableObjAfterJson": _table_json(table),
                "isTruncateOp": truncated,
                "writeId": 0,
            }
        body["tableObjJson"] = _table_json(table)
        if kind == EventType.CREATE_TABLE:
            return {**body, "files": []}
        if kind == EventType.DROP_TABLE:
            return body
        if kind == EventType.ADD_PARTITION:
            return {
                **body,
                "partitions": [_key_values(table, p) for p in event.partitions],
                "partitionListJson": [_partition_json(p) for p in event.partitions],
                "partitionFiles": [],
            }
        if kind == EventType.DROP_PARTITION:
            return {**body, "partitions": [_key_values(table, p) for p in event.partitions]}
        if kind == EventType.ALTER_PARTITION:
            before, after = event.old_partitions[0], event.partitions[0]
            return {
                **body,
                "keyValues": _key_values(table, before),
                "isTruncateOp": truncated,
                "writeId": 0,
                "partitionObjBeforeJson": _partition_json(before),
                "partitionObjAfterJson": _partition_json(after),
            }
        partition = event.partitions[0] if event.partitions else None
        if kind == EventType.INSERT:
            return {
                **body,
                "replace": "true" if event.replace else "false",
                "files": _files(event),
                "partKeyVals": _key_values(table, partition) if partition else None,
                **({"ptnObjJson": _partition_json(partition)} if partition else {}),
            }
        if kind == EventType.ACID_WRITE:  # Hive 3/4's JSONAcidWriteMessage: "database", not "db"
            return {
                "txnid": event.txn_id,
                "writeId": event.write_id,
                "database": table.database,
                "table": table.name,
                "partition": make_partition_name([k.name for k in table.partition_keys], partition.values)
                if partition
                else None,
                "tableObjJson": body["tableObjJson"],
                "partitionObjJson": _partition_json(partition) if partition else None,
                "files": _files(event),
            }
        raise ValueError(f"no Hive message for event type {kind}")


def _files(event: CatalogEvent) -> list[str]:
    """The files an insert or a transactional write added, each with ``#<checksum>`` when it has one."""
    with_checksums = [f"{f}#{c}" if c else f for f, c in zip(event.files, event.file_checksums)]
    return with_checksums + event.files[len(event.file_checksums) :]
