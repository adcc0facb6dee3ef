"""The console's pages read over a real socket: what they show is what the catalog holds (and, for real Hudi
tables, what their README and hudi-rs say), partitions page by name and filter in Hive's syntax, secrets
never show, and bad requests get pages of their own with the status Hive's error maps to."""

from __future__ import annotations

import re
import sqlite3
from urllib.parse import quote

import pytest

from console import catalog_pages
from hudi_catalog.locks.model import LockComponent, LockRequest, LockTarget, LockType
from hudi_catalog.model import Action, Column, Database, Partition, StorageDescriptor, Table
from tests.console.pages import get, links, rows
from tests.hudi.tables import all_tables, unpack

SECRET = "s3cr3t-value-not-to-show"


def table_path(database: str, table: str, page: str = "") -> str:
    return f"/catalogs/hive/databases/{database}/tables/{table}{page}"


def _partitioned(catalog, days: int = 250, **parameters: str) -> None:
    catalog.databases.create(Database("shop"))
    catalog.tables.create(
        Table(
            "shop",
            "sales",
            sd=StorageDescriptor(columns=[Column("amount", "double")]),
            partition_keys=[Column("ds", "string"), Column("hr", "int")],
            parameters=dict(parameters),
        )
    )
    names = [(f"2024-{1 + d // 28:02d}-{1 + d % 28:02d}", str(h)) for d in range(days) for h in (0, 12)]
    catalog.partitions.add("shop", "sales", [Partition("shop", "sales", list(v)) for v in names])


@pytest.mark.parametrize("db_url", ["sqlite", "mysql", "postgresql"], indirect=True)
def test_partitions_page_by_name_and_filter_through_every_partition_once(catalog, console, monkeypatch):
    _partitioned(catalog)
    expected = catalog.partitions.names("shop", "sales")
    seen, path, pages = [], table_path("shop", "sales", "/partitions"), 0
    while path:
        answer = get(console.port, path)
        assert answer.status == 200
        page = rows(answer.body, "partitions")
        assert len(page) == 100 or not [link for link in links(answer.body) if "after=" in link]
        seen += [r[0] for r in page]
        following = [link for link in links(answer.body) if "after=" in link]
        path = table_path("shop", "sales", "/partitions") + following[0].replace("&amp;", "&") if following else ""
        pages += 1
    assert (seen, pages) == (expected, 5)  # 500 partitions, 100 a page, no partition twice or missed

    chosen = "ds >= '2024-03-01' and ds < '2024-04-01' and hr = 12"
    answer = get(console.port, table_path("shop", "sales", f"/partitions?filter={quote(chosen)}&size=10"))
    filtered = catalog.partitions.by_filter("shop", "sales", chosen)
    assert [r[0] for r in rows(answer.body, "partitions")] == [
        f"ds={p.values[0]}/hr={p.values[1]}" for p in filtered[:10]
    ]
    assert f"{len(filtered)} partitions match" in answer.body and len(filtered) == 28

    # counting stops past COUNTED (a million partitions take a second to count)
    monkeypatch.setattr(catalog_pages, "COUNTED", 300)
    assert "More than 300 partitions" in get(console.port, table_path("shop", "sales", "/partitions")).body
    assert re.search(r'id="partition-count">more than 300<', get(console.port, table_path("shop", "sales")).body)
    answer = get(console.port, table_path("shop", "sales", f"/partitions?filter={quote('ds = ')}"))
    assert answer.status == 400 and "Error parsing partition filter" in answer.body
    assert "\x1b" not in answer.body
    answer = get(console.port, table_path("shop", "sales", f"/partitions?filter={quote('nokey = 1')}"))
    assert answer.status == 400 and rows(answer.body, "partitions") == []


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_the_table_page_shows_the_catalogs_table_and_hides_its_secrets(catalog, console):
    _partitioned(catalog, days=3, **{"fs.s3a.secret.key": SECRET, "comment": "sales by hour", "numRows": "42"})
    answer = get(console.port, table_path("shop", "sales"))
    assert answer.status == 200
    parameters = dict(rows(answer.body, "table-parameters"))
    assert parameters["fs.s3a.secret.key"] == "(hidden)" and parameters["numRows"] == "42"
    assert SECRET not in answer.body
    assert [r[:2] for r in rows(answer.body, "columns")] == [["amount", "double"]]
    assert rows(answer.body, "partition-keys") == [["ds", "string"], ["hr", "int"]]
    assert re.search(r'id="partition-count">6<', answer.body)
    # the event of the table's creation carries its parameters: hidden there too
    events = get(console.port, "/events")
    assert events.status == 200 and "CREATE_TABLE" in events.body and SECRET not in events.body
    assert [r[2] for r in rows(events.body, "events")][:2] == ["ADD_PARTITION", "CREATE_TABLE"]

    listing = get(console.port, "/catalogs/hive/databases/shop")
    assert [r[0] for r in rows(listing.body, "tables")] == ["sales"]
    assert get(console.port, "/catalogs/hive").status == 200
    assert [r[0] for r in rows(get(console.port, "/catalogs/hive").body, "databases")] == ["default", "shop"]


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_missing_objects_and_unknown_paths_get_pages_of_their_own(catalog, console):
    assert get(console.port, "/catalogs/hive/databases/nope").status == 404
    missing = get(console.port, table_path("default", "nope"))
    assert missing.status == 404 and "nope" in missing.body
    assert get(console.port, "/no/such/page").status == 404
    assert get(console.port, "/catalogs/nocatalog").status == 404
    headers = get(console.port, "/").headers
    assert (
        "script-src" not in headers["content-security-policy"]
        and "default-src 'none'" in headers["content-security-policy"]
    )
    assert headers["x-frame-options"] == "DENY" and headers["cache-control"] == "no-store"


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_the_activity_page_lists_live_locks_transactions_and_pending_compactions(catalog, console):
    _partitioned(catalog, days=1)
    [txn] = catalog.txns.open(1, "etl", "host-7", agent_info="nightly-load")
    target = LockTarget("shop", "sales")
    catalog.locks.lock(LockRequest([LockComponent(LockType.EXCLUSIVE, target)], "etl", "host-7", txn))
    catalog.timeline.create("shop", "sales", "20241201101010101", Action.COMPACTION)
    answer = get(console.port, "/activity")
    assert answer.status == 200 and '<meta http-equiv="refresh" content="5">' in answer.body
    [lock] = rows(answer.body, "locks")
    assert lock[1:7] == ["shop.sales", "EXCLUSIVE", "ACQUIRED", str(txn), "etl", "host-7"]
    assert [r[:3] for r in rows(answer.body, "transactions")] == [[str(txn), "OPEN", "etl"]]
    assert rows(answer.body, "table-services") == [["hive.shop.sales", "compaction", "requested", "20241201101010101"]]
    assert '<meta http-equiv="refresh"' not in get(console.port, "/activity?refresh=off").body


