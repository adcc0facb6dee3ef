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
import pytest
from pyarrow import fs as pafs

from hudi_catalog.iceberg.errors import MissingDataFileError
from hudi_catalog.iceberg.parquet_footer import BLOOM_FILTER_KEY, FileMetrics, read_footer
from hudi_catalog.iceberg.schema import iceberg_schema
from tests.hudi.tables import table_names, unpack

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


# -- Hudi's bloom filter, cut from the footer before it is parsed ---------------------------------------------

BLOOM = "0123456789abcdef" * 28_000  # 448,000 characters, about what Hudi's writers keep there by default


def _with_metadata(table: pa.Table, **metadata: str) -> pa.Table:
    return table.replace_schema_metadata({key.replace("_", "."): value for key, value in metadata.items()})


def _hudi_like(path, table: pa.Table, bloom: str = BLOOM, **metadata: str) -> None:
    """A file whose footer holds Hudi's key-values: the record key range, the bloom filter, its type."""
    metadata = {
        "hoodie_min_record_key": "a",
        "org.apache.hudi.bloomfilter": bloom,
        "hoodie_max_record_key": "z",
        **metadata,
    }
    pq.write_table(table.replace_schema_metadata(metadata), path, row_group_size=100)


def _same_footer(ours, whole) -> None:
    """Everything the view reads agrees with the footer parsed whole; only the filter is empty."""
    assert ours.num_rows == whole.num_rows and ours.num_row_groups == whole.num_row_groups
    assert ours.schema.equals(whole.schema)
    for group in range(whole.num_row_groups):
        assert ours.row_group(group).to_dict() == whole.row_group(group).to_dict()
    kept = {k: v for k, v in (whole.metadata or {}).items() if k != BLOOM_FILTER_KEY}
    assert {k: v for k, v in (ours.metadata or {}).items() if k != BLOOM_FILTER_KEY} == kept


def test_the_bloom_filter_is_cut_and_the_rest_of_the_footer_kept(tmp_path):
    path = tmp_path / "hudi_like.parquet"
    _hudi_like(path, _trips(range(1, 301), "r"))
    whole = pq.read_metadata(path)
    assert len(whole.metadata[BLOOM_FILTER_KEY]) == len(BLOOM) and whole.serialized_size > 400_000
    footer = read_footer(LOCAL, str(path))
    assert footer.metadata.metadata[BLOOM_FILTER_KEY] == b""
    _same_footer(footer.metadata, whole)
    assert footer.record_count == 300 and footer.file_size == path.stat().st_size


PARQUET_TABLES = [n for n in table_names() if not isinstance(n, str) or not ("lance" in n or n.endswith("_empty"))]
"""The shared tables with Parquet base files (not the empty ones, nor those of Lance files)."""


@pytest.mark.parametrize("name", PARQUET_TABLES)
def test_real_hudi_base_files_lose_only_their_bloom_filter(name, tmp_path):
    """Every Parquet base file of the shared tables (Hudi 0.14 to 1.1): the footer as read agrees with the
    footer parsed whole, but for the bloom filter, cut wherever the writer put one."""
    base = unpack(name, tmp_path)
    files = sorted(p for p in base.rglob("*.parquet") if "__MACOSX" not in p.parts)
    assert files
    for path in files:
        whole = pq.read_metadata(path)
        footer = read_footer(LOCAL, str(path))
        if BLOOM_FILTER_KEY in (whole.metadata or {}) and path.stat().st_size > 64 * 1024:
            assert footer.metadata.metadata[BLOOM_FILTER_KEY] == b""
        _same_footer(footer.metadata, whole)


def test_a_footer_where_the_cut_would_not_empty_the_filter_is_read_whole(tmp_path):
    """Two key-values under the filter's key (a short one first): cutting the last, the filter, leaves the
    first as the value the footer gives for the key; what was cut cannot be told to be the filter, so the
    footer is read whole."""
    path = tmp_path / "twice.parquet"
    decoy = BLOOM_FILTER_KEY[:-1] + b"X"
    metadata = {decoy.decode(): "decoy", BLOOM_FILTER_KEY.decode(): BLOOM}
    pq.write_table(_trips(range(1, 101), "r").replace_schema_metadata(metadata), path)
    data = path.read_bytes()
    assert data.count(decoy) == 1
    path.write_bytes(data.replace(decoy, BLOOM_FILTER_KEY))  # the same length: the footer stays well formed
    whole = pq.read_metadata(path)
    footer = read_footer(LOCAL, str(path))
    assert footer.metadata.serialized_size == whole.serialized_size > len(BLOOM)  # nothing cut
    _same_footer(footer.metadata, whole)


