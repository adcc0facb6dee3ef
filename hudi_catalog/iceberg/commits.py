"""Iceberg table metadata changed the way the Iceberg REST protocol asks: a new table's first metadata, a
commit's requirements checked against the current metadata and its updates applied, the file the new
version goes to, and the Hive columns a version's schema shows Hive clients.

The spec's metadata, requirements and updates are parsed and applied with pyiceberg's models of them (the
``rest`` extra), so every update type of the spec that pyiceberg knows is applied as Iceberg defines it.

Example:
    >>> created = created_metadata({"type": "struct", "fields": [
    ...     {"id": 1, "name": "id", "type": "long", "required": True}]}, None, None, "file:/w/t", {})
    >>> hive_columns(created)[0]
    Column(name='id', type='bigint', comment=None)
    >>> next_metadata_path(created, None).startswith("file:/w/t/metadata/00000-")
    True
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import TypeAdapter
from pydantic import ValidationError as ModelError
from pyiceberg.exceptions import CommitFailedException
from pyiceberg.exceptions import ValidationError as IcebergValidationError
from pyiceberg.partitioning import UNPARTITIONED_PARTITION_SPEC, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table.metadata import TableMetadata, TableMetadataUtil, TableMetadataV1, new_table_metadata
from pyiceberg.table.sorting import UNSORTED_SORT_ORDER, SortOrder
from pyiceberg.table.update import TableRequirement, TableUpdate, update_table_metadata
from pyiceberg.types import (
    BinaryType,
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FixedType,
    FloatType,
    IcebergType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    StringType,
    StructType,
    TimestampType,
    TimestamptzType,
    TimeType,
    UUIDType,
)

from ..errors import ConcurrentModificationError, InvalidInputError
from ..model import Column

_REQUIREMENTS: TypeAdapter[list[TableRequirement]] = TypeAdapter(list[TableRequirement])
_UPDATES: TypeAdapter[list[TableUpdate]] = TypeAdapter(list[TableUpdate])
_MALFORMED = (ModelError, IcebergValidationError, ValueError, TypeError, AttributeError, KeyError, IndexError)
"""What pyiceberg's models and updates raise on input of the wrong shape (some of its validators fail on a
value of the wrong type before pydantic names it)."""
_METADATA_VERSION = re.compile(r"(\d+)-.*\.metadata\.json")
METADATA_PATH_PROPERTY = "write.metadata.path"

_HIVE_PRIMITIVES: dict[type[IcebergType], str] = {
    BooleanType: "boolean",
    IntegerType: "int",
    LongType: "bigint",
    FloatType: "float",
    DoubleType: "double",
    DateType: "date",
    TimeType: "string",
    TimestampType: "timestamp",
    TimestamptzType: "timestamp",
    StringType: "string",
    UUIDType: "string",
    BinaryType: "binary",
    FixedType: "binary",
}


def parse_metadata(data: Mapping[str, Any], location: str) -> TableMetadata:
    """The metadata JSON object ``data`` read from ``location``, as pyiceberg's model.

    Raises:
        InvalidInputError: it is not Iceberg table metadata pyiceberg can read.
    """
    try:
        return TableMetadataUtil.parse_obj(dict(data))
    except _MALFORMED as e:  # the first line only: the rest quotes the file, which may be anything
        raise InvalidInputError(
            f"{location} is not Iceberg table metadata this server can read: {_first_line(e)}"
        ) from e


def created_metadata(
    schema: Mapping[str, Any],
    partition_spec: Mapping[str, Any] | None,
    write_order: Mapping[str, Any] | None,
    location: str,
    properties: Mapping[str, str],
) -> TableMetadata:
    """A new table's first metadata, its schema, spec and sort order given fresh ids as Iceberg assigns them.

    Raises:
        InvalidInputError: the schema, spec or order is malformed or names fields the schema lacks.
    """
    try:
        return new_table_metadata(
            Schema.model_validate(dict(schema)),
            PartitionSpec.model_validate(dict(partition_spec)) if partition_spec else UNPARTITIONED_PARTITION_SPEC,
            SortOrder.model_validate(dict(write_order)) if write_order else UNSORTED_SORT_ORDER,
            location,
            {str(k): str(v) for k, v in properties.items()},
        )
    except _MALFORMED as e:
        raise InvalidInputError(f"Cannot create the table: {_first_line(e)}") from e


def apply_changes(
    base: TableMetadata | None,
    base_location: str | None,
    requirements: Sequence[Mapping[str, Any]],
    updates: Sequence[Mapping[str, Any]],
) -> TableMetadata:
    """The metadata ``updates`` make of ``base`` (read from ``base_location``; None: the table does not exist
    yet, a staged create), once every one of ``requirements`` holds of ``base``.

    Raises:
        InvalidInputError: a requirement or update is malformed or of an unknown type, or an update does not
            apply (a schema id that does not exist, a snapshot of an unknown parent, ...).
        ConcurrentModificationError: a requirement does not hold: the table changed since the client read it.
    """
    try:
        checks = _REQUIREMENTS.validate_python(list(requirements))
        changes = _UPDATES.validate_python(list(updates))
    except _MALFORMED as e:
        raise InvalidInputError(f"Malformed commit: {_first_line(e)}") from e
    try:
        for requirement in checks:
            requirement.validate(base)
    except CommitFailedException as e:
        raise ConcurrentModificationError(str(e)) from e
    if base is None:  # a staged create: its updates build the first version from nothing, not from defaults
        base = TableMetadataV1.model_construct(last_column_id=-1, schema=Schema())
    try:
        return update_table_metadata(
            base, tuple(changes), enforce_validation=base_location is None, metadata_location=base_location
        )
    except _MALFORMED as e:
        raise InvalidInputError(f"Cannot apply the commit: {_first_line(e)}") from e


def next_metadata_path(metadata: TableMetadata, previous_location: str | None) -> str:
    """Where the version after ``previous_location`` (None: the first) goes: ``<n>-<uuid>.metadata.json``
    in the table's metadata folder (``write.metadata.path``, else ``<location>/metadata``), ``n`` one more
    than the previous file's."""
    version = 0
    if previous_location is not None:
        match = _METADATA_VERSION.fullmatch(previous_location.rsplit("/", 1)[-1])
        version = int(match[1]) + 1 if match else 0
    folder = metadata.properties.get(METADATA_PATH_PROPERTY) or f"{metadata.location.rstrip('/')}/metadata"
    return f"{folder.rstrip('/')}/{version:05d}-{uuid.uuid4()}.metadata.json"


def metadata_json(metadata: TableMetadata) -> bytes:
    """The metadata file's content."""
    return metadata.model_dump_json().encode("utf-8")


def hive_columns(metadata: TableMetadata) -> list[Column]:
    """The Hive columns of the metadata's current schema (what Hive clients list for the table)."""
    return [
        Column(field.name, _hive_type(field.field_type), field.doc) for field in metadata.schema().as_struct().fields
    ]


def _hive_type(field_type: IcebergType) -> str:
    if isinstance(field_type, StructType):
        return "struct<" + ",".join(f"{f.name}:{_hive_type(f.field_type)}" for f in field_type.fields) + ">"
    if isinstance(field_type, ListType):
        return f"array<{_hive_type(field_type.element_type)}>"
    if isinstance(field_type, MapType):
        return f"map<{_hive_type(field_type.key_type)},{_hive_type(field_type.value_type)}>"
    if isinstance(field_type, DecimalType):
        return f"decimal({field_type.precision},{field_type.scale})"
    return _HIVE_PRIMITIVES.get(type(field_type), "string")


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
