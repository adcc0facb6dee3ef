"""Partitions: add, read, list, filter, alter, rename and drop, with their directories.

Every call works on one table and costs a fixed number of queries, whatever the number of partitions.
"""

from __future__ import annotations

import builtins
import logging
import sys
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import cast

from sqlalchemy import Connection, Select

from ..call_settings import current_settings
from ..errors import (
    AlreadyExistsError,
    BatchTooLargeError,
    CatalogError,
    InvalidFilterError,
    InvalidObjectError,
    InvalidOperationError,
    NoSuchObjectError,
    NoSuchPartitionError,
    NoSuchTableError,
    UnsupportedExpressionError,
)
from ..events import CatalogEvent, EventType
from ..model import MANAGED_TABLE, VIEW_OF_PARAM, Partition, StorageDescriptor, Table, TableKeys, UnencodedPartition
from ..names import check_partition_lengths, normalize
from ..partition_names import (
    check_partition_values,
    make_partition_name,
    partition_name_to_spec,
    partition_name_to_values,
    values_for_keys,
)
from ..pruning import filter_to_clause, parse_partition_filter, where_to_filter
from ..pruning.expression_filter import ExpressionFilter, expression_filter
from ..pruning.hive4_like import LikeRule
from ..pruning.hive_expressions import decode_expression
from ..read_cache import RevisionCache, digest
from ..stats import derived_from_slices, keep_slice_stats, should_update, update_fast_stats
from ..store import databases as db_store
from ..store import descriptors, schema
from ..store import locations as location_store
from ..store import partitions as partition_store
from ..store import tables as table_store
from ..store.locations import Spared
from ..store.tables import TableRecord
from ..typed_keys import type_family, typed_key
from ..warehouse import join, qualify
from . import directories
from .context import DDL_TIME, ServiceContext
from .tables import purges_data

log = logging.getLogger(__name__)


def _java_list(values: Sequence[str]) -> str:
    return "[" + ", ".join(values) + "]"


def _columns_key(columns) -> tuple:
    return tuple((c.name, c.type, c.comment) for c in columns)


# -- creating partitions: the one path ------------------------------------------------------------


def partition_storage(table: Table, sd: StorageDescriptor | None, location: str | None) -> StorageDescriptor:
    """The storage descriptor of a new partition of ``table`` at ``location``: ``sd`` (the table's when None),
    with the table's columns when it names none."""
    sd = replace(sd) if sd else replace(table.sd)
    if not sd.columns:
        sd.columns = list(table.sd.columns)
    sd.location = location
    return sd


def default_location(table: Table, relative: str) -> str | None:
    """Where a partition of ``table`` without a location lives: ``<table location>/<relative>`` (its name, or
    the Hudi partition path); none for a table without a location (a view's partitions, as in Hive)."""
    return join(table.sd.location, relative) if table.sd.location else None


def create_partitions(
    ctx: ServiceContext,
    conn: Connection,
    row: TableRecord,
    table: Table,
    partitions: Mapping[str, Partition],
    now: int,
    *,
    present: Collection[str] = (),
    views: bool = False,
    encoded: bool = True,
) -> dict[str, tuple[int, Partition]]:
    """Create partitions of ``table`` (``row``: its ``tbl`` row) in ``conn``'s transaction: the one way a
    partition comes to be, whoever asks (DDL and hive sync through ``PartitionService.add``, a Hudi commit
    through ``SnapshotService``). Returns ``{name: (part_id, partition as created)}``.

    ``partitions``: ``{name: partition}``, checked and placed (storage descriptor, location) by the caller;
    those named in ``present`` the table has already, and they are not created. Each partition is created as
    ``table``'s (``_as_created``: its create time and ``transient_lastDdlTime`` ``now`` unless given), stored
    with the schema version of its columns (``insert_many`` raises the table's partitions revision, which
    invalidates every read cache of them), and one ADD_PARTITION event is logged for the table.

    With ``views``, the tables that are views of ``table`` (``VIEW_OF_PARAM``: a MERGE_ON_READ table's ``_ro``
    and ``_rt``) get every one of ``partitions`` they lack (those in ``present`` too), each with the view's
    own storage descriptor at the same location, as Hudi's hive sync adds them, and an event each, after the
    table's.

    With the front end's ``ctx.partition_encoding``, each new partition is stored with its encoding, made
    from the partition as created (which is the partition as it reads back), so that its first read need
    not make one; not with ``encoded`` False, for a caller that changes the partitions again in the same
    transaction (a Hudi commit sets their statistics), which drops the encodings.
    """
    encode = ctx.partition_encoding if encoded else None
    stamped = {name: _as_created(table, part, now) for name, part in partitions.items()}
    created = _insert(conn, row, table, {name: p for name, p in stamped.items() if name not in present}, encode)
    events = [CatalogEvent(EventType.ADD_PARTITION, table=table, partitions=[p for _, p in created.values()])]
    if views:
        for view_id in table_store.ids_with_param(conn, row.db_id, VIEW_OF_PARAM, table.name):
            view_row = table_store.row_by_id(conn, view_id)
            if view_row is None:  # dropped meanwhile
                continue
            view = ctx.table_model(conn, view_row)
            existing = partition_store.ids_by_name(conn, view_id, stamped)
            shown = {
                name: _as_created(view, replace(part, sd=partition_storage(view, None, part.sd.location)), now)
                for name, part in stamped.items()
                if name not in existing
            }
            view_created = _insert(conn, view_row, view, shown, encode)
            events.append(
                CatalogEvent(EventType.ADD_PARTITION, table=view, partitions=[p for _, p in view_created.values()])
            )
    ctx.events.emit_all(conn, [e for e in events if e.partitions], now)
    return created


