"""The headless browser the tests drive the web console with, installed once per machine at pinned versions:

- Chromium from Debian's ``chromium`` package (``/usr/bin/chromium``, installed with apt when missing): never
  a browser build downloaded by a tool (no ``playwright install``, no PyPI ``playwright``);
- the npm package ``playwright-core`` (``PLAYWRIGHT_CORE_VERSION``, its tarball's integrity pinned in a
  package-lock written here, installed with ``npm ci``), which drives that Chromium through
  ``executablePath``. It has no dependencies of its own and downloads nothing when installed.

playwright-core goes under ``BROWSER_HOME`` (``~/.cache/hudi-metastore/browser``), in a folder per version,
installed under a lock so that test processes starting at once install it once, and published whole with a
marker once the install worked (as ``object_store_servers.py`` installs Azurite). ``driver_path()`` is the
``node_modules`` folder holding it: the driver ``tests/support/browser_driver.mjs`` finds it through
``NODE_PATH``.

Chromium runs headless, as root here, and would reach Google's hosts unless told not to: it is launched with
``CHROMIUM_ARGS`` (handed to the driver) and a new empty profile folder each time (playwright-core
makes one in the temporary folder).

Usage: python benchmarks/browser.py fetch|check
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from bench_base import apt_install
from maven_artifacts import EngineUnavailable, locked, publish

CHROMIUM = Path("/usr/bin/chromium")
PLAYWRIGHT_CORE_VERSION = "1.64.1"
PLAYWRIGHT_CORE_INTEGRITY = (
    "sha512-BC4s8y6SEVA6Q1rSxZTto8hI1KUI3xXlHGZgvGqP4IqPdI/a6FX9H29IDNz7vKo9l21b6LfYosScPL6M3xxyDQ=="
)
"""The npm registry's ``dist.integrity`` of ``playwright-core@PLAYWRIGHT_CORE_VERSION``: ``npm ci`` refuses a
tarball that does not match it."""
BROWSER_HOME = Path(os.environ.get("HUDI_METASTORE_BROWSER_HOME", "~/.cache/hudi-metastore/browser")).expanduser()
INSTALL_SECONDS = 900

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",  # as root, Chromium does not start with its sandbox
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""Chromium's flags (``tests/support/browser.py`` hands them to its driver): headless, no sandbox (root), and
none of the background traffic to Google's hosts (updates, sync, field trials, QUIC probes)."""


def _home() -> Path:
    return BROWSER_HOME / f"playwright-core-{PLAYWRIGHT_CORE_VERSION}"


def driver_path() -> Path:
    """The ``node_modules`` folder holding the pinned playwright-core (``NODE_PATH`` for the driver); it exists
    once ``ensure_browser()`` returned None."""
    return _home() / "node_modules"


def _package_files(top: Path) -> None:
    """The package.json and package-lock.json of a project that depends on the pinned playwright-core only."""
    name = "hudi-metastore-browser"
    dependencies = {"playwright-core": PLAYWRIGHT_CORE_VERSION}
    (top / "package.json").write_text(
        json.dumps({"name": name, "private": True, "dependencies": dependencies}, indent=2) + "\n"
    )
    lock = {
        "name": name,
        "lockfileVersion": 3,
        "requires": True,
        "packages": {
            "": {"name": name, "dependencies": dependencies},
            "node_modules/playwright-core": {
                "version": PLAYWRIGHT_CORE_VERSION,
                "integrity": PLAYWRIGHT_CORE_INTEGRITY,
                "license": "Apache-2.0",
                "bin": {"playwright-core": "cli.js"},
                "engines": {"node": ">=20"},
            },
        },
    }
    (top / "package-lock.json").write_text(json.dumps(lock, indent=2) + "\n")


def _install_playwright_core() -> Path:
    """``driver_path()``, playwright-core installed there first if missing.

    Raises:
        EngineUnavailable: node or npm is missing, or the install failed (the message says which).
    """
    home = _home()
    marker = home / ".installed"
    with locked("playwright-core"):
        if marker.exists() and (driver_path() / "playwright-core" / "package.json").exists():
            return driver_path()
        for tool in ("node", "npm"):
            if shutil.which(tool) is None:
                raise EngineUnavailable(f"playwright-core needs {tool}, which is not on this machine")
        BROWSER_HOME.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".playwright-core-", dir=BROWSER_HOME))
        top = staging / "playwright-core"
        top.mkdir()
        _package_files(top)
        command = ["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"]
        done = subprocess.run(
            command,
            cwd=top,
            capture_output=True,
            text=True,
            timeout=INSTALL_SECONDS,
            env={**os.environ, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1"},
        )
        if done.returncode != 0:
            shutil.rmtree(staging, ignore_errors=True)
            raise EngineUnavailable(f"{' '.join(command)} failed: {done.stderr[-2000:]}")
        publish(top, staging, marker, PLAYWRIGHT_CORE_VERSION)
    return driver_path()


def _install_chromium() -> str | None:
    """Debian's Chromium, installed with apt when missing (under a lock: one apt-get at a time)."""
    if CHROMIUM.exists():
        return None
    with locked("chromium"):
        if CHROMIUM.exists():
            return None
        if shutil.which("apt-get") is None:
            return f"{CHROMIUM} is missing and this machine has no apt-get to install Debian's chromium"
        problem = apt_install(["chromium"])
        if problem is None and not CHROMIUM.exists():
            problem = f"Debian's chromium package is installed but {CHROMIUM} is missing"
        return problem


def ensure_browser() -> str | None:
    """Install what the browser tests need when missing (Chromium, playwright-core); returns why they cannot
    run here, or None once both are installed."""
    problem = _install_chromium()
    if problem is not None:
        return problem
    try:
        _install_playwright_core()
    except (EngineUnavailable, OSError, subprocess.TimeoutExpired) as error:
        return f"playwright-core {PLAYWRIGHT_CORE_VERSION} cannot be installed: {error}"
    return None


_CHECK_SCRIPT = """
const { chromium } = require("playwright-core");
const [executablePath, args, url] = process.argv.slice(1);
(async () => {
  const browser = await chromium.launch({ executablePath, args: JSON.parse(args), headless: true });
  const page = await browser.newPage();
  await page.goto(url);
  console.log(`${browser.version()}: ${await page.title()}`);
  await browser.close();
})().catch((error) => { console.error(error); process.exit(1); });
"""


class _Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<!doctype html><title>hudi-metastore browser check</title><p>ok</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def check() -> int:
    """Launch Chromium through playwright-core on a tiny page served on loopback and print its title."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        with tempfile.TemporaryDirectory(prefix="browser-check-") as temporary:
            done = subprocess.run(
                ["node", "-e", _CHECK_SCRIPT, str(CHROMIUM), json.dumps(CHROMIUM_ARGS), url],
                capture_output=True,
                text=True,
                timeout=300,
                # the profile folder playwright-core makes goes in a temporary folder removed afterwards
                env={**os.environ, "NODE_PATH": str(driver_path()), "TMPDIR": temporary},
            )
    finally:
        server.shutdown()
        server.server_close()
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    return done.returncode


def main() -> int:
    if sys.argv[1:] not in (["fetch"], ["check"]):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    problem = ensure_browser()
    if problem is not None:
        print(problem, file=sys.stderr)
        return 1
    if sys.argv[1] == "fetch":
        print(f"chromium: {CHROMIUM}\nplaywright-core {PLAYWRIGHT_CORE_VERSION}: {driver_path()}")
        return 0
    return check()


if __name__ == "__main__":
    raise SystemExit(main())
