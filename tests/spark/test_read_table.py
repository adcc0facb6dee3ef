"""``hudi_catalog.spark.read_table`` on the real Hudi tables, checked against the ``hudi`` package (hudi-rs).

The tables of ``../shared/hudi-tables`` are imported (each once, on first use) into one SQLite catalog for
the module; one Spark session (``local[2]``) reads them all. The oracle reads the same tables from storage
with hudi-rs, knowing nothing of the catalog. Remote reads go through a real metaserver socket; one case runs
on MariaDB.
"""

from __future__ import annotations

import collections
import shutil
import threading
from pathlib import Path
from urllib.parse import unquote, urlparse

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from tests.conftest import require_module

require_module("hudi")  # skips this module without the Spark extras
require_module("pyspark")

from hudi import HudiFileGroupReader, HudiReadOptions, HudiTableBuilder
from pyspark.sql import SparkSession

from hms_adapter.metaserver_client import MetaserverSource
from hms_adapter.serving import make_metaserver
from hudi_catalog import Catalog
from hudi_catalog.errors import InvalidFilterError, NoSuchObjectError, UnsupportedReadError
from hudi_catalog.hudi.partition_paths import partition_values
from hudi_catalog.model import Column, InstantState, StorageDescriptor, Table
from hudi_catalog.services.hudi_import import HudiImporter
from hudi_catalog.spark import read_table
from tests.conftest import skip_or_fail
from tests.hudi.tables import all_tables, unpack

# a Spark session's start with the first test: past the default 600 s on a machine 3-4 times slower
pytestmark = [pytest.mark.spark, pytest.mark.timeout(1800)]

NUMERIC = ("int", "bigint", "smallint", "tinyint", "float", "double")


