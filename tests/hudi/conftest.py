"""The real Hudi tables as the tests of ``hudi_catalog.hudi`` read them: unpacked once per test module."""

from __future__ import annotations

import pytest

from hudi_catalog.hudi import read_table_config
from tests.hudi.tables import unpack
from tests.support.hudi_metadata import FS


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """``table(name)`` -> (base path, TableConfig); each zip is unpacked once per module, read-only."""
    root = tmp_path_factory.mktemp("tables")
    cache: dict[str, tuple[str, object]] = {}

    def get(name: str):
        if name not in cache:
            base = str(unpack(name, root))
            cache[name] = (base, read_table_config(FS, base))
        return cache[name]

    return get
