"""The view after Hudi's own cleaner: a table written by Hudi's Spark writer (``hudi-spark3.5-bundle`` 1.1, table
version 9) with automatic cleaning keeping the last 2 commits; its view made after the first writes, then
brought up to date by an import after more writes and their cleans. The view expires the snapshots before the
last clean's ``earliestCommitToRetain`` (read here from Hudi's own ``.clean`` file) and deletes their manifest
lists; every snapshot left reads as hudi-rs reads the table as of its commit, and no data file is deleted."""

from __future__ import annotations

import io

import fastavro
import pytest

from hudi_catalog import Catalog
from hudi_catalog.iceberg import DEFAULT_METADATA_DIR
from hudi_catalog.services.iceberg_views import METADATA_LOCATION
from tests.conftest import RunningServer
from tests.iceberg.helpers import (
    assert_same_rows,
    completed_writes,
    data_files,
    listed_files,
    load,
    local_path,
    oracle,
    oracle_read,
    view_files,
)
from tests.support.spark_writers import hudi_spark_writer

pytestmark = [pytest.mark.slow, pytest.mark.spark]

SCHEMA = "id int, name string, region string, ts bigint, price double"
OPTIONS = {
    "hoodie.table.name": "trips",
    "hoodie.datasource.write.table.type": "COPY_ON_WRITE",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.precombine.field": "price",
    "hoodie.datasource.write.partitionpath.field": "region",
    "hoodie.datasource.write.hive_style_partitioning": "true",
    "hoodie.metadata.enable": "false",
    "hoodie.clean.automatic": "true",
    "hoodie.clean.async": "false",
    "hoodie.cleaner.commits.retained": "2",
}


def test_hudi_cleans_expire_the_view(tmp_path):
    catalog = Catalog.open(f"sqlite:///{tmp_path / 'catalog.db'}", str(tmp_path / "wh"))
    server = RunningServer(catalog)
    base = tmp_path / "trips"
    try:
        with hudi_spark_writer(tmp_path / "spark", server.uri) as spark:

            def write(n: int) -> None:
                rows = [
                    [1, f"ann{n}", "eu", n, 10.0 + n],
                    [2, f"bob{n}", "us", n, 20.0 + n],
                    [3 + n, "new", "eu", n, 1.0],
                ]
                spark.write(f"file://{base}", SCHEMA, rows, OPTIONS, mode="overwrite" if n == 0 else "append")

            for n in range(2):
                write(n)
            catalog.import_table(f"file://{base}", "lake", "trips")
            made = catalog.iceberg_views.create("lake", "trips")
            first = load(made.metadata_location)
            assert len(first.snapshots()) == 2 and not _cleans(base)
            for n in range(2, 7):
                write(n)
        cleans = _cleans(base)
        assert cleans, "Hudi's writer made no clean: nothing was tested"
        files = data_files(base)

        catalog.import_table(f"file://{base}", "lake", "trips")
        refreshed = catalog.iceberg_views.refresh("lake", "trips")  # as `import` does: the new writes and cleans
        assert refreshed is not None and refreshed.snapshots_expired and refreshed.files_deleted
        view = load(catalog.tables.get("lake", "trips_iceberg").parameters[METADATA_LOCATION])
    finally:
        server.stop()
        catalog.close()

    retained = cleans[-1]
    writes = completed_writes(oracle(base))
    assert [s.summary["hudi.instant-time"] for s in view.snapshots()] == [w for w in writes if w >= retained]
    hudi_table = oracle(base)
    assert_same_rows(view.scan().to_arrow(), oracle_read(hudi_table))
    for snapshot in view.snapshots():
        as_of = snapshot.summary["hudi.instant-time"]
        assert_same_rows(view.scan(snapshot_id=snapshot.snapshot_id).to_arrow(), oracle_read(hudi_table, as_of))
    assert not any(local_path(s.manifest_list).exists() for s in first.snapshots())  # both written before the cleans
    assert view_files(base / DEFAULT_METADATA_DIR) == listed_files(view)
    assert data_files(base) == files  # Hudi's cleaner deleted data files; the view none


def _cleans(base) -> list[str]:
    """The ``earliestCommitToRetain`` of each completed clean in the table's timeline, in order, as Hudi wrote it."""
    found = []
    for path in sorted((base / ".hoodie" / "timeline").glob("*_*.clean")):
        [record] = fastavro.reader(io.BytesIO(path.read_bytes()))
        found.append(record["earliestCommitToRetain"])
    return found
