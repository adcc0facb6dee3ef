"""The server on Azure Data Lake Storage Gen2 locations (``abfs://``, ``abfss://``), against Azurite
(``tests/support/object_stores.py``): a warehouse there keeps its scheme, managed drops delete only their
blobs, and ``hudi-metastore import`` reads a Hudi table's timeline from a container."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator

import pytest

from hms_adapter.catalog_access import hive_wire
from hudi_catalog import Catalog
from hudi_catalog.model import InstantState
from tests.conftest import RunningServer, require_module
from tests.hms_adapter.helpers import cols, make_database, make_partition, make_table
from tests.support.object_stores import AZURITE_ACCOUNT, AzureStore, azurite_server
from tests.support.servers import CLI

CONTAINER = "lake"


@pytest.fixture(scope="module")
def azure(tmp_path_factory) -> Iterator[AzureStore]:
    with azurite_server(tmp_path_factory.mktemp("azurite")) as store, pytest.MonkeyPatch.context() as env:
        for name, value in store.environment.items():
            env.setenv(name, value)
        store.filesystem().create_dir(CONTAINER)
        yield store


def _root(prefix: str, scheme: str = "abfs") -> str:
    return f"{scheme}://{CONTAINER}@{AZURITE_ACCOUNT}.dfs.core.windows.net/{prefix}"


@pytest.mark.parametrize("scheme", ["abfs", "abfss"])
def test_a_warehouse_on_azure(azure, db_url, scheme):
    prefix = f"t{uuid.uuid4().hex[:12]}"
    root = _root(f"{prefix}/wh", scheme)
    catalog = Catalog.open(db_url, root, **hive_wire())
    server = RunningServer(catalog)
    client = server.client()
    try:
        client.create_database(make_database("sales"))
        assert client.get_database("sales").locationUri == f"{root}/sales.db"
        client.create_table(make_table("sales", "orders", partition_keys=cols("ds:string")))
        assert client.get_table("sales", "orders").sd.location == f"{root}/sales.db/orders"
        for day in ("1", "2"):
            client.add_partition(make_partition("sales", "orders", [day]))
            azure.put(f"{CONTAINER}/{prefix}/wh/sales.db/orders/ds={day}/part-0.parquet")
        client.drop_partition("sales", "orders", ["1"], True)
        assert azure.keys(f"{CONTAINER}/{prefix}/wh/sales.db/orders") == [
            f"{CONTAINER}/{prefix}/wh/sales.db/orders/ds=2/part-0.parquet"
        ]
        client.drop_table("sales", "orders", True)
        assert azure.keys(f"{CONTAINER}/{prefix}/wh/sales.db") == []
    finally:
        client.close()
        server.stop()
        catalog.close()


def test_import_reads_the_timeline_from_azure(azure, tmp_path):
    require_module("hudi")
    from hudi import HudiTableBuilder

    from tests.hudi.tables import unpack
    from tests.support.hudi_oracles import oracle_slices, our_slices

    base = unpack("sample_table_cow_v8_complexkeygen_hivestyle", tmp_path)
    prefix = f"t{uuid.uuid4().hex[:12]}"
    location = _root(f"{prefix}/tables/trips")
    azure.upload(base, f"{CONTAINER}/{prefix}/tables/trips")
    db_url = f"sqlite:///{tmp_path}/catalog.db"
    done = subprocess.run(
        [*CLI, "import", location, "--database", "lake", "--table", "trips", "--db-url", db_url, "--create-catalog"],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **azure.environment},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert azure.environment["AZURE_STORAGE_ACCOUNT_KEY"] not in done.stderr + done.stdout
    catalog = Catalog.open(db_url, str(tmp_path / "warehouse"))
    try:
        assert catalog.tables.get("lake", "trips").sd.location == location
        oracle = HudiTableBuilder.from_base_uri(str(base)).build()
        completed = catalog.timeline.instants("lake", "trips", states=[InstantState.COMPLETED])
        assert sorted(i.requested_time for i in completed) == sorted(
            i.timestamp for i in oracle.get_timeline().get_completed_commits()
        )
        assert our_slices(catalog, "trips", database="lake") == oracle_slices(oracle)
    finally:
        catalog.close()
