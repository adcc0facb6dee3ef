"""The HMS partition calls of ``MetastoreHandler`` that read partitions (get, list, names, by filter, specs),
Hive 3/4's request forms included: call ``Catalog.partitions`` and answer. Partition lists are answered
from cached encodings (``EncodedPartitionList``) unless a request asks for a trimmed answer."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from thriftpy2.thrift import TApplicationException

from hudi_catalog import Catalog
from hudi_catalog.authorization import ObjectType, Operation
from hudi_catalog.catalog_scope import current_catalog
from hudi_catalog.errors import CatalogError, InvalidFilterError, NoSuchTableError, UnsupportedExpressionError
from hudi_catalog.model import TableKeys

from .access_rules import access
from .call_helpers import bare_db
from .convert.partition import key_pattern, to_thrift_partition, to_thrift_partition_spec, trim_partition
from .convert.partition_wire import (
    NAME_LIST,
    EncodedNameList,
    EncodedPartition,
    EncodedPartitionList,
    assemble_name_list,
    assemble_partition,
    assemble_partition_list,
    encode_partition_fields,
)
from .idl import hive

log = logging.getLogger("hms_adapter.handler")  # the handler's log lines keep their logger name


def _limit(max_parts) -> int:
    """Hive's ``max_parts``: negative (usually -1) means no limit."""
    return -1 if max_parts is None or max_parts < 0 else max_parts


def _partition_order(order: str | None) -> list[tuple[int, bool]]:
    """HiveServer2 4's ``SHOW PARTITIONS ... ORDER BY``: partition key positions, then one ``+`` or ``-`` each
    (``"1,0:-+"``), as ``(position, descending)``."""
    if not order:
        return []
    positions, _, directions = order.partition(":")
    try:
        keys = [int(p) for p in positions.split(",")]
    except ValueError:
        raise hive.MetaException(message=f"Invalid partition order {order!r}") from None
    if len(keys) != len(directions) or set(directions) - {"+", "-"}:
        raise hive.MetaException(message=f"Invalid partition order {order!r}")
    return [(key, direction == "-") for key, direction in zip(keys, directions)]


