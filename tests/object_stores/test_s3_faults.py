"""Faults of a real S3 store and bad input, against moto's server: throttling and an outage injected at the
wire (``benchmarks/store_proxy.py``, in front of the store), a missing bucket, and wrong credentials and
a prefix the key may not touch on a moto server that checks keys and policies (its IAM, as AWS does).

What a user sees: throttling the store recovers from is retried with backoff and the call succeeds; a fault
that lasts is one ``MetaException`` (through Thrift) or one line (``hudi-metastore import``), never a
traceback, never a secret; and no half-made change: an import that failed registers nothing, a view whose
metadata could not be written is not published, a managed drop the store cannot take keeps its table.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from hudi_catalog import Catalog
from hudi_catalog.errors import NoSuchObjectError
from tests.conftest import hive, require_module
from tests.hms_adapter.helpers import make_database, make_table
from tests.object_stores.conftest import BUCKET
from tests.support.object_stores import ACCESS_KEY, REGION, SECRET_KEY, S3Store, s3_server, served_client
from tests.support.servers import CLI  # puts benchmarks/ on sys.path

StoreProxy = importlib.import_module("store_proxy").StoreProxy  # benchmarks/store_proxy.py

require_module("hudi")

from tests.hudi.tables import unpack  # noqa: E402

TABLE = "sample_table_cow_v8_complexkeygen_hivestyle"


@pytest.fixture
def prefix() -> str:
    return f"f{uuid.uuid4().hex[:12]}"


@pytest.fixture
def proxy(s3) -> Iterator:
    """A fault proxy in front of the module's store; this process's store variables point at it."""
    with StoreProxy(s3.endpoint) as running, pytest.MonkeyPatch.context() as env:
        env.setenv("AWS_ENDPOINT_URL", running.endpoint)
        yield running


def _import(location: str, db_url: str, environment: dict[str, str], *options: str) -> subprocess.CompletedProcess:
    command = [*CLI, "import", location, "--database", "lake", "--table", "trips", "--db-url", db_url]
    return subprocess.run(
        [*command, "--create-catalog", *options],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **environment},
    )


def _one_line_failure(done: subprocess.CompletedProcess, *words: str) -> str:
    """The command failed with one line on stderr naming ``words``, no traceback and no secret."""
    assert done.returncode != 0, done.stdout
    lines = [line for line in done.stderr.splitlines() if line.startswith("hudi-metastore:")]
    assert len(lines) == 1, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    assert SECRET_KEY not in done.stderr + done.stdout
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def _registered(db_url: str) -> list[str]:
    catalog = Catalog.open(db_url, "/nonexistent", init=False)
    try:
        try:
            return catalog.tables.names("lake")
        except NoSuchObjectError:
            return []
    finally:
        catalog.close()


def _uploaded(s3, tmp_path: Path, prefix: str) -> str:
    base = unpack(TABLE, tmp_path)
    s3.upload(base, f"{BUCKET}/{prefix}/trips")
    return f"s3a://{BUCKET}/{prefix}/trips"


# -- throttling and outages ----------------------------------------------------------------------------------


def test_throttling_the_store_recovers_from_is_retried(s3, proxy, tmp_path, prefix):
    """Each request is tried up to five times (``S3_ATTEMPTS``): four throttled answers in a row are taken."""
    location = _uploaded(s3, tmp_path, prefix)
    proxy.throttle(4, method="GET")
    db_url = f"sqlite:///{tmp_path}/c.db"
    done = _import(location, db_url, S3Store(proxy.endpoint).environment)
    assert done.returncode == 0, done.stderr[-3000:]
    assert proxy.throttled == 4
    assert _registered(db_url) == ["trips"]


def test_an_import_the_store_keeps_throttling_registers_nothing(s3, proxy, tmp_path, prefix):
    location = _uploaded(s3, tmp_path, prefix)
    proxy.throttle(10_000, method="GET", path=".commit")  # the instants' files, read after the listing
    db_url = f"sqlite:///{tmp_path}/c.db"
    _one_line_failure(_import(location, db_url, S3Store(proxy.endpoint).environment), location)
    assert _registered(db_url) == []


def test_a_view_whose_metadata_cannot_be_written_is_not_published(s3, proxy, tmp_path, prefix):
    location = _uploaded(s3, tmp_path, prefix)
    proxy.throttle(10_000, method="PUT", path=".metadata.json")  # the new version, after the manifests
    db_url = f"sqlite:///{tmp_path}/c.db"
    done = _import(location, db_url, S3Store(proxy.endpoint).environment, "--iceberg-view")
    _one_line_failure(done, f"Could not write the Iceberg metadata file {location}/.hoodie/")
    assert _registered(db_url) == ["trips"]  # the table is imported; its view is not registered
    proxy.clear()
    done = _import(location, db_url, S3Store(proxy.endpoint).environment, "--iceberg-view")
    assert done.returncode == 0, done.stderr[-3000:]  # made once the store takes the writes
    assert _registered(db_url) == ["trips", "trips_iceberg"]


def test_a_managed_drop_while_the_store_is_down_keeps_the_table(s3, proxy, db_url, prefix):
    root = f"s3a://{BUCKET}/{prefix}/wh"
    with served_client(db_url, root) as client:
        client.create_database(make_database("d"))
        client.create_table(make_table("d", "t"))
        s3.put(f"{BUCKET}/{prefix}/wh/d.db/t/part-0.parquet")
        proxy.down()
        with pytest.raises(hive.MetaException) as raised:
            client.drop_table("d", "t", True)
        assert f"{root}/d.db/t" in raised.value.message
        assert client.get_table("d", "t").sd.location == f"{root}/d.db/t"
        proxy.up()
        client.drop_table("d", "t", True)
        assert s3.keys(f"{BUCKET}/{prefix}/wh/d.db/t") == []


def test_a_create_while_the_store_is_down_is_one_meta_exception(s3, proxy, db_url, prefix):
    with served_client(db_url, f"s3a://{BUCKET}/{prefix}/wh") as client:
        client.create_database(make_database("d"))
        proxy.down()
        with pytest.raises(hive.MetaException) as raised:
            client.create_table(make_table("d", "t"))
        assert "Traceback" not in raised.value.message
        assert client.get_all_tables("d") == []


# -- missing buckets ---------------------------------------------------------------------------------------------


def test_a_missing_bucket_is_one_meta_exception(s3, db_url):
    with served_client(db_url, f"s3a://{BUCKET}/wh") as client:
        client.create_database(make_database("d"))
        with pytest.raises(hive.MetaException) as raised:
            client.create_table(make_table("d", "t", location="s3a://no-such-bucket/t"))
        assert "s3a://no-such-bucket/t" in raised.value.message
        assert client.get_all_tables("d") == []


def test_an_import_from_a_missing_bucket_is_one_line(s3, tmp_path):
    done = _import("s3a://no-such-bucket/t", f"sqlite:///{tmp_path}/c.db", s3.environment)
    _one_line_failure(done, "s3a://no-such-bucket/t")


# -- keys and policies (a store that checks them) ------------------------------------------------------------------

POLICY = {
    "Version": "2012-10-17",
    "Statement": [
        {"Effect": "Allow", "Action": ["s3:ListBucket", "s3:HeadBucket"], "Resource": f"arn:aws:s3:::{BUCKET}"},
        {"Effect": "Allow", "Action": "s3:*", "Resource": f"arn:aws:s3:::{BUCKET}/allowed/*"},
    ],
}
"""The writer's policy: the bucket listed, objects under ``allowed/`` only."""


