"""A Hudi table's Avro schema as Hive columns, the way Hudi's Hive sync lays them out.

The ``_hoodie_*`` meta columns come first, as strings; partition fields are split out of the data
columns; unions with ``null`` are the nullable non-null branch.

Example:
    >>> data, parts = hive_columns('{"type": "record", "name": "r", "fields": ['
    ...     '{"name": "id", "type": "long"}, {"name": "tags", "type": ["null", {"type": "array", "items": "string"}]},'
    ...     '{"name": "day", "type": {"type": "int", "logicalType": "date"}}]}', ["day"], meta_fields=False)
    >>> [(c.name, c.type) for c in data], [(c.name, c.type) for c in parts]
    ([('id', 'bigint'), ('tags', 'array<string>')], [('day', 'date')])
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from typing import Any, Generic, TypeVar

from ..errors import HudiMetadataError
from ..model import Column

T = TypeVar("T")

META_COLUMNS = (
    "_hoodie_commit_time",
    "_hoodie_commit_seqno",
    "_hoodie_record_key",
    "_hoodie_partition_path",
    "_hoodie_file_name",
)

_PRIMITIVES = {
    "boolean": "boolean",
    "int": "int",
    "long": "bigint",
    "float": "float",
    "double": "double",
    "bytes": "binary",
    "string": "string",
}
# Hive has no time-of-day type; the value stays the number Avro stores.
_LOGICAL = {
    "date": "date",
    "timestamp-millis": "timestamp",
    "timestamp-micros": "timestamp",
    "local-timestamp-millis": "timestamp",
    "local-timestamp-micros": "timestamp",
    "time-millis": "int",
    "time-micros": "bigint",
}


def hive_columns(
    avro_schema_json: str, partition_fields: list[str], *, meta_fields: bool = True
) -> tuple[list[Column], list[Column]]:
    """Data columns and partition columns of a Hudi table schema.

    Args:
        avro_schema_json: the table's Avro record schema (JSON text), as commit metadata records it.
        partition_fields: the table's partition fields; a field missing from the schema is a string.
        meta_fields: put Hudi's five ``_hoodie_*`` columns first (as Hive sync does).

    Raises:
        HudiMetadataError: the text is not an Avro record schema, or uses a type Hive cannot hold.
    """
    try:
        schema = json.loads(avro_schema_json)
    except ValueError as e:
        raise HudiMetadataError(f"table schema is not JSON: {e}") from e
    if not isinstance(schema, dict) or schema.get("type") != "record":
        raise HudiMetadataError("table schema is not an Avro record")
    converter = _HiveTypes()
    columns = [Column(f["name"], converter.type_of(f["type"], f["name"]), f.get("doc")) for f in schema["fields"]]
    by_name = {c.name.lower(): c for c in columns}
    wanted = {p.lower() for p in partition_fields}
    meta = [Column(name, "string") for name in META_COLUMNS] if meta_fields else []
    data = [c for c in columns if c.name.lower() not in wanted and (not meta_fields or c.name not in META_COLUMNS)]
    partitions = [
        Column(p, by_name[p.lower()].type, by_name[p.lower()].comment) if p.lower() in by_name else Column(p, "string")
        for p in partition_fields
    ]
    return meta + data, partitions


class AvroTypeMapper(ABC, Generic[T]):
    """Maps an Avro type to another type system. Named types (records, enums, fixed) are remembered as they
    are met, so later references by name resolve; a record that contains itself is refused. Subclasses say
    what each kind of Avro type becomes, and which error a type they cannot hold raises."""

    target = "Hive"
    """The type system's name, in errors."""

    def __init__(self) -> None:
        self._named: dict[str, Any] = {}
        self._open: set[str] = set()

    @abstractmethod
    def error(self, message: str) -> Exception: ...

    @abstractmethod
    def primitive(self, name: str) -> T | None:
        """An Avro primitive type's mapping; ``None`` when ``name`` is not a primitive."""

    @abstractmethod
    def logical(self, kind: Any, logical: Any, schema: dict[str, Any], where: str) -> T | None:
        """A logical type's mapping; ``None`` to map the underlying type."""

    @abstractmethod
    def union(self, branches: list[Any], where: str) -> T:
        """A union's mapping, given its branches other than ``null``."""

    @abstractmethod
    def record(self, fields: list[dict[str, Any]], where: str) -> T: ...

    @abstractmethod
    def array(self, items: Any, where: str) -> T: ...

    @abstractmethod
    def map(self, values: Any, where: str) -> T: ...

    @abstractmethod
    def enum(self) -> T: ...

    @abstractmethod
    def fixed(self, size: int) -> T: ...

    def type_of(self, schema: Any, where: str) -> T:
        """The mapping of ``schema`` (a type name, a union list or a type object) at path ``where``."""
        if isinstance(schema, str):
            primitive = self.primitive(schema)
            if primitive is not None:
                return primitive
            if schema in self._open:
                raise self.error(f"table schema: {where} is recursive, which {self.target} cannot hold")
            if schema in self._named:
                return self.type_of(self._named[schema], where)
            raise self.error(f"table schema: {where} has unsupported type {schema!r}")
        if isinstance(schema, list):
            return self.union([b for b in schema if b != "null"], where)
        if not isinstance(schema, dict):
            raise self.error(f"table schema: {where} has a malformed type {schema!r}")
        kind = schema.get("type")
        self._remember(schema)
        logical = self.logical(kind, schema.get("logicalType"), schema, where)
        if logical is not None:
            return logical
        if kind == "record":
            return self.record_of(schema, where)
        if kind == "array":
            return self.array(schema["items"], where)
        if kind == "map":
            return self.map(schema["values"], where)
        if kind == "enum":
            return self.enum()
        if kind == "fixed":
            return self.fixed(int(schema["size"]))
        return self.type_of(kind, where)

    def record_of(self, schema: dict[str, Any], where: str) -> T:
        """A record's mapping, its own name open while its fields are mapped (a field of its type would be
        recursive)."""
        self._remember(schema)
        names = {n for n, s in self._named.items() if s is schema}
        self._open |= names
        try:
            return self.record(schema["fields"], where)
        finally:
            self._open -= names

    def _remember(self, schema: dict[str, Any]) -> None:
        name = schema.get("name")
        if schema.get("type") in ("record", "enum", "fixed") and isinstance(name, str):
            namespace = schema.get("namespace")
            self._named[name] = schema
            if namespace and "." not in name:
                self._named[f"{namespace}.{name}"] = schema


