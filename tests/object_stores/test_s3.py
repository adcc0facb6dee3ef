"""The server on S3, against a real S3-compatible server (moto's, ``tests/support/object_stores.py``) reached
through the AWS SDK's standard environment, on ``s3a://``, ``s3://`` and ``s3n://`` locations alike.

Locations keep the scheme the client wrote, and every path the server derives keeps its parent's; managed
drops delete every object under the location (and only there), external drops none; a managed rename copies
the objects (S3 has no rename) and deletes the old ones; ``hudi-metastore import`` and the follow of a Hudi
table read ``.hoodie`` from the bucket; a scheme no file system takes is one ``MetaException``.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from hms_adapter.catalog_access import hive_wire
from hudi_catalog import Catalog
from tests.conftest import hive, require_module
from tests.hms_adapter.helpers import cols, make_database, make_partition, make_table
from tests.object_stores.conftest import BUCKET
from tests.support.object_stores import (
    SECRET_KEY,
    assert_as_hudi_rs,
    import_with_cli,
    managed_warehouse_session,
    served_client,
)
from tests.support.servers import free_port, serve_command, stop_servers, wait_for_port
from tests.support.sql_engines import metastore_client


@pytest.fixture
def prefix() -> str:
    """A folder of the bucket for one test."""
    return f"t{uuid.uuid4().hex[:12]}"


@contextmanager
def _serve_process(tmp_path: Path, warehouse: str, environment: dict[str, str], *options: str) -> Iterator:
    """A client of ``hudi-metastore serve`` in a process of its own, on ``warehouse``, with ``environment``;
    afterwards its log names no secret."""
    port = free_port()
    log = tmp_path / "serve.log"
    command = serve_command(port, db_url=f"sqlite:///{tmp_path}/c.db", warehouse=warehouse, extra=options)
    with open(log, "wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=environment)
    try:
        wait_for_port(port, process, log=log)
        client = metastore_client(f"thrift://127.0.0.1:{port}")
        try:
            yield client
        finally:
            client.close()
    finally:
        stop_servers([process], [log])
    assert SECRET_KEY not in log.read_text()


@pytest.mark.parametrize("scheme", ["s3a", "s3", "s3n"])
def test_a_warehouse_on_s3_keeps_the_scheme_and_deletes_only_managed_data(s3, db_url, prefix, scheme):
    root = f"{scheme}://{BUCKET}/{prefix}/wh"
    # a drop of 1,200 objects once (more than one batch of S3's DeleteObjects); a few objects otherwise
    per_partition = 400 if scheme == "s3a" and db_url.startswith("sqlite") else 3
    with served_client(db_url, root) as client:
        managed_warehouse_session(client, s3, root, f"{BUCKET}/{prefix}/wh", per_partition)
        external = f"{scheme}://{BUCKET}/{prefix}/external/clicks"
        s3.put(f"{BUCKET}/{prefix}/external/clicks/part-0.parquet")
        client.create_table(make_table("sales", "clicks", location=external, table_type="EXTERNAL_TABLE"))
        assert client.get_table("sales", "clicks").sd.location == external
        client.drop_table("sales", "clicks", True)
        assert s3.keys(f"{BUCKET}/{prefix}/external") == [f"{BUCKET}/{prefix}/external/clicks/part-0.parquet"]
        client.drop_database("sales", True, True)
        assert s3.keys(f"{BUCKET}/{prefix}/wh") == []


def test_a_managed_rename_on_s3_copies_the_objects(s3, db_url, prefix):
    root = f"s3a://{BUCKET}/{prefix}/wh"
    with served_client(db_url, root) as client:
        client.create_database(make_database("m"))
        client.create_table(make_table("m", "t", partition_keys=cols("k:string")))
        for k in ("a", "b"):
            client.add_partition(make_partition("m", "t", [k]))
            for n in range(10):
                s3.put(f"{BUCKET}/{prefix}/wh/m.db/t/k={k}/f{n}", f"{k}{n}".encode())
        client.alter_table("m", "t", make_table("m", "t2", partition_keys=cols("k:string")))

        assert client.get_table("m", "t2").sd.location == f"{root}/m.db/t2"
        assert [p.sd.location for p in client.get_partitions("m", "t2", -1)] == [
            f"{root}/m.db/t2/k=a",
            f"{root}/m.db/t2/k=b",
        ]
        assert s3.keys(f"{BUCKET}/{prefix}/wh/m.db/t") == []
        moved = s3.keys(f"{BUCKET}/{prefix}/wh/m.db/t2")
        assert len(moved) == 20
        with s3.filesystem().open_input_stream(f"{BUCKET}/{prefix}/wh/m.db/t2/k=b/f7") as stream:
            assert stream.read() == b"b7"


def test_a_scheme_no_file_system_takes_is_one_meta_exception(s3, db_url, prefix):
    with served_client(db_url, f"s3a://{BUCKET}/{prefix}/wh") as client:
        with pytest.raises(hive.MetaException, match="Unsupported file system scheme 'foo'"):
            client.create_database(make_database("bad", location="foo://somewhere/bad.db"))
        client.create_database(make_database("ok"))
        with pytest.raises(hive.MetaException, match="Unsupported file system scheme 'wasb'"):
            client.create_table(make_table("ok", "t", location="wasb://container@account/t"))
        assert client.get_all_tables("ok") == []


@pytest.mark.parametrize("scheme", ["s3a", "s3"])
def test_import_and_follow_read_the_timeline_from_s3(s3, tmp_path, prefix, scheme):
    """``hudi-metastore import s3a://...`` registers the table at that very location, with the timeline and
    file snapshot hudi-rs reads from the same files; a later commit is followed from the bucket too."""
    require_module("hudi")
    from tests.hudi.tables import unpack

    base = unpack("sample_table_cow_v8_complexkeygen_hivestyle", tmp_path)
    latest = sorted((base / ".hoodie" / "timeline").glob("*_*.commit"))[-1]
    held = tmp_path / latest.name
    latest.rename(held)  # the last commit is still inflight when the table is imported
    location = f"{scheme}://{BUCKET}/{prefix}/tables/trips"
    s3.upload(base, f"{BUCKET}/{prefix}/tables/trips")
    db_url = f"sqlite:///{tmp_path}/catalog.db"
    assert location in import_with_cli(location, db_url, s3)  # the log names the location with its scheme

    catalog = Catalog.open(db_url, str(tmp_path / "warehouse"))
    try:
        assert catalog.tables.get("lake", "trips").sd.location == location
        # the commit completes; its writer's sync alters the table
        s3.put(f"{BUCKET}/{prefix}/tables/trips/.hoodie/timeline/{latest.name}", held.read_bytes())
        held.rename(latest)
        table = catalog.tables.get("lake", "trips")
        table.parameters["last_commit_completion_time_sync"] = latest.name.split("_")[1].split(".")[0]
        catalog.tables.alter("lake", "trips", table)
        assert_as_hudi_rs(catalog, base)
    finally:
        catalog.close()


def test_the_warehouse_root_on_s3_serves(s3, tmp_path, prefix):
    """``serve --warehouse s3a://...`` starts and answers, configured by the environment alone."""
    with _serve_process(tmp_path, f"s3a://{BUCKET}/{prefix}/wh", {**os.environ, **s3.environment}) as client:
        client.create_database(make_database("w"))
        assert client.get_database("w").locationUri == f"s3a://{BUCKET}/{prefix}/wh/w.db"


