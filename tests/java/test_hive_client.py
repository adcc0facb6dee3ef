"""Hive 2.3.10's own Java metastore client (from the pyspark wheel) against hudi-metastore."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import hive
from tests.hms_adapter.helpers import cols, make_partition, make_table
from tests.java.wheel_jars import JARS, compile_source

SOURCE = Path(__file__).with_name("ExprFallback.java")


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> Path:
    return compile_source(SOURCE, tmp_path_factory.mktemp("java"))


def test_partitions_by_expr_makes_the_hive_client_fall_back_to_the_filter_path(compiled, server, client):
    client.create_database(hive.Database(name="j"))
    client.create_table(make_table("j", "t", partition_keys=cols("ds:string", "hr:int")))
    client.add_partitions([make_partition("j", "t", ["a", str(h)]) for h in (1, 9, 10)])

    done = subprocess.run(
        ["java", "-cp", f"{compiled}:{JARS}/*", "ExprFallback", server.uri, "j", "t", "hr > 5"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["FALLBACK", "FILTER", "2"]
