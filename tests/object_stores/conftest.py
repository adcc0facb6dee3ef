"""The stores of ``tests/support/object_stores.py``, one server per test module, with a bucket (a container on
Azure) named ``lake`` and their environment in this process's for the servers the tests open in process."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.support.object_stores import ObjectStore, azurite_server, fake_gcs_server, s3_server

BUCKET = "lake"


def _running(server: Callable, tmp_path_factory, name: str) -> Iterator[ObjectStore]:
    with server(tmp_path_factory.mktemp(name)) as store, pytest.MonkeyPatch.context() as env:
        for variable, value in store.environment.items():
            env.setenv(variable, value)
        store.filesystem().create_dir(BUCKET)
        yield store


@pytest.fixture(scope="module")
def s3(tmp_path_factory) -> Iterator[ObjectStore]:
    yield from _running(s3_server, tmp_path_factory, "s3")


@pytest.fixture(scope="module")
def azure(tmp_path_factory) -> Iterator[ObjectStore]:
    yield from _running(azurite_server, tmp_path_factory, "azurite")


@pytest.fixture(scope="module")
def gcs(tmp_path_factory) -> Iterator[ObjectStore]:
    yield from _running(fake_gcs_server, tmp_path_factory, "gcs")