def _as_created(table: Table, part: Partition, now: int) -> Partition:
    """``part`` as a partition of ``table`` is created: named by the table's (normalized) names, its create
    time and ``transient_lastDdlTime`` ``now`` unless it brings them (Hive's ``initializeAddedPartition``)."""
    parameters = dict(part.parameters or {})
    parameters.setdefault(DDL_TIME, str(now))
    return replace(
        part, database=table.database, table=table.name, parameters=parameters, create_time=part.create_time or now
    )


def _insert(
    conn: Connection,
    row: TableRecord,
    table: Table,
    partitions: Mapping[str, Partition],
    encode: Encode | None = None,
) -> dict[str, tuple[int, Partition]]:
    """Insert partitions of ``table``, each with the schema version of its columns (the table's own, or one
    looked up or added per distinct column list of the call, not per partition), and with ``encode``'s
    encoding of it."""
    versions = {_columns_key(table.sd.columns): row.schema_version}
    entries = []
    for name, part in partitions.items():
        key = _columns_key(part.sd.columns)
        if key not in versions:
            versions[key] = descriptors.find_or_add_schema_version(
                conn, row.tbl_id, row.schema_version, part.sd.columns, table.partition_keys
            )
        entries.append((name, part, versions[key]))
    encodings = None if encode is None else {name: _encoding(encode, part) for name, part, _ in entries}
    ids = partition_store.insert_many(conn, row.tbl_id, table.partition_keys, entries, encodings)
    return {name: (ids[name], part) for name, part, _ in entries}


def _encoding(encode: Encode, part: Partition) -> bytes | None:
    """``encode(part)``; ``None`` (encoded at its first read instead) if the encoder refuses it."""
    try:
        return encode(part)
    except ValueError as refused:
        log.warning("partition %s of %s.%s left unencoded: %s", part.values, part.database, part.table, refused)
        return None


Encode = Callable[[Partition], bytes]
"""A front end's wire encoding of one partition (``Catalog(partition_encoding=...)``), which the catalog keeps
with it (``read_encoded``); raises ``ValueError`` for a partition it cannot encode."""

Assemble = Callable[[TableKeys, Sequence[bytes]], bytes]
"""A front end's whole answer made of the encodings of a list of partitions (``read_encoded``)."""


@dataclass(frozen=True)
class _Answer:
    """A list the partition read cache holds: how many partitions, and their names or encodings (a tuple),
    or a front end's whole answer made of them (bytes)."""

    count: int
    value: tuple | bytes


def _list_bytes(found: _Answer) -> int:
    """Bytes of what the partition read cache holds."""
    value = found.value
    size = sys.getsizeof(value) + (sum(map(sys.getsizeof, value)) if isinstance(value, tuple) else 0)
    return sys.getsizeof(found) + size


def _cache_key(table: TableKeys, kind: Hashable, values, names, filter_text, max_parts) -> tuple:
    """The table, the kind of list and a digest of what the client asked: a filter or a list of names
    of any length costs the cache 32 bytes."""
    return (
        table.id,
        kind,
        digest(
            None if values is None else tuple(values),
            None if names is None else tuple(names),
            filter_text,
            max_parts,
        ),
    )


def _ordered(names: Sequence[str], table: TableKeys, order: Sequence[tuple[int, bool]]) -> builtins.list[str]:
    """``names`` sorted by the keys of ``order`` (``(key position, descending)``, the first deciding first)."""
    keys = table.partition_keys
    if any(not 0 <= position < len(keys) for position, _ in order):
        raise InvalidObjectError(f"Invalid partition order {list(order)} for {len(keys)} partition keys")
    values = {name: partition_name_to_values(name) for name in names}
    ordered = builtins.list(names)
    for position, descending in reversed(order):  # a stable sort per key, the last key first
        ordered.sort(key=_sort_value(values, position, keys[position].type, descending), reverse=descending)
    return ordered


def _sort_value(values: Mapping[str, Sequence[str]], position: int, key_type: str, descending: bool):
    """The sort key of a name by its value at ``position``: typed keys by their typed value, the default
    partition (no typed value) last whichever the direction."""

    def value_of(name: str) -> tuple[bool, str]:
        text = values[name][position]
        typed = typed_key(key_type, text) if type_family(key_type) is not None else text
        return (typed is None) != descending, typed or ""

    return value_of


def _log_answer(table: TableKeys, names, filter_text: str | ExpressionFilter | None, count: int, source: str) -> None:
    """The DEBUG lines that show what a client's selection came to (operators and the engine tests read
    them to see a query pruned by the metastore): by names, and by filter, answered ``source`` (in SQL,
    from the cache)."""
    if names is not None:
        log.debug("partitions of %s by %d names: %d", table.qualified_name, len(names), count)
    if filter_text is not None:
        log.debug("filter %r on %s answered %s: %d partitions", filter_text, table.qualified_name, source, count)


