"""The HMS lock and transaction calls of ``MetastoreHandler``: convert, call ``Catalog.locks`` or
``Catalog.txns``, convert back."""

from __future__ import annotations

from hudi_catalog import Catalog
from hudi_catalog.authorization import ObjectType, Operation

from .access_rules import access
from .convert.locks import (
    from_thrift_lock_request,
    from_valid_txn_list,
    to_thrift_open_txns,
    to_thrift_show_locks_element,
    to_thrift_table_write_ids,
    to_thrift_txn_info,
)
from .convert.names import strip_catalog
from .convert.open_txns_wire import BothLayoutsOpenTxns
from .idl import hive

TXN_TIMEOUT_KEYS = ("hive.txn.timeout", "metastore.txn.timeout")
"""Hive 2's and Hive 3's names of ``hive.txn.timeout``; Trino reads the second (``get_config_value`` without a
default) to heartbeat its transactions at half the timeout, and fails its transactional writes without it."""


def txn_config(catalog: Catalog) -> dict[str, str]:
    """The configuration values of this server's transactions, as Hive 3's ``MetastoreConf`` answers them."""
    return dict.fromkeys(TXN_TIMEOUT_KEYS, f"{catalog.txns.timeout_ms / 1000:g}s")


class LockCalls:
    """Mixed into ``MetastoreHandler``."""

    catalog: Catalog

    # -- locks ------------------------------------------------------------------------------------------

    @access(Operation.READ, ObjectType.GLOBAL)
    def lock(self, rqst):
        status = self.catalog.locks.lock(from_thrift_lock_request(rqst))
        return hive.LockResponse(lockid=status.lock_id, state=int(status.state))

    @access(Operation.READ, ObjectType.GLOBAL)
    def check_lock(self, rqst):
        status = self.catalog.locks.check(rqst.lockid)
        return hive.LockResponse(lockid=status.lock_id, state=int(status.state))

    @access(Operation.READ, ObjectType.GLOBAL)
    def unlock(self, rqst):
        self.catalog.locks.unlock(rqst.lockid)

    @access(Operation.READ, ObjectType.GLOBAL)
    def heartbeat(self, ids):
        if ids is None:
            return
        if ids.lockid:
            self.catalog.locks.heartbeat(ids.lockid)
        if ids.txnid:
            self.catalog.txns.heartbeat(ids.txnid)

    @access(Operation.READ, ObjectType.GLOBAL)
    def show_locks(self, rqst):
        rqst = rqst or hive.ShowLocksRequest()
        held = self.catalog.locks.show(rqst.dbname, rqst.tablename, rqst.partname, rqst.txnid)
        return hive.ShowLocksResponse(locks=[to_thrift_show_locks_element(h) for h in held])

    @access(Operation.READ, ObjectType.GLOBAL)
    def add_write_ids_to_min_history(self, txnId, writeIds):
        """Hive 4's reader notes the lowest write ids it may read, for its cleaner to keep; with no cleaner
        here (nothing compacts), there is nothing to keep them for. HiveServer2 4 calls it before every read of
        a transactional table."""

    @access(Operation.READ, ObjectType.GLOBAL)
    def update_transaction_statistics(self, req):
        """Hive 4's writer counts the rows a transaction inserted, updated and deleted in a table, which Hive
        Metastore keeps for the rebuilds of materialized views over it; they are not kept here."""

    @access(Operation.READ, ObjectType.GLOBAL)
    def get_latest_txnid_in_conflict(self, txnId):
        """The latest transaction whose writes conflict with ``txnId``'s (HiveServer2 4 asks before it makes a
        materialized view over a transactional table): 0, none, as this server keeps no write sets to compare
        (writers of one table are kept apart by their locks, [locks.md](locks.md))."""
        return 0

    @access(Operation.READ, ObjectType.GLOBAL)
    def show_compact(self, rqst):
        """``SHOW COMPACTIONS``: none, ever. This server has no compactor and queues no compaction (``compact``
        is not served), so the queue Hive's shows is empty."""
        return hive.ShowCompactResponse(compacts=[])

    # -- transactions -----------------------------------------------------------------------------------

    @access(Operation.READ, ObjectType.GLOBAL)
    def open_txns(self, rqst):
        ids = self.catalog.txns.open(
            rqst.num_txns or 0, rqst.user or "", rqst.hostname or "", rqst.agentInfo, rqst.txn_type or 0
        )
        return hive.OpenTxnsResponse(txn_ids=ids)

    @access(Operation.READ, ObjectType.GLOBAL)
    def commit_txn(self, rqst):
        self.catalog.txns.commit(rqst.txnid)

    @access(Operation.READ, ObjectType.GLOBAL)
    def abort_txn(self, rqst):
        self.catalog.txns.abort([rqst.txnid])

    @access(Operation.READ, ObjectType.GLOBAL)
    def abort_txns(self, rqst):
        self.catalog.txns.abort(list(rqst.txn_ids or []), strict=False)

    @access(Operation.READ, ObjectType.GLOBAL)
    def heartbeat_txn_range(self, txns):
        aborted, unknown = self.catalog.txns.heartbeat_range(txns.min, txns.max)
        return hive.HeartbeatTxnRangeResponse(aborted=aborted, nosuch=unknown)

    @access(Operation.READ, ObjectType.GLOBAL)
    def get_open_txns(self):
        """Both layouts of ``open_txns`` at once (``convert/open_txns_wire.py``): nothing tells a Hive 2.3
        client from a Hive 3+ one here."""
        return BothLayoutsOpenTxns(self.catalog.txns.snapshot())

    @access(Operation.READ, ObjectType.GLOBAL)
    def get_open_txns_req(self, getOpenTxnsRequest):
        """Hive 4's form, answered in Hive 4's layout (``open_txns`` a list)."""
        return to_thrift_open_txns(self.catalog.txns.snapshot(), hive.GetOpenTxnsResponseHive4)

    @access(Operation.READ, ObjectType.GLOBAL)
    def get_open_txns_info(self):
        high_water_mark, infos = self.catalog.txns.infos()
        return hive.GetOpenTxnsInfoResponse(
            txn_high_water_mark=high_water_mark, open_txns=[to_thrift_txn_info(i) for i in infos]
        )

    # -- write ids ---------------------------------------------------------------------------------------

    @access(Operation.READ, ObjectType.GLOBAL)
    def allocate_table_write_ids(self, rqst):
        # write ids are keyed by database and table name only (as Hive's): a ``@catalog#`` prefix is not kept
        database = strip_catalog(rqst.dbName) or ""
        pairs = self.catalog.txns.allocate_write_ids(database, rqst.tableName, list(rqst.txnIds or []))
        return hive.AllocateTableWriteIdsResponse(
            txnToWriteIds=[hive.TxnToWriteId(txnId=t, writeId=w) for t, w in pairs]
        )

    @access(Operation.READ, ObjectType.GLOBAL)
    def add_dynamic_partitions(self, rqst):
        """Hive 2.3's or Hive 3+'s layout of the request (``convert/dynamic_partitions_wire.py``)."""
        self.catalog.txns.add_dynamic_partitions(
            rqst.txnid, strip_catalog(rqst.dbname) or "", rqst.tablename, list(rqst.partitionnames or [])
        )

    @access(Operation.READ, ObjectType.GLOBAL)
    def get_valid_write_ids(self, rqst):
        ids = self.catalog.txns.valid_write_ids(list(rqst.fullTableNames or []), from_valid_txn_list(rqst.validTxnList))
        return hive.GetValidWriteIdsResponse(tblValidWriteIds=[to_thrift_table_write_ids(i) for i in ids])
