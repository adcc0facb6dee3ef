"""The catalog files docs/engines.md shows for Trino and Presto are the ones the engine tests run.

Each ``properties`` block of the page that starts with ``# etc/catalog/<file> (<engine>)`` must hold exactly
what the matching builder of ``benchmarks/sql_engines.py`` writes for a metastore at
``thrift://metastore-host:9083`` (its Iceberg REST port at ``http://metastore-host:8181``), and every builder
must be shown.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.sql_engines import sql_engines

DOC = Path(__file__).resolve().parents[2] / "docs" / "engines.md"
DOC_URI = "thrift://metastore-host:9083"
DOC_REST_URI = "http://metastore-host:8181"
BLOCK = re.compile(r"```properties\n# (etc/catalog/\S+) \(([^)]+)\)\n(.*?)```", re.DOTALL)

BUILDERS = {
    ("etc/catalog/hive.properties", "Trino"): sql_engines.trino_hive_catalog(DOC_URI),
    ("etc/catalog/iceberg.properties", "Trino"): sql_engines.trino_iceberg_catalog(DOC_URI),
    ("etc/catalog/hudi.properties", "Trino"): sql_engines.trino_hudi_catalog(DOC_URI),
    ("etc/catalog/iceberg_rest.properties", "Trino"): sql_engines.trino_iceberg_rest_catalog(DOC_REST_URI),
    ("etc/catalog/hive.properties", "Presto"): sql_engines.presto_hive_catalog(DOC_URI),
}


def _documented() -> dict[tuple[str, str], dict[str, str]]:
    blocks = {}
    for path, engine, body in BLOCK.findall(DOC.read_text()):
        lines = [line for line in body.splitlines() if line.strip() and not line.startswith("#")]
        blocks[(path, engine)] = dict(line.split("=", 1) for line in lines)
    return blocks


@pytest.mark.parametrize("key", list(BUILDERS), ids=lambda key: f"{key[1]}-{key[0]}")
def test_the_documented_catalog_file_is_the_tested_one(key):
    documented = _documented()
    assert key in documented, f"docs/engines.md shows no ```properties block headed '# {key[0]} ({key[1]})'"
    assert documented[key] == BUILDERS[key]


def test_every_documented_catalog_file_is_tested():
    assert set(_documented()) <= set(BUILDERS)