@pytest.mark.parametrize("name", all_tables())
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_real_hudi_tables_timeline_and_slices_are_what_its_readme_and_hudi_rs_say(catalog, console, tmp_path, name):
    from tests.support.hudi_oracles import _hudi_rs, oracle_slices, readme_rows

    base = unpack(name, tmp_path)
    catalog.import_table(str(base), "h", "t")
    answer = get(console.port, table_path("h", "t", "/timeline"))
    assert answer.status == 200
    instants = rows(answer.body, "instants")
    completed = {}
    for _, action, status, *_ in instants:
        if status == "completed":
            completed[action] = completed.get(action, 0) + 1
    # the README counts a completed compaction as the commit it is written as, and so on
    written_as = {"compaction": "commit", "logcompaction": "deltacommit", "clustering": "replacecommit"}
    written: dict[str, int] = {}
    for action, count in completed.items():
        written[written_as.get(action, action)] = written.get(written_as.get(action, action), 0) + count
    assert written == dict(readme_rows()[name]["completed"])
    # every instant drawn once on the chart, linked to its row
    for requested, *_ in instants:
        assert answer.body.count(f'data-instant="{requested}"') == 1
    shown = set()
    path = table_path("h", "t", "/slices")
    while path:
        page = get(console.port, path)
        assert page.status == 200
        for index in range(1, page.body.count('class="slices"') + 1):
            for cells in rows(page.body, f"slices-{index}"):
                shown.add((cells[0], cells[2] or None, tuple(cells[3].split())))
        following = [link for link in links(page.body) if "after=" in link]
        path = table_path("h", "t", "/slices") + following[0] if following else ""
    oracle = {(file_id, base_file, logs) for _, file_id, base_file, logs in oracle_slices(_hudi_rs(str(base)))}
    assert shown == oracle


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_databases_tables_page_by_name(catalog, console, monkeypatch):
    monkeypatch.setattr(catalog_pages, "TABLES_PAGE", 10)
    catalog.databases.create(Database("many"))
    for i in range(25):
        catalog.tables.create(Table("many", f"t{i:02d}", sd=StorageDescriptor(columns=[Column("x", "int")])))
    seen, path = [], "/catalogs/hive/databases/many"
    while path:
        answer = get(console.port, path)
        assert answer.status == 200 and "25 tables" in answer.body
        seen += [r[0] for r in rows(answer.body, "tables")]
        following = [link for link in links(answer.body) if "after=" in link]
        path = "/catalogs/hive/databases/many" + following[0] if following else ""
    assert seen == [f"t{i:02d}" for i in range(25)]


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_catalog_database_that_fails_gets_a_503_page_without_details(catalog, console, db_url):
    assert get(console.port, "/catalogs/hive").status == 200
    path = db_url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as database:  # the catalog's tables are gone from under the server
        database.execute("ALTER TABLE db RENAME TO db_gone")
        database.execute("ALTER TABLE catalogs RENAME TO catalogs_gone")
    answer = get(console.port, "/catalogs/hive")
    assert answer.status == 503 and "The catalog database did not answer." in answer.body
    assert "sqlite" not in answer.body.lower() and path not in answer.body