class PartitionReadCalls:
    """Mixed into ``MetastoreHandler``."""

    catalog: Catalog

    @access(Operation.READ, ObjectType.TABLE)
    def get_partition(self, db_name, tbl_name, part_vals) -> EncodedPartition:
        """From the partition's cached encoding (made and cached here when it has none), as lists are."""
        table, found = self.catalog.partitions.get_encoded(bare_db(db_name), tbl_name, part_vals or [])
        if isinstance(found, bytes):
            encoding = found
        else:
            encoding = encode_partition_fields(found.partition)
            self._save_encodings(table, [(found.part_id, found.revision, encoding)])
        return EncodedPartition(assemble_partition(table.database, table.name, encoding))

    @access(Operation.READ, ObjectType.TABLE)
    def get_partition_req(self, req):
        partition = self.get_partition(req.dbName, req.tblName, req.partVals).to_thrift()
        return hive.GetPartitionResponse(partition=partition)

    @access(Operation.READ, ObjectType.TABLE)
    def get_partition_with_auth(self, db_name, tbl_name, part_vals, user_name, group_names):
        return self.get_partition(db_name, tbl_name, part_vals)

    @access(Operation.READ, ObjectType.TABLE)
    def get_partition_by_name(self, db_name, tbl_name, part_name):
        return to_thrift_partition(self.catalog.partitions.get_by_name(bare_db(db_name), tbl_name, part_name))

    @access(Operation.READ, ObjectType.TABLE)
    def get_partitions(self, db_name, tbl_name, max_parts):
        return self._list(db_name, tbl_name, max_parts)

    @access(Operation.READ, ObjectType.TABLE)
    def get_partitions_with_auth(self, db_name, tbl_name, max_parts, user_name, group_names):
        return self._list(db_name, tbl_name, max_parts)

    @access(Operation.READ, ObjectType.TABLE)
    def get_partitions_ps(self, db_name, tbl_name, part_vals, max_parts):
        return self._list(db_name, tbl_name, max_parts, part_vals)

    @access(Operation.READ, ObjectType.TABLE)
    def get_partitions_ps_with_auth(self, db_name, tbl_name, part_vals, max_parts, user_name, group_names):
        return self._list(db_name, tbl_name, max_parts, part_vals)

    def _list(self, db_name, tbl_name, max_parts, part_vals=None):
        return self._encoded(db_name, tbl_name, values=part_vals, max_parts=_limit(max_parts))

    def _save_encodings(self, table: TableKeys, encodings: list[tuple[int, int, bytes]]) -> None:
        """Cache encodings made for an answer; the answer stands if that fails (the next read encodes again)."""
        try:
            self.catalog.partitions.save_encodings(encodings)
        except CatalogError as error:
            log.warning("could not cache %d partition encodings of %s: %s", len(encodings), table.qualified_name, error)

    def _encoded(self, db_name, tbl_name, wrapper=None, **selection) -> EncodedPartitionList:
        """Partitions as cached encodings; those not cached yet are encoded here and cached for next time.
        A list whose every partition is encoded is kept whole, as its reply's bytes, in the catalog's cache.

        ``wrapper``: the Hive 3/4 response struct that carries the list, if any.
        """

        def assemble(table: TableKeys, encodings: Sequence[bytes]) -> bytes:
            return assemble_partition_list(table.database, table.name, encodings, wrapper)

        table, found, missing = self.catalog.partitions.read_encoded(
            bare_db(db_name), tbl_name, assemble=assemble, assembly=(wrapper, current_catalog()), **selection
        )
        if isinstance(found, bytes):  # every partition was encoded: the whole answer
            return EncodedPartitionList(found, wrapper)
        fresh = [encode_partition_fields(e.partition) for e in missing]
        self._save_encodings(table, [(e.part_id, e.revision, b) for e, b in zip(missing, fresh)])
        filled = iter(fresh)
        return EncodedPartitionList(
            assemble(table, [encoded if encoded is not None else next(filled) for encoded in found]), wrapper
        )

    # Hive 3/4 request forms. Hive 4's options to trim answers (skipColumnSchemaForPartition, include/exclude
    # parameter key patterns, an empty pattern being none) are honoured by building those answers without the
    # encoding cache.

    @access(Operation.READ, ObjectType.TABLE)
    def get_partitions_req(self, req):
        return self._requested(req.dbName, req.tblName, req, hive.PartitionsResponse, max_parts=_limit(req.maxParts))

    @access(Operation.READ, ObjectType.TABLE)
    def get_partitions_ps_with_auth_req(self, req):
        wrapper = hive.GetPartitionsPsWithAuthResponse
        if req.partNames:
            return self._requested(req.dbName, req.tblName, req, wrapper, names=req.partNames)
        return self._requested(
            req.dbName, req.tblName, req, wrapper, values=req.partVals, max_parts=_limit(req.maxParts)
        )

    @access(Operation.READ, ObjectType.TABLE)
    def get_partitions_by_filter_req(self, req):
        return self._filter_call(
            self._requested,
            req.dbName,
            req.tblName,
            req,
            None,
            filter_text=req.filter or "",
            max_parts=_limit(req.maxParts),
        )

    @access(Operation.READ, ObjectType.TABLE)
    def get_partitions_by_names_req(self, req):
        return self._requested(req.db_name, req.tbl_name, req, hive.GetPartitionsByNamesResult, names=req.names or [])

    @access(Operation.READ, ObjectType.TABLE)
    def get_partition_names_ps_req(self, req):
        names = self.catalog.partitions.names(bare_db(req.dbName), req.tblName, _limit(req.maxParts), req.partValues)
        return hive.GetPartitionNamesPsResponse(names=names)

    def _requested(self, db_name, tbl_name, req, wrapper, **selection):
        """A request-style partition list, trimmed as the request asks."""
        include, exclude = key_pattern(req.includeParamKeyPattern), key_pattern(req.excludeParamKeyPattern)
        if not (req.skipColumnSchemaForPartition or include or exclude):
            return self._encoded(db_name, tbl_name, wrapper, **selection)
        found = self.catalog.partitions.read(bare_db(db_name), tbl_name, **selection)
        parts = [
            to_thrift_partition(trim_partition(p, req.skipColumnSchemaForPartition, include, exclude)) for p in found
        ]
        return parts if wrapper is None else wrapper(partitions=parts)

    # Hive's serialized expressions (hudi_catalog.pruning.hive_expressions). An expression this server cannot
    # evaluate exactly is answered as a metastore without the call: Hive's client then lists the partitions
    # and prunes them itself, as it does against a metastore that cannot read its expressions.

    @access(Operation.READ, ObjectType.TABLE)
    def get_partitions_by_expr(self, req):
        wrapper, most = hive.PartitionsByExprResult, _limit(req.maxParts)
        return self._pruned(
            req,
            "listPartitionsByExpr",
            lambda chosen: self._requested(req.dbName, req.tblName, req, wrapper, filter_text=chosen, max_parts=most),
        )

    @access(Operation.READ, ObjectType.TABLE)
    def get_partitions_spec_by_expr(self, req):
        """HiveServer2 4's pruning: the partitions as one ``PartitionSpec`` (the composing form)."""

        def answer(chosen):
            db_name, most = bare_db(req.dbName), _limit(req.maxParts)
            found = self.catalog.partitions.read(db_name, req.tblName, filter_text=chosen, max_parts=most)
            include, exclude = key_pattern(req.includeParamKeyPattern), key_pattern(req.excludeParamKeyPattern)
            parts = [trim_partition(p, bool(req.skipColumnSchemaForPartition), include, exclude) for p in found]
            table = self.catalog.tables.get(db_name, req.tblName)
            spec = to_thrift_partition_spec(table.database, table.name, table.sd.location, parts)
            return hive.PartitionsSpecByExprResult(partitionsSpec=[spec], hasUnknownPartitions=False)

        return self._pruned(req, "listPartitionsSpecByExpr", answer)

    @access(Operation.READ, ObjectType.TABLE)
    def get_partition_names_req(self, req):
        """Hive 4's ``SHOW PARTITIONS ... WHERE``: its client has no fallback, so an expression this server
        cannot evaluate exactly is refused with a ``MetaException`` that says why."""
        chosen = self._expression(req)
        if not chosen.exact:
            raise hive.MetaException(message=f"This metastore cannot evaluate {chosen.text} on partitions exactly")
        return self.catalog.partitions.names_matching(
            bare_db(req.dbName), req.tblName, chosen, _limit(req.maxParts), _partition_order(req.order)
        )

    def _expression(self, req):
        try:
            return self.catalog.partitions.expression(req.expr or b"", req.defaultPartitionName)
        except UnsupportedExpressionError as error:
            raise hive.MetaException(message=str(error)) from error

    def _pruned(self, req, client_call: str, answer):
        """``answer(filter)`` for the request's expression, or Thrift's ``UNKNOWN_METHOD`` (which Hive's
        ``client_call`` turns into its fallback) for one this server cannot evaluate exactly."""
        try:
            chosen = self.catalog.partitions.expression(req.expr or b"", req.defaultPartitionName)
            if chosen.exact:
                return answer(chosen)
            reason = f"{chosen.text} cannot be evaluated exactly here"
        except UnsupportedExpressionError as error:
            reason = str(error)
        log.info("%s of %s.%s: the client prunes: %s", client_call, req.dbName, req.tblName, reason)
        raise TApplicationException(TApplicationException.UNKNOWN_METHOD, f"{client_call}: {reason}")

    @access(Operation.READ, ObjectType.TABLE)
    def get_partition_names(self, db_name, tbl_name, max_parts):
        return self._names(db_name, tbl_name, max_parts)

    def _names(self, db_name, tbl_name, max_parts, part_vals=None) -> EncodedNameList:
        """Partition names as their reply's bytes, kept whole in the catalog's cache."""
        return EncodedNameList(
            self.catalog.partitions.names_answer(
                bare_db(db_name), tbl_name, assemble_name_list, NAME_LIST, _limit(max_parts), part_vals
            )
        )

    @access(Operation.READ, ObjectType.TABLE)
    def fetch_partition_names_req(self, partitionReq):
        return self.get_partition_names(partitionReq.dbName, partitionReq.tblName, partitionReq.maxParts)

    @access(Operation.READ, ObjectType.TABLE)
    def get_partition_names_ps(self, db_name, tbl_name, part_vals, max_parts):
        return self._names(db_name, tbl_name, max_parts, part_vals)

    @access(Operation.READ, ObjectType.TABLE)
    def get_partitions_by_names(self, db_name, tbl_name, names):
        return self._encoded(db_name, tbl_name, names=names or [])

    @access(Operation.READ, ObjectType.TABLE)
    def get_partitions_by_filter(self, db_name, tbl_name, filter, max_parts):
        return self._filter_call(
            self._encoded, db_name, tbl_name, filter_text=filter or "", max_parts=_limit(max_parts)
        )

    @access(Operation.READ, ObjectType.TABLE)
    def get_num_partitions_by_filter(self, db_name, tbl_name, filter):
        return self._filter_call(self.catalog.partitions.count_by_filter, bare_db(db_name), tbl_name, filter)

    @access(Operation.READ, ObjectType.TABLE)
    def get_part_specs_by_filter(self, db_name, tbl_name, filter, max_parts):
        parts = self._by_filter(db_name, tbl_name, filter, max_parts)
        table = self.catalog.tables.get(bare_db(db_name), tbl_name)
        return [to_thrift_partition_spec(table.database, table.name, table.sd.location, parts)]

    @access(Operation.READ, ObjectType.TABLE)
    def get_partitions_with_specs(self, request):
        """Hive 4's listing: partitions chosen by names, partial values or filters (``BY_EXPR``, ANDed), their
        parameters trimmed by the projection's key patterns, as one ``PartitionSpec``. The projection's field
        list is not applied: the partitions are whole."""
        chosen = request.filterSpec
        filters = (chosen.filters or []) if chosen else []
        selection: dict = {}
        if filters:
            if chosen.filterMode == hive.PartitionFilterMode.BY_NAMES:
                selection["names"] = filters
            elif chosen.filterMode == hive.PartitionFilterMode.BY_VALUES:
                selection["values"] = filters
            elif chosen.filterMode == hive.PartitionFilterMode.BY_EXPR:
                selection["filter_text"] = " and ".join(f"({f})" for f in filters)
            else:
                raise hive.MetaException(message=f"Unsupported filter mode {chosen.filterMode}")
        projection = request.projectionSpec
        include = key_pattern(projection.includeParamKeyPattern) if projection else None
        exclude = key_pattern(projection.excludeParamKeyPattern) if projection else None
        parts = self._filter_call(self.catalog.partitions.read, bare_db(request.dbName), request.tblName, **selection)
        if include or exclude:
            parts = [trim_partition(p, False, include, exclude) for p in parts]
        table = self.catalog.tables.get(bare_db(request.dbName), request.tblName)
        spec = to_thrift_partition_spec(table.database, table.name, table.sd.location, parts)
        return hive.GetPartitionsResponse(partitionSpec=[spec])

    def _by_filter(self, db_name, tbl_name, filter, max_parts):
        return self._filter_call(
            self.catalog.partitions.by_filter, bare_db(db_name), tbl_name, filter, _limit(max_parts)
        )

    @staticmethod
    def _filter_call(action, *args, **kwargs):
        """Filter calls answer a missing table with NoSuchObjectException, a bad filter with MetaException."""
        try:
            return action(*args, **kwargs)
        except NoSuchTableError as e:
            raise hive.NoSuchObjectException(message=str(e)) from e
        except InvalidFilterError as e:
            raise hive.MetaException(message=str(e)) from e
