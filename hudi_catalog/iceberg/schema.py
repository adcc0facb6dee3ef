"""A Hudi table's Avro schema as an Iceberg schema (the JSON of the table metadata), with field ids kept
stable across schema evolution.

Types: ``boolean``, ``int``, ``long``, ``float``, ``double``, ``string``, ``bytes`` (``binary``) map to
themselves; an Avro ``enum`` is a ``string``, a ``fixed`` a ``fixed[n]``; logical types: ``decimal`` ->
``decimal(p,s)``, ``date`` -> ``date``, ``time-millis``/``time-micros`` -> ``time``, ``timestamp-millis``/``-micros``
(instants) -> ``timestamptz``, ``local-timestamp-millis``/``-micros`` -> ``timestamp``; records, arrays and maps
are structs, lists and maps (string keys). A union of ``null`` and one type is that type. Other unions,
nanosecond timestamps and recursive records have no Iceberg equivalent: :class:`SchemaEvolutionError`.

Every field is optional (``required: false``), map keys excepted: Hudi lets a later writer add columns and make
them nullable, and Iceberg would refuse a required column added to a table with data.

Ids: with no previous schema, fields get ids ``1..n`` (each struct's fields first, then their children). With
one, a field keeps the id of the field at the same name path (``a.b``, ``list.element``, ``map.key``,
``map.value``); new fields get ids above ``last-column-id``. A kept field's type may change only as Iceberg
allows (int -> long, float -> double, a decimal's precision widened); anything else is a
:class:`SchemaEvolutionError`.

Example:
    >>> avro = ('{"type": "record", "name": "r", "fields": [{"name": "id", "type": "int"},'
    ...         '{"name": "tags", "type": ["null", {"type": "array", "items": "string"}]}]}')
    >>> first = iceberg_schema(avro, schema_id=0)
    >>> [(f["id"], f["name"], f["type"]) for f in first.fields]
    [(1, 'id', 'int'), (2, 'tags', {'type': 'list', 'element-id': 3, 'element': 'string', 'element-required': False})]
    >>> wider = avro.replace('"int"', '"long"').replace("]}]}", ']}, {"name": "n", "type": "double"}]}')
    >>> second = iceberg_schema(wider, schema_id=1, previous=first, last_column_id=first.last_column_id)
    >>> [(f["id"], f["name"], f["type"] if isinstance(f["type"], str) else "list") for f in second.fields]
    [(1, 'id', 'long'), (2, 'tags', 'list'), (4, 'n', 'double')]
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..hudi.avro_schema import META_COLUMNS, AvroTypeMapper
from .errors import SchemaEvolutionError

IcebergType = Any
"""A type as the table metadata JSON writes it: a primitive's name (``"long"``, ``"decimal(10,2)"``) or a
``struct``/``list``/``map`` object."""


_PRIMITIVES = {
    "boolean": "boolean",
    "int": "int",
    "long": "long",
    "float": "float",
    "double": "double",
    "bytes": "binary",
    "string": "string",
}
_LOGICAL = {
    "date": "date",
    "time-millis": "time",
    "time-micros": "time",
    "timestamp-millis": "timestamptz",
    "timestamp-micros": "timestamptz",
    "local-timestamp-millis": "timestamp",
    "local-timestamp-micros": "timestamp",
}
_DECIMAL = re.compile(r"decimal\((\d+),\s*(\d+)\)")
_PROMOTIONS = {("int", "long"), ("float", "double")}


@dataclass(frozen=True)
class Schema:
    """One Iceberg schema: its id, its top-level fields (JSON objects) and the highest field id in use."""

    schema_id: int
    fields: list[dict[str, Any]]
    last_column_id: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "struct", "schema-id": self.schema_id, "fields": self.fields}

    @classmethod
    def from_json(cls, data: dict[str, Any], last_column_id: int) -> Schema:
        return cls(int(data["schema-id"]), list(data["fields"]), last_column_id)

    def same_fields(self, other: Schema) -> bool:
        return self.fields == other.fields

    def primitive_columns(self) -> dict[str, tuple[int, str]]:
        """``dotted name path -> (id, type)`` of the primitive fields outside lists and maps: the columns
        whose Parquet statistics describe one value per row."""
        found: dict[str, tuple[int, str]] = {}

        def walk(fields: list[dict[str, Any]], prefix: str) -> None:
            for f in fields:
                path = prefix + f["name"]
                if isinstance(f["type"], str):
                    found[path] = (f["id"], f["type"])
                elif f["type"]["type"] == "struct":
                    walk(f["type"]["fields"], path + ".")

        walk(self.fields, "")
        return found

    def top_level(self, name: str) -> dict[str, Any] | None:
        return next((f for f in self.fields if f["name"] == name), None)


def iceberg_schema(
    avro_schema_json: str,
    *,
    schema_id: int,
    previous: Schema | None = None,
    last_column_id: int = 0,
    meta_fields: bool = False,
) -> Schema:
    """The Iceberg schema of a Hudi table's Avro schema.

    Args:
        avro_schema_json: the table's Avro record schema (JSON text).
        schema_id: the id the new schema gets.
        previous: the view's current schema, whose ids are kept by name path.
        last_column_id: the highest field id the view ever used; new ids are above it.
        meta_fields: put Hudi's five ``_hoodie_*`` string columns first (when the table populates them and
            the Avro schema lacks them).

    Raises:
        SchemaEvolutionError: a type Iceberg cannot express, or a change of a kept field's type that Iceberg
            does not allow.
    """
    try:
        avro = json.loads(avro_schema_json)
    except ValueError as e:
        raise SchemaEvolutionError(f"table schema is not JSON: {e}") from e
    if not isinstance(avro, dict) or avro.get("type") != "record":
        raise SchemaEvolutionError("table schema is not an Avro record")
    untyped = _AvroToIceberg().record_of(avro, "")
    names = {f["name"] for f in untyped["fields"]}
    if meta_fields:
        meta = [_optional(name, "string") for name in META_COLUMNS if name not in names]
        untyped["fields"] = meta + untyped["fields"]
    ids = _IdAssigner(_paths(previous.fields) if previous else {}, last_column_id)
    fields = ids.struct_fields(untyped["fields"], "")
    return Schema(schema_id, fields, ids.last_id)


def name_mapping(schemas: Sequence[Schema]) -> list[dict[str, Any]]:
    """The ``schema.name-mapping.default`` of a view: Hudi's Parquet files carry no field ids, so readers find
    columns by these names (list elements ``element``, map keys and values ``key`` and ``value``).

    Every schema's fields are mapped, the later schemas' ids winning: files written before a column was dropped
    still hold it, and readers refuse file columns they cannot map.
    """
    merged: list[dict[str, Any]] = []
    for schema in schemas:
        merged = _merge(merged, _mapping_of({"type": "struct", "fields": schema.fields}))
    return merged


def _mapping_of(type_: IcebergType) -> list[dict[str, Any]]:
    if isinstance(type_, str):
        return []
    if type_["type"] == "struct":
        return [_mapped(f["id"], f["name"], f["type"]) for f in type_["fields"]]
    if type_["type"] == "list":
        return [_mapped(type_["element-id"], "element", type_["element"])]
    return [_mapped(type_["key-id"], "key", type_["key"]), _mapped(type_["value-id"], "value", type_["value"])]


def _mapped(field_id: int, name: str, type_: IcebergType) -> dict[str, Any]:
    entry: dict[str, Any] = {"field-id": field_id, "names": [name]}
    children = _mapping_of(type_)
    if children:
        entry["fields"] = children
    return entry


def _merge(older: list[dict[str, Any]], newer: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``newer``'s entries, then ``older``'s whose names it lacks; children merged the same way."""
    by_name = {entry["names"][0]: entry for entry in older}
    merged = []
    for entry in newer:
        old = by_name.pop(entry["names"][0], None)
        children = _merge(old.get("fields", []) if old else [], entry.get("fields", []))
        merged.append({**entry, "fields": children} if children else entry)
    return merged + list(by_name.values())


