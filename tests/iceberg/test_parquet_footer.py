"""The footer reader the view's builds go through: files of one Parquet schema share one layout (worked out
once), and the metrics taken through it are those of the data: sizes and counts summed over row groups, bounds
over every row group where they can be trusted, none where they cannot."""

from __future__ import annotations

import datetime as dt
import json
import struct
import sys
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq
from pyarrow import fs as pafs

from hudi_catalog.iceberg.parquet_footer import FileMetrics, read_footer
from hudi_catalog.iceberg.schema import iceberg_schema

LOCAL = pafs.LocalFileSystem()
AVRO = json.dumps(
    {
        "type": "record",
        "name": "trip",
        "fields": [
            {"name": "id", "type": "long"},
            {"name": "rider", "type": ["null", "string"]},
            {"name": "fare", "type": "double"},
            {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
            {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
        ],
    }
)


def _trips(ids: range, rider_prefix: str) -> pa.Table:
    riders = [None if n % 3 == 0 else f"{rider_prefix}{n:03d}" for n in ids]
    return pa.table(
        {
            "id": pa.array(list(ids), pa.int64()),
            "rider": pa.array(riders, pa.string()),
            "fare": pa.array([n * 1.5 for n in ids], pa.float64()),
            "at": pa.array([dt.datetime(2025, 1, 1) + dt.timedelta(seconds=n) for n in ids], pa.timestamp("ms")),
            "amount": pa.array([Decimal(n) / 4 for n in ids], pa.decimal128(10, 2)),
        }
    )


def _field_ids(schema) -> dict[str, int]:
    return {name: field_id for name, (field_id, _) in schema.primitive_columns().items()}


def test_files_of_one_schema_share_a_layout_and_another_schema_gets_its_own(tmp_path):
    for n in range(3):
        pq.write_table(_trips(range(n * 10, n * 10 + 10), "r"), tmp_path / f"same{n}.parquet")
    pq.write_table(_trips(range(10), "r").drop_columns(["amount"]), tmp_path / "other.parquet")
    same = [read_footer(LOCAL, str(tmp_path / f"same{n}.parquet")) for n in range(3)]
    other = read_footer(LOCAL, str(tmp_path / "other.parquet"))
    assert same[0].layout is same[1].layout is same[2].layout
    assert other.layout is not same[0].layout
    assert same[0].layout.top_level_types == {
        "id": "long",
        "rider": "string",
        "fare": "double",
        "at": "timestamp",
        "amount": "decimal(10,2)",
    }
    assert "amount" not in other.layout.top_level_types


def test_metrics_sum_and_bound_every_row_group(tmp_path):
    path = tmp_path / "groups.parquet"
    pq.write_table(_trips(range(1, 301), "rider-with-a-long-name-"), path, row_group_size=100)
    footer = read_footer(LOCAL, str(path))
    schema = iceberg_schema(AVRO, schema_id=0)
    ids = _field_ids(schema)
    metrics = FileMetrics(schema).of(footer)
    assert footer.metadata.num_row_groups == 3 and footer.record_count == 300
    assert footer.split_offsets() == sorted(footer.split_offsets()) and len(footer.split_offsets()) == 3
    assert metrics.value_counts == dict.fromkeys(ids.values(), 300)
    assert metrics.null_value_counts[ids["rider"]] == 100 and metrics.null_value_counts[ids["id"]] == 0
    column_sizes = {
        name: sum(footer.metadata.row_group(g).column(i).total_compressed_size for g in range(3))
        for i, name in enumerate(["id", "rider", "fare", "at", "amount"])
    }
    assert metrics.column_sizes == {ids[name]: size for name, size in column_sizes.items()}
    lower, upper = metrics.lower_bounds, metrics.upper_bounds
    assert struct.unpack("<q", lower[ids["id"]])[0] == 1 and struct.unpack("<q", upper[ids["id"]])[0] == 300
    # strings are cut to 16 characters: the lower bound a prefix, the upper one a prefix with its last
    # character raised
    assert lower[ids["rider"]] == b"rider-with-a-lon" and upper[ids["rider"]] == b"rider-with-a-loo"
    first, last = dt.datetime(2025, 1, 1, 0, 0, 1), dt.datetime(2025, 1, 1, 0, 5, 0)
    epoch = dt.datetime(1970, 1, 1)
    assert struct.unpack("<q", lower[ids["at"]])[0] == (first - epoch) // dt.timedelta(microseconds=1)
    assert struct.unpack("<q", upper[ids["at"]])[0] == (last - epoch) // dt.timedelta(microseconds=1)
    assert int.from_bytes(lower[ids["amount"]], "big", signed=True) == 25  # 0.25
    assert int.from_bytes(upper[ids["amount"]], "big", signed=True) == 7500  # 75.00
    assert ids["fare"] not in lower and ids["fare"] not in upper  # a double may hold NaN the footer leaves out


def test_a_column_stored_as_another_type_keeps_its_counts_but_no_bounds(tmp_path):
    path = tmp_path / "ints.parquet"
    pq.write_table(_trips(range(10), "r").set_column(0, "id", pa.array([str(n) for n in range(10)])), path)
    footer = read_footer(LOCAL, str(path))
    schema = iceberg_schema(AVRO, schema_id=0)
    ids = _field_ids(schema)
    metrics = FileMetrics(schema).of(footer)
    assert metrics.value_counts[ids["id"]] == 10
    assert ids["id"] not in metrics.lower_bounds and ids["id"] not in metrics.upper_bounds
    assert struct.unpack("<q", metrics.upper_bounds[ids["at"]])[0] > 0  # the other columns' bounds are kept


def test_one_reader_takes_files_of_several_layouts(tmp_path):
    """Files written before and after a column was added, read in one instant: each through its own layout."""
    pq.write_table(_trips(range(10), "r").drop_columns(["amount"]), tmp_path / "before.parquet")
    pq.write_table(_trips(range(10, 20), "r"), tmp_path / "after.parquet")
    schema = iceberg_schema(AVRO, schema_id=0)
    ids = _field_ids(schema)
    reader = FileMetrics(schema)
    before = reader.of(read_footer(LOCAL, str(tmp_path / "before.parquet")))
    after = reader.of(read_footer(LOCAL, str(tmp_path / "after.parquet")))
    assert ids["amount"] not in before.value_counts and after.value_counts[ids["amount"]] == 10
    assert struct.unpack("<q", before.upper_bounds[ids["id"]])[0] == 9
    assert struct.unpack("<q", after.lower_bounds[ids["id"]])[0] == 10


def test_threads_reading_footers_of_many_schemas_at_once_each_get_their_own_layout(tmp_path):
    """More schemas than the recent layouts kept, read by several threads at once: the recent layouts change
    under every search, and each footer still gets a layout of its own schema."""
    paths = []
    for n in range(20):
        path = tmp_path / f"schema{n}.parquet"
        pq.write_table(pa.table({f"column_{n}": pa.array([n], pa.int64())}), path)
        paths.append(path)

    def read_all(offset: int) -> list[tuple[int, dict[str, str]]]:
        found = []
        for round_ in range(1000):
            n = (offset + round_) % len(paths)
            found.append((n, read_footer(LOCAL, str(paths[n])).layout.top_level_types))
        return found

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch between almost any two bytecodes
    try:
        with ThreadPoolExecutor(8) as pool:
            results = [item for found in pool.map(read_all, range(8)) for item in found]
    finally:
        sys.setswitchinterval(interval)
    assert len(results) == 8000
    assert all(types == {f"column_{n}": "long"} for n, types in results)
