"""The HMS notification event calls of ``MetastoreHandler``: convert, call ``Catalog.events``, convert back."""

from __future__ import annotations

import logging

from hudi_catalog import Catalog
from hudi_catalog.authorization import ObjectType, Operation
from hudi_catalog.catalog_scope import DEFAULT_CATALOG
from hudi_catalog.errors import InvalidInputError
from hudi_catalog.events import AcidWrite, StoredEvent

from . import connection
from .access_rules import access
from .convert.names import catalog_of_name, strip_catalog
from .idl import hive

log = logging.getLogger(__name__)

EVENT_CONFIG = {
    # what event consumers check at start (Impala's catalogd requires the first two as they are here)
    "hive.metastore.dml.events": "true",
    "metastore.catalog.default": DEFAULT_CATALOG,
    "hive.metastore.notifications.add.thrift.objects": "true",
    "hive.metastore.transactional.event.listeners": "org.apache.hive.hcatalog.listener.DbNotificationListener",
}
"""Configuration values true of this server: every change writes its event (with its Thrift objects) in the
changing transaction, as Hive's ``DbNotificationListener`` does as a transactional listener."""


def _to_thrift(event: StoredEvent):
    return hive.NotificationEvent(
        eventId=event.event_id,
        eventTime=event.event_time,
        eventType=event.type,
        dbName=event.database,
        tableName=event.table,
        message=event.message,
        messageFormat=event.message_format,
        catName=event.catalog,
    )


def _catalog_filter(rqst) -> str | None:
    """The catalog whose events a request asks for: ``catName``, or that of an ``@<catalog>#<db>`` name;
    None (every catalog's) when it names none."""
    return rqst.catName or catalog_of_name(rqst.dbName)


class EventCalls:
    """Mixed into ``MetastoreHandler``."""

    catalog: Catalog

    @access(Operation.ADMIN, ObjectType.GLOBAL)
    def get_current_notificationEventId(self):
        return hive.CurrentNotificationEventId(eventId=self.catalog.events.current_id())

    @access(Operation.ADMIN, ObjectType.GLOBAL)
    def hudi_record_events(self, recorded):
        """This server's own: whether this connection's changes log notification events. ``hudi-metastore
        copy`` turns them off, since the metastore it copies from logged them already."""
        connection.current().records_events = bool(recorded)
        log.info(
            "notification events %s for the connection from %s", "on" if recorded else "off", connection.current().peer
        )

    @access(Operation.ADMIN, ObjectType.GLOBAL)
    def hudi_continue_events_after(self, eventId):
        """This server's own: the next event's id follows ``eventId`` at least (a copy continues the ids of
        the metastore it copies, so that consumers neither miss nor replay events); answers the newest id."""
        if eventId is None or eventId < 0:
            raise hive.MetaException(message=f"Invalid event id {eventId}: an event id is not negative")
        return hive.CurrentNotificationEventId(eventId=self.catalog.events.continue_after(eventId))

    @access(Operation.ADMIN, ObjectType.GLOBAL)
    def get_next_notification(self, rqst):
        """Events after ``lastEvent`` (at most ``maxEvents`` when positive), filtered as Hive 3/4 requests
        ask. Events removed by their time to live are simply not there, as in Hive: consumers see the gap."""
        max_events = rqst.maxEvents if rqst.maxEvents is not None and rqst.maxEvents > 0 else -1
        events = self.catalog.events.after(
            rqst.lastEvent or 0,
            max_events,
            strip_catalog(rqst.dbName) or None,
            rqst.tableNames,
            rqst.eventTypeSkipList,
            _catalog_filter(rqst),
        )
        return hive.NotificationEventResponse(events=[_to_thrift(e) for e in events])

    @access(Operation.ADMIN, ObjectType.GLOBAL)
    def get_notification_events_count(self, rqst):
        count = self.catalog.events.count(
            rqst.fromEventId or 0, strip_catalog(rqst.dbName) or None, _catalog_filter(rqst), rqst.toEventId, rqst.limit
        )
        return hive.NotificationEventsCountResponse(eventsCount=count)

    @access(Operation.ADMIN, ObjectType.GLOBAL)
    def fire_listener_event(self, rqst):
        """An engine's ``INSERT`` events (Hive 2.3's one insert, or Hive 3/4's list of them)."""
        data = rqst.data
        inserts = (
            [data.insertData]
            if data is not None and data.insertData is not None
            else list(data.insertDatas or [])
            if data is not None
            else []
        )
        if not inserts or not rqst.dbName or not rqst.tableName:
            raise InvalidInputError("fire_listener_event needs a database, a table and insert data")
        ids = []
        for insert in inserts:
            hive3_layout = insert.filesAdded is None
            files = insert.filesAddedChecksum if hive3_layout else insert.filesAdded
            checksums = insert.hive3FilesAddedChecksum if hive3_layout else insert.filesAddedChecksum
            values = insert.partitionVal or rqst.partitionVals
            ids.append(
                self.catalog.events.insert(
                    strip_catalog(rqst.dbName) or "",
                    rqst.tableName,
                    values or None,
                    list(files or []),
                    list(checksums or []),
                )
            )
        return hive.FireEventResponse(eventIds=ids)

    @access(Operation.ADMIN, ObjectType.GLOBAL)
    def add_write_notification_log(self, rqst):
        """A transactional write's files (Hive 3/4's ``addWriteNotificationLog``), logged as ``ACID_WRITE``."""
        self.catalog.events.acid_writes(strip_catalog(rqst.db) or "", rqst.table, [_acid_write(rqst)])
        return hive.WriteNotificationLogResponse()

    @access(Operation.ADMIN, ObjectType.GLOBAL)
    def add_write_notification_log_in_batch(self, rqst):
        """Several of a table's transactional writes at once (one per partition), in one transaction."""
        writes = [_acid_write(request) for request in rqst.requestList or []]
        self.catalog.events.acid_writes(strip_catalog(rqst.db) or "", rqst.table, writes)
        return hive.WriteNotificationLogBatchResponse()


def _acid_write(rqst) -> AcidWrite:
    """One write notification; its ``fileInfo`` is in the Hive 3/4 layout of ``InsertEventRequestData``
    (files in field 2, checksums in field 3)."""
    if rqst.fileInfo is None or not rqst.db or not rqst.table:
        raise InvalidInputError("a write notification needs a database, a table and its files")
    info = rqst.fileInfo
    return AcidWrite(
        txn_id=rqst.txnId,
        write_id=rqst.writeId,
        files=list(info.filesAddedChecksum or []),
        checksums=list(info.hive3FilesAddedChecksum or []),
        partition_values=list(rqst.partitionVals) if rqst.partitionVals else None,
    )