def can_promote(old: str, new: str) -> bool:
    """Whether Iceberg lets a column of type ``old`` become ``new``.

    >>> can_promote("int", "long"), can_promote("decimal(10,2)", "decimal(12,2)"), can_promote("string", "int")
    (True, True, False)
    """
    if old == new or (old, new) in _PROMOTIONS:
        return True
    old_decimal, new_decimal = _DECIMAL.fullmatch(old), _DECIMAL.fullmatch(new)
    return bool(
        old_decimal and new_decimal and old_decimal[2] == new_decimal[2] and int(new_decimal[1]) >= int(old_decimal[1])
    )


def _optional(name: str, type_: IcebergType) -> dict[str, Any]:
    return {"name": name, "required": False, "type": type_}


class _AvroToIceberg(AvroTypeMapper[IcebergType]):
    """Avro schema -> Iceberg types without ids."""

    target = "Iceberg"

    def error(self, message: str) -> Exception:
        return SchemaEvolutionError(message)

    def primitive(self, name: str) -> IcebergType | None:
        return _PRIMITIVES.get(name)

    def logical(self, kind: Any, logical: Any, schema: dict[str, Any], where: str) -> IcebergType | None:
        if logical == "decimal" and kind in ("bytes", "fixed"):
            return f"decimal({int(schema['precision'])},{int(schema.get('scale', 0))})"
        if logical in _LOGICAL and kind in ("int", "long"):
            return _LOGICAL[logical]
        if logical in ("timestamp-nanos", "local-timestamp-nanos"):
            raise SchemaEvolutionError(f"table schema: {where} is a nanosecond timestamp (Iceberg v3 only)")
        return None

    def union(self, branches: list[Any], where: str) -> IcebergType:
        if len(branches) != 1:
            raise SchemaEvolutionError(f"table schema: {where} is a union of {len(branches)} types")
        return self.type_of(branches[0], where)

    def record(self, fields: list[dict[str, Any]], where: str) -> IcebergType:
        return {
            "type": "struct",
            "fields": [_optional(f["name"], self.type_of(f["type"], f"{where}{f['name']}")) for f in fields],
        }

    def array(self, items: Any, where: str) -> IcebergType:
        return {"type": "list", "element": self.type_of(items, where + ".element")}

    def map(self, values: Any, where: str) -> IcebergType:
        return {"type": "map", "key": "string", "value": self.type_of(values, where + ".value")}

    def enum(self) -> IcebergType:
        return "string"

    def fixed(self, size: int) -> IcebergType:
        return f"fixed[{size}]"


