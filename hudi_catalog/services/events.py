"""Reading notification events (``EventService``); each change writes its own with ``event_log.EventLog``.

Events older than the time to live are removed by ``EventService.remove_expired`` (the server runs it every
minute).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from sqlalchemy import Connection

from .. import config
from ..errors import NoSuchPartitionError
from ..events import AcidWrite, CatalogEvent, EventType, StoredEvent
from ..model import Partition, Table
from ..names import normalize
from ..partition_names import make_partition_name
from ..store import events as event_store
from ..store import partitions as partition_store
from ..store import tables as table_store
from .context import ServiceContext

log = logging.getLogger(__name__)


class EventService:
    def __init__(self, ctx: ServiceContext, ttl_seconds: float = config.EVENT_TTL_SECONDS_DEFAULT) -> None:
        if ttl_seconds <= 0:
            raise ValueError("the event time to live must be positive")
        self.ctx = ctx
        self.ttl_seconds = ttl_seconds

    def current_id(self) -> int:
        """The id of the newest event (0 when none was ever logged)."""
        with self.ctx.store.read() as conn:
            return event_store.last_id(conn)

    def continue_after(self, event_id: int) -> int:
        """Make the next event's id follow ``event_id`` at least (a copy continues the source's ids; the
        counter never goes back); returns the id of the newest event, as ``current_id`` will."""
        if event_id < 0:
            raise ValueError("an event id is not negative")
        with self.ctx.store.write() as conn:
            return event_store.continue_after(conn, event_id)

    def after(
        self,
        last_event: int,
        max_events: int = -1,
        database: str | None = None,
        tables: Sequence[str] | None = None,
        skip_types: Sequence[str] | None = None,
        catalog: str | None = None,
    ) -> list[StoredEvent]:
        """Events after ``last_event`` in id order (at most ``max_events``; negative: all). Events removed
        by their time to live are not there: a consumer sees the gap in the ids."""
        with self.ctx.store.read() as conn:
            return event_store.after(
                conn,
                last_event,
                max_events,
                normalize(database) if database else None,
                [normalize(t) for t in tables or []],
                skip_types,
                catalog,
            )

    def count(
        self,
        from_event: int,
        database: str | None = None,
        catalog: str | None = None,
        to_event: int | None = None,
        limit: int | None = None,
    ) -> int:
        with self.ctx.store.read() as conn:
            return event_store.count(
                conn, from_event, normalize(database) if database else None, catalog, to_event, limit
            )

    def insert(
        self,
        database: str,
        table: str,
        partition_values: Sequence[str] | None,
        files: Sequence[str],
        checksums: Sequence[str] = (),
        replace_data: bool = False,
    ) -> int:
        """Log an ``INSERT`` event (an engine wrote ``files`` into the table or one of its partitions);
        returns its id.

        Raises:
            NoSuchTableError / NoSuchPartitionError: the table or partition does not exist.
        """
        with self.ctx.store.write() as conn:
            model, partitions = self._written(conn, database, table, partition_values)
            event = CatalogEvent(
                EventType.INSERT,
                table=model,
                partitions=partitions,
                files=list(files),
                file_checksums=list(checksums),
                replace=replace_data,
            )
            logged = self.ctx.events.emit_all(conn, [event], self.ctx.now(), requested=True)
        return logged.ids[0]

    def acid_writes(self, database: str, table: str, writes: Sequence[AcidWrite]) -> list[int]:
        """Log an ``ACID_WRITE`` event per transactional write into the table (Hive's write notification log),
        all in one transaction; returns their ids.

        Raises:
            NoSuchTableError / NoSuchPartitionError: the table or a partition does not exist; nothing is logged.
        """
        if not writes:
            return []
        with self.ctx.store.write() as conn:
            events = []
            for write in writes:
                model, partitions = self._written(conn, database, table, write.partition_values)
                events.append(
                    CatalogEvent(
                        EventType.ACID_WRITE,
                        table=model,
                        partitions=partitions,
                        files=list(write.files),
                        file_checksums=list(write.checksums),
                        txn_id=write.txn_id,
                        write_id=write.write_id,
                    )
                )
            logged = self.ctx.events.emit_all(conn, events, self.ctx.now(), requested=True)
        return logged.ids

    def _written(
        self, conn: Connection, database: str, table: str, partition_values: Sequence[str] | None
    ) -> tuple[Table, list[Partition]]:
        """The table a write went into, and its partition of ``partition_values`` (none when not given)."""
        row = table_store.get_row(conn, normalize(database), normalize(table))
        model = self.ctx.table_model(conn, row)
        if not partition_values:
            return model, []
        name = make_partition_name([k.name for k in model.partition_keys], list(partition_values))
        partitions = partition_store.read(conn, model, row.tbl_id, partition_store.selection(row.tbl_id, names=[name]))
        if not partitions:
            raise NoSuchPartitionError(f"partition {name} of {model.qualified_name} does not exist")
        return model, partitions

    def remove_expired(self) -> int:
        """Delete events older than the time to live; how many."""
        with self.ctx.store.write() as conn:
            removed = event_store.delete_before(conn, self.ctx.now() - int(self.ttl_seconds))
        if removed:
            log.info("removed %d notification events older than %d s", removed, self.ttl_seconds)
        return removed
