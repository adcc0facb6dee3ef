"""Storage descriptors and column lists: model objects to rows and back.

A storage descriptor lives inline in its ``tbl`` or ``partitions`` row; its columns live in ``schema`` rows
under a version number, so partitions that share a table's columns share its rows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import Connection, RowMapping, and_, func, insert, select, tuple_

from ..model import Column, SerDe, SkewedInfo, SortColumn, StorageDescriptor
from . import schema
from .locations import location_key

_SERDE_EXTRA_FIELDS = ("description", "serializer_class", "deserializer_class", "serde_type")


def _dump(value: Any) -> str | None:
    return None if value is None else json.dumps(value, separators=(",", ":"))


def _load(text: str | None, default: Any) -> Any:
    return default if text is None else json.loads(text)


def descriptor_to_row(sd: StorageDescriptor, schema_version: int) -> dict[str, Any]:
    """The storage descriptor columns of a ``tbl`` or ``partitions`` row (columns excluded)."""
    serde = sd.serde
    extra = {f: getattr(serde, f) for f in _SERDE_EXTRA_FIELDS if getattr(serde, f) is not None}
    skewed = sd.skewed_info
    return {
        "location": sd.location,
        "location_key": location_key(sd.location),
        "input_format": sd.input_format,
        "output_format": sd.output_format,
        "is_compressed": bool(sd.compressed),
        "num_buckets": sd.num_buckets,
        "is_stored_as_sub_dirs": bool(sd.stored_as_sub_directories),
        "serde_name": serde.name,
        "serde_lib": serde.serialization_lib,
        "serde_params": _dump(serde.parameters or {}),
        "serde_extra": _dump(extra) if extra else None,
        "sd_params": _dump(sd.parameters or {}),
        "bucket_cols": _dump(sd.bucket_columns or []),
        "sort_cols": _dump([[s.column, s.order] for s in sd.sort_columns]),
        "skewed_info": None
        if skewed is None
        else _dump(
            {
                "names": skewed.column_names,
                "values": skewed.column_values,
                "locations": [[list(k), v] for k, v in skewed.value_locations],
            }
        ),
        "schema_version": schema_version,
    }


def descriptor_from_row(row: RowMapping | Mapping[str, Any], columns: list[Column]) -> StorageDescriptor:
    """Rebuild a storage descriptor from a row (or a record's ``_asdict()``) holding the descriptor columns."""
    extra = _load(row["serde_extra"], {})
    skewed = _load(row["skewed_info"], None)
    return StorageDescriptor(
        columns=list(columns),
        location=row["location"],
        input_format=row["input_format"],
        output_format=row["output_format"],
        compressed=bool(row["is_compressed"]),
        num_buckets=row["num_buckets"],
        serde=SerDe(
            name=row["serde_name"],
            serialization_lib=row["serde_lib"],
            parameters=_load(row["serde_params"], {}),
            **extra,
        ),
        bucket_columns=_load(row["bucket_cols"], []),
        sort_columns=[SortColumn(c, o) for c, o in _load(row["sort_cols"], [])],
        parameters=_load(row["sd_params"], {}),
        skewed_info=None
        if skewed is None
        else SkewedInfo(
            column_names=skewed["names"],
            column_values=skewed["values"],
            value_locations=[(k, v) for k, v in skewed["locations"]],
        ),
        stored_as_sub_directories=bool(row["is_stored_as_sub_dirs"]),
    )


def insert_schema_version(
    conn: Connection, tbl_id: int, version: int, columns: list[Column], partition_keys: list[Column]
) -> None:
    """Write one version of a table's schema: its data columns and its partition keys."""
    rows = [
        {
            "tbl_id": tbl_id,
            "version": version,
            "position": i,
            "is_partition_col": False,
            "name": c.name,
            "type": c.type,
            "comment": c.comment,
        }
        for i, c in enumerate(columns)
    ] + [
        {
            "tbl_id": tbl_id,
            "version": version,
            "position": i,
            "is_partition_col": True,
            "name": c.name,
            "type": c.type,
            "comment": c.comment,
        }
        for i, c in enumerate(partition_keys)
    ]
    if rows:
        conn.execute(insert(schema.schema), rows)


def load_schema_versions(
    conn: Connection, versions: Iterable[tuple[int, int]]
) -> dict[tuple[int, int], tuple[list[Column], list[Column]]]:
    """``{(tbl_id, version): (data columns, partition keys)}`` for any number of table versions, in one query."""
    wanted = sorted(set(versions))
    result: dict[tuple[int, int], tuple[list[Column], list[Column]]] = {v: ([], []) for v in wanted}
    if not wanted:
        return result
    s = schema.schema.c
    rows = conn.execute(
        select(s.tbl_id, s.version, s.is_partition_col, s.name, s.type, s.comment)
        .where(tuple_(s.tbl_id, s.version).in_(wanted))
        .order_by(s.tbl_id, s.version, s.is_partition_col, s.position)
    )
    for row in rows:
        data, keys = result[(row.tbl_id, row.version)]
        (keys if row.is_partition_col else data).append(Column(row.name, row.type, row.comment))
    return result


def find_or_add_schema_version(
    conn: Connection, tbl_id: int, current_version: int, columns: list[Column], partition_keys: list[Column]
) -> int:
    """The version whose data columns equal ``columns``: the current one if it matches, else a new one."""
    current = load_schema_versions(conn, [(tbl_id, current_version)])[(tbl_id, current_version)][0]
    if current == columns:
        return current_version
    latest = conn.execute(
        select(func.max(schema.schema.c.version)).where(schema.schema.c.tbl_id == tbl_id)
    ).scalar_one()
    version = (latest or 0) + 1
    insert_schema_version(conn, tbl_id, version, columns, partition_keys)
    return version


def delete_unused_schema_versions(conn: Connection, tbl_id: int) -> None:
    """Remove schema versions no longer referenced by the table or any of its partitions."""
    t, p, s = schema.tbl.c, schema.partitions.c, schema.schema.c
    used = select(t.schema_version).where(t.tbl_id == tbl_id).union(select(p.schema_version).where(p.tbl_id == tbl_id))
    conn.execute(schema.schema.delete().where(and_(s.tbl_id == tbl_id, s.version.not_in(used))))
