"""Catalog change events: what changed, as listeners see it, and how an event becomes a stored message.

Every service writes the event of its change in the changing transaction (``EventLog.emit``), so an event
exists exactly when its change committed. The message text is made by an ``EventFormat`` the catalog is
opened with: the HMS front end installs Hive's JSON messages; the catalog's own format names the objects.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

from .model import Database, Function, Partition, Table


class EventType(str, Enum):
    """Hive's notification event types (the ``eventType`` strings consumers match on)."""

    CREATE_DATABASE = "CREATE_DATABASE"
    ALTER_DATABASE = "ALTER_DATABASE"
    DROP_DATABASE = "DROP_DATABASE"
    CREATE_TABLE = "CREATE_TABLE"
    ALTER_TABLE = "ALTER_TABLE"
    DROP_TABLE = "DROP_TABLE"
    ADD_PARTITION = "ADD_PARTITION"
    ALTER_PARTITION = "ALTER_PARTITION"
    DROP_PARTITION = "DROP_PARTITION"
    CREATE_FUNCTION = "CREATE_FUNCTION"
    DROP_FUNCTION = "DROP_FUNCTION"
    INSERT = "INSERT"
    ACID_WRITE = "ACID_WRITE"


@dataclass(frozen=True)
class CatalogEvent:
    """One committed change with the objects it concerns.

    ``database``/``table``/``function``: the object created or dropped, or its new state after an alter
    (``old_*`` its state before). Partition events carry their ``table`` and ``partitions`` (for an alter,
    the partition after, ``old_partitions`` before; a dropped partition may carry only its values and
    location, all that a drop's message names); an insert names the ``files`` written, and a
    transactional write (``ACID_WRITE``) also its ``txn_id`` and ``write_id``. ``truncate`` marks the alter of
    a table or partition whose data was deleted.
    """

    type: EventType
    database: Database | None = None
    old_database: Database | None = None
    table: Table | None = None
    old_table: Table | None = None
    partitions: list[Partition] = field(default_factory=list)
    old_partitions: list[Partition] = field(default_factory=list)
    function: Function | None = None
    files: list[str] = field(default_factory=list)
    file_checksums: list[str] = field(default_factory=list)
    replace: bool = False
    truncate: bool = False
    txn_id: int = 0
    write_id: int = 0
    timestamp: int = 0

    @property
    def db_name(self) -> str | None:
        for owner in (self.table, self.function, self.database):
            if owner is not None:
                return owner.database if not isinstance(owner, Database) else owner.name
        return None

    @property
    def table_name(self) -> str | None:
        return self.table.name if self.table is not None else None


@dataclass(frozen=True)
class AcidWrite:
    """The files a transaction wrote into a table, or into its partition of ``partition_values``, under
    ``write_id`` (Hive's write notification)."""

    txn_id: int
    write_id: int
    files: list[str]
    checksums: list[str] = field(default_factory=list)
    partition_values: list[str] | None = None


@dataclass(frozen=True)
class StoredEvent:
    """An event as the log keeps it."""

    event_id: int
    event_time: int
    type: str
    database: str | None
    table: str | None
    message: str
    message_format: str
    catalog: str = "hive"


class EventFormat(Protocol):
    """Turns an event into its stored message text."""

    name: str
    """The ``messageFormat`` stored with each message."""

    def render(self, event: CatalogEvent) -> str: ...


class NamesFormat:
    """The catalog's own format: the event type and the names of the objects."""

    name = "hudi-names-1"

    def render(self, event: CatalogEvent) -> str:
        return json.dumps(
            {
                "type": event.type.value,
                "db": event.db_name,
                "table": event.table_name,
                "partitions": [p.values for p in event.partitions],
                "function": event.function.name if event.function is not None else None,
            }
        )