def _paths(fields: list[dict[str, Any]]) -> dict[str, tuple[int, IcebergType]]:
    """``name path -> (id, type)`` of every field of a schema, nested ones included."""
    return dict(_walk(fields, ""))


def _walk(fields: list[dict[str, Any]], prefix: str) -> Iterator[tuple[str, tuple[int, IcebergType]]]:
    for f in fields:
        path = prefix + f["name"]
        yield path, (f["id"], f["type"])
        yield from _walk_type(f["type"], path + ".")


def _walk_type(type_: IcebergType, prefix: str) -> Iterator[tuple[str, tuple[int, IcebergType]]]:
    if isinstance(type_, str):
        return
    if type_["type"] == "struct":
        yield from _walk(type_["fields"], prefix)
    elif type_["type"] == "list":
        yield prefix + "element", (type_["element-id"], type_["element"])
        yield from _walk_type(type_["element"], prefix + "element.")
    else:
        yield prefix + "key", (type_["key-id"], type_["key"])
        yield prefix + "value", (type_["value-id"], type_["value"])
        yield from _walk_type(type_["value"], prefix + "value.")


@dataclass
class _IdAssigner:
    """Gives each field of an id-less type its id: the previous schema's at the same path, else a new one."""

    previous: dict[str, tuple[int, IcebergType]]
    last_id: int

    def struct_fields(self, fields: list[dict[str, Any]], prefix: str) -> list[dict[str, Any]]:
        ids = [self._id(prefix + f["name"], f["type"]) for f in fields]
        return [
            {"id": id_, "name": f["name"], "required": f["required"], "type": self._type(f["type"], prefix + f["name"])}
            for id_, f in zip(ids, fields)
        ]

    def _type(self, type_: IcebergType, path: str) -> IcebergType:
        if isinstance(type_, str):
            return type_
        if type_["type"] == "struct":
            return {"type": "struct", "fields": self.struct_fields(type_["fields"], path + ".")}
        if type_["type"] == "list":
            element_id = self._id(path + ".element", type_["element"])
            return {
                "type": "list",
                "element-id": element_id,
                "element": self._type(type_["element"], path + ".element"),
                "element-required": False,
            }
        key_id = self._id(path + ".key", type_["key"])
        value_id = self._id(path + ".value", type_["value"])
        return {
            "type": "map",
            "key-id": key_id,
            "key": type_["key"],
            "value-id": value_id,
            "value": self._type(type_["value"], path + ".value"),
            "value-required": False,
        }

    def _id(self, path: str, type_: IcebergType) -> int:
        known = self.previous.get(path)
        if known is not None:
            _check_change(path, known[1], type_)
            return known[0]
        self.last_id += 1
        return self.last_id


def _check_change(path: str, old: IcebergType, new: IcebergType) -> None:
    old_kind = old if isinstance(old, str) else old["type"]
    new_kind = new if isinstance(new, str) else new["type"]
    if isinstance(old, str) and isinstance(new, str):
        if not can_promote(old, new):
            raise SchemaEvolutionError(f"column {path} changed from {old} to {new}, which Iceberg cannot express")
    elif old_kind != new_kind:
        raise SchemaEvolutionError(f"column {path} changed from {old_kind} to {new_kind}, which Iceberg cannot express")
