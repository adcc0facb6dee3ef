"""The file system of a location, for every scheme the server takes: one place that opens them all.

A location is stored and answered exactly as the client wrote it (``s3a://lake/t`` stays ``s3a://``); this
module only decides which file system reads and writes it, and the path on that file system:

- ``file:`` and plain paths: the local file system;
- ``s3://``, ``s3a://``, ``s3n://`` (EMR, Hadoop's S3A, its old S3N): one S3 file system per bucket, the
  path ``bucket/key``. Credentials, region and endpoint come from the AWS SDK's standard chain, as pyarrow's
  S3 client reads it: ``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``/``AWS_SESSION_TOKEN``, profiles
  (``AWS_PROFILE``, ``~/.aws``), web identity, instance roles, ``AWS_REGION``, ``AWS_ENDPOINT_URL``;
- ``gs://`` and ``gcs://``: Google Cloud Storage, with application default credentials;
- ``abfs://`` and ``abfss://`` (``container@account.dfs.core.windows.net/path``): Azure Data Lake Storage
  Gen2, with the account's key (``AZURE_STORAGE_ACCOUNT_KEY``) or Azure's default credential chain;
- ``hdfs://`` and ``viewfs://``: Hadoop's file system through libhdfs, where it can run.

The Hadoop keys platforms keep in ``core-site.xml`` (``fs.s3a.endpoint``, ``fs.s3a.access.key``,
``fs.s3a.secret.key``, ``fs.s3a.session.token``, ``fs.s3a.path.style.access``, ``fs.s3a.endpoint.region``,
``fs.s3a.connection.ssl.enabled``, each also per bucket as ``fs.s3a.bucket.NAME.*``;
``fs.azure.account.key.ACCOUNT.dfs.core.windows.net``; ``fs.gs.storage.root.url``) are read from the Hadoop
configuration files ``HUDI_METASTORE_STORAGE_CONFIG`` names (comma-separated; ``serve --storage-config``).
A key there wins over the environment for what it sets; a per-bucket key wins over the general one.

Any other scheme is refused with one line naming it and the schemes taken (``UnsupportedSchemeError``), at
create time as well as when a file is read. A file system is made once per scheme family and bucket (or
account, or name node) and shared: making an S3 client costs milliseconds, a call a fraction of that.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlparse
from xml.etree import ElementTree

from pyarrow import fs as pafs

from .config import STORAGE_CONFIG_ENV
from .errors import StorageError

S3_SCHEMES = frozenset({"s3", "s3a", "s3n"})
GCS_SCHEMES = frozenset({"gs", "gcs"})
AZURE_SCHEMES = frozenset({"abfs", "abfss"})
HADOOP_SCHEMES = frozenset({"hdfs", "viewfs"})
LOCAL_SCHEMES = frozenset({"", "file"})
SCHEMES = S3_SCHEMES | GCS_SCHEMES | AZURE_SCHEMES | HADOOP_SCHEMES | {"file"}
"""Every scheme a location may have."""

AZURE_ACCOUNT_KEY_ENV = "AZURE_STORAGE_ACCOUNT_KEY"
AZURE_BLOB_ENDPOINT_ENV = "AZURE_STORAGE_BLOB_ENDPOINT"
"""An endpoint other than ``<account>.blob.core.windows.net`` (``http://127.0.0.1:10000``: Azurite)."""
GCS_ENDPOINT_ENV = "STORAGE_EMULATOR_HOST"
"""Google's variable naming a GCS endpoint other than Google's (an emulator)."""


class UnsupportedSchemeError(StorageError):
    """A location's scheme names no file system the server can open."""


def scheme_family(scheme: str) -> str:
    """One name for the schemes of one kind of storage: ``s3a`` and ``s3n`` are ``s3``, ``gcs`` is ``gs``,
    ``abfss`` is ``abfs``, no scheme is ``file``.

    >>> [scheme_family(s) for s in ("s3a", "S3N", "gcs", "abfss", "", "hdfs")]
    ['s3', 's3', 'gs', 'abfs', 'file', 'hdfs']
    """
    scheme = scheme.lower()
    if scheme in S3_SCHEMES:
        return "s3"
    if scheme in GCS_SCHEMES:
        return "gs"
    if scheme in AZURE_SCHEMES:
        return "abfs"
    return "file" if scheme in LOCAL_SCHEMES else scheme


def same_kind(scheme: str) -> list[str]:
    """Every scheme naming the same storage as ``scheme``, in a fixed order.

    >>> same_kind("s3a"), same_kind("hdfs")
    (['s3', 's3a', 's3n'], ['hdfs'])
    """
    family = {"s3": S3_SCHEMES, "gs": GCS_SCHEMES, "abfs": AZURE_SCHEMES}.get(scheme_family(scheme))
    return sorted(family) if family else [scheme.lower()]


def check_scheme(location: str) -> None:
    """Refuse a location whose scheme names no file system the server can open.

    Raises:
        UnsupportedSchemeError: one line naming the scheme and those taken.
    """
    scheme = urlparse(location).scheme.lower() if "://" in location or location.startswith("file:") else ""
    if scheme not in SCHEMES and scheme not in LOCAL_SCHEMES:
        taken = ", ".join(f"{s}://" for s in sorted(SCHEMES - {"file"}))
        raise UnsupportedSchemeError(
            f"Unsupported file system scheme '{scheme}' in {location}: locations may be file: paths or {taken}"
        )


_opened: dict[tuple, pafs.FileSystem] = {}
_opening = threading.Lock()
_CONFIGURING = (
    "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT_URL_S3",
    "AWS_ACCESS_KEY_ID",
    "AWS_PROFILE",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    AZURE_BLOB_ENDPOINT_ENV,
    GCS_ENDPOINT_ENV,
    STORAGE_CONFIG_ENV,
)
"""The variables that change which store a file system reaches, or as whom: part of a shared one's key."""


S3_ATTEMPTS = 5
"""How many times an S3 request is tried in all when the store answers with a transient error (Hadoop S3A's
default ``fs.s3a.attempts.maximum``, which the storage configuration may set, per bucket too)."""


def _shared(store: tuple[str, str], make) -> pafs.FileSystem:
    key = (*store, *(os.environ.get(name) for name in _CONFIGURING))
    with _opening:
        found = _opened.get(key)
        if found is None:
            found = _opened[key] = make()
        return found


@lru_cache(maxsize=4)
def _hadoop_properties(files: str) -> dict[str, str]:
    """The properties of the Hadoop configuration files ``files`` names (comma-separated), later ones winning.

    Raises:
        StorageError: a file cannot be read or parsed.
    """
    found: dict[str, str] = {}
    for path in (p.strip() for p in files.split(",")):
        if not path:
            continue
        try:
            root = ElementTree.parse(path).getroot()  # noqa: S314 - the operator's own configuration file
        except (OSError, ElementTree.ParseError) as error:
            raise StorageError(f"Cannot read the storage configuration {path}", detail=str(error)) from error
        for prop in root.iter("property"):
            name = (prop.findtext("name") or "").strip()
            if name:
                found[name] = (prop.findtext("value") or "").strip()
    return found


def _hadoop() -> dict[str, str]:
    return _hadoop_properties(os.environ.get(STORAGE_CONFIG_ENV, ""))


def _s3a(properties: dict[str, str], bucket: str, key: str) -> str | None:
    """An S3A key for ``bucket``: its per-bucket value, else the general one."""
    return properties.get(f"fs.s3a.bucket.{bucket}.{key}", properties.get(f"fs.s3a.{key}"))


def _endpoint(endpoint: str, secure: bool = True) -> tuple[str, str]:
    """``(scheme, authority)`` of an endpoint given as a URL or as a bare ``host:port``."""
    scheme, _, host = endpoint.rpartition("://")
    return (scheme or ("https" if secure else "http")), host.rstrip("/")


@dataclass(frozen=True)
class _S3Settings:
    """How a bucket is reached, from the storage configuration's S3A keys and the SDK's variables."""

    endpoint: tuple[str, str] | None  # (scheme, host:port) of an S3-compatible store; None: AWS's
    access_key: str | None
    secret_key: str | None
    session_token: str | None
    region: str | None
    path_style: bool | None
    attempts: int


def _s3_settings(bucket: str) -> _S3Settings:
    """The settings of ``bucket``. pyarrow's S3 client and hudi-rs read the AWS SDK's credential chain
    (environment, profiles, web identity, instance roles) and region themselves; the endpoint of an
    S3-compatible store is the SDK's variable, read here, and the S3A keys of the Hadoop configuration win
    over both.

    Raises:
        StorageError: a key of the configuration is malformed.
    """
    properties = _hadoop()
    endpoint = (
        _s3a(properties, bucket, "endpoint")
        or os.environ.get("AWS_ENDPOINT_URL_S3")
        or os.environ.get("AWS_ENDPOINT_URL")
    )
    secure = (_s3a(properties, bucket, "connection.ssl.enabled") or "true").lower() != "false"
    access, secret = _s3a(properties, bucket, "access.key"), _s3a(properties, bucket, "secret.key")
    path_style = _s3a(properties, bucket, "path.style.access")
    attempts = _s3a(properties, bucket, "attempts.maximum") or str(S3_ATTEMPTS)
    if not attempts.isdigit() or int(attempts) < 1:
        raise StorageError(f"fs.s3a.attempts.maximum must be a positive number, not {attempts!r}")
    keys = bool(access and secret)
    return _S3Settings(
        endpoint=_endpoint(endpoint, secure) if endpoint else None,
        access_key=access if keys else None,
        secret_key=secret if keys else None,
        session_token=_s3a(properties, bucket, "session.token") if keys else None,
        region=_s3a(properties, bucket, "endpoint.region"),
        path_style=None if path_style is None else path_style.lower() == "true",
        attempts=int(attempts),
    )


def _s3(bucket: str) -> pafs.FileSystem:
    def make() -> pafs.FileSystem:
        settings = _s3_settings(bucket)
        options: dict = {}
        if settings.endpoint:
            scheme, host = settings.endpoint
            options |= {"endpoint_override": host, "scheme": "http" if scheme == "http" else "https"}
        if settings.access_key:
            options |= {"access_key": settings.access_key, "secret_key": settings.secret_key}
            if settings.session_token:
                options["session_token"] = settings.session_token
        if settings.region:
            options["region"] = settings.region
        if settings.path_style is not None:
            options["force_virtual_addressing"] = not settings.path_style
        # throttling (503 SlowDown), 5xx answers and dropped connections are retried, with the SDK's
        # exponential backoff and jitter; refusals (403, 404) are not
        options["retry_strategy"] = pafs.AwsStandardS3RetryStrategy(max_attempts=settings.attempts)
        # a small file (a marker, a manifest, table metadata) is one PutObject when it is closed, not the
        # three requests of a multipart upload
        options["allow_delayed_open"] = True
        return pafs.S3FileSystem(**options)

    return _shared(("s3", bucket), make)


def _gcs(bucket: str) -> pafs.FileSystem:
    def make() -> pafs.FileSystem:
        root_url = _hadoop().get("fs.gs.storage.root.url")
        if root_url:  # the platform's endpoint, with the default credentials
            scheme, host = _endpoint(root_url)
            return pafs.GcsFileSystem(endpoint_override=host, scheme=scheme)
        emulator = os.environ.get(GCS_ENDPOINT_ENV)
        if emulator:  # Google's variable for an emulator, which takes no credentials
            scheme, host = _endpoint(emulator, secure=False)
            return pafs.GcsFileSystem(anonymous=True, endpoint_override=host, scheme=scheme)
        return pafs.GcsFileSystem()

    return _shared(("gs", bucket), make)


def _azure(account: str) -> pafs.FileSystem:
    def make() -> pafs.FileSystem:
        options: dict = {"account_name": account}
        key = _hadoop().get(f"fs.azure.account.key.{account}.dfs.core.windows.net") or os.environ.get(
            AZURE_ACCOUNT_KEY_ENV
        )
        if key:
            options["account_key"] = key
        endpoint = os.environ.get(AZURE_BLOB_ENDPOINT_ENV)
        if endpoint:  # an emulator's (Azurite)
            scheme, host = _endpoint(endpoint)
            options |= {"blob_storage_authority": host, "dfs_storage_authority": host, "blob_storage_scheme": scheme}
            options["dfs_storage_scheme"] = scheme
        return pafs.AzureFileSystem(**options)

    return _shared(("abfs", account), make)


HDFS_NEEDS = (
    "pyarrow's HDFS client needs a JVM (JAVA_HOME), Hadoop's libhdfs.so (ARROW_LIBHDFS_DIR or "
    "HADOOP_HOME/lib/native) and Hadoop's jars on CLASSPATH (`hadoop classpath --glob`)"
)
"""What an ``hdfs://`` or ``viewfs://`` location needs on the server's machine (said when it is missing)."""
READS_AT_ONCE = 16
"""How many files a caller reading many (an import's instants, a view's footers) reads at a time from a store
across a network, where each read waits tens of milliseconds."""


def is_local(filesystem: pafs.FileSystem) -> bool:
    """Whether ``filesystem`` is the local disk (also behind the Iceberg views' URI-naming wrapper), where a
    read waits for no network: callers read many files one after another there, ``READS_AT_ONCE`` elsewhere."""
    return filesystem.type_name.removeprefix("py::").removeprefix("uri+") == "local"


def hudi_rs_options(location: str) -> dict[str, str]:
    """The storage options that let hudi-rs (the Rust reader behind ``read_table``) reach ``location`` as this
    process's file systems do. hudi-rs reads the AWS variables itself, but neither the Hadoop configuration's
    keys nor an endpoint's plain ``http``, which it refuses unless told; these options say both. Made where
    the files are read, never shipped in a plan (they may hold keys).

    Raises:
        StorageError: the storage configuration cannot be read.
    """
    parsed = urlparse(location)
    if scheme_family(parsed.scheme) != "s3":
        return {}
    settings = _s3_settings(parsed.netloc)
    options: dict[str, str] = {}
    if settings.endpoint:
        scheme, host = settings.endpoint
        options["aws_endpoint_url"] = f"{scheme}://{host}"
        options["aws_allow_http"] = str(scheme == "http").lower()
    if settings.access_key and settings.secret_key:
        options |= {"aws_access_key_id": settings.access_key, "aws_secret_access_key": settings.secret_key}
        if settings.session_token:
            options["aws_session_token"] = settings.session_token
    if settings.region:
        options["aws_region"] = settings.region
    if settings.path_style is not None:
        options["aws_virtual_hosted_style_request"] = str(not settings.path_style).lower()
    return options


def open_location(location: str) -> tuple[pafs.FileSystem, str]:
    """The file system of ``location`` and its path there (``bucket/key`` on an object store, an absolute
    path locally).

    Raises:
        UnsupportedSchemeError: a scheme no file system here takes.
        StorageError: the file system cannot be opened (libhdfs missing, bad credentials' configuration); the
            message names the location, never a secret.
    """
    if "://" not in location and not location.startswith("file:"):
        return pafs.LocalFileSystem(), str(Path(location).resolve())
    check_scheme(location)
    parsed = urlparse(location)
    family = scheme_family(parsed.scheme)
    path = parsed.path or "/"
    try:
        if family == "file":
            return pafs.LocalFileSystem(), path
        if family == "s3":
            return _s3(parsed.netloc), f"{parsed.netloc}{path}".rstrip("/") or parsed.netloc
        if family == "gs":
            return _gcs(parsed.netloc), f"{parsed.netloc}{path}".rstrip("/") or parsed.netloc
        if family == "abfs":
            container, _, host = parsed.netloc.partition("@")
            account = host.split(".", 1)[0]
            if not container or not account:
                raise StorageError(
                    f"Cannot open {location}: an ABFS location is abfs[s]://container@account.dfs.core.windows.net/path"
                )
            return _azure(account), f"{container}{path}".rstrip("/") or container
        return pafs.FileSystem.from_uri(location)  # hdfs://, viewfs://: libhdfs
    except StorageError:
        raise
    except Exception as error:  # pyarrow raises several types for a file system it cannot make
        if family in ("hdfs", "viewfs"):  # what is missing names no secret: say it
            missing = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise StorageError(f"Cannot open the file system of {location}: {missing}. {HDFS_NEEDS}") from error
        raise StorageError(f"Cannot open the file system of {location}", detail=str(error)) from error
