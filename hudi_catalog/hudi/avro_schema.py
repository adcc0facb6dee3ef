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
from typing import Any

from ..errors import HudiMetadataError
from ..model import Column

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
    columns = [Column(f["name"], converter.hive_type(f["type"], f["name"]), f.get("doc")) for f in schema["fields"]]
    by_name = {c.name.lower(): c for c in columns}
    wanted = {p.lower() for p in partition_fields}
    meta = [Column(name, "string") for name in META_COLUMNS] if meta_fields else []
    data = [c for c in columns if c.name.lower() not in wanted and (not meta_fields or c.name not in META_COLUMNS)]
    partitions = [
        Column(p, by_name[p.lower()].type, by_name[p.lower()].comment) if p.lower() in by_name else Column(p, "string")
        for p in partition_fields
    ]
    return meta + data, partitions


class _HiveTypes:
    """Avro schema -> Hive type string; remembers named types so later references resolve."""

    def __init__(self) -> None:
        self._named: dict[str, Any] = {}
        self._open_records: set[str] = set()

    def hive_type(self, schema: Any, where: str) -> str:
        if isinstance(schema, str):
            if schema in _PRIMITIVES:
                return _PRIMITIVES[schema]
            if schema in self._open_records:
                raise HudiMetadataError(f"table schema: {where} is recursive, which Hive cannot hold")
            if schema in self._named:
                return self.hive_type(self._named[schema], where)
            raise HudiMetadataError(f"table schema: {where} has unsupported type {schema!r}")
        if isinstance(schema, list):
            return self._union(schema, where)
        if not isinstance(schema, dict):
            raise HudiMetadataError(f"table schema: {where} has a malformed type {schema!r}")
        kind = schema.get("type")
        self._remember(schema)
        logical = schema.get("logicalType")
        if logical == "decimal" and kind in ("bytes", "fixed"):
            return f"decimal({int(schema['precision'])},{int(schema.get('scale', 0))})"
        if logical in _LOGICAL and kind in ("int", "long"):
            return _LOGICAL[logical]
        if kind == "record":
            return self._struct(schema, where)
        if kind == "array":
            return f"array<{self.hive_type(schema['items'], where + '[]')}>"
        if kind == "map":
            return f"map<string,{self.hive_type(schema['values'], where + '{}')}>"
        if kind == "enum":
            return "string"
        if kind == "fixed":
            return "binary"
        return self.hive_type(kind, where)

    def _struct(self, schema: dict, where: str) -> str:
        names = {n for n, s in self._named.items() if s is schema}
        self._open_records |= names
        try:
            fields = ",".join(
                f"{f['name']}:{self.hive_type(f['type'], where + '.' + f['name'])}" for f in schema["fields"]
            )
        finally:
            self._open_records -= names
        return f"struct<{fields}>"

    def _union(self, branches: list, where: str) -> str:
        types = [self.hive_type(b, where) for b in branches if b != "null"]
        if not types:
            raise HudiMetadataError(f"table schema: {where} is always null")
        return types[0] if len(types) == 1 else f"uniontype<{','.join(types)}>"

    def _remember(self, schema: dict) -> None:
        name = schema.get("name")
        if schema.get("type") in ("record", "enum", "fixed") and isinstance(name, str):
            namespace = schema.get("namespace")
            self._named[name] = schema
            if namespace and "." not in name:
                self._named[f"{namespace}.{name}"] = schema
