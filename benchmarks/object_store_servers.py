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


def azurite() -> Path:
    """The ``azurite-blob`` command of the pinned Azurite, installed first if missing.

    Raises:
        EngineUnavailable: npm is missing or the install failed (the message says which).
    """
    home = ENGINE_HOME / f"azurite-{AZURITE_VERSION}"
    command = home / "node_modules" / ".bin" / "azurite-blob"
    marker = home / ".installed"
    with locked("azurite"):
        if marker.exists() and command.exists():
            return command
        if shutil.which("npm") is None:
            raise EngineUnavailable("Azurite is installed with npm, which is not on this machine")
        staging = Path(tempfile.mkdtemp(prefix=".azurite-", dir=ENGINE_HOME))
        top = staging / "azurite"
        top.mkdir()
        done = subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(top), f"azurite@{AZURITE_VERSION}"],
            capture_output=True,
            text=True,
            timeout=INSTALL_SECONDS,
        )
        if done.returncode != 0:
            shutil.rmtree(staging, ignore_errors=True)
            raise EngineUnavailable(f"npm install azurite@{AZURITE_VERSION} failed: {done.stderr[-2000:]}")
        publish(top, staging, marker, AZURITE_VERSION)
    return command


def fake_gcs_server() -> Path:
    """The pinned fake-gcs-server, built first if missing.

    Raises:
        EngineUnavailable: Go is missing or the build failed (the message says which).
    """
    home = ENGINE_HOME / f"fake-gcs-server-{FAKE_GCS_VERSION}"
    command = home / "fake-gcs-server"
    marker = home / ".installed"
    with locked("fake-gcs-server"):
        if marker.exists() and command.exists():
            return command
        if shutil.which("go") is None:
            raise EngineUnavailable("fake-gcs-server is built with Go, which is not on this machine")
        staging = Path(tempfile.mkdtemp(prefix=".fake-gcs-", dir=ENGINE_HOME))
        top = staging / "fake-gcs-server"
        top.mkdir()
        done = subprocess.run(
            ["go", "install", f"{FAKE_GCS_MODULE}@{FAKE_GCS_VERSION}"],
            capture_output=True,
            text=True,
            timeout=INSTALL_SECONDS,
            env={**os.environ, "GOBIN": str(top)},
        )
        if done.returncode != 0:
            shutil.rmtree(staging, ignore_errors=True)
            raise EngineUnavailable(f"go install {FAKE_GCS_MODULE}@{FAKE_GCS_VERSION} failed: {done.stderr[-2000:]}")
        publish(top, staging, marker, FAKE_GCS_VERSION)
    return command


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
