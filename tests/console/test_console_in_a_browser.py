"""The console as a person uses it: ``hudi-metastore serve --console-port`` with password authentication and
``--authorization privileges`` over two worker processes, real Hudi tables imported, and a headless Chromium
(Debian's, driven by playwright-core) signing in, finding a table's last commit on its timeline, paging and
filtering partitions, reading as a user without privileges, and without JavaScript.

Every page it visits is kept as a screenshot; with ``HUDI_METASTORE_CONSOLE_SCREENSHOTS=DIR`` they are written
to ``DIR`` too (``docs/images`` holds the ones ``docs/console.md`` shows).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import zipfile
from pathlib import Path

import pytest

from hudi_catalog import Catalog
from hudi_catalog.authorization import Principal, PrivilegeGrant, SecuredObject
from hudi_catalog.model import Column, Database, Partition, StorageDescriptor, Table
from tests.console.pages import get
from tests.hudi.tables import TABLES_DIR, unpack
from tests.support.authorization import _connect, _password
from tests.support.browser import browser_or_skip
from tests.support.servers import free_port, serve_command, stop_servers, wait_for_port, write_passwords

TRIPS = "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"  # deltacommits, a compaction, indexing
ROLLBACK = "sample_table_mor_parquet_v6_nonpartitioned_rollback"
SCREENSHOTS_ENV = "HUDI_METASTORE_CONSOLE_SCREENSHOTS"


class Site:
    def __init__(self, port: int, thrift_port: int, db_url: str, shots: Path) -> None:
        self.port = port
        self.thrift_port = thrift_port
        self.db_url = db_url
        self.shots = shots

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def keep(self, browser, name: str) -> Path:
        """A full-page screenshot of what the browser shows, as ``console-<name>.png``."""
        shot = browser.screenshot(self.shots / f"console-{name}.png", full_page=True)
        wanted = os.environ.get(SCREENSHOTS_ENV)
        if wanted:
            shutil.copy(shot, Path(wanted) / shot.name)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        return shot


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A served console: root (an admin), alice and bob with passwords; lake.trips, lake.rolled (Hudi) and
    shop.sales (500 partitions, bob may read it) in the catalog."""
    home = tmp_path_factory.mktemp("console-site")
    db_url = f"sqlite:///{home / 'catalog.db'}"
    write_passwords(home / "passwords", {user: _password(user) for user in ("root", "alice", "bob")})
    catalog = Catalog.open(db_url, str(home / "wh"))
    try:
        for name, table in ((TRIPS, "trips"), (ROLLBACK, "rolled")):
            catalog.import_table(str(unpack_with_file_times(name, home)), "lake", table)
        catalog.databases.create(Database("shop", owner_name="alice", owner_type="USER"))
        catalog.tables.create(
            Table(
                "shop",
                "sales",
                sd=StorageDescriptor(columns=[Column("amount", "double")]),
                partition_keys=[Column("ds", "string"), Column("hr", "int")],
                owner="alice",
                owner_type="USER",
            )
        )
        days = [f"2024-{1 + d // 28:02d}-{1 + d % 28:02d}" for d in range(250)]
        catalog.partitions.add("shop", "sales", [Partition("shop", "sales", [d, h]) for d in days for h in ("0", "12")])
        grant = PrivilegeGrant(
            SecuredObject.of_table("shop", "sales"), Principal("bob"), "SELECT", grantor=Principal("root")
        )
        catalog.authorization.grant_privileges([grant], None)
    finally:
        catalog.close()
    port, thrift_port = free_port(), free_port()
    log = home / "serve.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            serve_command(
                thrift_port,
                db_url=db_url,
                warehouse=home / "wh",
                extra=[
                    "--console-port",
                    str(port),
                    "--workers",
                    "2",
                    "--auth",
                    "password",
                    "--password-file",
                    str(home / "passwords"),
                    "--authorization",
                    "privileges",
                    "--admin",
                    "root",
                    "--allow-plaintext-passwords",  # loopback only; the browser here has no CA to trust
                ],
            ),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        for listening in (port, thrift_port):  # each opens on its own, in each worker
            wait_for_port(listening, process, log=log)
        shots = home / "screenshots"
        shots.mkdir()
        yield Site(port, thrift_port, db_url, shots)
    finally:
        stop_servers([process], [log])


def unpack_with_file_times(name: str, into: Path) -> Path:
    """A real table unpacked with its files' times as the zip keeps them: tables before version 8 name no
    completion time, which the catalog takes from the instant file's modification time, as Hudi does."""
    base = unpack(name, into)
    with zipfile.ZipFile(TABLES_DIR / f"{name}.zip") as archive:
        for entry in archive.infolist():
            path = into / name / entry.filename
            if path.is_file():
                moment = time.mktime((*entry.date_time, 0, 0, -1))
                os.utime(path, (moment, moment))
    return base


def sign_in(browser, site: Site, user: str, next_path: str = "/") -> dict:
    browser.new_context()
    answer = browser.goto(site.url(next_path))
    assert answer["url"].startswith(site.url("/login?next="))
    browser.fill("#user", user)
    browser.fill("#password", _password(user))
    return browser.submit("form.login")