class _CheckingStore:
    """A moto server that checks every request's key and its policy; ``key`` and ``secret`` are the
    writer's (an IAM user moto made, with ``POLICY``)."""

    def __init__(self, store: S3Store, key: str, secret: str) -> None:
        self.store, self.key, self.secret = store, key, secret

    def environment(self, secret: str | None = None) -> dict[str, str]:
        return self.store.environment | {"AWS_ACCESS_KEY_ID": self.key, "AWS_SECRET_ACCESS_KEY": secret or self.secret}


@pytest.fixture(scope="module")
def checking(tmp_path_factory) -> Iterator[_CheckingStore]:
    """Made while moto still takes requests unchecked (its first five): the writer and the bucket."""
    import boto3

    with s3_server(tmp_path_factory.mktemp("moto-iam"), checking_keys_after=5) as store:
        made = {"endpoint_url": store.endpoint, "region_name": REGION}
        iam = boto3.client("iam", aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY, **made)
        iam.create_user(UserName="writer")
        key = iam.create_access_key(UserName="writer")["AccessKey"]
        iam.put_user_policy(UserName="writer", PolicyName="lake", PolicyDocument=json.dumps(POLICY))
        boto3.client(
            "s3", aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"], **made
        ).create_bucket(Bucket=BUCKET)
        yield _CheckingStore(store, key["AccessKeyId"], key["SecretAccessKey"])


def test_wrong_credentials_are_one_meta_exception_without_the_secret(checking, db_url, tmp_path):
    with pytest.MonkeyPatch.context() as env:
        for variable, value in checking.environment(secret=SECRET_KEY).items():
            env.setenv(variable, value)
        with served_client(db_url, str(tmp_path / "wh")) as client:
            location = f"s3a://{BUCKET}/allowed/d.db"
            with pytest.raises(hive.MetaException) as raised:
                client.create_database(make_database("d", location=location))
            assert SECRET_KEY not in raised.value.message
            assert location in raised.value.message
            assert client.get_all_databases() == ["default"]


def test_a_server_on_a_warehouse_its_key_cannot_reach_does_not_start(checking, tmp_path):
    done = subprocess.run(
        [*CLI, "serve", "--port", "0", "--db-url", f"sqlite:///{tmp_path}/c.db"]
        + ["--warehouse", f"s3a://{BUCKET}/allowed/wh"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **checking.environment(secret=SECRET_KEY)},
    )
    _one_line_failure(done, f"s3a://{BUCKET}/allowed/wh")


def test_an_import_with_wrong_credentials_is_one_line(checking, tmp_path):
    done = _import(f"s3a://{BUCKET}/allowed/t", f"sqlite:///{tmp_path}/c.db", checking.environment(SECRET_KEY))
    _one_line_failure(done, f"s3a://{BUCKET}/allowed/t")


def test_a_prefix_the_key_may_not_write_is_one_meta_exception(checking, db_url):
    with pytest.MonkeyPatch.context() as env:
        for variable, value in checking.environment().items():
            env.setenv(variable, value)
        with served_client(db_url, f"s3a://{BUCKET}/allowed/wh") as client:
            client.create_database(make_database("d"))
            client.create_table(make_table("d", "ok"))
            assert client.get_table("d", "ok").sd.location == f"s3a://{BUCKET}/allowed/wh/d.db/ok"
            with pytest.raises(hive.MetaException) as raised:
                client.create_table(make_table("d", "no", location=f"s3a://{BUCKET}/denied/no"))
            assert f"s3a://{BUCKET}/denied/no" in raised.value.message
            assert client.get_all_tables("d") == ["ok"]
            client.drop_table("d", "ok", True)