def test_an_iceberg_view_on_s3_reads_with_pyiceberg(s3, tmp_path, prefix):
    """``import --iceberg-view`` of a table in the bucket writes the view's metadata there; PyIceberg's S3 FileIO
    reads the same rows as hudi-rs does from the files."""
    require_module("hudi")
    from hudi import HudiReadOptions, HudiTableBuilder
    from pyiceberg.table import StaticTable

    from tests.hudi.tables import unpack

    base = unpack("sample_table_cow_v8_complexkeygen_hivestyle", tmp_path)
    location = f"s3a://{BUCKET}/{prefix}/tables/trips"
    s3.upload(base, f"{BUCKET}/{prefix}/tables/trips")
    db_url = f"sqlite:///{tmp_path}/catalog.db"
    import_with_cli(location, db_url, s3, "--iceberg-view")
    catalog = Catalog.open(db_url, str(tmp_path / "warehouse"))
    try:
        metadata = catalog.tables.get("lake", "trips_iceberg").parameters["metadata_location"]
    finally:
        catalog.close()
    assert metadata.startswith(f"{location}/")
    view = StaticTable.from_metadata(
        metadata,
        properties={
            "s3.endpoint": s3.endpoint,
            "s3.access-key-id": s3.environment["AWS_ACCESS_KEY_ID"],
            "s3.secret-access-key": SECRET_KEY,
            "s3.region": s3.environment["AWS_REGION"],
        },
    )
    rows = view.scan().to_arrow().num_rows
    oracle = HudiTableBuilder.from_base_uri(str(base)).build()
    assert rows == sum(batch.num_rows for batch in oracle.read(HudiReadOptions())) > 0