class _HiveTypes(AvroTypeMapper[str]):
    """Avro schema -> Hive type string."""

    def error(self, message: str) -> Exception:
        return HudiMetadataError(message)

    def primitive(self, name: str) -> str | None:
        return _PRIMITIVES.get(name)

    def logical(self, kind: Any, logical: Any, schema: dict[str, Any], where: str) -> str | None:
        if logical == "decimal" and kind in ("bytes", "fixed"):
            return f"decimal({int(schema['precision'])},{int(schema.get('scale', 0))})"
        if logical in _LOGICAL and kind in ("int", "long"):
            return _LOGICAL[logical]
        return None

    def union(self, branches: list[Any], where: str) -> str:
        types = [self.type_of(b, where) for b in branches]
        if not types:
            raise HudiMetadataError(f"table schema: {where} is always null")
        return types[0] if len(types) == 1 else f"uniontype<{','.join(types)}>"

    def record(self, fields: list[dict[str, Any]], where: str) -> str:
        members = ",".join(f"{f['name']}:{self.type_of(f['type'], where + '.' + f['name'])}" for f in fields)
        return f"struct<{members}>"

    def array(self, items: Any, where: str) -> str:
        return f"array<{self.type_of(items, where + '[]')}>"

    def map(self, values: Any, where: str) -> str:
        return f"map<string,{self.type_of(values, where + '{}')}>"

    def enum(self) -> str:
        return "string"

    def fixed(self, size: int) -> str:
        return "binary"