# -- fixtures ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spark():
    if shutil.which("java") is None:
        skip_or_fail("Java is not installed; Spark cannot run")
    session = (
        SparkSession.builder.master("local[2]")
        .appName("read_table-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.host", "127.0.0.1")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


class Lake:
    """The real tables, unpacked and imported (each on first use) into one catalog as ``h.<name>``."""

    def __init__(self, catalog: Catalog, root: Path) -> None:
        self.catalog, self.root = catalog, root
        self.bases: dict[str, Path] = {}

    def table(self, name: str) -> str:
        if name == "missing":
            skip_or_fail("no Hudi tables in ../shared/hudi-tables")
        if name not in self.bases:
            self.bases[name] = unpack(name, self.root)
            HudiImporter(self.catalog).run(str(self.bases[name]), database="h", table=name)
        return f"h.{name}"

    def oracle(self, name: str):
        self.table(name)
        return HudiTableBuilder.from_base_uri(str(self.bases[name])).build()


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    root = tmp_path_factory.mktemp("lake")
    catalog = Catalog.open(f"sqlite:///{root / 'catalog.db'}", str(root / "warehouse"))
    yield Lake(catalog, root)
    catalog.close()


@pytest.fixture(scope="module")
def remote(lake):
    """The module's catalog served over the metaserver protocol on a free port, and a source reading it."""
    server = make_metaserver(lake.catalog, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    source = MetaserverSource.from_uri(f"thrift://127.0.0.1:{server.port}")
    yield source
    source.close()
    server.stop()
    thread.join(10)


# -- comparing rows ---------------------------------------------------------------------------------------


def rows(table: pa.Table | None, columns: list[str]) -> collections.Counter:
    """The rows of ``table`` over ``columns`` as a multiset of comparable values."""
    if table is None or table.num_rows == 0:
        return collections.Counter()
    return collections.Counter(repr(tuple(r[c] for c in columns)) for r in table.select(columns).to_pylist())


def batches(found: list) -> pa.Table | None:
    found = [b for b in found if b.num_rows]
    return pa.Table.from_batches(found) if found else None


def assert_same_rows(df, expected: pa.Table | None) -> pa.Table:
    """``df`` holds the rows of ``expected``, over the columns ``expected`` has (hudi-rs leaves out the
    meta columns of tables that do not populate them; the catalog's schema has them, null)."""
    ours = df.toArrow()
    if expected is None:
        assert ours.num_rows == 0
        return ours
    assert set(expected.column_names) <= set(ours.column_names)
    theirs_rows, our_rows = rows(expected, expected.column_names), rows(ours, expected.column_names)
    assert our_rows == theirs_rows, (
        f"only hudi-rs: {list(theirs_rows - our_rows)[:2]}; only ours: {list(our_rows - theirs_rows)[:2]}"
    )
    return ours


def oracle_read(oracle, as_of: str | None = None) -> pa.Table | None:
    options = HudiReadOptions() if as_of is None else HudiReadOptions().with_as_of_timestamp(as_of)
    return batches(oracle.read(options))


def oracle_slices_read(oracle, base: Path, partition_path: str | None = None, logs: bool = True) -> pa.Table | None:
    """The rows of the latest file slices hudi-rs lists (of one partition path), each slice read on its own
    (without its log files unless ``logs``)."""
    reader = HudiFileGroupReader(str(base), {})
    found = []
    for s in oracle.get_file_slices(HudiReadOptions()):
        if (partition_path is not None and s.partition_path != partition_path) or not s.base_file_name:
            continue
        data = reader.read_file_slice_from_paths(
            s.base_file_relative_path(), s.log_files_relative_paths() if logs else []
        )
        # in hudi-rs's table schema, as its table reads give it (files may store a column with another type;
        # meta columns only where the table populates them)
        names = data.schema.names
        populated = "_hoodie_commit_time" in names and data["_hoodie_commit_time"].null_count == 0
        schema = oracle.get_schema_with_meta_fields() if populated else oracle.get_schema()
        schema = pa.schema([f.with_nullable(True) for f in schema])
        found.extend(pa.Table.from_batches([data]).select(schema.names).cast(schema).to_batches())
    return batches(found)


def completed_writes(oracle) -> list[str]:
    timeline = oracle.get_timeline()
    return sorted(
        {
            i.timestamp
            for i in timeline.get_completed_commits()
            + timeline.get_completed_deltacommits()
            + timeline.get_completed_replacecommits()
        }
    )


def where_of(keys: list[Column], values: list[str]) -> str:
    """An engine's WHERE clause selecting one partition by its values."""

    def literal(value: str, type_: str) -> str:
        return value if type_ in NUMERIC else "'" + value.replace("'", "\\'") + "'"

    return " and ".join(f"{k.name} = {literal(v, k.type)}" for k, v in zip(keys, values))


def file_paths(df) -> set[str]:
    return {unquote(urlparse(f).path) for f in df.inputFiles()}


# -- COPY_ON_WRITE ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", all_tables("_cow_"))
def test_copy_on_write_snapshot_equals_hudi_rs_with_and_without_a_partition_filter(spark, lake, name):
    table = lake.table(name)
    oracle = lake.oracle(name)
    assert_same_rows(read_table(spark, table, catalog=lake.catalog), oracle_read(oracle))

    keys = lake.catalog.tables.get("h", name).partition_keys
    if not keys:
        return
    # the partition with the most rows, chosen by its values as the catalog holds them (for timestamp key
    # generators: the formatted path, not the data values)
    by_path = {
        p: oracle_slices_read(oracle, lake.bases[name], p)
        for p in sorted({s.partition_path for s in oracle.get_file_slices(HudiReadOptions())})
    }
    path, expected = max(by_path.items(), key=lambda item: item[1].num_rows if item[1] else 0)
    values = partition_values(path, [k.name for k in keys])
    df = read_table(spark, table, where=where_of(keys, values), catalog=lake.catalog)
    assert_same_rows(df, expected)
    assert expected.num_rows > 0 and (len(by_path) == 1 or expected.num_rows < oracle_read(oracle).num_rows)


def test_where_filters_rows_exactly_beyond_pruning(spark, lake):
    """``region = 'eu' or amount > 400`` cannot prune (the data term keeps every partition); the rows are
    still exactly those matching."""
    name = "sample_table_cow_v9_txns_simple_meta"
    table = lake.table(name)
    everything = oracle_read(lake.oracle(name))
    where = "region = 'eu' or amount > 400"
    keep = [r["region"] == "eu" or r["amount"] > 400 for r in everything.select(["region", "amount"]).to_pylist()]
    expected = everything.filter(pa.array(keep))
    assert 0 < expected.num_rows < everything.num_rows
    assert {r["region"] for r in expected.to_pylist()} > {"eu"}
    assert_same_rows(read_table(spark, table, where=where, catalog=lake.catalog), expected)
    assert read_table(spark, table, where="region = 'nowhere'", catalog=lake.catalog).count() == 0


def test_timestamp_keygen_partition_columns_are_data_values_filtered_by_partition_values(spark, lake):
    """The partition field of a timestamp key generator is stored as a long in some files and a string in
    others; the column has the table's type (string) and the files' values, as hudi-rs reads them, while the
    WHERE clause selects partitions by the catalog's values (the formatted path)."""
    name = "sample_table_cow_v9_timebasedkeygen_epochmillis"
    table = lake.table(name)
    df = read_table(spark, table, where="ts_millis = '2024/01/15/09'", catalog=lake.catalog)
    assert dict(df.dtypes)["ts_millis"] == "string"
    assert sorted(r.ts_millis for r in df.select("ts_millis").collect()) == ["1705311000000", "1705311000000"]


# -- MERGE_ON_READ ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", all_tables("_mor_"))
def test_merge_on_read_snapshot_and_read_optimized_equal_hudi_rs(spark, lake, name):
    table = lake.table(name)
    oracle = lake.oracle(name)
    assert_same_rows(read_table(spark, table, catalog=lake.catalog), oracle_read(oracle))
    base_rows = oracle_slices_read(oracle, lake.bases[name], logs=False)
    assert_same_rows(read_table(spark, table, query_type="read_optimized", catalog=lake.catalog), base_rows)


def test_merge_on_read_views_read_the_owner(spark, lake):
    """The ``_ro`` and ``_rt`` tables Hudi's hive sync registers beside a MERGE_ON_READ table have no files
    of their own: they read the owner's, ``_ro`` read-optimized."""
    name = "quickstart_trips_table_mor_avro_v6_trips_8i3d"
    table = lake.table(name)
    oracle = lake.oracle(name)
    merged, base_rows = oracle_read(oracle), oracle_slices_read(oracle, lake.bases[name], logs=False)
    assert rows(merged, merged.column_names) != rows(base_rows, merged.column_names)  # the logs change rows
    assert_same_rows(read_table(spark, table + "_rt", catalog=lake.catalog), merged)
    assert_same_rows(read_table(spark, table + "_ro", catalog=lake.catalog), base_rows)


# -- time travel and incremental reads --------------------------------------------------------------------

TIME_TRAVEL = [
    "sample_table_cow_v6_simplekeygen_nonhivestyle_overwritetable",
    "sample_table_cow_v9_timebasedkeygen_epochmillis",
    "sample_table_cow_v9_txns_simple_overwrite",
    "quickstart_trips_table_mor_avro_v6_trips_8i3d",
    "sample_table_mor_parquet_v6_complexkeygen_hivestyle",
    "sample_table_mor_avro_v9_txns_simple_meta",
    "quickstart_trips_table_mor_avro_v9_trips_lance",
]


@pytest.mark.parametrize("name", TIME_TRAVEL)
def test_time_travel_equals_hudi_rs_as_of_earlier_commits(spark, lake, name):
    table = lake.table(name)
    oracle = lake.oracle(name)
    commits = completed_writes(oracle)
    assert len(commits) >= 2
    for as_of in sorted({commits[0], commits[len(commits) // 2], commits[-2]}):
        assert_same_rows(read_table(spark, table, as_of=as_of, catalog=lake.catalog), oracle_read(oracle, as_of))


INCREMENTAL = [
    "sample_table_cow_v8_simplekeygen_nonhivestyle",
    "sample_table_cow_v9_txns_simple_meta",
    "quickstart_trips_table_mor_avro_v6_trips_8i1u",
    "sample_table_mor_avro_v9_txns_simple_meta",
]


@pytest.mark.parametrize("name", INCREMENTAL)
def test_incremental_reads_return_the_rows_the_chosen_instants_wrote(spark, lake, name):
    """``(begin, end]``: each record that instants in the range inserted or updated, in its latest state as
    of ``end``: hudi-rs's snapshot as of ``end``, keeping the rows whose commit time is in the range."""
    table = lake.table(name)
    oracle = lake.oracle(name)
    commits = completed_writes(oracle)
    for begin, end in [(None, None), (commits[0], commits[1]), (commits[0], commits[-1])]:
        after, upto = begin or "0" * 17, end or commits[-1]
        snapshot = oracle_read(oracle, upto)
        times = snapshot["_hoodie_commit_time"]
        expected = snapshot.filter(pc.and_(pc.greater(times, after), pc.less_equal(times, upto)))
        df = read_table(spark, table, query_type="incremental", begin=begin, end=end, catalog=lake.catalog)
        assert_same_rows(df, expected)
        if begin is None:  # from the start: every record of the latest snapshot
            assert expected.num_rows == snapshot.num_rows
        else:  # rows the first commit wrote and nothing rewrote since are left out
            assert 0 < expected.num_rows < snapshot.num_rows


def test_incremental_read_of_a_table_without_meta_fields_is_refused(spark, lake):
    table = lake.table("sample_table_cow_v8_simplekeygen_hivestyle_no_metafields")
    with pytest.raises(UnsupportedReadError, match="_hoodie_commit_time"):
        read_table(spark, table, query_type="incremental", catalog=lake.catalog)


# -- no listing -------------------------------------------------------------------------------------------


def test_reads_only_the_files_the_catalog_names(spark, lake, tmp_path):
    """A valid parquet file with other rows, named like a base file of the table's latest commit, in a
    partition folder, is not read: the read opens exactly the base files of the catalog's slices."""
    name = "sample_table_cow_v8_complexkeygen_hivestyle"
    base = unpack(name, tmp_path)
    HudiImporter(lake.catalog).run(str(base), database="stray", table="t")
    expected = oracle_read(HudiTableBuilder.from_base_uri(str(base)).build())
    slices = [s for found in lake.catalog.snapshot.latest_file_slices("stray", "t").values() for s in found]
    named = {str(base / s.partition_path / s.base_file) for s in slices}

    victim = next(iter(sorted(named)))
    data = pq.read_table(victim)
    keys = pa.array([f"stray-{k}" for k in data["_hoodie_record_key"].to_pylist()])
    stray = data.set_column(data.column_names.index("_hoodie_record_key"), "_hoodie_record_key", keys)
    latest = max(s.base_instant for s in slices)
    pq.write_table(stray, Path(victim).parent / f"00000000-0000-0000-0000-000000000000-0_9-9-9_{latest}.parquet")
    pq.write_table(stray, Path(victim).parent / "stray.parquet")

    df = read_table(spark, "stray.t", catalog=lake.catalog)
    assert_same_rows(df, expected)
    assert file_paths(df) == named
    pruned = read_table(spark, "stray.t", where="byteField = 10", catalog=lake.catalog)
    assert file_paths(pruned) == {p for p in named if "/byteField=10/" in p}


# -- remote catalog ---------------------------------------------------------------------------------------

REMOTE = [
    ("sample_table_cow_v6_complexkeygen_hivestyle", dict(where="byteField = 20")),
    ("sample_table_cow_v9_timebasedkeygen_epochmillis", dict(where="ts_millis >= '2024/01/16'")),
    ("sample_table_cow_v9_txns_nonpart_meta", dict(as_of="FIRST")),
    ("sample_table_mor_avro_v9_txns_simple_meta", dict()),
    ("quickstart_trips_table_mor_avro_v6_trips_8i1u", dict(query_type="incremental", begin="FIRST")),
]


@pytest.mark.parametrize("name, kwargs", REMOTE, ids=[n for n, _ in REMOTE])
def test_remote_reads_equal_in_process_reads(spark, lake, remote, name, kwargs):
    table = lake.table(name)
    first = completed_writes(lake.oracle(name))[0]
    kwargs = {k: first if v == "FIRST" else v for k, v in kwargs.items()}
    local = read_table(spark, table, catalog=lake.catalog, **kwargs).toArrow()
    assert local.num_rows > 0
    assert_same_rows(read_table(spark, table, catalog=remote, **kwargs), local)


def test_remote_errors_are_catalog_errors(spark, lake, remote):
    table = lake.table("sample_table_cow_v6_complexkeygen_hivestyle")
    with pytest.raises(NoSuchObjectError):
        read_table(spark, "h.no_such_table", catalog=remote)
    with pytest.raises(InvalidFilterError):
        read_table(spark, table, where="byteField = = 1", catalog=remote)
    info = remote.table("h", "sample_table_cow_v6_complexkeygen_hivestyle")
    assert info.columns == tuple(lake.catalog.tables.get("h", "sample_table_cow_v6_complexkeygen_hivestyle").sd.columns)


# -- MariaDB ----------------------------------------------------------------------------------------------


def test_read_through_a_mariadb_catalog(spark, mysql_db_url, tmp_path):
    name = "sample_table_mor_avro_v9_txns_simple_meta"
    base = unpack(name, tmp_path)
    catalog = Catalog.open(mysql_db_url, str(tmp_path / "warehouse"))
    try:
        HudiImporter(catalog).run(str(base), database="m", table="t")
        oracle = HudiTableBuilder.from_base_uri(str(base)).build()
        assert_same_rows(read_table(spark, "m.t", catalog=catalog), oracle_read(oracle))
        assert_same_rows(
            read_table(spark, "m.t", where="region = 'us'", catalog=catalog),
            oracle_slices_read(oracle, base, "region=us"),
        )
    finally:
        catalog.close()


# -- what cannot be served --------------------------------------------------------------------------------


def test_reads_that_cannot_be_served_raise_clear_errors(spark, lake):
    table = lake.table("sample_table_cow_v8_nonpartitioned")
    catalog = lake.catalog
    catalog.tables.create(
        Table(
            "h",
            "plain",
            partition_keys=[],
            sd=StorageDescriptor(columns=[Column("id", "int")], location=str(lake.root / "plain")),
        )
    )
    with pytest.raises(UnsupportedReadError, match="not a Hudi table"):
        read_table(spark, "h.plain", catalog=catalog)

    catalog.tables.create(
        Table(
            "h",
            "orc",
            table_type="EXTERNAL_TABLE",
            parameters={"hoodie.table.type": "COPY_ON_WRITE", "hoodie.table.version": "6", "EXTERNAL": "TRUE"},
            sd=StorageDescriptor(columns=[Column("id", "int")], location=str(lake.root / "orc")),
        )
    )
    ts = catalog.timeline.new_instant_time("h", "orc")
    commit = (
        '{"partitionToWriteStats": {"": [{"fileId": "f1", "path": "f1_0-1-1_%s.orc", "prevCommit": "null", '
        '"numWrites": 1, "fileSizeInBytes": 10, "partitionPath": ""}]}, "extraMetadata": {}, '
        '"operationType": "INSERT"}' % ts
    )
    catalog.timeline.create("h", "orc", ts, "commit", InstantState.INFLIGHT)
    catalog.timeline.transition(
        "h", "orc", ts, "commit", InstantState.INFLIGHT, InstantState.COMPLETED, commit.encode()
    )
    with pytest.raises(UnsupportedReadError, match=r"f1_0-1-1_\d+\.orc"):
        read_table(spark, "h.orc", catalog=catalog)

    for bad in (
        dict(query_type="streaming"),
        dict(as_of="yesterday"),
        dict(begin="20240101000000000"),
        dict(query_type="incremental", as_of="20240101000000000"),
    ):
        with pytest.raises(ValueError):
            read_table(spark, table, catalog=catalog, **bad)
    with pytest.raises(ValueError, match="database.table"):
        read_table(spark, "no_database", catalog=catalog)
