"""The Avro schemas of Iceberg v2 manifests and manifest lists, with the field ids of the spec's tables.

Maps with non-string keys are Avro arrays of ``key``/``value`` records marked ``"logicalType": "map"``, named
``k<key id>_v<value id>``; lists carry their element's id as ``element-id``; optional fields are unions with
``null`` that default to null.
"""

from __future__ import annotations

from typing import Any

from .partitions import PartitionSpec, avro_type


def _field(name: str, field_id: int, type_: Any, optional: bool = False) -> dict[str, Any]:
    if optional:
        return {"name": name, "type": ["null", type_], "default": None, "field-id": field_id}
    return {"name": name, "type": type_, "field-id": field_id}


def _int_map(field_id: int, key_id: int, value_id: int, value_type: str, name: str) -> dict[str, Any]:
    entry = {
        "type": "record",
        "name": f"k{key_id}_v{value_id}",
        "fields": [_field("key", key_id, "int"), _field("value", value_id, value_type)],
    }
    return _field(name, field_id, {"type": "array", "logicalType": "map", "items": entry}, optional=True)


def _list(name: str, field_id: int, element_id: int, element_type: str) -> dict[str, Any]:
    return _field(name, field_id, {"type": "array", "items": element_type, "element-id": element_id}, optional=True)


def partition_record(spec: PartitionSpec) -> dict[str, Any]:
    """The ``r102`` record of a spec's partition values (no fields for an unpartitioned spec)."""
    return {
        "type": "record",
        "name": "r102",
        "fields": [_field(f.name, f.field_id, avro_type(f.source_type), optional=True) for f in spec.fields],
    }


def data_file_schema(spec: PartitionSpec) -> dict[str, Any]:
    """``data_file`` (``r2``) for files of ``spec``."""
    return {
        "type": "record",
        "name": "r2",
        "fields": [
            _field("content", 134, "int"),
            _field("file_path", 100, "string"),
            _field("file_format", 101, "string"),
            _field("partition", 102, partition_record(spec)),
            _field("record_count", 103, "long"),
            _field("file_size_in_bytes", 104, "long"),
            _int_map(108, 117, 118, "long", "column_sizes"),
            _int_map(109, 119, 120, "long", "value_counts"),
            _int_map(110, 121, 122, "long", "null_value_counts"),
            _int_map(137, 138, 139, "long", "nan_value_counts"),
            _int_map(125, 126, 127, "bytes", "lower_bounds"),
            _int_map(128, 129, 130, "bytes", "upper_bounds"),
            _field("key_metadata", 131, "bytes", optional=True),
            _list("split_offsets", 132, 133, "long"),
            _list("equality_ids", 135, 136, "int"),
            _field("sort_order_id", 140, "int", optional=True),
        ],
    }


def manifest_entry_schema(spec: PartitionSpec) -> dict[str, Any]:
    """``manifest_entry`` with its ``data_file`` (``r2``) for files of ``spec``."""
    return {
        "type": "record",
        "name": "manifest_entry",
        "fields": [
            _field("status", 0, "int"),
            _field("snapshot_id", 1, "long", optional=True),
            _field("sequence_number", 3, "long", optional=True),
            _field("file_sequence_number", 4, "long", optional=True),
            _field("data_file", 2, data_file_schema(spec)),
        ],
    }


MANIFEST_FILE_SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": "manifest_file",
    "fields": [
        _field("manifest_path", 500, "string"),
        _field("manifest_length", 501, "long"),
        _field("partition_spec_id", 502, "int"),
        _field("content", 517, "int"),
        _field("sequence_number", 515, "long"),
        _field("min_sequence_number", 516, "long"),
        _field("added_snapshot_id", 503, "long"),
        _field("added_files_count", 504, "int"),
        _field("existing_files_count", 505, "int"),
        _field("deleted_files_count", 506, "int"),
        _field("added_rows_count", 512, "long"),
        _field("existing_rows_count", 513, "long"),
        _field("deleted_rows_count", 514, "long"),
        _field(
            "partitions",
            507,
            {
                "type": "array",
                "element-id": 508,
                "items": {
                    "type": "record",
                    "name": "r508",
                    "fields": [
                        _field("contains_null", 509, "boolean"),
                        _field("contains_nan", 518, "boolean", optional=True),
                        _field("lower_bound", 510, "bytes", optional=True),
                        _field("upper_bound", 511, "bytes", optional=True),
                    ],
                },
            },
            optional=True,
        ),
        _field("key_metadata", 519, "bytes", optional=True),
    ],
}
"""``manifest_file``: one entry of a manifest list."""
