"""The ``slow`` marker stays honest: what ``tests/conftest.py`` names as slow exists, and the everyday run
(``pytest -m "not slow"``) keeps the SQLite run of every store-dependent test while leaving out the others."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SLOW_FOLDERS, SLOW_MODULES

TESTS = Path(__file__).parent


@pytest.mark.parametrize("module", sorted(SLOW_MODULES))
def test_each_slow_module_exists(module):
    assert (TESTS / module).is_file()


@pytest.mark.parametrize("folder", sorted(SLOW_FOLDERS))
def test_each_slow_folder_exists(folder):
    assert (TESTS / folder).is_dir()


def test_only_the_sqlite_run_of_a_store_dependent_test_is_everyday():
    module = "tests/hudi_catalog/test_integrity_errors.py"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-m", "not slow", module],
        cwd=TESTS.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    ids = [line for line in done.stdout.splitlines() if "::" in line]
    assert ids, done.stdout[-2000:] + done.stderr[-2000:]
    assert any("[sqlite" in i for i in ids)
    assert not any("mysql" in i or "postgresql" in i for i in ids)
