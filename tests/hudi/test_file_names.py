"""Data file names (``hudi_catalog.hudi.file_names``): parse, render, reject."""

from __future__ import annotations

import re

import pytest

from hudi_catalog.errors import HudiMetadataError
from hudi_catalog.hudi.file_names import BaseFileName, LogFileName, data_file_instant

BASE_NAMES = (
    "d0304c53-0_0-13-60_20250331030642808.parquet",
    "abc-0_1-2-3_20240101000000000.lance",
    "files-0000-0_0-1-1_00000000000000010.hfile",
)
LOG_NAMES = (
    ".d0304c53-0_20250331030642808.log.1_0-26-85",
    ".abc-0_20240101000000000.log.12_1-0-1.cdc",
    ".abc-0_20240101000000000.log.2",
    ".files-0000-0_00000000000000010.log.3_10-200-3000",
)


@pytest.mark.parametrize("name", BASE_NAMES)
def test_base_file_name_round_trip(name):
    parsed = BaseFileName.parse(name)
    assert parsed.name == name
    assert BaseFileName(parsed.file_id, parsed.write_token, parsed.instant_time, parsed.extension) == parsed
    assert LogFileName.try_parse(name) is None


@pytest.mark.parametrize("name", LOG_NAMES)
def test_log_file_name_round_trip(name):
    parsed = LogFileName.parse(name)
    assert parsed.name == name
    assert BaseFileName.try_parse(name) is None


def test_parts():
    assert BaseFileName.parse("abc-0_1-2-3_20240101000000000.lance") == BaseFileName(
        "abc-0", "1-2-3", "20240101000000000", "lance"
    )
    assert LogFileName.parse(".abc-0_20240101000000000.log.12_1-0-1.cdc") == LogFileName(
        "abc-0", "20240101000000000", 12, "1-0-1", cdc=True
    )
    assert LogFileName.parse(".abc-0_20240101000000000.log.2") == LogFileName("abc-0", "20240101000000000", 2)
    assert data_file_instant(".abc-0_20240101000000000.log.2") == "20240101000000000"
    assert data_file_instant("abc-0_1-2-3_20240102000000000.parquet") == "20240102000000000"


def test_log_files_order_as_hudi_orders_them():
    names = [".f1_200.log.1_0-1-1", ".f1_100.log.10_0-1-1", ".f1_100.log.2_1-1-1", ".f1_100.log.2_0-9-9"]
    ordered = sorted((LogFileName.parse(n) for n in names), key=LogFileName.sort_key)
    assert [n.name for n in ordered] == [
        ".f1_100.log.2_0-9-9",
        ".f1_100.log.2_1-1-1",
        ".f1_100.log.10_0-1-1",
        ".f1_200.log.1_0-1-1",
    ]


def test_other_names_are_refused():
    for bad in (
        "abc-0_20240101000000000.parquet",
        "x.parquet",
        ".hoodie_partition_metadata",
        ".abc-0_20240101000000000.log.1_0-1-2",
        "p/abc-0_1-2-3_20240101000000000.parquet",
    ):
        assert BaseFileName.try_parse(bad) is None
        with pytest.raises(HudiMetadataError, match=re.escape(bad)):
            BaseFileName.parse(bad)
    for bad in (
        ".abc-0_20240101000000000.log.x_1-0-1",
        "abc-0_20240101000000000.log.1_1-0-1",
        "abc-0_0-1-2_20240101000000000.parquet",
        ".abc-0_20240101000000000.log.1_1-0",
        ".abc-0_20240101000000000.log.1.cdc",
    ):
        assert LogFileName.try_parse(bad) is None
        with pytest.raises(HudiMetadataError, match=re.escape(bad)):
            LogFileName.parse(bad)
    with pytest.raises(HudiMetadataError, match="hoodie.properties"):
        data_file_instant("hoodie.properties")