def test_a_new_user_signs_in_and_finds_a_tables_last_commit(site):
    with browser_or_skip() as browser:
        browser.new_context()
        browser.goto(site.url("/login"))
        site.keep(browser, "sign-in")
        browser.fill("#user", "root")
        browser.fill("#password", "wrong")
        refused = browser.submit("form.login")
        assert refused["status"] == 401 and browser.text("#problem") == ["Wrong user name or password."]

        landed = sign_in(browser, site, "root", "/")
        assert landed["status"] == 200 and browser.text("#viewer") == ["root"]
        site.keep(browser, "catalogs")
        browser.click("#catalogs a")  # hive
        browser.click("#databases a[href$='/lake']")
        assert {"rolled", "trips", "trips_ro", "trips_rt"} <= set(browser.text("#tables tbody td:first-child"))
        site.keep(browser, "database")
        browser.click("#tables a[href$='/trips']")
        assert browser.text("h1") == ["Table lake.trips"]
        site.keep(browser, "table")
        browser.click(".tabs a[href$='/timeline']")
        site.keep(browser, "timeline")
        # every instant is drawn and listed; the newest row is the last commit
        rows = browser.count("#instants tbody tr")
        assert rows == browser.count("svg.timeline rect.instant") == 8
        newest = browser.text("#instants tbody tr:first-child td")
        assert newest[1:3] == ["deltacommit", "completed"] and newest[5] == "UPSERT_PREPPED"
        assert browser.count("svg.timeline rect.completed") == 8
        assert "compaction" in browser.text("#instants tbody td:nth-child(2)")

        browser.goto(site.url("/catalogs/hive/databases/lake/tables/rolled/timeline"))
        assert browser.count("#instants tr.rolled-back") + browser.count("#removed li") >= 1
        assert browser.count("svg.timeline rect.rolled-back") >= 1
        site.keep(browser, "timeline-rollback")

        browser.goto(site.url("/catalogs/hive/databases/lake/tables/trips/slices"))
        assert browser.count("table.slices tbody tr") == 3
        site.keep(browser, "slices")
        browser.goto(site.url("/catalogs/hive/databases/lake/tables/trips/iceberg"))
        site.keep(browser, "iceberg-view")
        client, transport = _connect(site.thrift_port, "root")  # some calls for the health page to chart
        try:
            for _ in range(200):
                client.get_all_databases()
        finally:
            transport.close()
        for page in ("activity", "events", "health"):
            assert browser.goto(site.url(f"/{page}"))["status"] == 200
            site.keep(browser, page)
        assert browser.count("svg.chart") == 7


def test_partitions_page_and_filter_in_the_browser(site):
    with browser_or_skip() as browser:
        sign_in(browser, site, "bob", "/catalogs/hive/databases/shop/tables/sales/partitions")
        assert browser.text("#summary") == ["500 partitions"]
        first = browser.text("#partitions tbody tr td:first-child")
        assert len(first) == 100 and first[0] == "ds=2024-01-01/hr=0"
        browser.click("#next-page")
        second = browser.text("#partitions tbody tr td:first-child")
        assert len(second) == 100 and second[0] > first[-1]
        browser.fill("#filter", "ds >= '2024-02-01' and ds <= '2024-02-03' and hr = 12")
        browser.submit("form.filter")
        assert browser.text("#partitions tbody tr td:first-child") == [
            "ds=2024-02-01/hr=12",
            "ds=2024-02-02/hr=12",
            "ds=2024-02-03/hr=12",
        ]
        site.keep(browser, "partitions")
        browser.fill("#filter", "ds >= ")
        answer = browser.submit("form.filter")
        assert answer["status"] == 400 and "Error parsing partition filter" in browser.text("#problem")[0]


def test_a_user_without_privileges_sees_only_what_thrift_shows_them(site):
    with browser_or_skip() as browser:
        sign_in(browser, site, "bob", "/catalogs/hive")
        shown = browser.text("#databases tbody td")
        # what get_all_databases answers bob: lake holds nothing he may read
        assert "shop" in shown and "lake" not in shown
        answer = browser.goto(site.url("/catalogs/hive/databases/lake/tables/trips/timeline"))
        assert answer["status"] == 403 and "lake.trips" in browser.text("#problem")[0]
        site.keep(browser, "not-allowed")
        assert browser.goto(site.url("/events"))["status"] == 403  # events are an admin's read
        browser.click("header form button")  # sign out: the session's token is cancelled
        assert browser.goto(site.url("/catalogs/hive"))["url"].startswith(site.url("/login"))


def test_pages_that_are_tables_work_without_javascript(site):
    with browser_or_skip() as browser:
        browser.new_context(java_script_enabled=False)
        browser.goto(site.url("/login?next=/catalogs/hive/databases/shop/tables/sales/partitions"))
        browser.fill("#user", "alice")
        browser.fill("#password", _password("alice"))
        assert browser.submit("form.login")["status"] == 200
        assert browser.count("#partitions tbody tr") == 100
        assert browser.click("#next-page")["status"] == 200
        # nothing on any page asks for a script
        for path in ("/", "/catalogs/hive/databases/shop/tables/sales", "/activity", "/health"):
            browser.goto(site.url(path))
            assert browser.count("script") == 0
    assert get(site.port, "/").status == 303  # and a request without a session is sent to sign in