def _core_site(path: Path, properties: dict[str, str]) -> Path:
    entries = "".join(f"<property><name>{k}</name><value>{v}</value></property>" for k, v in properties.items())
    path.write_text(f'<?xml version="1.0"?>\n<configuration>{entries}</configuration>\n')
    return path


def test_the_hadoop_configuration_of_a_platform_is_enough(s3, tmp_path, prefix):
    """No AWS variable at all: ``serve --storage-config core-site.xml`` with the S3A keys a platform keeps
    (a general endpoint that leads nowhere, the bucket's own endpoint, keys and path-style access) serves an
    ``s3a://`` warehouse; no secret reaches the log."""
    host = s3.endpoint.removeprefix("http://")
    core_site = _core_site(
        tmp_path / "core-site.xml",
        {
            "fs.s3a.endpoint": "http://127.0.0.1:9",  # nothing listens there: the bucket's own key must win
            f"fs.s3a.bucket.{BUCKET}.endpoint": host,
            "fs.s3a.connection.ssl.enabled": "false",
            "fs.s3a.path.style.access": "true",
            "fs.s3a.endpoint.region": s3.environment["AWS_REGION"],
            "fs.s3a.access.key": s3.environment["AWS_ACCESS_KEY_ID"],
            "fs.s3a.secret.key": SECRET_KEY,
        },
    )
    environment = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    warehouse = f"s3a://{BUCKET}/{prefix}/wh"
    with _serve_process(tmp_path, warehouse, environment, "--storage-config", str(core_site)) as client:
        client.create_database(make_database("conf"))
        client.create_table(make_table("conf", "t"))
        s3.put(f"{BUCKET}/{prefix}/wh/conf.db/t/part-0.parquet")
        client.drop_table("conf", "t", True)
    assert s3.keys(f"{BUCKET}/{prefix}/wh/conf.db") == []


def test_an_unreadable_storage_configuration_is_one_line(s3, tmp_path, db_url):
    from hudi_catalog.config import STORAGE_CONFIG_ENV

    broken = tmp_path / "core-site.xml"
    broken.write_text("<configuration><property>")
    with pytest.MonkeyPatch.context() as env:
        env.setenv(STORAGE_CONFIG_ENV, str(broken))
        with served_client(db_url, str(tmp_path / "wh")) as client:
            client.create_database(make_database("x"))
            with pytest.raises(hive.MetaException, match="Cannot read the storage configuration"):
                client.create_table(make_table("x", "t", location=f"s3a://{BUCKET}/broken/t"))


