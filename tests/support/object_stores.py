"""The object stores the tests run the server against, each a real server on a free loopback port, one per
test module, stopped with it (nothing of the file-system layer is mocked):

- S3: moto's server (``moto[server]``, pinned in the test extra). Chosen over S3Proxy and SeaweedFS because
  it comes from PyPI with the rest of the test install (no JVM, no Go build, nothing to fetch on first use),
  starts in about a second, and answers the S3 calls pyarrow's S3 client, Hadoop's S3A and the AWS SDKs make
  (multipart uploads, batched deletes, server-side copies, listings with delimiters). It keeps objects in
  memory. The server is reached as a real deployment reaches S3, through the AWS SDK's standard environment
  (``AWS_ENDPOINT_URL``, ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_REGION``).
- Azure: Azurite's Blob service; GCS: fake-gcs-server (``benchmarks/object_store_servers.py`` installs both
  once per machine).

Each store gives ``environment`` (what points the server at it) and a pyarrow client of its own for the
tests' reads and writes (``ObjectStore``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from pyarrow import fs as pafs

from hms_adapter.catalog_access import hive_wire
from hudi_catalog import Catalog
from tests.hms_adapter.helpers import cols, make_database, make_partition, make_table
from tests.support.servers import CLI, free_port, stop_servers, wait_for_port

ACCESS_KEY = "hudi-metastore-tests"
SECRET_KEY = "s3cr3t-never-logged"
REGION = "us-east-1"
AZURITE_ACCOUNT = "devstoreaccount1"
AZURITE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
"""Azurite's one account and its published, well-known key (not a secret)."""


class ObjectStore:
    """A store at ``endpoint``: the tests' own client of it (made once) and the objects they read and write,
    named ``bucket/key`` (``container/path`` on Azure)."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self._client: pafs.FileSystem | None = None

    @property
    def environment(self) -> dict[str, str]:
        """What points the server's file systems (``hudi_catalog.filesystems``) at this store."""
        raise NotImplementedError

    @property
    def hudi_rs_options(self) -> dict[str, str]:
        """The storage options that point hudi-rs (the tests' oracle) at this store."""
        raise NotImplementedError

    def _make_client(self) -> pafs.FileSystem:
        raise NotImplementedError

    def filesystem(self) -> pafs.FileSystem:
        if self._client is None:
            self._client = self._make_client()
        return self._client

    def put(self, key: str, data: bytes = b"PAR1") -> None:
        with self.filesystem().open_output_stream(key) as out:
            out.write(data)

    def put_many(self, keys: list[str]) -> None:
        """Write many small objects, several at a time (moto takes about 20 ms an object)."""
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(self.put, keys))

    def keys(self, prefix: str) -> list[str]:
        """The objects (not directory markers) under ``prefix``, sorted."""
        found = self.filesystem().get_file_info(pafs.FileSelector(prefix, recursive=True, allow_not_found=True))
        return sorted(i.path for i in found if i.type == pafs.FileType.File)

    def upload(self, folder: Path, prefix: str) -> None:
        """Copy a local folder's files under ``prefix``."""
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            self.put(f"{prefix}/{path.relative_to(folder).as_posix()}", path.read_bytes())


class S3Store(ObjectStore):
    @property
    def environment(self) -> dict[str, str]:
        """The AWS SDK's standard variables."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
            "AWS_REGION": REGION,
        }

    @property
    def hudi_rs_options(self) -> dict[str, str]:
        return {
            "aws_endpoint_url": self.endpoint,
            "aws_access_key_id": ACCESS_KEY,
            "aws_secret_access_key": SECRET_KEY,
            "aws_region": REGION,
            "aws_allow_http": "true",
        }

    @property
    def s3a_settings(self) -> dict[str, str]:
        """Hadoop's S3A keys (``core-site.xml``, or Spark's ``spark.hadoop.*``) that reach this store."""
        return {
            "fs.s3a.endpoint": self.endpoint,
            "fs.s3a.endpoint.region": REGION,
            "fs.s3a.access.key": ACCESS_KEY,
            "fs.s3a.secret.key": SECRET_KEY,
            "fs.s3a.path.style.access": "true",
            "fs.s3a.connection.ssl.enabled": "false",
            "fs.s3a.aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
        }

    @property
    def trino_settings(self) -> dict[str, str]:
        """A Trino 476 catalog's native S3 file system on this store."""
        return {
            "fs.native-s3.enabled": "true",
            "s3.endpoint": self.endpoint,
            "s3.region": REGION,
            "s3.path-style-access": "true",
            "s3.aws-access-key": ACCESS_KEY,
            "s3.aws-secret-key": SECRET_KEY,
        }

    def _make_client(self) -> pafs.FileSystem:
        return pafs.S3FileSystem(
            access_key=ACCESS_KEY,
            secret_key=SECRET_KEY,
            region=REGION,
            endpoint_override=self.endpoint.removeprefix("http://"),
            scheme="http",
            allow_bucket_creation=True,
        )


