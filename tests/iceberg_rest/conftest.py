"""The Iceberg REST port served in-process over the test's catalog (each store), and PyIceberg's
``RestCatalog`` on it."""

from __future__ import annotations

import pytest
from pyiceberg.catalog.rest import RestCatalog

from iceberg_rest.server import RestServer


@pytest.fixture
def rest_server(catalog):
    """The Iceberg REST catalog of ``catalog`` on a free port of 127.0.0.1."""
    server = RestServer(catalog, "127.0.0.1", 0)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def rest_uri(rest_server) -> str:
    return f"http://127.0.0.1:{rest_server.port}"


@pytest.fixture
def rest(rest_uri) -> RestCatalog:
    """PyIceberg's REST catalog client."""
    return RestCatalog("rest", uri=rest_uri)