class PartitionService:
    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx
        # lists of partition names and of wire encodings, keyed on tbl.partitions_revision (read_cache.py)
        self._cache: RevisionCache[_Answer] = RevisionCache(ctx.cache_memory, copies=False, weigh=_list_bytes)

    # -- helpers ----------------------------------------------------------------------------------

    def _table(self, conn: Connection, database: str, table: str, lock: bool = False) -> tuple[TableRecord, Table]:
        """The table's ``tbl`` row and model; the row carries ``tbl_id`` and the current ``schema_version``."""
        row = table_store.get_row(conn, normalize(database), normalize(table), lock=lock)
        return row, self.ctx.table_model(conn, row)

    @staticmethod
    def _name(table: Table | TableKeys, values: Sequence[str]) -> str:
        if len(values) != len(table.partition_keys):
            raise InvalidObjectError(
                f"Invalid partition key & values; keys {_java_list([k.name for k in table.partition_keys])}, "
                f"values {_java_list(list(values))}"
            )
        return make_partition_name([k.name for k in table.partition_keys], list(values))

    def _find_one(self, conn: Connection, tbl_id: int, table: Table, values: Sequence[str]) -> Partition:
        found = partition_store.read(
            conn, table, tbl_id, partition_store.selection(tbl_id, names=[self._name(table, values)])
        )
        if not found:
            raise NoSuchPartitionError(f"partition values={_java_list(list(values))}")
        return found[0]

    # -- add ----------------------------------------------------------------------------------------

    def add(
        self,
        database: str,
        table_name: str,
        parts: Sequence[Partition],
        if_not_exists: bool = False,
        environment: Mapping[str, str] | None = None,
    ) -> list[Partition]:
        """Add partitions of one table in one transaction; returns those added.

        A partition without location gets ``<table location>/<partition name>``; its directory is made.
        Directories are made (and fast statistics gathered) before the write transaction, so that the
        catalog database's write lock is held only while rows are written; done again inside it if the
        table changed meanwhile.

        Raises:
            InvalidObjectError: the table does not exist, or values do not match the partition keys.
            AlreadyExistsError: a partition exists (unless ``if_not_exists``) or is listed twice.
            BatchTooLargeError: more partitions than ``max_batch_partitions``.
        """
        self._check_batch(len(parts), database, table_name)
        made_dirs: list[str] = []
        try:
            with self.ctx.store.read() as conn:
                row, table = self._table_to_add_to(conn, database, table_name)
                named = self._named(table, parts)
                existing = partition_store.ids_by_name(conn, row.tbl_id, named)
            self._check_new(table, existing, if_not_exists)
            now = self.ctx.now()
            prepared = {
                name: self._prepared(table, name, part, now, made_dirs, environment)
                for name, part in named.items()
                if name not in existing
            }
            with self.ctx.store.write() as conn:
                # locked first: concurrent adds to one table queue, and the later one sees what the
                # first added (skipped with if_not_exists, AlreadyExists otherwise)
                locked, locked_table = self._table_to_add_to(conn, database, table_name, lock=True)
                if (locked.tbl_id, locked.revision) != (row.tbl_id, row.revision):  # changed meanwhile
                    table, named, prepared = locked_table, self._named(locked_table, parts), {}
                row = locked
                existing = partition_store.ids_by_name(conn, row.tbl_id, named)
                self._check_new(table, existing, if_not_exists)
                ready = {
                    name: prepared.get(name) or self._prepared(table, name, part, now, made_dirs, environment)
                    for name, part in named.items()
                    if name not in existing
                }
                created = create_partitions(self.ctx, conn, row, table, ready, now)
                made = set(made_dirs)
                location_store.record_made(
                    conn, schema.partitions, [part_id for part_id, part in created.values() if part.sd.location in made]
                )
        except Exception:
            self._discard_unclaimed(made_dirs)
            raise
        return [part for _, part in created.values()]

    def _discard_unclaimed(self, made_dirs: Sequence[str]) -> None:
        """After a failed add: delete the directories it made, but those a live object now has as its location
        or holds. Directories are made before the transaction, so a concurrent add of the same partition may
        have committed a partition at a directory this call made and is losing for."""
        if not made_dirs:
            return
        with self.ctx.store.read() as conn:
            directories_claimed = location_store.claimed(
                conn, [(self.ctx.warehouse.spellings(location), Spared()) for location in made_dirs]
            )
        for location, claimed in zip(made_dirs, directories_claimed):
            if claimed:
                log.info("keeping %s: a concurrent request added the partition living there", location)
            else:
                self.ctx.warehouse.discard_dir(location)

    def _check_batch(self, count: int, database: str, table_name: str) -> None:
        """``BatchTooLargeError`` when one call names more than ``max_batch_partitions`` partitions."""
        limit = self.ctx.max_batch_partitions
        if count > limit:
            table = f"{normalize(database)}.{normalize(table_name)}"
            raise BatchTooLargeError(
                f"Number of partitions in the request (={count}) on table '{table}' exceeds limit (={limit}). "
                "This is controlled on the metastore server by --max-batch-partitions."
            )

    def _table_to_add_to(self, conn: Connection, database: str, table_name: str, lock: bool = False):
        try:
            return self._table(conn, database, table_name, lock=lock)
        except NoSuchTableError as e:
            raise InvalidObjectError("Unable to add partition because table or database do not exist") from e

    def _named(self, table: Table, parts: Sequence[Partition]) -> dict[str, Partition]:
        """``{name: partition}`` of partitions to add to ``table``, each checked."""
        named: dict[str, Partition] = {}
        for part in parts:
            if (
                normalize(part.database or table.database) != table.database
                or normalize(part.table or table.name) != table.name
            ):
                raise InvalidObjectError(f"Partition does not belong to target table {table.qualified_name}")
            check_partition_values(part.values, current_settings().partition_value_pattern)
            name = self._name(table, part.values)
            check_partition_lengths(part.values, name)
            if name in named:
                raise CatalogError(f"Duplicate partitions in the list: {name}")
            named[name] = part
        return named

    @staticmethod
    def _check_new(table: Table, existing: Mapping[str, int], if_not_exists: bool) -> None:
        if existing and not if_not_exists:
            raise AlreadyExistsError(f"Partition already exists: {table.qualified_name}/{next(iter(existing))}")

    def _prepared(self, table: Table, name: str, part: Partition, now: int, made_dirs: list[str], environment):
        """What only this path does before ``create_partitions``: a location the client gave checked (the
        default is ``<table location>/<name>``), the directory made (recorded in ``made_dirs``), and fast
        statistics gathered by listing it."""
        given = part.sd.location if part.sd else table.sd.location
        if given:
            location: str | None = qualify(given)
            directories.check_location(
                self.ctx.warehouse, location, f"partition {name} of {table.qualified_name}", InvalidObjectError
            )
        else:
            location = default_location(table, name)
        sd = partition_storage(table, part.sd, location)
        made = location is not None and self.ctx.warehouse.make_dirs(location)
        if made and location is not None:
            made_dirs.append(location)
        parameters = dict(part.parameters or {})
        # a Hudi table's partitions get theirs from the timeline (SnapshotService)
        if location is not None and should_update(environment) and not derived_from_slices(table.parameters):
            update_fast_stats(parameters, self.ctx.warehouse, location, made, False, environment)
        return replace(part, sd=sd, parameters=parameters)

    def append(
        self,
        database: str,
        table_name: str,
        values: Sequence[str] | None = None,
        name: str | None = None,
        environment: Mapping[str, str] | None = None,
    ) -> Partition:
        """Add one partition with the table's storage descriptor, by values or by name."""
        with self.ctx.store.read() as conn:
            try:
                _, table = self._table(conn, database, table_name)
            except NoSuchTableError as e:
                raise InvalidObjectError("Unable to add partition because table or database do not exist") from e
        if name is not None:
            values = self._values_of_name(table, name, InvalidObjectError(f"Invalid partition name {name}"))
        elif values is None:
            raise InvalidObjectError("A partition to add needs its values or its name")
        sd = replace(table.sd, location=None)
        added = self.add(
            database, table_name, [Partition(table.database, table.name, list(values), sd=sd)], environment=environment
        )
        return added[0]

    @staticmethod
    def _values_of_name(table: Table, name: str, error: CatalogError) -> list[str]:
        """The values of a partition name of ``table``; ``error`` when the name does not fit its keys."""
        try:
            return values_for_keys([k.name for k in table.partition_keys], name)
        except (NoSuchObjectError, InvalidObjectError) as e:
            raise error from e

    # -- read ---------------------------------------------------------------------------------------

    def get(self, database: str, table_name: str, values: Sequence[str]) -> Partition:
        with self.ctx.store.read() as conn:
            row, table = self._table(conn, database, table_name)
            tbl_id = row.tbl_id
            return self._find_one(conn, tbl_id, table, values)

    def get_encoded(
        self, database: str, table_name: str, values: Sequence[str]
    ) -> tuple[TableKeys, bytes | UnencodedPartition]:
        """For a front end that caches encodings (``read_encoded``): one partition by its values, as its cached
        encoding, or as its model and revision when it has none (to encode and ``save_encodings``).

        Raises:
            NoSuchPartitionError: as ``get``.
        """
        with self.ctx.store.read() as conn:
            table = table_store.get_keys(conn, normalize(database), normalize(table_name))
            chosen = partition_store.selection(table.id, names=[self._name(table, values)])
            encodings, missing = partition_store.read_encoded(conn, table, table.id, chosen)
        if not encodings:
            raise NoSuchPartitionError(f"partition values={_java_list(list(values))}")
        return table, encodings[0] if encodings[0] is not None else missing[0]

    def get_by_name(self, database: str, table_name: str, name: str) -> Partition:
        with self.ctx.store.read() as conn:
            row, table = self._table(conn, database, table_name)
            tbl_id = row.tbl_id
            values = self._values_of_name(
                table, name, NoSuchPartitionError(f"partition {name} does not exist in {table.qualified_name}")
            )
            return self._find_one(conn, tbl_id, table, values)

    def list(
        self, database: str, table_name: str, max_parts: int = -1, values: Sequence[str] | None = None
    ) -> list[Partition]:
        """Partitions in name order; ``values`` are partial values where ``""`` matches anything."""
        return self.read(database, table_name, values=values, max_parts=max_parts)

    def read(
        self,
        database: str,
        table_name: str,
        *,
        values: Sequence[str] | None = None,
        names: Sequence[str] | None = None,
        filter_text: str | ExpressionFilter | None = None,
        max_parts: int = -1,
    ) -> builtins.list[Partition]:
        """Partitions chosen by partial values, names and a Hive filter together, in name order.

        Raises:
            BatchTooLargeError: more partitions than ``max_batch_partitions`` (Hive's
                ``hive.metastore.limit.partition.request``).
        """
        self._check_names(names, database, table_name)
        with self.ctx.store.read() as conn:
            table = table_store.get_keys(conn, normalize(database), normalize(table_name))
            chosen, most = self._limited(conn, table, values, names, filter_text, max_parts)
            found = self._within_limit(partition_store.read, table, conn, table, table.id, chosen, most)
        if filter_text is not None:
            log.debug("filter %r on %s answered in SQL: %d partitions", filter_text, table.qualified_name, len(found))
        return found

    def read_encoded(
        self,
        database: str,
        table_name: str,
        *,
        values: Sequence[str] | None = None,
        names: Sequence[str] | None = None,
        filter_text: str | ExpressionFilter | None = None,
        max_parts: int = -1,
        assemble: Assemble | None = None,
        assembly: Hashable = None,
    ) -> tuple[TableKeys, Sequence[bytes | None] | bytes, builtins.list[UnencodedPartition]]:
        """For a front end that caches encodings: the table, its partitions chosen as by ``read`` (in name
        order), and the models and revisions of those without a cached encoding, to encode and cache them
        (``save_encodings``).

        The partitions come as their cached bytes, ``None`` where there are none; or, when every one is
        encoded and the front end gives ``assemble``, as ``assemble(table, encodings)``: its whole answer.
        Lists whose every partition is encoded are kept in the partition read cache (the answer, under
        ``assembly`` and the table's names: whatever the answer holds besides the encodings).

        Raises:
            BatchTooLargeError: as for ``read``.
        """
        self._check_names(names, database, table_name)
        database, table_name = normalize(database), normalize(table_name)

        def key_of(table: TableKeys) -> tuple:
            kind = ("encoded", table.database, table.name, assembly if assemble else None)
            # a filter's LIKE patterns mean another thing under the other rule
            if isinstance(filter_text, ExpressionFilter):
                chosen_by: object = filter_text.cache_key
            else:
                chosen_by = (filter_text, self._hive4_like()) if filter_text else filter_text
            return _cache_key(table, kind, values, names, chosen_by, max_parts)

        table = self._keys(database, table_name)
        cached = self._cache.get(key_of(table), table.partitions_revision)
        if cached is not None:
            _log_answer(table, names, filter_text, cached.count, "from the cache")
            return table, cached.value, []
        with self.ctx.store.read() as conn:
            table = table_store.get_keys(conn, database, table_name)  # as of the snapshot the partitions are read in
            chosen, most = self._limited(conn, table, values, names, filter_text, max_parts)
            encodings, missing = self._within_limit(
                partition_store.read_encoded, table, conn, table, table.id, chosen, most
            )
        _log_answer(table, names, filter_text, len(encodings), "in SQL")
        if missing:
            return table, encodings, missing
        answer = assemble(table, encodings) if assemble else tuple(encodings)
        self._cache.put(key_of(table), table.partitions_revision, _Answer(len(encodings), answer))
        return table, answer, []

    def _limited(
        self, conn: Connection, table: TableKeys, values, names, filter_text, max_parts: int
    ) -> tuple[Select, int | None]:
        """The selection the arguments describe, and the most partitions it may answer (``None``: as many as
        it selects, when ``names`` or ``max_parts`` keep it within ``max_batch_partitions``)."""
        chosen = self._select(conn, table, values=values, names=names, filter_text=filter_text, max_parts=max_parts)
        limit = self.ctx.max_batch_partitions
        within = names is not None or 0 <= max_parts <= limit
        return chosen, None if within else limit

    def _check_names(self, names: Sequence[str] | None, database: str, table_name: str) -> None:
        if names is not None:
            self._check_batch(len(names), database, table_name)

    def _within_limit(self, reader, table: TableKeys, *args):
        """``reader(*args)``; ``BatchTooLargeError`` in Hive's words when it selects too many partitions."""
        try:
            return reader(*args)
        except partition_store.TooManyPartitions as too_many:
            raise BatchTooLargeError(
                f"Number of partitions scanned (={too_many.count}) on table '{table.qualified_name}' exceeds "
                f"limit (={self.ctx.max_batch_partitions}). This is controlled on the metastore server by "
                "--max-batch-partitions."
            ) from None

    def save_encodings(self, encodings: Sequence[tuple[int, int, bytes]]) -> None:
        """Cache front-end encodings as ``(part_id, revision, bytes)``; those of changed partitions are dropped."""
        with self.ctx.store.write() as conn:
            partition_store.store_encodings(conn, encodings)

    def _select(
        self,
        conn: Connection,
        table: TableKeys,
        *,
        values: Sequence[str] | None = None,
        names: Sequence[str] | None = None,
        filter_text: str | ExpressionFilter | None = None,
        max_parts: int = -1,
        after: str | None = None,
    ) -> Select:
        """The selection of the table's partitions that the arguments describe."""
        self._check_partial(table, values)
        where = None
        if isinstance(filter_text, ExpressionFilter):
            where = self._expression_clause(conn, table, filter_text)
        elif filter_text and filter_text.strip():
            parsed = parse_partition_filter(filter_text, self.ctx.filter_limits, self._hive4_like())
            where = filter_to_clause(parsed, table.partition_keys, table.id, conn)
        return partition_store.selection(
            table.id,
            names=None if names is None else list(names),
            values=values,
            where=where,
            max_parts=max_parts,
            after=after,
        )

    @staticmethod
    def _expression_clause(conn: Connection, table: TableKeys, chosen: ExpressionFilter):
        """The condition of a decoded Hive expression; one whose keys or constants do not fit the table is
        one this server cannot evaluate (``UnsupportedExpressionError``)."""
        if chosen.tree is None:
            return None
        try:
            return filter_to_clause(
                chosen.tree,
                table.partition_keys,
                table.id,
                conn,
                default_partition_name=chosen.default_partition_name,
                null_default=chosen.null_default,
            )
        except UnsupportedExpressionError:
            raise
        except InvalidFilterError as error:
            raise UnsupportedExpressionError(f"{chosen.text}: {error}") from None

    def expression(self, expression: bytes, default_partition_name: str | None = None) -> ExpressionFilter:
        """A partition expression Hive serialized (``get_partitions_by_expr`` and the calls like it), decoded
        into a filter for ``read``, ``read_encoded``, ``names_matching`` and ``drop_matching``. It says whether
        it selects exactly what the expression does (``ExpressionFilter.exact``).

        Raises:
            UnsupportedExpressionError: the expression is not one this server reads.
        """
        return expression_filter(decode_expression(expression, self.ctx.filter_limits), default_partition_name)

    def _hive4_like(self) -> bool:
        """Whether this call's partition filters read ``LIKE`` as Hive Metastore 4 does (``LikeRule``)."""
        rule = self.ctx.filter_like
        return rule is LikeRule.HIVE4 or (rule is LikeRule.AUTO and current_settings().hive4_client)

    def names(
        self, database: str, table_name: str, max_parts: int = -1, values: Sequence[str] | None = None
    ) -> builtins.list[str]:
        """Partition names in order; ``values`` are partial values where ``""`` matches anything. Kept in the
        partition read cache."""
        return builtins.list(self._names(database, table_name, max_parts, values))

    def names_answer(
        self,
        database: str,
        table_name: str,
        assemble: Callable[[Sequence[str]], bytes],
        assembly: Hashable,
        max_parts: int = -1,
        values: Sequence[str] | None = None,
    ) -> bytes:
        """``names`` as a front end's whole answer, ``assemble(names)``, kept in the partition read cache in
        place of the names under ``assembly`` (what the answer holds besides them)."""
        return cast(bytes, self._names(database, table_name, max_parts, values, assemble, assembly))

    def _names(self, database, table_name, max_parts, values, assemble=None, assembly=None) -> tuple | bytes:
        database, table_name = normalize(database), normalize(table_name)

        def key_of(table: TableKeys) -> tuple:
            return _cache_key(table, ("names", assembly), values, None, None, max_parts)

        table = self._keys(database, table_name)
        found = self._cache.get(key_of(table), table.partitions_revision)
        if found is None:
            with self.ctx.store.read() as conn:
                table = table_store.get_keys(conn, database, table_name)  # as of the snapshot the names are read in
                names = tuple(
                    partition_store.names(conn, self._select(conn, table, values=values, max_parts=max_parts))
                )
            found = _Answer(len(names), assemble(names) if assemble else names)
            self._cache.put(key_of(table), table.partitions_revision, found)
        log.debug("partition names of %s matching %s: %d", table.qualified_name, values, found.count)
        return found.value

    def names_matching(
        self,
        database: str,
        table_name: str,
        chosen: ExpressionFilter,
        max_parts: int = -1,
        order: Sequence[tuple[int, bool]] = (),
    ) -> builtins.list[str]:
        """Names of the partitions a Hive expression selects (``get_partition_names_req``): in name order, or
        by the values of the keys ``order`` gives as ``(key position, descending)``, compared as the keys'
        types compare them (a typed key's default partition last), before ``max_parts`` cuts the list."""
        with self.ctx.store.read() as conn:
            table = table_store.get_keys(conn, normalize(database), normalize(table_name))
            most = -1 if order else max_parts
            names = partition_store.names(conn, self._select(conn, table, filter_text=chosen, max_parts=most))
        _log_answer(table, None, chosen, len(names), "in SQL")
        if order:
            names = _ordered(names, table, order)
            names = names if max_parts < 0 else names[:max_parts]
        return builtins.list(names)

    def _keys(self, database: str, table_name: str) -> TableKeys:
        """The table's keys and partitions revision by one statement without a transaction (``driver_read``):
        all a read answered from the partition read cache needs. A read that misses the cache reads them
        again in the transaction that reads the partitions."""
        with self.ctx.store.driver_read() as conn:
            return table_store.get_keys(conn, database, table_name)

    @staticmethod
    def _check_partial(table: TableKeys, values: Sequence[str] | None) -> None:
        if values is not None and len(values) > len(table.partition_keys):
            raise InvalidObjectError(
                f"Incorrect number of partition values. numPartKeys={len(table.partition_keys)}, "
                f"part_val={_java_list(list(values))}"
            )

    def by_names(self, database: str, table_name: str, names: Sequence[str]) -> builtins.list[Partition]:
        return self.read(database, table_name, names=names)

    def by_filter(
        self, database: str, table_name: str, filter_text: str | None, max_parts: int = -1
    ) -> builtins.list[Partition]:
        """Partitions matching a Hive metastore filter, evaluated in SQL (``max_parts`` too)."""
        return self.read(database, table_name, filter_text=filter_text or "", max_parts=max_parts)

    def page(
        self, database: str, table_name: str, filter_text: str | None, after: str | None, size: int
    ) -> tuple[builtins.list[Partition], bool]:
        """A page of the partitions matching a Hive filter: the first ``size`` whose names sort after
        ``after`` (from the first: None), in name order, and whether more follow. Read by name from the
        table's name index, so a page deep into a million partitions costs what the first one does."""
        with self.ctx.store.read() as conn:
            table = table_store.get_keys(conn, normalize(database), normalize(table_name))
            chosen = self._select(conn, table, filter_text=filter_text, max_parts=size + 1, after=after)
            found = partition_store.read(conn, table, table.id, chosen)
        return found[:size], len(found) > size

    def count_by_filter(self, database: str, table_name: str, filter_text: str | None, most: int | None = None) -> int:
        """How many partitions match a Hive metastore filter, counted in SQL (at most ``most``: a page that
        says "more than N" need not count a million)."""
        with self.ctx.store.read() as conn:
            table = table_store.get_keys(conn, normalize(database), normalize(table_name))
            return partition_store.count(conn, self._select(conn, table, filter_text=filter_text), most)

    def by_where(self, database: str, table_name: str, where: str, max_parts: int = -1) -> builtins.list[Partition]:
        """Partitions that may hold rows matching an engine's WHERE clause (never fewer).

        Terms over data columns, or that cannot be decided from partition values, count as TRUE; see
        ``hudi_catalog.pruning.where``.
        """
        with self.ctx.store.read() as conn:
            row, table = self._table(conn, database, table_name)
            kept = where_to_filter(where, table.partition_keys)
            where_clause = None if kept is None else filter_to_clause(kept, table.partition_keys, row.tbl_id, conn)
            chosen = partition_store.selection(row.tbl_id, where=where_clause, max_parts=max_parts)
            found = partition_store.read(conn, table, row.tbl_id, chosen)
        log.debug(
            "WHERE %r on %s pruned in SQL by %r: %d partitions",
            where,
            table.qualified_name,
            None if kept is None else kept.sql(),
            len(found),
        )
        return found

    # -- change -------------------------------------------------------------------------------------

    def alter(
        self, database: str, table_name: str, parts: Sequence[Partition], environment: Mapping[str, str] | None = None
    ) -> None:
        """Replace storage descriptors and parameters of existing partitions (values stay)."""
        self._check_batch(len(parts), database, table_name)
        with self.ctx.store.write() as conn:
            row, table = self._table(conn, database, table_name)
            tbl_id = row.tbl_id
            names = {self._name(table, p.values): p for p in parts}
            ids = partition_store.ids_by_name(conn, tbl_id, names)
            if len(ids) != len(names):
                raise InvalidOperationError("alter is not possible")
            old = {
                self._name(table, p.values): p
                for p in partition_store.read(conn, table, tbl_id, partition_store.selection(tbl_id, names=list(names)))
            }
            for name, part in names.items():
                if part.sd.location and qualify(part.sd.location) != old[name].sd.location:
                    directories.check_location(
                        self.ctx.warehouse,
                        qualify(part.sd.location),
                        f"partition {name} of {table.qualified_name}",
                        InvalidOperationError,
                    )
            partition_store.partitions_changed(conn, tbl_id)
            altered = [
                self._update(
                    conn, tbl_id, table, row.schema_version, ids[name], name, part, environment, old[name].parameters
                )
                for name, part in names.items()
            ]
            self.ctx.events.emit_all(
                conn,
                [  # as Hive: one event per partition
                    CatalogEvent(EventType.ALTER_PARTITION, table=table, partitions=[part], old_partitions=[old[name]])
                    for name, part in zip(names, altered)
                ],
                self.ctx.now(),
            )

    def _update(
        self, conn, tbl_id, table, current_version, part_id, name, part, environment, stored_params: Mapping[str, str]
    ) -> Partition:
        """Rewrite one partition (``stored_params``: its parameters before); returns it as stored."""
        parameters = dict(part.parameters or {})
        sd = part.sd
        if sd.location:
            sd = replace(sd, location=qualify(sd.location))
        if derived_from_slices(table.parameters):
            keep_slice_stats(parameters, stored_params)
        elif should_update(environment):
            update_fast_stats(parameters, self.ctx.warehouse, sd.location, False, True, environment)
        if parameters.get(DDL_TIME, "0") == "0":
            parameters[DDL_TIME] = str(self.ctx.now())
        version = descriptors.find_or_add_schema_version(
            conn, tbl_id, current_version, sd.columns, table.partition_keys
        )
        stored = replace(part, database=table.database, table=table.name, sd=sd, parameters=parameters)
        partition_store.update_partition(conn, part_id, tbl_id, table.partition_keys, name, stored, version)
        return stored

    def rename(self, database: str, table_name: str, old_values: Sequence[str], new: Partition) -> None:
        """Give a partition new values; a managed table's partition directory moves with it to
        ``<table location>/<new name>`` where the server may move it (``services.directories``), and stays
        where it is otherwise."""
        with self.ctx.store.write() as conn:
            row, table = self._table(conn, database, table_name)
            tbl_id = row.tbl_id
            check_partition_values(new.values, current_settings().partition_value_pattern)
            old_name, new_name = self._name(table, old_values), self._name(table, new.values)
            check_partition_lengths(new.values, new_name)
            ids = partition_store.ids_by_name(conn, tbl_id, [old_name, new_name])
            if old_name not in ids:
                raise InvalidObjectError("Unable to rename partition because old partition does not exist")
            if new_name in ids:
                raise AlreadyExistsError(
                    f"Partition already exists:{table.qualified_name}.{_java_list(list(new.values))}"
                )
            old = self._find_one(conn, tbl_id, table, old_values)
            sd = replace(new.sd) if new.sd and new.sd.columns else replace(old.sd)
            move = None
            if table.table_type == MANAGED_TABLE and table.sd.location:
                target = join(table.sd.location, new_name)
                sd.location = target
                if old.sd.location and old.sd.location != target:
                    claims = self._claims(conn, row, table, [(ids[old_name], old)])
                    if not directories.allowed(conn, self.ctx.warehouse, claims, "moving")[0]:
                        sd.location = old.sd.location  # the partition keeps its directory
                    elif self.ctx.warehouse.exists(target) or directories.held(conn, self.ctx.warehouse, target):
                        raise InvalidOperationError(f"New location for this partition {target} already exists")
                    else:
                        move = (old.sd.location, target)
            partition_store.partitions_changed(conn, tbl_id)
            renamed = self._update(
                conn,
                tbl_id,
                table,
                row.schema_version,
                ids[old_name],
                new_name,
                replace(new, sd=sd, parameters=new.parameters or old.parameters),
                None,
                old.parameters,
            )
            self.ctx.events.emit(
                conn,
                CatalogEvent(EventType.ALTER_PARTITION, table=table, partitions=[renamed], old_partitions=[old]),
                self.ctx.now(),
            )
            if move:
                location_store.record_made(conn, schema.partitions, [ids[old_name]])  # the server put it there
                self.ctx.warehouse.rename(*move)

    def _claims(
        self, conn: Connection, row: TableRecord, table: Table, found: Sequence[tuple[int, Partition]]
    ) -> builtins.list[directories.Claim]:
        """The directories of a managed table's partitions ``(part_id, partition)`` as a drop or rename would
        delete or move them, each sparing its own partition (``services.directories``)."""
        made = location_store.made_partitions(conn, [part_id for part_id, _ in found])
        db_row = db_store.get_row(conn, table.database)
        containers = directories.container_of(row.location, location_store.made(row)) + directories.container_of(
            db_row.location_uri, location_store.made(db_row)
        )
        return [
            directories.Claim(p.sd.location, part_id in made, containers, Spared(partition_id=part_id))
            for part_id, p in found
            if p.sd.location
        ]

    def drop(
        self,
        database: str,
        table_name: str,
        values: Sequence[str] | None = None,
        name: str | None = None,
        delete_data: bool = True,
    ) -> None:
        """Drop one partition, by values or by name.

        Raises:
            NoSuchPartitionError: it does not exist (Hive's ``Partition doesn't exist.`` wording).
            StorageError: the data is to be deleted and its store cannot be reached; nothing was dropped.
        """
        if delete_data:
            self._check_data_reachable(database, table_name)
        with self.ctx.store.write() as conn:
            row, table = self._table(conn, database, table_name)
            if name is not None:
                values = self._values_of_name(table, name, NoSuchPartitionError(f"Partition doesn't exist. {name}"))
            elif values is None:
                raise InvalidObjectError("A partition to drop needs its values or its name")
            found = partition_store.id_and_location(conn, row.tbl_id, self._name(table, values))
            if found is None:
                raise NoSuchPartitionError(f"Partition doesn't exist. {_java_list(list(values))}")
            part_id, location = found
            # what a drop's event and its directory claim need: the values (those of the name it was found by)
            # and the location, not the whole partition
            dropped = Partition(table.database, table.name, list(values), sd=StorageDescriptor(location=location))
            claims = self._claims(conn, row, table, [(part_id, dropped)]) if delete_data and purges_data(table) else []
            partition_store.delete_ids(conn, row.tbl_id, [part_id])
            self.ctx.events.emit(
                conn, CatalogEvent(EventType.DROP_PARTITION, table=table, partitions=[dropped]), self.ctx.now()
            )
            data_dirs = directories.approved(conn, self.ctx.warehouse, claims) if claims else []
        self._discard(table, data_dirs)

    def drop_by_names(
        self,
        database: str,
        table_name: str,
        names: Sequence[str],
        delete_data: bool,
        if_exists: bool,
        missing_message: str | None = None,
    ) -> builtins.list[Partition]:
        """Drop the named partitions in one transaction; returns them as they were.

        Raises:
            StorageError: the data is to be deleted and its store cannot be reached; nothing was dropped.
        """
        self._check_batch(len(names), database, table_name)
        if delete_data:
            self._check_data_reachable(database, table_name)
        with self.ctx.store.write() as conn:
            row, table = self._table(conn, database, table_name)
            tbl_id = row.tbl_id
            found = partition_store.read_with_ids(
                conn, table, tbl_id, partition_store.selection(tbl_id, names=list(names))
            )
            dropped = [p for _, p in found]
            if len(dropped) != len(set(names)) and not if_exists:
                found_names = {self._name(table, p.values) for p in dropped}
                missing = [n for n in names if n not in found_names]
                raise NoSuchPartitionError(missing_message or f"Partition doesn't exist. {missing[0]}")
            data_dirs = self._delete_found(conn, row, table, found, delete_data)
        self._discard(table, data_dirs)
        return dropped

    def drop_matching(
        self,
        database: str,
        table_name: str,
        filters: Sequence[ExpressionFilter],
        delete_data: bool,
        if_exists: bool,
    ) -> builtins.list[Partition]:
        """Drop, in one transaction, the partitions that Hive expressions select (``drop_partitions_req`` by
        expression); returns them as they were. As Hive Metastore asks, each expression counts for at least one
        partition unless ``if_exists``.

        Raises:
            UnsupportedExpressionError: an expression this server cannot evaluate exactly; nothing was dropped.
            NoSuchPartitionError: fewer partitions than expressions, without ``if_exists``.
            StorageError: as for ``drop_by_names``.
        """
        for chosen in filters:
            if not chosen.exact:
                raise UnsupportedExpressionError(
                    f"Unexpected unknown partitions to drop: this metastore cannot evaluate {chosen.text} exactly"
                )
        if delete_data:
            self._check_data_reachable(database, table_name)
        with self.ctx.store.write() as conn:
            row, table = self._table(conn, database, table_name)
            keys = table_store.get_keys(conn, normalize(database), normalize(table_name))
            found: dict[int, Partition] = {}
            matched = 0
            for chosen in filters:
                selection = self._select(conn, keys, filter_text=chosen)
                for part_id, partition in partition_store.read_with_ids(conn, table, row.tbl_id, selection):
                    found.setdefault(part_id, partition)
                    matched += 1
            if matched < len(filters) and not if_exists:
                raise NoSuchPartitionError("Some partitions to drop are missing")
            data_dirs = self._delete_found(conn, row, table, list(found.items()), delete_data)
        self._discard(table, data_dirs)
        log.debug("dropped %d partitions of %s by %s", len(found), table.qualified_name, list(filters))
        return builtins.list(found.values())

    def _delete_found(
        self,
        conn: Connection,
        row: TableRecord,
        table: Table,
        found: Sequence[tuple[int, Partition]],
        delete_data: bool,
    ) -> builtins.list[str]:
        """Delete the ``(part_id, partition)`` found and log their events, in the drop's transaction; returns
        the data directories to discard once it commits."""
        claims = self._claims(conn, row, table, found) if delete_data and purges_data(table) else []
        partition_store.delete_ids(conn, row.tbl_id, [part_id for part_id, _ in found])
        self.ctx.events.emit_all(
            conn,
            [  # as Hive: one event per partition
                CatalogEvent(EventType.DROP_PARTITION, table=table, partitions=[p]) for _, p in found
            ],
            self.ctx.now(),
        )
        return directories.approved(conn, self.ctx.warehouse, claims) if claims else []

    def _check_data_reachable(self, database: str, table_name: str) -> None:
        """A drop that deletes a managed table's partition data refuses before it starts while the store of
        the table's location is out of reach (``Warehouse.check_reachable``); an unknown table is left to the
        drop to report."""
        with self.ctx.store.read() as conn:
            found = table_store.find_row(conn, normalize(database), normalize(table_name))
        if found is not None and found.tbl_type == MANAGED_TABLE and found.location:
            self.ctx.warehouse.check_reachable(found.location, "Table partition not deleted")

    def _discard(self, table: Table, data_dirs: Sequence[str]) -> None:
        """After a drop committed: delete the dropped partitions' directories, then their parents below the
        table's directory that are left empty and hold no live object's location, judged now, against what
        remains (``directories.unheld``). A failure is logged: the drop stands."""
        for location in data_dirs:
            self.ctx.warehouse.discard_dir(location)
        parents = (
            directories.parents_below(self.ctx.warehouse, data_dirs, table.sd.location) if table.sd.location else []
        )
        if not parents:  # a table partitioned on one key: nothing between a partition and the table
            return
        try:
            with self.ctx.store.read() as conn:
                parents = directories.unheld(conn, self.ctx.warehouse, parents)
        except CatalogError as error:
            log.warning("the emptied parents of dropped partitions of %s stay: %s", table.qualified_name, error)
            return
        for parent in parents:
            self.ctx.warehouse.remove_empty_dir(parent)

    @staticmethod
    def name_to_spec(name: str) -> dict[str, str]:
        return partition_name_to_spec(name)
