"""``hudi-metastore import --spark`` against the single-process import, on SQLite, MariaDB and PostgreSQL.

Each table of the sample (every table version, both table types, rollbacks, replace commits, Lance files, a
metadata table) is imported twice into one catalog, once by each path (the Spark one with small batches,
so batch and rollback boundaries are crossed): timeline rows, every state's metadata bytes, partitions,
live files and latest slices must be identical. A re-run records nothing; a corrupt instant fails naming it
before anything is written; an interrupted import resumes; pyspark stays optional. One SparkSession
(``local[2]``) serves the module.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from hudi_catalog.errors import HudiMetadataError, NoSuchObjectError, NoSuchTableError
from hudi_catalog.model import InstantState
from hudi_catalog.services.hudi_import import HudiImporter
from tests.conftest import require_module, skip_or_fail
from tests.hudi.tables import sample_across_stores, unpack

# a Spark session's start with the first test: past the default 600 s on a machine 3-4 times slower
pytestmark = [pytest.mark.spark, pytest.mark.timeout(1800)]


@pytest.fixture(scope="module")
def spark():
    require_module("pyspark")
    if shutil.which("java") is None:
        skip_or_fail("Java is not installed; Spark cannot run")
    from hudi_catalog.spark.importer import spark_session

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    session = spark_session("local[2]")
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def spark_importer(catalog, spark, **options):
    from hudi_catalog.spark.importer import SparkHudiImporter

    return SparkHudiImporter(catalog, spark=spark, **{"batch_instants": 3, "instants_per_task": 8, **options})


def catalog_state(catalog, database: str, table: str = "t") -> dict:
    """Everything an import writes for a table, without its ids and creation times."""
    instants = catalog.timeline.instants(database, table)
    metadata = {
        (i.requested_time, state): catalog.timeline.metadata(database, table, i.requested_time, i.action, state)
        for i in instants
        for state in InstantState
        if _has_state(catalog, database, table, i, state)
    }
    paths = catalog.snapshot.partition_paths(database, table)
    registered = catalog.tables.get(database, table)
    return {
        "timeline": [(i.requested_time, i.completion_time, i.action, i.state) for i in instants],
        "metadata": metadata,
        "partitions": [(p.values, p.sd.location) for p in catalog.partitions.list(database, table)],
        "paths": paths,
        "live_files": {p: catalog.snapshot.live_files(database, table, p) for p in paths},
        "slices": {
            p: [(s.file_id, s.base_file, tuple(s.log_files)) for s in found]
            for p, found in catalog.snapshot.latest_file_slices(database, table).items()
        },
        "columns": [(c.name, c.type) for c in registered.sd.columns],
        "partition_keys": [(c.name, c.type) for c in registered.partition_keys],
        "parameters": {k: v for k, v in registered.parameters.items() if k != "transient_lastDdlTime"},
    }


def _has_state(catalog, database, table, instant, state) -> bool:
    try:
        catalog.timeline.metadata(database, table, instant.requested_time, instant.action, state)
        return True
    except NoSuchObjectError:
        return False


@pytest.mark.parametrize(("db_url", "name"), sample_across_stores(), indirect=["db_url"])
def test_spark_import_equals_the_single_process_import(catalog, spark, tmp_path, name):
    base = unpack(name, tmp_path)
    single = HudiImporter(catalog).run(str(base), database="single", table="t")
    distributed = spark_importer(catalog, spark).run(str(base), database="spark", table="t")

    assert (distributed.recorded, distributed.latest_commit) == (single.recorded, single.latest_commit)
    assert catalog_state(catalog, "spark") == catalog_state(catalog, "single")
    assert spark_importer(catalog, spark).run(str(base), database="spark", table="t").recorded == 0


def test_corrupt_instant_fails_naming_it_and_writes_nothing(catalog, spark, tmp_path):
    base = unpack("sample_table_cow_v8_simplekeygen_nonhivestyle", tmp_path)
    completed = sorted((base / ".hoodie" / "timeline").glob("*_*.commit"))[0]
    completed.write_bytes(completed.read_bytes()[:40])
    with pytest.raises(HudiMetadataError, match=completed.name.split("_")[0]):
        spark_importer(catalog, spark).run(str(base), database="h", table="t")
    with pytest.raises(NoSuchTableError):
        catalog.tables.get("h", "t")


def test_interrupted_import_resumes_and_refresh_records_only_new_instants(catalog, spark, tmp_path, monkeypatch):
    base = unpack("sample_table_mor_avro_v9_txns_simple_meta", tmp_path)
    timeline = base / ".hoodie" / "timeline"
    latest = sorted(timeline.glob("*_*.deltacommit"))[-1]
    hidden = tmp_path / latest.name
    shutil.move(latest, hidden)

    importer = spark_importer(catalog, spark, batch_instants=2)
    write_batch, calls = importer.writer._write_batch, []

    def failing_batch(*args):
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("driver lost")
        return write_batch(*args)

    monkeypatch.setattr(importer.writer, "_write_batch", failing_batch)
    with pytest.raises(RuntimeError, match="driver lost"):
        importer.run(str(base), database="h", table="t")
    assert len(catalog.timeline.instants("h", "t")) == 4
    resumed = spark_importer(catalog, spark).run(str(base), database="h", table="t")
    assert resumed.recorded > 0

    shutil.move(hidden, latest)
    refreshed = spark_importer(catalog, spark).run(str(base), database="h", table="t")
    assert refreshed.recorded == 1 and refreshed.latest_commit == latest.name.split("_")[0]
    HudiImporter(catalog).run(str(base), database="single", table="t")
    assert catalog_state(catalog, "h") == catalog_state(catalog, "single")


def test_catalog_imports_without_pyspark_and_spark_import_says_what_is_missing(tmp_path):
    base = unpack("sample_table_cow_v8_nonpartitioned", tmp_path)
    blocked = (
        "import sys; sys.modules['pyspark'] = None; import hudi_catalog, hudi_catalog.spark.importer, hms_adapter.cli; "
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            blocked + "sys.exit(hms_adapter.cli.main(sys.argv[1:]))",
            "import",
            str(base),
            "--spark",
            "--db-url",
            f"sqlite:///{tmp_path / 'c.db'}",
            "--warehouse",
            str(tmp_path / "wh"),
            "--create-catalog",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "needs PySpark" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)  # the stores are the in-process tests' concern
def test_cli_spark_import(db_url, spark, tmp_path):
    base = unpack("sample_table_mor_parquet_v6_nonpartitioned_rollback", tmp_path)
    common = ["--db-url", db_url, "--warehouse", str(tmp_path / "wh")]
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "hms_adapter.cli",
            "import",
            str(base),
            "--database",
            "h",
            "--table",
            "t",
            "--spark",
            "--master",
            "local[1]",
            "--progress-interval",
            "0",
            "--create-catalog",
            *common,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "3 instants recorded" in done.stdout
    progress = [
        line.split("hms_adapter.import_progress: ", 1)[1]
        for line in done.stderr.splitlines()
        if "INFO hms_adapter.import_progress: " in line
    ]  # stderr is no terminal: log lines
    assert len(progress) == 2, progress  # the Spark tasks report their instants decoded at once
    assert re.fullmatch(r"(\d+)/\1 instants decoded in \d+:\d\d", progress[0])
    assert re.fullmatch(r"(\d+)/\1 instants written, \d+ commits applied in \d+:\d\d", progress[1])
    wrong = subprocess.run(
        [sys.executable, "-m", "hms_adapter.cli", "import", str(base), "--master", "local[1]", *common],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert wrong.returncode != 0 and "--master goes with --spark" in wrong.stderr
