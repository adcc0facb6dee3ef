"""The view's identity partition spec, and each data file's partition values from its Hudi partition path.

Three layouts, chosen from the table's key generator and meta fields:

- **columns**: the simple, complex and custom (all ``SIMPLE`` fields) key generators write each partition
  field's column value into the path (``k=v`` hive-style or bare ``v``), so the spec is ``identity(field)`` of
  each partition field and the values are the path's, typed to the column's Iceberg type
  (``__HIVE_DEFAULT_PARTITION__`` is null);
- **path**: other key generators (timestamp-based, custom ``TIMESTAMP`` fields, user classes) write values
  that are not the column's (``2024/01/31`` of a timestamp column); when the table populates meta fields,
  the spec is ``identity(_hoodie_partition_path)``, which every row holds exactly;
- **none**: otherwise (and for unpartitioned tables) the spec is unpartitioned: readers cannot prune by
  partition, but read every row right.

Partition field ids start at 1000.

Example:
    >>> spec = PartitionSpec(0, (PartitionField("byteField", 5, 1000, "int"),), PartitionLayout.COLUMNS)
    >>> spec.values("byteField=10", ["byteField"]), spec.to_json()["fields"][0]["transform"]
    ({'byteField': 10}, 'identity')
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal, InvalidOperation
from enum import Enum
from typing import Any

from ..errors import HudiMetadataError
from ..hudi.partition_paths import partition_values
from .errors import IcebergViewError, SchemaEvolutionError
from .schema import Schema

FIRST_PARTITION_FIELD_ID = 1000
NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"
PARTITION_PATH_COLUMN = "_hoodie_partition_path"
_COLUMN_KEY_GENERATORS = {
    "SIMPLE",
    "COMPLEX",
    "NON_PARTITION",
    "CUSTOM",
    "SIMPLEKEYGENERATOR",
    "SIMPLEAVROKEYGENERATOR",
    "COMPLEXKEYGENERATOR",
    "COMPLEXAVROKEYGENERATOR",
    "NONPARTITIONEDKEYGENERATOR",
    "NONPARTITIONEDAVROKEYGENERATOR",
    "CUSTOMKEYGENERATOR",
    "CUSTOMAVROKEYGENERATOR",
}
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)
_PARSABLE = {"boolean", "int", "long", "float", "double", "string", "date", "timestamp", "timestamptz"}


class PartitionLayout(str, Enum):
    """Where the view's partition values come from (see the module's text)."""

    COLUMNS = "columns"
    PATH = "path"
    NONE = "none"


@dataclass(frozen=True)
class PartitionField:
    """One identity partition field: its name (the source column's), source column id, own id and type."""

    name: str
    source_id: int
    field_id: int
    source_type: str


@dataclass(frozen=True)
class PartitionSpec:
    """The view's partition spec and how its values are read from a Hudi partition path."""

    spec_id: int
    fields: tuple[PartitionField, ...]
    layout: PartitionLayout

    def to_json(self) -> dict[str, Any]:
        return {
            "spec-id": self.spec_id,
            "fields": [
                {"source-id": f.source_id, "field-id": f.field_id, "name": f.name, "transform": "identity"}
                for f in self.fields
            ],
        }

    @property
    def last_partition_id(self) -> int:
        return max((f.field_id for f in self.fields), default=FIRST_PARTITION_FIELD_ID - 1)

    def values(self, partition_path: str, hudi_fields: list[str]) -> dict[str, Any]:
        """``partition field -> value`` (Iceberg's physical form) of a file in ``partition_path``.

        Raises:
            IcebergViewError: the path does not match the partition fields, or a value is not of its type.
        """
        if self.layout is PartitionLayout.NONE:
            return {}
        if self.layout is PartitionLayout.PATH:
            return {self.fields[0].name: partition_path}
        try:
            texts = partition_values(partition_path, hudi_fields)
        except HudiMetadataError as e:
            raise IcebergViewError(str(e)) from e
        return {f.name: _typed(text, f, partition_path) for f, text in zip(self.fields, texts)}


def values_are_columns(key_generator: str | None, raw_partition_fields: list[str]) -> bool:
    """Whether a key generator writes partition paths of the partition columns' own values.

    >>> values_are_columns("org.apache.hudi.keygen.SimpleKeyGenerator", ["city"])
    True
    >>> values_are_columns("TIMESTAMP", ["ts"]), values_are_columns("CUSTOM", ["ts:TIMESTAMP"])
    (False, False)
    """
    if any(":" in f and f.split(":", 1)[1].strip().upper() != "SIMPLE" for f in raw_partition_fields):
        return False
    return key_generator is None or key_generator.rsplit(".", 1)[-1].upper() in _COLUMN_KEY_GENERATORS


def partition_spec(
    schema: Schema, hudi_fields: list[str], values_from_columns: bool, meta_fields: bool
) -> tuple[PartitionSpec, str | None]:
    """The view's spec for a table's partition fields, and why it cannot prune by them (``None`` if it can).

    Raises:
        SchemaEvolutionError: a partition column the table's schema does not have, or of a type partition
            values cannot be read as.
    """
    if not hudi_fields:
        return PartitionSpec(0, (), PartitionLayout.NONE), None
    if not values_from_columns:
        column = schema.top_level(PARTITION_PATH_COLUMN)
        reason = "the key generator's partition values are not the partition columns' values"
        if meta_fields and column is not None:
            field = PartitionField(PARTITION_PATH_COLUMN, column["id"], FIRST_PARTITION_FIELD_ID, "string")
            return PartitionSpec(0, (field,), PartitionLayout.PATH), f"{reason}: partitioned by {PARTITION_PATH_COLUMN}"
        return PartitionSpec(0, (), PartitionLayout.NONE), f"{reason}, and there are no meta fields: unpartitioned"
    fields = []
    for offset, name in enumerate(hudi_fields):
        column = schema.top_level(name)
        if column is None:
            raise SchemaEvolutionError(f"partition field {name} is not a column of the table schema")
        if column["type"] not in _PARSABLE and not str(column["type"]).startswith("decimal("):
            raise SchemaEvolutionError(
                f"partition field {name} is a {column['type']}, which the view cannot partition by"
            )
        fields.append(PartitionField(name, column["id"], FIRST_PARTITION_FIELD_ID + offset, column["type"]))
    return PartitionSpec(0, tuple(fields), PartitionLayout.COLUMNS), None


def avro_type(iceberg_type: str) -> Any:
    """The Avro type of a partition value of a primitive Iceberg type, in a manifest."""
    if iceberg_type.startswith("decimal("):
        precision, scale = (int(x) for x in iceberg_type[len("decimal(") : -1].split(","))
        size = next(n for n in range(1, 17) if 2 ** (8 * n - 1) > 10**precision)
        return {
            "type": "fixed",
            "name": f"decimal_{precision}_{scale}",
            "size": size,
            "logicalType": "decimal",
            "precision": precision,
            "scale": scale,
        }
    if iceberg_type == "date":
        return {"type": "int", "logicalType": "date"}
    if iceberg_type in ("timestamp", "timestamptz"):
        return {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": iceberg_type == "timestamptz"}
    return {"binary": "bytes"}.get(iceberg_type, iceberg_type)


def _typed(text: str, field: PartitionField, path: str) -> Any:
    if text == NULL_PARTITION:
        return None
    kind = field.source_type
    try:
        if kind in ("int", "long"):
            return int(text)
        if kind in ("float", "double"):
            return float(text)
        if kind == "boolean":
            if text.lower() not in ("true", "false"):
                raise ValueError(text)
            return text.lower() == "true"
        if kind == "date":
            return (date.fromisoformat(text) - _EPOCH.date()).days
        if kind in ("timestamp", "timestamptz"):
            moment = datetime.fromisoformat(text)
            moment = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
            return (moment - _EPOCH) // _MICROSECOND
        if kind.startswith("decimal("):
            return Decimal(text)
    except (ValueError, InvalidOperation) as e:
        raise IcebergViewError(f"partition {path}: {field.name}={text!r} is not a {kind}") from e
    return text