class AzureStore(ObjectStore):
    @property
    def environment(self) -> dict[str, str]:
        return {"AZURE_STORAGE_ACCOUNT_KEY": AZURITE_KEY, "AZURE_STORAGE_BLOB_ENDPOINT": self.endpoint}

    def _make_client(self) -> pafs.FileSystem:
        scheme, _, host = self.endpoint.rpartition("://")
        return pafs.AzureFileSystem(
            AZURITE_ACCOUNT,
            account_key=AZURITE_KEY,
            blob_storage_authority=host,
            dfs_storage_authority=host,
            blob_storage_scheme=scheme,
            dfs_storage_scheme=scheme,
        )


class GcsStore(ObjectStore):
    @property
    def environment(self) -> dict[str, str]:
        """Google's variable pointing a client at an emulator."""
        return {"STORAGE_EMULATOR_HOST": self.endpoint}

    def _make_client(self) -> pafs.FileSystem:
        return pafs.GcsFileSystem(
            anonymous=True,
            endpoint_override=self.endpoint.removeprefix("http://"),
            scheme="http",
            project_id="hudi-metastore-tests",
        )


@contextmanager
def _serving(
    name: str,
    work: Path,
    command: Callable[[int], list[str]],
    store: type[ObjectStore],
    environment: dict[str, str] | None = None,
) -> Iterator:
    """``command(port)`` on a free loopback port until the block ends, as ``store`` at that endpoint; waits
    until it listens (or fails the test when it exits first), its output in ``work/<name>.log``; with
    ``environment`` added to its variables."""
    port = free_port()
    log = work / f"{name}.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            command(port), stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **(environment or {})}
        )
    try:
        wait_for_port(port, process, log=log)
        yield store(f"http://127.0.0.1:{port}")
    finally:
        stop_servers([process], [])


def s3_server(work: Path, checking_keys_after: int | None = None):
    """moto's S3 server; with ``checking_keys_after``, one that checks each request's key and its IAM policy
    once it took that many requests unchecked (to make the IAM users and buckets a test needs)."""

    def command(port: int) -> list[str]:
        return [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]

    if checking_keys_after is None:
        return _serving("moto", work, command, S3Store)
    environment = {"INITIAL_NO_AUTH_ACTION_COUNT": str(checking_keys_after)}
    return _serving("moto-iam", work, command, S3Store, environment)


def _installed(install: str) -> Path:
    """The command ``benchmarks/object_store_servers.py``'s ``install`` function gives, installing it first if
    this machine lacks it; skips (fails in CI) when it cannot."""
    import object_store_servers  # benchmarks/, on the path through tests.support.servers

    from tests.conftest import skip_or_fail

    try:
        return getattr(object_store_servers, install)()
    except object_store_servers.EngineUnavailable as error:
        skip_or_fail(f"{install} cannot be installed here: {error}")
        raise


def azurite_server(work: Path):
    """Azurite's Blob service, its data in ``work``."""
    command = _installed("azurite")
    return _serving(
        "azurite",
        work,
        lambda port: (
            [str(command), "--blobHost", "127.0.0.1", "--blobPort", str(port), "--location", str(work)]
            + ["--skipApiVersionCheck", "--loose", "--disableTelemetry"]
        ),
        AzureStore,
    )


