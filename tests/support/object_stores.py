"""An S3-compatible server for the tests: moto's server (``moto[server]``, pinned in the test extra).

Chosen over S3Proxy and SeaweedFS because it comes from PyPI with the rest of the test install (no JVM, no Go
build, nothing to fetch on first use), starts in about a second, and answers the S3 calls pyarrow's S3
client, Hadoop's S3A and the AWS SDKs make (multipart uploads, batched deletes, server-side copies,
listings with delimiters). It keeps objects in memory: a server per test module, on a free loopback port,
stopped with it.

The server is reached as a real deployment reaches S3, through the AWS SDK's standard environment
(``AWS_ENDPOINT_URL``, ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_REGION``): ``S3Store.environment``.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pyarrow import fs as pafs

from tests.support.servers import free_port, wait_for_port

ACCESS_KEY = "hudi-metastore-tests"
SECRET_KEY = "s3cr3t-never-logged"
REGION = "us-east-1"
START_SECONDS = 180
"""How long the server may take to listen (it is up in about a second on an idle machine)."""


@dataclass
class S3Store:
    endpoint: str
    _client: pafs.S3FileSystem | None = None

    @property
    def environment(self) -> dict[str, str]:
        """The AWS SDK's standard variables that point a client at this server."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
            "AWS_REGION": REGION,
        }

    def filesystem(self) -> pafs.S3FileSystem:
        """A pyarrow S3 client of the server, for the tests' own reads and writes (one, made once)."""
        if self._client is None:
            self._client = pafs.S3FileSystem(
                access_key=ACCESS_KEY,
                secret_key=SECRET_KEY,
                region=REGION,
                endpoint_override=self.endpoint.removeprefix("http://"),
                scheme="http",
                allow_bucket_creation=True,
            )
        return self._client

    def create_bucket(self, bucket: str) -> None:
        self.filesystem().create_dir(bucket)

    def put(self, key: str, data: bytes = b"PAR1") -> None:
        """Write the object ``bucket/key``."""
        with self.filesystem().open_output_stream(key) as out:
            out.write(data)

    def put_many(self, keys: list[str]) -> None:
        """Write many small objects, several at a time (moto takes about 20 ms an object)."""
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(self.put, keys))

    def keys(self, prefix: str) -> list[str]:
        """The objects (not directory markers) under ``bucket/prefix``, sorted."""
        found = self.filesystem().get_file_info(pafs.FileSelector(prefix, recursive=True, allow_not_found=True))
        return sorted(i.path for i in found if i.type == pafs.FileType.File)

    def upload(self, folder: Path, prefix: str) -> None:
        """Copy a local folder's files under ``bucket/prefix``."""
        filesystem = self.filesystem()
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            with filesystem.open_output_stream(f"{prefix}/{path.relative_to(folder).as_posix()}") as out:
                out.write(path.read_bytes())


@contextmanager
def s3_server(work: Path) -> Iterator[S3Store]:
    """moto's S3 server on a free loopback port, until the block ends."""
    port = free_port()
    log = work / "moto.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_port(port, process, START_SECONDS, log=log)
        yield S3Store(f"http://127.0.0.1:{port}")
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(30)


AZURITE_ACCOUNT = "devstoreaccount1"
AZURITE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
"""Azurite's one account and its published, well-known key (not a secret)."""


@dataclass
class AzureStore:
    endpoint: str

    @property
    def environment(self) -> dict[str, str]:
        """What points the server's Azure file system at this emulator (``hudi_catalog.filesystems``)."""
        return {"AZURE_STORAGE_ACCOUNT_KEY": AZURITE_KEY, "AZURE_STORAGE_BLOB_ENDPOINT": self.endpoint}

    def filesystem(self) -> pafs.AzureFileSystem:
        scheme, _, host = self.endpoint.rpartition("://")
        return pafs.AzureFileSystem(
            AZURITE_ACCOUNT,
            account_key=AZURITE_KEY,
            blob_storage_authority=host,
            dfs_storage_authority=host,
            blob_storage_scheme=scheme,
            dfs_storage_scheme=scheme,
        )

    def keys(self, prefix: str) -> list[str]:
        """The blobs under ``container/prefix``, sorted."""
        found = self.filesystem().get_file_info(pafs.FileSelector(prefix, recursive=True, allow_not_found=True))
        return sorted(i.path for i in found if i.type == pafs.FileType.File)

    def put(self, key: str, data: bytes = b"PAR1") -> None:
        with self.filesystem().open_output_stream(key) as out:
            out.write(data)

    def upload(self, folder: Path, prefix: str) -> None:
        filesystem = self.filesystem()
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            with filesystem.open_output_stream(f"{prefix}/{path.relative_to(folder).as_posix()}") as out:
                out.write(path.read_bytes())


@contextmanager
def azurite_server(work: Path) -> Iterator[AzureStore]:
    """Azurite's Blob service (``benchmarks/object_store_servers.py``, installed once per machine) on a free
    loopback port, its data in ``work``, until the block ends."""
    from object_store_servers import azurite  # benchmarks/, on the path through tests.support.servers

    from tests.conftest import skip_or_fail

    try:
        command = azurite()
    except Exception as error:  # EngineUnavailable: npm missing or the install failed
        skip_or_fail(f"Azurite cannot be installed here: {error}")
    port = free_port()
    log = work / "azurite.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [str(command), "--blobHost", "127.0.0.1", "--blobPort", str(port), "--location", str(work)]
            + ["--skipApiVersionCheck", "--loose", "--disableTelemetry"],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_port(port, process, START_SECONDS, log=log)
        yield AzureStore(f"http://127.0.0.1:{port}")
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(30)


@dataclass
class GcsStore:
    endpoint: str

    @property
    def environment(self) -> dict[str, str]:
        """Google's variable pointing a client at an emulator (``hudi_catalog.filesystems``)."""
        return {"STORAGE_EMULATOR_HOST": self.endpoint}

    def filesystem(self) -> pafs.GcsFileSystem:
        return pafs.GcsFileSystem(
            anonymous=True,
            endpoint_override=self.endpoint.removeprefix("http://"),
            scheme="http",
            project_id="hudi-metastore-tests",
        )

    def keys(self, prefix: str) -> list[str]:
        found = self.filesystem().get_file_info(pafs.FileSelector(prefix, recursive=True, allow_not_found=True))
        return sorted(i.path for i in found if i.type == pafs.FileType.File)

    def put(self, key: str, data: bytes = b"PAR1") -> None:
        with self.filesystem().open_output_stream(key) as out:
            out.write(data)

    def upload(self, folder: Path, prefix: str) -> None:
        filesystem = self.filesystem()
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            with filesystem.open_output_stream(f"{prefix}/{path.relative_to(folder).as_posix()}") as out:
                out.write(path.read_bytes())


@contextmanager
def fake_gcs_server(work: Path) -> Iterator[GcsStore]:
    """fake-gcs-server (``benchmarks/object_store_servers.py``, built once per machine) on a free loopback
    port, keeping objects in memory, until the block ends."""
    from object_store_servers import fake_gcs_server as installed  # benchmarks/, on the path

    from tests.conftest import skip_or_fail

    try:
        command = installed()
    except Exception as error:  # EngineUnavailable: Go missing or the build failed
        skip_or_fail(f"fake-gcs-server cannot be built here: {error}")
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    log = work / "fake-gcs.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [str(command), "-scheme", "http", "-host", "127.0.0.1", "-port", str(port), "-backend", "memory"]
            + ["-external-url", endpoint],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_port(port, process, START_SECONDS, log=log)
        yield GcsStore(endpoint)
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(30)
