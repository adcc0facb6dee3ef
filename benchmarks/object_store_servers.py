"""The object-store emulators the tests run the server against, installed once per machine at pinned versions:

- Azurite (``azurite`` from the npm registry, ``AZURITE_VERSION``), Microsoft's emulator of Azure Blob Storage,
  which pyarrow's Azure file system (``abfs://``, ``abfss://``) talks to;
- fake-gcs-server (``github.com/fsouza/fake-gcs-server`` from the Go module proxy, ``FAKE_GCS_VERSION``), an
  emulator of Google Cloud Storage's JSON API, which pyarrow's GCS file system (``gs://``) talks to.

Each goes under ``ENGINE_HOME`` (``~/.cache/hudi-metastore/engines``) beside the engines, installed under a
lock so that test processes starting at once install it once. (The S3 server, moto's, is a PyPI package of
the test extra.)

Usage: python benchmarks/object_store_servers.py fetch
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from maven_artifacts import ENGINE_HOME, EngineUnavailable, locked, publish

AZURITE_VERSION = "3.35.0"
FAKE_GCS_MODULE = "github.com/fsouza/fake-gcs-server"
FAKE_GCS_VERSION = "v1.56.1"
INSTALL_SECONDS = 900


def _installed(name: str, version: str, command: str, tool: str, install: list[str], env: dict[str, str]) -> Path:
    """``ENGINE_HOME/<name>-<version>/<command>``, installed first if missing: ``install`` (run with ``tool``,
    the placeholder ``{into}`` standing for the folder) in a staging folder, published whole once it worked.

    Raises:
        EngineUnavailable: ``tool`` is missing or the install failed (the message says which).
    """
    home = ENGINE_HOME / f"{name}-{version}"
    marker = home / ".installed"
    with locked(name):
        if marker.exists() and (home / command).exists():
            return home / command
        if shutil.which(tool) is None:
            raise EngineUnavailable(f"{name} is installed with {tool}, which is not on this machine")
        staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=ENGINE_HOME))
        top = staging / name
        top.mkdir()
        done = subprocess.run(
            [tool, *(arg.format(into=top) for arg in install)],
            capture_output=True,
            text=True,
            timeout=INSTALL_SECONDS,
            env={**os.environ, **{k: v.format(into=top) for k, v in env.items()}},
        )
        if done.returncode != 0:
            shutil.rmtree(staging, ignore_errors=True)
            raise EngineUnavailable(f"{tool} {' '.join(install)} failed: {done.stderr[-2000:]}")
        publish(top, staging, marker, version)
    return home / command


def azurite() -> Path:
    """The ``azurite-blob`` command of the pinned Azurite, installed from the npm registry first if missing."""
    install = ["install", "--no-audit", "--no-fund", "--prefix", "{into}", f"azurite@{AZURITE_VERSION}"]
    return _installed("azurite", AZURITE_VERSION, "node_modules/.bin/azurite-blob", "npm", install, {})


def fake_gcs_server() -> Path:
    """The pinned fake-gcs-server, built from the Go module proxy first if missing."""
    install = ["install", f"{FAKE_GCS_MODULE}@{FAKE_GCS_VERSION}"]
    return _installed("fake-gcs-server", FAKE_GCS_VERSION, "fake-gcs-server", "go", install, {"GOBIN": "{into}"})


def main() -> int:
    if sys.argv[1:] != ["fetch"]:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    ENGINE_HOME.mkdir(parents=True, exist_ok=True)
    for install in (azurite, fake_gcs_server):
        print(f"{install.__name__}: {install()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
