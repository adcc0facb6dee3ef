"""What the view does with what it cannot express: Lance base files are skipped with their reason; a missing
base file and a schema change Iceberg cannot express raise typed errors and leave the view as it was."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from pyarrow import fs as pafs

from hudi_catalog.errors import CatalogError
from hudi_catalog.hudi import read_table_config
from hudi_catalog.iceberg import (
    SKIPPED_PROPERTY,
    IcebergViewError,
    MissingDataFileError,
    SchemaEvolutionError,
    build_view,
    completed_changes,
    latest_metadata,
    table_info,
    update_view,
)
from hudi_catalog.iceberg.builder import BLOCKED_PROPERTY, DEFAULT_METADATA_DIR
from hudi_catalog.iceberg.schema import iceberg_schema
from tests.hudi.tables import unpack
from tests.iceberg.helpers import live_files, load

LOCAL = pafs.LocalFileSystem()


def test_lance_base_files_are_skipped_with_their_reason(tmp_path):
    base = unpack("sample_table_cow_v9_lance_txns_simple", tmp_path)
    update = build_view(LOCAL, str(base))
    assert update.error is None
    (reason,) = update.skipped
    assert "lance" in reason and "Parquet" in reason and update.skipped[reason] > 0
    assert json.loads(update.properties[SKIPPED_PROPERTY]) == update.skipped
    view = load(update.metadata.location)
    assert live_files(view) == []  # the snapshots are there, with no file the view cannot read


def _view_after_first_commit(tmp_path: Path, name: str):
    base = unpack(name, tmp_path)
    config = read_table_config(LOCAL, str(base))
    table = table_info(config, str(base))
    changes = completed_changes(LOCAL, str(base), config)
    first = update_view(LOCAL, table, changes[:1])
    return base, table, changes, first


def _listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def _truncate_footer(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:-20] + data[-8:])  # the footer's length and magic kept, its end cut off


def _overwrite_footer(path: Path) -> None:
    data = path.read_bytes()
    length = int.from_bytes(data[-8:-4], "little")
    path.write_bytes(data[: -8 - length] + b"\x19" * length + data[-8:])  # a footer of nonsense Thrift


def _no_magic(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-4] + b"JUNK")


@pytest.mark.parametrize(
    "spoil, message",
    [
        (Path.unlink, "not found"),
        (_truncate_footer, "cannot read the Parquet footer"),
        (_overwrite_footer, "cannot read the Parquet footer"),
        (_no_magic, "cannot read the Parquet footer"),
        (lambda path: path.write_bytes(b""), "cannot read the Parquet footer"),
    ],
    ids=["missing", "truncated footer", "nonsense footer", "no magic", "empty"],
)
def test_a_missing_or_corrupt_base_file_raises_and_leaves_the_view_as_it_was(tmp_path, spoil, message):
    base, table, changes, first = _view_after_first_commit(tmp_path, "sample_table_cow_v8_simplekeygen_nonhivestyle")
    folder = base / DEFAULT_METADATA_DIR
    before = _listing(folder)
    partition, names = next(iter(changes[1].added_base_files.items()))
    spoil(base / partition / names[0])
    with pytest.raises(MissingDataFileError, match=f"(?s){message}.*{names[0]}|{names[0]}.*{message}") as raised:
        update_view(LOCAL, table, changes[1:])
    assert isinstance(raised.value, CatalogError)
    assert _listing(folder) == before
    assert latest_metadata(LOCAL, str(folder)).location == first.metadata.location


def test_a_schema_change_iceberg_cannot_express_raises_and_leaves_the_view_as_it_was(tmp_path):
    base, table, changes, first = _view_after_first_commit(tmp_path, "sample_table_cow_v8_simplekeygen_nonhivestyle")
    folder = base / DEFAULT_METADATA_DIR
    before = _listing(folder)
    schema = json.loads(changes[1].schema)
    name_field = next(f for f in schema["fields"] if f["name"] == "name")
    name_field["type"] = ["null", "int"]  # string -> int
    with pytest.raises(SchemaEvolutionError, match="name changed from string to int"):
        update_view(LOCAL, table, [replace(changes[1], schema=json.dumps(schema))])
    assert _listing(folder) == before
    # the allowed promotion (int -> long) evolves the schema, keeping the column's id
    id_field = next(f for f in schema["fields"] if f["name"] == "id")
    id_field["type"], name_field["type"] = ["null", "long"], ["null", "string"]
    update = update_view(LOCAL, table, [replace(changes[1], schema=json.dumps(schema))])
    view = load(update.metadata.location)
    old = load(first.metadata.location).schema()
    assert view.schema().find_field("id").field_id == old.find_field("id").field_id
    assert str(view.schema().find_field("id").field_type) == "long"
    assert len(view.schemas()) == 2


def test_a_view_blocked_by_an_instant_takes_no_later_one(tmp_path):
    base = unpack("sample_table_cow_v9_timebasedkeygen_epochmillis", tmp_path)
    update = build_view(LOCAL, str(base))
    assert isinstance(update.error, SchemaEvolutionError)
    blocked = json.loads(update.properties[BLOCKED_PROPERTY])
    config = read_table_config(LOCAL, str(base))
    later = [c for c in completed_changes(LOCAL, str(base), config) if c.instant_time > blocked["instant"]]
    with pytest.raises(IcebergViewError, match="stopped before"):
        update_view(LOCAL, table_info(config, str(base)), later)


@pytest.mark.parametrize(
    "avro_type, message",
    [
        (["null", "int", "string"], "union of 2 types"),
        ({"type": "long", "logicalType": "timestamp-nanos"}, "nanosecond"),
    ],
)
def test_types_iceberg_has_no_equivalent_of_are_typed_errors(avro_type, message):
    schema = {"type": "record", "name": "r", "fields": [{"name": "c", "type": avro_type}]}
    with pytest.raises(SchemaEvolutionError, match=message):
        iceberg_schema(json.dumps(schema), schema_id=0)
