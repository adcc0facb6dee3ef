"""The server on Azure Data Lake Storage Gen2 (``abfs://``, ``abfss://``, against Azurite) and Google Cloud
Storage (``gs://``, ``gcs://``, against fake-gcs-server): a warehouse there keeps its scheme, managed drops
delete only their objects, and ``hudi-metastore import --iceberg-view`` reads a Hudi table's timeline from
the store and writes the view's metadata there."""

from __future__ import annotations

import json
import uuid

import pytest
from pyarrow.fs import FileType

from hms_adapter.catalog_access import hive_wire
from hudi_catalog import Catalog
from tests.conftest import RunningServer, require_module
from tests.object_stores.conftest import BUCKET
from tests.support.object_stores import AZURITE_ACCOUNT, assert_as_hudi_rs, import_with_cli, managed_warehouse_session

ROOTS = {
    "abfs": f"abfs://{BUCKET}@{AZURITE_ACCOUNT}.dfs.core.windows.net",
    "abfss": f"abfss://{BUCKET}@{AZURITE_ACCOUNT}.dfs.core.windows.net",
    "gs": f"gs://{BUCKET}",
    "gcs": f"gcs://{BUCKET}",
}
"""The location of the bucket (container) under each scheme."""
STORE_OF = {"abfs": "azure", "abfss": "azure", "gs": "gcs", "gcs": "gcs"}


@pytest.mark.parametrize("scheme", list(ROOTS))
def test_a_warehouse_keeps_its_scheme_and_drops_only_managed_data(request, db_url, scheme):
    store = request.getfixturevalue(STORE_OF[scheme])
    prefix = f"t{uuid.uuid4().hex[:12]}"
    catalog = Catalog.open(db_url, f"{ROOTS[scheme]}/{prefix}/wh", **hive_wire())
    server = RunningServer(catalog)
    client = server.client()
    try:
        managed_warehouse_session(client, store, f"{ROOTS[scheme]}/{prefix}/wh", f"{BUCKET}/{prefix}/wh", 1)
    finally:
        client.close()
        server.stop()
        catalog.close()


@pytest.mark.parametrize("scheme", ["abfs", "gs"])
def test_import_reads_the_timeline_from_the_store(request, tmp_path, scheme):
    require_module("hudi")
    from tests.hudi.tables import unpack

    store = request.getfixturevalue(STORE_OF[scheme])
    base = unpack("sample_table_cow_v8_complexkeygen_hivestyle", tmp_path)
    prefix = f"t{uuid.uuid4().hex[:12]}"
    location = f"{ROOTS[scheme]}/{prefix}/tables/trips"
    store.upload(base, f"{BUCKET}/{prefix}/tables/trips")
    db_url = f"sqlite:///{tmp_path}/catalog.db"
    import_with_cli(location, db_url, store, "--iceberg-view")
    catalog = Catalog.open(db_url, str(tmp_path / "warehouse"))
    try:
        assert catalog.tables.get("lake", "trips").sd.location == location
        assert_as_hudi_rs(catalog, base)
        metadata_location = catalog.tables.get("lake", "trips_iceberg").parameters["metadata_location"]
    finally:
        catalog.close()
    # the view's metadata lies in the store, under the table, and names the files there by the table's URI
    assert metadata_location.startswith(f"{location}/.hoodie/")
    in_store = f"{BUCKET}/{prefix}/tables/trips"
    with store.filesystem().open_input_stream(metadata_location.replace(location, in_store)) as stream:
        metadata = json.loads(stream.read())
    assert metadata["location"] == location
    manifest_list = next(s for s in metadata["snapshots"] if s["snapshot-id"] == metadata["current-snapshot-id"])
    assert manifest_list["manifest-list"].startswith(f"{location}/")
    found = store.filesystem().get_file_info(manifest_list["manifest-list"].replace(location, in_store))
    assert found.type == FileType.File and found.size > 0
