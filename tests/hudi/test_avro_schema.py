"""A table's Avro schema as Hive columns (``hudi_catalog.hudi.avro_schema``): the 42 real tables' against
hudi-rs's Arrow schema (the ``hudi`` package), two literally, and Avro types the tables do not use.
"""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from hudi_catalog.errors import HudiMetadataError
from hudi_catalog.hudi import hive_columns, latest_schema
from tests.hudi.tables import all_tables
from tests.support.hudi_metadata import FS
from tests.support.hudi_oracles import _hudi_rs


def _arrow_as_hive(t: pa.DataType) -> str:
    """hudi-rs's Arrow types, spelled as Hive types (the independent side of the comparison)."""
    simple = {
        pa.int32(): "int",
        pa.int64(): "bigint",
        pa.bool_(): "boolean",
        pa.float32(): "float",
        pa.float64(): "double",
        pa.string(): "string",
        pa.binary(): "binary",
        pa.date32(): "date",
    }
    if t in simple:
        return simple[t]
    if pa.types.is_decimal(t):
        return f"decimal({t.precision},{t.scale})"
    if pa.types.is_timestamp(t):
        return "timestamp"
    if pa.types.is_map(t):
        return f"map<{_arrow_as_hive(t.key_type)},{_arrow_as_hive(t.item_type)}>"
    if pa.types.is_list(t):
        return f"array<{_arrow_as_hive(t.value_type)}>"
    if pa.types.is_struct(t):
        return "struct<" + ",".join(f"{f.name}:{_arrow_as_hive(f.type)}" for f in t) + ">"
    raise AssertionError(f"no Hive spelling for {t}")


@pytest.mark.parametrize("name", all_tables())
def test_hive_columns_match_hudi_rs(table, name):
    base, config = table(name)
    data, partitions = hive_columns(latest_schema(FS, base, config), config.partition_fields)
    theirs = [(f.name, _arrow_as_hive(f.type)) for f in _hudi_rs(base).get_schema_with_meta_fields()]
    assert [(c.name, c.type) for c in partitions] == [(n, t) for n, t in theirs if n in config.partition_fields]
    assert [(c.name, c.type) for c in data] == [(n, t) for n, t in theirs if n not in config.partition_fields]


META = [
    ("_hoodie_commit_time", "string"),
    ("_hoodie_commit_seqno", "string"),
    ("_hoodie_record_key", "string"),
    ("_hoodie_partition_path", "string"),
    ("_hoodie_file_name", "string"),
]


def test_hive_columns_literally(table):
    base, config = table("sample_table_cow_v6_complexkeygen_hivestyle")
    data, partitions = hive_columns(latest_schema(FS, base, config), config.partition_fields)
    assert [(c.name, c.type) for c in data] == META + [
        ("id", "int"),
        ("name", "string"),
        ("isActive", "boolean"),
        ("intField", "int"),
        ("longField", "bigint"),
        ("floatField", "float"),
        ("doubleField", "double"),
        ("decimalField", "decimal(10,5)"),
        ("dateField", "date"),
        ("timestampField", "timestamp"),
        ("binaryField", "binary"),
        ("arrayField", "array<struct<arr_struct_f1:string,arr_struct_f2:int>>"),
        ("mapField", "map<string,struct<map_field_value_struct_f1:double,map_field_value_struct_f2:boolean>>"),
        (
            "structField",
            "struct<field1:string,field2:int,child_struct:struct<child_field1:double,child_field2:boolean>>",
        ),
    ]
    assert [(c.name, c.type) for c in partitions] == [("byteField", "int"), ("shortField", "int")]

    base, config = table("quickstart_trips_table_mor_avro_v8_trips_8i3u1d")
    data, partitions = hive_columns(latest_schema(FS, base, config), config.partition_fields)
    assert [(c.name, c.type) for c in data] == META + [
        ("ts", "bigint"),
        ("uuid", "string"),
        ("rider", "string"),
        ("driver", "string"),
        ("fare", "double"),
    ]
    assert [(c.name, c.type) for c in partitions] == [("city", "string")]


def test_hive_types_beyond_the_tables():
    schema = {
        "type": "record",
        "name": "r",
        "fields": [
            {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A"]}, "doc": "an enum"},
            {"name": "e2", "type": "E"},
            {"name": "f", "type": {"type": "fixed", "name": "F", "size": 4}},
            {"name": "d", "type": {"type": "bytes", "logicalType": "decimal", "precision": 5}},
            {"name": "ms", "type": {"type": "long", "logicalType": "timestamp-millis"}},
            {"name": "u", "type": ["null", "int", "string"]},
            {"name": "_hoodie_record_key", "type": ["null", "string"]},
        ],
    }
    data, partitions = hive_columns(json.dumps(schema), ["dt"])
    assert [(c.name, c.type, c.comment) for c in data][5:] == [
        ("e", "string", "an enum"),
        ("e2", "string", None),
        ("f", "binary", None),
        ("d", "decimal(5,0)", None),
        ("ms", "timestamp", None),
        ("u", "uniontype<int,string>", None),
    ]
    assert [(c.name, c.type) for c in partitions] == [("dt", "string")]
    assert [c.name for c in hive_columns(json.dumps(schema), [], meta_fields=False)[0]][-1] == "_hoodie_record_key"
    recursive = {"type": "record", "name": "Node", "fields": [{"name": "next", "type": ["null", "Node"]}]}
    for bad in ("not json", '"string"', json.dumps(recursive)):
        with pytest.raises(HudiMetadataError):
            hive_columns(bad, [])
