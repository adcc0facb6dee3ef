"""Queries on ``partitions``, ``partition_params`` and ``partition_key_val``.

Reads go through a *selection*: a query of a table's partitions (ordered by name, possibly limited). A read
runs its selection once for the partition rows, then fetches their key values and parameters by id, so
fetching any number of partitions costs the same few queries.

A front end may cache each partition's wire encoding in ``partitions.encoded`` (``read_encoded``,
``store_encodings``). Every change of a partition clears it and raises ``revision``, and an encoding is stored
only for the revision it was made from, so a cached encoding is never older than its partition.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Row,
    Select,
    Update,
    bindparam,
    case,
    delete,
    func,
    insert,
    select,
    update,
)

from ..model import Column, Partition, Table, TableKeys, UnencodedPartition
from ..typed_keys import typed_key
from . import descriptors, locations, params, schema
from .batches import chunks
from .driver_sql import DriverStatement

_p = schema.partitions.c
_kv = schema.partition_key_val.c


def selection(
    tbl_id: int,
    *,
    names: Sequence[str] | None = None,
    values: Sequence[str | None] | None = None,
    where: ColumnElement[bool] | None = None,
    max_parts: int = -1,
    after: str | None = None,
) -> Select:
    """The ``part_id`` of a table's partitions, ordered by name.

    Args:
        names: only partitions with these names.
        values: partial values by key position; ``None`` or ``""`` matches any value (Hive's wildcard).
        where: any further condition over ``partitions`` and ``partition_key_val``.
        max_parts: the most partitions to select; negative for all.
        after: only partitions whose names sort after this one (a page after the last one shown).
    """
    query = select(_p.part_id, _p.part_name).where(_p.tbl_id == tbl_id)
    if after is not None:
        query = query.where(_p.part_name > after)
    if names is not None:
        query = query.where(_p.part_name.in_(list(names)))
    for index, value in enumerate(values or []):
        if value:
            kv = schema.partition_key_val.alias(f"kv{index}")
            query = query.join(kv, (kv.c.part_id == _p.part_id) & (kv.c.key_index == index) & (kv.c.key_val == value))
    if where is not None:
        query = query.where(where)
    query = query.order_by(_p.part_name)
    if max_parts is not None and max_parts >= 0:
        query = query.limit(max_parts)
    return query


_CHANGED = {"revision": _p.revision + 1, "encoded": None}
"""The values every change of a partition row sets: a new revision, no cached encoding."""


class TooManyPartitions(Exception):
    """A read selected more partitions than it may return; ``count``: how many its selection holds."""

    def __init__(self, count: int) -> None:
        super().__init__(f"{count} partitions selected")
        self.count = count


def _selected(conn: Connection, chosen: Select, columns: Iterable[Any], most: int | None) -> Sequence[Row]:
    """The rows of ``columns`` of what ``chosen`` selects; with ``most``, ``TooManyPartitions`` rather than
    more than ``most`` rows (at most ``most + 1`` are read, then the selection is counted)."""
    query = chosen.with_only_columns(*columns)
    if most is None:
        return conn.execute(query).all()
    rows = conn.execute(query.limit(most + 1)).all()
    if len(rows) > most:
        raise TooManyPartitions(count(conn, chosen))
    return rows


def read(
    conn: Connection, table: Table | TableKeys, tbl_id: int, chosen: Select, most: int | None = None
) -> list[Partition]:
    """The partitions of ``table`` that ``chosen`` selects, ordered by name (``most``: as for ``_selected``)."""
    return _models(conn, table, tbl_id, _selected(conn, chosen, list(schema.partitions.c), most))


def read_with_ids(
    conn: Connection, table: Table | TableKeys, tbl_id: int, chosen: Select
) -> list[tuple[int, Partition]]:
    """``(part_id, partition)`` of what ``chosen`` selects, ordered by name."""
    rows = conn.execute(chosen.with_only_columns(*schema.partitions.c)).all()
    return list(zip((r.part_id for r in rows), _models(conn, table, tbl_id, rows)))


_ID_AND_LOCATION = DriverStatement(
    select(_p.part_id, _p.location).where(_p.tbl_id == bindparam("tbl_id"), _p.part_name == bindparam("name"))
)


def id_and_location(conn: Connection, tbl_id: int, name: str) -> tuple[int, str | None] | None:
    """``(part_id, location)`` of the partition named ``name``, or None: all that dropping a partition whose
    values are known needs (one statement, where a whole partition takes four)."""
    rows = _ID_AND_LOCATION.execute(conn, {"tbl_id": tbl_id, "name": name}).rows
    return (rows[0].part_id, rows[0].location) if rows else None


def read_encoded(
    conn: Connection, table: Table | TableKeys, tbl_id: int, chosen: Select, most: int | None = None
) -> tuple[list[bytes | None], list[UnencodedPartition]]:
    """What ``chosen`` selects, ordered by name: each partition's cached encoding (``None`` where it has
    none), and for those without one, in the same order, their models and revisions (``most``: as for
    ``_selected``).

    Partitions with a cached encoding cost one row each and no further query.
    """
    rows = _selected(conn, chosen, (_p.part_id, _p.encoded), most)
    encodings = [encoded for _, encoded in rows]
    if None not in encodings:
        return encodings, []
    missing = [part_id for part_id, encoded in rows if encoded is None]
    models: dict[int, tuple[int, Partition]] = {}
    for chunk in chunks(missing):
        full = conn.execute(select(schema.partitions).where(_p.part_id.in_(chunk))).all()
        for row, model in zip(full, _models(conn, table, tbl_id, full)):
            models[row.part_id] = (row.revision, model)
    unencoded = []
    for part_id in missing:
        revision, model = models[part_id]
        unencoded.append(UnencodedPartition(part_id, revision, model))
    return encodings, unencoded


ENCODINGS_CHUNK = 500
"""Encodings stored per statement (four parameters each); the reads around them take 5,000 ids at once."""


@functools.lru_cache(maxsize=4)
def _store_statement(size: int) -> Update:
    """``UPDATE`` of ``size`` partitions' encodings, each picked by ``CASE``: parameters ``pid<i>``,
    ``rev<i>``, ``enc<i>``. Built once per size, so SQLAlchemy compiles it once too."""
    ids = [bindparam(f"pid{i}", type_=_p.part_id.type) for i in range(size)]
    revisions = case(*((_p.part_id == pid, bindparam(f"rev{i}", type_=_p.revision.type)) for i, pid in enumerate(ids)))
    encodings = case(*((_p.part_id == pid, bindparam(f"enc{i}", type_=_p.encoded.type)) for i, pid in enumerate(ids)))
    return (
        update(schema.partitions)
        .where(_p.part_id.in_(ids), _p.revision == revisions, _p.encoded.is_(None))
        .values(encoded=encodings)
    )


def store_encodings(conn: Connection, encodings: Sequence[tuple[int, int, bytes]]) -> None:
    """Cache ``(part_id, revision, encoding)`` triples; one whose partition changed since is dropped. One
    statement per ``ENCODINGS_CHUNK`` partitions."""
    for chunk in chunks(encodings, ENCODINGS_CHUNK):
        params = {}
        for i, (pid, rev, enc) in enumerate(chunk):
            params.update({f"pid{i}": pid, f"rev{i}": rev, f"enc{i}": enc})
        conn.execute(_store_statement(len(chunk)), params)


def _models(conn: Connection, table: Table | TableKeys, tbl_id: int, rows: Sequence) -> list[Partition]:
    """Partition models from full ``partitions`` rows, with their key values and parameters."""
    if not rows:
        return []
    ids = [row.part_id for row in rows]
    values: dict[int, list[str]] = defaultdict(list)
    for chunk in chunks(ids):
        for part_id, value in conn.execute(
            select(_kv.part_id, _kv.key_val).where(_kv.part_id.in_(chunk)).order_by(_kv.part_id, _kv.key_index)
        ):
            values[part_id].append(value)
    partition_params = params.read_params_of(conn, schema.partition_params, ids)
    versions = descriptors.load_schema_versions(conn, {(tbl_id, r.schema_version) for r in rows})
    return [
        Partition(
            database=table.database,
            table=table.name,
            values=values[row.part_id],
            sd=descriptors.descriptor_from_row(row._mapping, versions[(tbl_id, row.schema_version)][0]),
            parameters=partition_params.get(row.part_id, {}),
            create_time=row.create_time,
            last_access_time=row.last_access_time,
        )
        for row in rows
    ]


def count(conn: Connection, chosen: Select, most: int | None = None) -> int:
    """How many partitions ``chosen`` selects, counted in SQL; with ``most``, counting stops there (a count of
    a million partitions reads a million index entries)."""
    counted = chosen.order_by(None) if most is None else chosen.order_by(None).limit(most)
    return conn.execute(select(func.count()).select_from(counted.subquery())).scalar_one()


def names(conn: Connection, chosen: Select) -> list[str]:
    """The names of what ``chosen`` selects, in its order (one column: no row object per partition)."""
    return list(conn.execute(chosen.with_only_columns(_p.part_name)).scalars())


def ids_by_name(conn: Connection, tbl_id: int, part_names: Iterable[str]) -> dict[str, int]:
    """``{name: part_id}`` of the named partitions that exist."""
    wanted = list(dict.fromkeys(part_names))
    found: dict[str, int] = {}
    for chunk in chunks(wanted):
        rows = conn.execute(select(_p.part_name, _p.part_id).where(_p.tbl_id == tbl_id, _p.part_name.in_(chunk)))
        found.update({r.part_name: r.part_id for r in rows})
    return found


def ids_and_revisions(conn: Connection, tbl_id: int, part_names: Iterable[str]) -> dict[str, tuple[int, int]]:
    """``{name: (part_id, revision)}`` of the named partitions that exist."""
    wanted = list(dict.fromkeys(part_names))
    found: dict[str, tuple[int, int]] = {}
    for chunk in chunks(wanted):
        rows = conn.execute(
            select(_p.part_name, _p.part_id, _p.revision).where(_p.tbl_id == tbl_id, _p.part_name.in_(chunk))
        )
        found.update({r.part_name: (r.part_id, r.revision) for r in rows})
    return found


def all_changed(conn: Connection, tbl_id: int) -> None:
    """Mark every partition of the table changed (a new revision each, no cached encoding)."""
    partitions_changed(conn, tbl_id)
    conn.execute(update(schema.partitions).where(_p.tbl_id == tbl_id).values(**_CHANGED))


def _key_rows(part_id: int, tbl_id: int, keys: Sequence[Column], values: Sequence[str]) -> list[dict]:
    return [
        {
            "part_id": part_id,
            "tbl_id": tbl_id,
            "key_index": i,
            "key_name": key.name,
            "key_val": value,
            "typed_val": typed_key(key.type, value),
        }
        for i, (key, value) in enumerate(zip(keys, values))
    ]


_RAISE_PARTITIONS_REVISION = DriverStatement(
    update(schema.tbl)
    .where(schema.tbl.c.tbl_id == bindparam("tbl_id"))
    .values(partitions_revision=schema.tbl.c.partitions_revision + 1)
)


def partitions_changed(conn: Connection, tbl_id: int) -> None:
    """Raise the table's ``partitions_revision``: every change of its partition rows, values or parameters
    does, in the changing transaction, so that no server process serves a cached read of them."""
    _RAISE_PARTITIONS_REVISION.execute(conn, {"tbl_id": tbl_id})


def insert_many(
    conn: Connection,
    tbl_id: int,
    keys: Sequence[Column],
    entries: Sequence[tuple[str, Partition, int]],
    encodings: Mapping[str, bytes | None] | None = None,
) -> dict[str, int]:
    """Insert partitions given as ``(name, partition, schema version)``, each with its front end's encoding
    when ``encodings`` has one (made from the partition as given, which is the partition as it reads back);
    returns ``{name: part_id}``."""
    if not entries:
        return {}
    partitions_changed(conn, tbl_id)
    encodings = encodings or {}
    conn.execute(
        insert(schema.partitions),
        [
            {
                "tbl_id": tbl_id,
                "part_name": name,
                "create_time": part.create_time,
                "last_access_time": part.last_access_time,
                "encoded": encodings.get(name),
                **descriptors.descriptor_to_row(part.sd, schema_version=version),
            }
            for name, part, version in entries
        ],
    )
    ids = ids_by_name(conn, tbl_id, [name for name, _, _ in entries])
    conn.execute(
        insert(schema.partition_key_val),
        [row for name, part, _ in entries for row in _key_rows(ids[name], tbl_id, keys, part.values)],
    )
    params.insert_params(conn, schema.partition_params, {ids[name]: part.parameters for name, part, _ in entries})
    return ids


def update_partition(
    conn: Connection, part_id: int, tbl_id: int, keys: Sequence[Column], name: str, part: Partition, version: int
) -> None:
    """Rewrite one partition: name, values, storage descriptor and parameters. The caller raises the table's
    revision once (``partitions_changed``), however many partitions it rewrites."""
    conn.execute(
        update(schema.partitions)
        .where(_p.part_id == part_id)
        .values(
            part_name=name,
            last_access_time=part.last_access_time,
            **descriptors.descriptor_to_row(part.sd, schema_version=version),
            **_CHANGED,
        )
    )
    conn.execute(delete(schema.partition_key_val).where(_kv.part_id == part_id))
    conn.execute(insert(schema.partition_key_val), _key_rows(part_id, tbl_id, keys, part.values))
    params.write_params(conn, schema.partition_params, part_id, part.parameters)


def write_parameters(conn: Connection, tbl_id: int, parameters_by_part: Mapping[int, Mapping[str, str]]) -> None:
    """Replace partitions' parameters alone (a new revision each, and the table's partitions revision), in
    a few statements however many partitions change (a Hudi commit's statistics touch every partition it
    wrote)."""
    if not parameters_by_part:
        return
    partitions_changed(conn, tbl_id)
    for chunk in chunks(sorted(parameters_by_part)):
        conn.execute(update(schema.partitions).where(_p.part_id.in_(chunk)).values(**_CHANGED))
    params.replace_params(conn, schema.partition_params, parameters_by_part)


_DELETE_ONE_REPLACED = DriverStatement(
    delete(schema.replaced_file_group).where(
        schema.replaced_file_group.c.tbl_id == bindparam("tbl_id"),
        schema.replaced_file_group.c.part_id == bindparam("part_id"),
    )
)
_DELETE_ONE = DriverStatement(delete(schema.partitions).where(_p.part_id == bindparam("part_id")))


def delete_ids(conn: Connection, tbl_id: int, part_ids: Sequence[int]) -> None:
    """Delete partitions of one table with everything that hangs off them: their parameters, key values,
    column statistics, files and grants go by their foreign keys' ``ON DELETE CASCADE`` (in the same
    statement, not one round trip each); replaced file groups, which have none, explicitly. One partition
    (``drop_partition``, the most frequent drop) by statements built once, on the driver's cursor."""
    if part_ids:
        partitions_changed(conn, tbl_id)
    if len(part_ids) == 1:
        one = {"tbl_id": tbl_id, "part_id": part_ids[0]}
        _DELETE_ONE_REPLACED.execute(conn, one)
        _DELETE_ONE.execute(conn, one)
        return
    for chunk in chunks(part_ids):
        conn.execute(
            delete(schema.replaced_file_group).where(
                schema.replaced_file_group.c.tbl_id == tbl_id, schema.replaced_file_group.c.part_id.in_(chunk)
            )
        )
        conn.execute(delete(schema.partitions).where(_p.part_id.in_(chunk)))


def set_schema_version(conn: Connection, tbl_id: int, version: int) -> None:
    """Point every partition of a table at one schema version (``ALTER TABLE ... CASCADE``)."""
    partitions_changed(conn, tbl_id)
    conn.execute(update(schema.partitions).where(_p.tbl_id == tbl_id).values(schema_version=version, **_CHANGED))


def relocate(conn: Connection, tbl_id: int, old_spellings: Sequence[str], new_prefix: str) -> None:
    """Rewrite partition locations at or under the directory spelled ``old_spellings`` to ``new_prefix``
    (after a table's directory moved), with their provenance."""
    rows = locations.relocated(conn, tbl_id, old_spellings, new_prefix)
    if rows:
        partitions_changed(conn, tbl_id)
        conn.execute(
            update(schema.partitions)
            .where(_p.part_id == bindparam("pid"))
            .values(**locations.RELOCATE_VALUES, **_CHANGED),
            rows,
        )