def test_large_footers_without_a_filter_and_small_ones_of_large_files_are_read_whole(tmp_path):
    big_footer = tmp_path / "big_footer.parquet"
    pq.write_table(_with_metadata(_trips(range(10), "r"), other_key=BLOOM), big_footer)
    large_file = tmp_path / "large_file.parquet"
    pq.write_table(pa.table({"blob": pa.array([bytes(200_000)], pa.binary())}), large_file)
    for path in (big_footer, large_file):
        whole = pq.read_metadata(path)
        footer = read_footer(LOCAL, str(path))
        assert footer.metadata.metadata == whole.metadata
        _same_footer(footer.metadata, whole)


def test_a_cut_off_or_damaged_footer_with_a_filter_is_refused(tmp_path):
    path = tmp_path / "hudi_like.parquet"
    _hudi_like(path, _trips(range(1, 101), "r"))
    data = path.read_bytes()
    length = int.from_bytes(data[-8:-4], "little")
    damaged = {
        "value cut short": data[: -8 - 100] + data[-8:],
        "length past the start": data[:-8] + (len(data) + 1).to_bytes(4, "little") + b"PAR1",
        "schema overwritten": data[: -8 - length] + b"\x19" * 200 + data[-8 - length + 200 :],
    }
    for what, spoiled in damaged.items():
        path.write_bytes(spoiled)
        with pytest.raises(MissingDataFileError, match="cannot read the Parquet footer"):
            read_footer(LOCAL, str(path))
        assert what


class _CountingHandler(pafs.FSSpecHandler):
    """Local files whose reads are counted, as an object store would bill them."""

    def __init__(self) -> None:
        import fsspec

        super().__init__(fsspec.filesystem("file"))
        self.reads: list[int] = []

    def open_input_file(self, path):
        reads = self.reads

        class Counted:
            def __init__(self, handle) -> None:
                self.handle, self.closed = handle, False

            def read(self, size=-1):
                data = self.handle.read(size)
                reads.append(len(data))
                return data

            def __getattr__(self, name):
                return getattr(self.handle, name)

        return pa.PythonFile(Counted(open(path, "rb")), mode="r")


@pytest.mark.parametrize("bloom_filter", [False, True])
def test_a_large_footer_is_fetched_once(tmp_path, bloom_filter):
    """A footer larger than the first piece read from the file's end: with no filter it is read whole once
    (it used to be read again by Arrow after the search, the last 64 KB three times); with a filter, all but
    the filter."""
    path = tmp_path / "large_footer.parquet"
    if bloom_filter:
        _hudi_like(path, _trips(range(1, 301), "r"))
    else:
        pq.write_table(_with_metadata(_trips(range(10), "r"), other_key=BLOOM), path)
    whole = pq.read_metadata(path)
    handler = _CountingHandler()
    footer = read_footer(pafs.PyFileSystem(handler), str(path))
    _same_footer(footer.metadata, whole)
    tail = whole.serialized_size + 8
    if bloom_filter:
        assert sum(handler.reads) < tail - len(BLOOM) + 2 * 64 * 1024
    else:  # a 64 KB piece from each end of the footer, then what lies between them: no byte twice
        assert sum(handler.reads) == tail and len(handler.reads) == 3, handler.reads


@pytest.mark.parametrize(
    ("metadata", "reads"),
    [
        pytest.param({"other.key": BLOOM[:40_000]}, 2, id="under two pieces, no filter"),
        pytest.param({BLOOM_FILTER_KEY.decode(): BLOOM[:40_000]}, 2, id="under two pieces, a filter"),
        pytest.param(
            {BLOOM_FILTER_KEY.decode(): BLOOM[:10_000], "other.key": BLOOM[:200_000]}, 3, id="a filter in the first"
        ),
    ],
)
def test_a_footer_whose_first_piece_holds_the_filter_or_overlaps_the_end_is_fetched_once(tmp_path, metadata, reads):
    """A footer larger than the piece read from the file's end: the piece read from its start stops where
    that one began (it used to read up to 64 KB of it again), and a filter ending within it is cut with the
    rest of the footer read once (the footer used to be read whole again by Arrow, the filter kept)."""
    path = tmp_path / "footer.parquet"
    pq.write_table(_trips(range(10), "r").replace_schema_metadata(metadata), path)
    whole = pq.read_metadata(path)
    tail = whole.serialized_size + 8
    assert tail > 64 * 1024 and (tail < 2 * 64 * 1024) == (reads == 2)
    handler = _CountingHandler()
    footer = read_footer(pafs.PyFileSystem(handler), str(path))
    _same_footer(footer.metadata, whole)
    assert footer.metadata.metadata.get(BLOOM_FILTER_KEY, b"") == b""  # cut where there is one
    assert sum(handler.reads) == tail and len(handler.reads) == reads, handler.reads