def fake_gcs_server(work: Path):
    """fake-gcs-server, keeping objects in memory."""
    command = _installed("fake_gcs_server")
    return _serving(
        "fake-gcs",
        work,
        lambda port: (
            [str(command), "-scheme", "http", "-host", "127.0.0.1", "-port", str(port), "-backend", "memory"]
            + ["-external-url", f"http://127.0.0.1:{port}"]
        ),
        GcsStore,
    )


@contextmanager
def served_client(db_url: str, warehouse: str) -> Iterator:
    """A client of a server in this process on ``warehouse`` (the store reached by this process's variables)."""
    from tests.conftest import RunningServer  # as skip_or_fail below: tests.conftest is not imported at load

    catalog = Catalog.open(db_url, warehouse, **hive_wire())
    server = RunningServer(catalog)
    client = server.client()
    try:
        yield client
    finally:
        client.close()
        server.stop()
        catalog.close()


# -- what the tests of every store check -------------------------------------------------------------------


def import_with_cli(location: str, db_url: str, store: ObjectStore, *options: str) -> str:
    """``hudi-metastore import LOCATION`` as ``lake.trips`` into a new catalog at ``db_url``, configured by the
    store's environment alone; its output, once it succeeded and named no secret."""
    done = subprocess.run(
        [*CLI, "import", location, "--database", "lake", "--table", "trips", "--db-url", db_url, "--create-catalog"]
        + list(options),
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **store.environment},
    )
    output = done.stderr + done.stdout
    assert done.returncode == 0, done.stderr[-3000:]
    assert SECRET_KEY not in output and AZURITE_KEY not in output
    return output


def assert_as_hudi_rs(
    catalog, base: Path | str, database: str = "lake", table: str = "trips", store: ObjectStore | None = None
) -> None:
    """The catalog's completed commits and latest file slices of the table are those hudi-rs reads from
    ``base`` (a local copy of the same files, or their URI on ``store``)."""
    from hudi import HudiTableBuilder

    from hudi_catalog.model import InstantState
    from tests.support.hudi_oracles import oracle_slices, our_slices

    builder = HudiTableBuilder.from_base_uri(str(base))
    oracle = (builder if store is None else builder.with_storage_options(store.hudi_rs_options)).build()
    completed = catalog.timeline.instants(database, table, states=[InstantState.COMPLETED])
    assert sorted(i.requested_time for i in completed) == sorted(
        i.timestamp for i in oracle.get_timeline().get_completed_commits()
    )
    assert our_slices(catalog, table, database=database) == oracle_slices(oracle)


def managed_warehouse_session(client, store: ObjectStore, root: str, objects: str, per_partition: int) -> str:
    """Through ``client`` of a server whose warehouse is ``root`` (``objects``: its ``bucket/prefix`` on
    ``store``): a database and a managed table partitioned on ``ds`` take locations under ``root`` with its
    scheme, the partitions ``1`` to ``3`` get ``per_partition`` objects each, a partition dropped with its
    data takes only its own objects, the table dropped takes the rest. Returns the database's location."""
    client.create_database(make_database("sales"))
    database = client.get_database("sales").locationUri
    assert database == f"{root}/sales.db"
    client.create_table(make_table("sales", "orders", partition_keys=cols("ds:string")))
    table = client.get_table("sales", "orders").sd.location
    assert table == f"{database}/orders"
    for day in ("1", "2", "3"):
        client.add_partition(make_partition("sales", "orders", [day]))
        store.put_many([f"{objects}/sales.db/orders/ds={day}/part-{n:04}.parquet" for n in range(per_partition)])
    assert [p.sd.location for p in client.get_partitions("sales", "orders", -1)] == [
        f"{table}/ds={day}" for day in ("1", "2", "3")
    ]
    client.drop_partition("sales", "orders", ["1"], True)
    assert not store.keys(f"{objects}/sales.db/orders/ds=1")
    assert len(store.keys(f"{objects}/sales.db/orders")) == 2 * per_partition
    client.drop_table("sales", "orders", True)
    assert store.keys(f"{objects}/sales.db/orders") == []
    return database
