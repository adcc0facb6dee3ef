"""Every Python package of the source tree is listed in pyproject.toml, so ``pip install .`` ships it."""

from __future__ import annotations

from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_is_installed_by_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("hudi_catalog", "hms_adapter")
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert found <= listed, f"packages missing from pyproject.toml: {sorted(found - listed)}"
    assert config["package-dir"]["hudi_metastore_idl"] == "thrift"