def test_iceberg_rest_tables_live_in_the_bucket(s3, db_url, prefix):
    """Through the Iceberg REST port, PyIceberg (with its S3 FileIO) creates and fills a table in an ``s3a://``
    warehouse, registers its metadata under another name, and purges it: the server writes the metadata
    and deletes the objects in the bucket."""
    import pyarrow as pa
    from pyiceberg.catalog.rest import RestCatalog
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField, StringType

    from iceberg_rest.server import RestServer

    root = f"s3a://{BUCKET}/{prefix}/wh"
    catalog = Catalog.open(db_url, root, **hive_wire())
    server = RestServer(catalog, "127.0.0.1", 0)
    server.start()
    try:
        rest = RestCatalog(
            "rest",
            uri=f"http://127.0.0.1:{server.port}",
            **{
                "s3.endpoint": s3.endpoint,
                "s3.access-key-id": s3.environment["AWS_ACCESS_KEY_ID"],
                "s3.secret-access-key": SECRET_KEY,
                "s3.region": s3.environment["AWS_REGION"],
            },
        )
        rest.create_namespace("shop")
        schema = Schema(NestedField(1, "id", LongType()), NestedField(2, "kind", StringType()))
        table = rest.create_table("shop.orders", schema)
        assert table.location() == f"{root}/shop.db/orders"
        rows = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "kind": pa.array(["a", "b", "a"])})
        table.append(rows)
        assert table.metadata_location.startswith(f"{root}/shop.db/orders/metadata/")
        objects = s3.keys(f"{BUCKET}/{prefix}/wh/shop.db/orders")
        assert any(key.endswith(".parquet") for key in objects)
        assert any(key.endswith(".metadata.json") for key in objects)

        copy = rest.register_table("shop.copy", table.metadata_location)
        assert sorted(copy.scan().to_arrow().column("id").to_pylist()) == [1, 2, 3]
        rest.drop_table("shop.copy")  # no purge: the files are the original's
        rest.purge_table("shop.orders")
        assert s3.keys(f"{BUCKET}/{prefix}/wh/shop.db/orders") == []
    finally:
        server.stop()
        catalog.close()


def test_hudi_rs_reads_file_slices_with_the_servers_storage_settings(s3, tmp_path, prefix):
    """What ``read_table``'s tasks give hudi-rs (``hudi_rs_options``) reaches the store as the server does: by
    the AWS variables alone (hudi-rs by itself refuses the store's plain-http endpoint), and by a
    ``core-site.xml`` alone (hudi-rs by itself knows no Hadoop key); each slice reads hudi-rs's own rows."""
    require_module("hudi")
    from hudi import HudiFileGroupReader, HudiReadOptions, HudiTableBuilder

    from hudi_catalog.config import STORAGE_CONFIG_ENV
    from hudi_catalog.filesystems import hudi_rs_options
    from tests.hudi.tables import unpack

    base = unpack("sample_table_cow_v8_complexkeygen_hivestyle", tmp_path)
    location = f"s3a://{BUCKET}/{prefix}/tables/trips"
    s3.upload(base, f"{BUCKET}/{prefix}/tables/trips")
    oracle = HudiTableBuilder.from_base_uri(str(base)).build()
    slices = oracle.get_file_slices(HudiReadOptions())
    expected = sum(batch.num_rows for batch in oracle.read(HudiReadOptions()))

    def rows_read() -> int:
        reader = HudiFileGroupReader(location, hudi_rs_options(location))
        paths = [f"{s.partition_path}/{s.base_file_name}" if s.partition_path else s.base_file_name for s in slices]
        return sum(reader.read_file_slice_from_paths(path, []).num_rows for path in paths)

    with pytest.raises(Exception, match="builder error"):  # hudi-rs on its own, by the environment
        HudiFileGroupReader(location, {}).read_file_slice_from_paths(
            f"{slices[0].partition_path}/{slices[0].base_file_name}", []
        )
    assert rows_read() == expected > 0
    core_site = _core_site(tmp_path / "core-site.xml", s3.s3a_settings)
    with pytest.MonkeyPatch.context() as env:
        for variable in [v for v in os.environ if v.startswith("AWS_")]:
            env.delenv(variable)
        env.setenv(STORAGE_CONFIG_ENV, str(core_site))
        assert rows_read() == expected
