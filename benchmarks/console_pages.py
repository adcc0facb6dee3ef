"""The web console's partitions pages over one table of up to a million partitions: what a page costs.

The requirement: a million partitions page in well under a second. The benchmark opens a catalog
(``Catalog.open``: a SQLite file in a temporary directory unless ``--db-url``), loads a table ``bench.t<N>``
of ``--partitions`` N partitions (keys ``dt`` string and ``hr`` int, 24 hours a day from 2000-01-01, the
table of ``scale.py``) through ``catalog.partitions.add`` in batches of ``--batch``, printing the load's
progress and rate, then serves the console (``console.server.ConsoleServer``) in this process and times
these GETs over one keep-alive connection (``http.client``), each ``--iterations`` times after a first call
(reported apart, ``first ms``):

- the first page of the partitions page (``size`` 100);
- a page deep into the table: ``after`` the name at 90% of the names;
- a filtered page, ``dt >= '<day at 45%>' and dt < '<day at 55%>'`` (a 10% range of days);
- the same filter's page after the middle name of its matches;
- a filter matching one partition, ``dt = '<middle day>' and hr = 7``;
- the table's page, which counts its partitions.

Every answer is checked: HTTP 200, the expected number of rows in ``<table id="partitions">``, and the
partition count it shows (past ``COUNTED`` a page says "more than 10,000"). Each partitions page runs two
catalog reads (``PartitionService.page`` and ``count_by_filter``): both are also timed alone, in process, so
that a slow page says which one is slow.

Without ``--reuse`` the catalog database is dropped and created first (a SQLite file is deleted); with
``--reuse`` a table ``t<N>`` already loaded with N partitions is kept (one with fewer, from an interrupted
load, is loaded on from where it stopped: partitions are added in a fixed order, one transaction a batch).
The partitions' directories are made in the table's location under ``--warehouse`` (a temporary directory,
removed at the end, unless given; a table an earlier run created keeps that run's temporary location, which
is removed too): the pages read none of them. On 2 cores a million partitions load in about 4 minutes on
SQLite and 5 on MariaDB (10,000 a call), and their million directories take about 3 minutes to remove.
Prints a markdown table and the JSON result (or writes it to ``--json``).

Usage: python benchmarks/console_pages.py [--partitions 1000000] [--batch 10000] [--iterations 10]
       [--db-url sqlite:////root/.cache/hudi-metastore/console-bench.db --reuse] [--warehouse DIR]
       [--json PATH]
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import math
import re
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlencode, urlparse

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_server import emit_json, ensure_empty_database, percentile  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from console.catalog_pages import COUNTED  # noqa: E402
from console.server import ConsoleServer  # noqa: E402
from hudi_catalog import Catalog  # noqa: E402
from hudi_catalog.catalog_scope import DEFAULT_CATALOG  # noqa: E402
from hudi_catalog.errors import CatalogError, NoSuchObjectError  # noqa: E402
from hudi_catalog.model import Column, Database, Partition, StorageDescriptor, Table  # noqa: E402

DB = "bench"
START = dt.date(2000, 1, 1)
HOURS = 24
PAGE_SIZE = 100
KEYS = [Column("dt", "string"), Column("hr", "int")]
COLUMNS = [Column("id", "bigint"), Column("payload", "string")]
PAGES = [
    "first page",
    "deep page (90%)",
    "filter 10% range",
    "filter 10% range, after its middle",
    "filter 1 partition",
]
TABLE_PAGE = "table page (count)"
SCRATCH_PREFIX = "console-bench-"

_PARTITIONS_TABLE = re.compile(r'<table id="partitions">(.*?)</table>', re.S)
_BODY = re.compile(r"<tbody>(.*?)</tbody>", re.S)
_SUMMARY = re.compile(r'<p id="summary">((?:More than )?[\d,]+) partition')
_TABLE_COUNT = re.compile(r'<dd id="partition-count">((?:more than )?[\d,]+)</dd>')


_STARTED = time.perf_counter()


def note(message: str) -> None:
    """A line of progress on stderr, with the seconds since the start."""
    print(f"[{time.perf_counter() - _STARTED:7.1f} s] {message}", file=sys.stderr, flush=True)


def day(i: int) -> str:
    return (START + dt.timedelta(days=i)).isoformat()


def values(i: int) -> list[str]:
    """The values of the ``i``-th partition loaded."""
    return [day(i // HOURS), str(i % HOURS)]


def part_name(v: list[str]) -> str:
    return f"dt={v[0]}/hr={v[1]}"


def table_name(n: int) -> str:
    return f"t{n}"


# -- loading -----------------------------------------------------------------------------------------------


def fresh_database(db_url: str) -> None:
    """Drop and create the catalog database (a SQLite file: deleted)."""
    url = make_url(db_url)
    if url.drivername.startswith("sqlite"):
        if url.database and url.database != ":memory:":
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(url.database + suffix).unlink(missing_ok=True)
        return
    ensure_empty_database(db_url)


def database_exists_or_made(db_url: str) -> None:
    """Create the MySQL database of ``db_url`` when it is missing (``--reuse``: kept when present); a SQLite
    file's directory is made."""
    url = make_url(db_url)
    if url.drivername.startswith("sqlite"):
        if url.database and url.database != ":memory:":
            Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        return
    if url.drivername.startswith("mysql"):
        import pymysql

        conn = pymysql.connect(
            host=url.host, port=url.port or 3306, user=url.username, password=url.password or "", autocommit=True
        )
        with conn.cursor() as cur:
            cur.execute(f"CREATE DATABASE IF NOT EXISTS {url.database} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
        conn.close()


def partitions_of(catalog: Catalog, n: int) -> int | None:
    """How many partitions ``bench.t<n>`` has; None when there is no such table."""
    try:
        return catalog.partitions.count_by_filter(DB, table_name(n), None)
    except NoSuchObjectError:
        return None


def scratch_of(catalog: Catalog, n: int) -> Path | None:
    """The temporary directory of this benchmark (``console-bench-*``) that ``t<n>``'s partition directories
    are in: the database ``bench`` keeps the location it got in the run that created it, so a later run with
    ``--reuse`` makes its partition directories in that run's (removed) temporary directory again."""
    try:
        location = catalog.tables.get(DB, table_name(n)).sd.location or ""
    except CatalogError:
        return None
    path = Path(urlparse(location).path or location).resolve()
    temp = Path(tempfile.gettempdir()).resolve()
    for parent in path.parents:
        if parent.parent == temp and parent.name.startswith(SCRATCH_PREFIX):
            return parent
    return None


def create_table(catalog: Catalog, n: int) -> None:
    if DB not in catalog.databases.names():
        catalog.databases.create(Database(DB))
    catalog.tables.create(Table(DB, table_name(n), sd=StorageDescriptor(columns=list(COLUMNS)), partition_keys=KEYS))


def load(catalog: Catalog, n: int, start: int, batch: int) -> dict:
    """Add partitions ``start`` to ``n - 1`` of ``t<n>``, ``batch`` a call; progress on stderr."""
    table = table_name(n)
    began = last_print = time.perf_counter()
    slowest = 0.0
    done = start
    while done < n:
        chunk = [Partition(DB, table, values(i)) for i in range(done, min(n, done + batch))]
        called = time.perf_counter()
        catalog.partitions.add(DB, table, chunk)
        now = time.perf_counter()
        slowest = max(slowest, now - called)
        done += len(chunk)
        if now - last_print >= 10 or done == n:
            elapsed = now - began
            note(
                f"  t{n}: {done:,} of {n:,} partitions, {elapsed:,.0f} s, {(done - start) / elapsed:,.0f}/s "
                f"(last batch {len(chunk) / (now - called):,.0f}/s)"
            )
            last_print = now
    seconds = time.perf_counter() - began
    added = n - start
    return {
        "partitions_added": added,
        "resumed_at": start,
        "seconds": round(seconds, 1),
        "partitions_per_s": round(added / seconds) if seconds else None,
        "slowest_batch_s": round(slowest, 2),
        "batch": batch,
    }


# -- the pages ---------------------------------------------------------------------------------------------


@dataclass
class Page:
    """One timed GET: its path, and what its answer must show: ``rows`` rows of partitions (None: not a
    partitions page) and ``count`` partitions counted. ``filter``/``after``: its partition reads."""

    label: str
    path: str
    rows: int | None
    count: int
    filter: str | None = None
    after: str | None = None


def sorted_names(n: int) -> list[str]:
    """The names of ``t<n>``'s partitions in the order the pages list them (by name: ``hr=10`` sorts before
    ``hr=2``)."""
    return sorted(part_name(values(i)) for i in range(n))


def pages(n: int) -> list[Page]:
    names = sorted_names(n)
    days = math.ceil(n / HOURS)
    table = f"/catalogs/{DEFAULT_CATALOG}/databases/{DB}/tables/{table_name(n)}"

    def partitions(label: str, rows: int, count: int, filter_text: str | None = None, after: str | None = None):
        query = {"size": str(PAGE_SIZE)}
        if filter_text:
            query["filter"] = filter_text
        if after:
            query["after"] = after
        path = f"{table}/partitions?{urlencode(query, quote_via=quote)}"
        return Page(label, path, rows, count, filter_text, after)

    deep = int(n * 0.9)
    low, high = day(int(days * 0.45)), day(max(int(days * 0.55), int(days * 0.45) + 1))
    ten = f"dt >= '{low}' and dt < '{high}'"
    matching = [name for name in names if f"dt={low}" <= name < f"dt={high}"]  # names sort by day first
    middle = len(matching) // 2
    one_day = day(days // 2) if (days // 2) * HOURS + 7 < n else day(0)
    one = f"dt = '{one_day}' and hr = 7"
    return [
        partitions(PAGES[0], min(PAGE_SIZE, n), n),
        partitions(PAGES[1], min(PAGE_SIZE, n - deep - 1), n, after=names[deep]),
        partitions(PAGES[2], min(PAGE_SIZE, len(matching)), len(matching), ten),
        partitions(PAGES[3], min(PAGE_SIZE, len(matching) - middle - 1), len(matching), ten, matching[middle]),
        partitions(PAGES[4], 1, 1, one),
        Page(TABLE_PAGE, table, None, n),
    ]


def check(page: Page, status: int, body: str) -> list[str]:
    """What is wrong with an answer to ``page``."""
    if status != 200:
        return [f"{page.label}: HTTP {status}"]
    errors = []
    if page.rows is not None:
        found = _PARTITIONS_TABLE.search(body)
        tbody = _BODY.search(found.group(1)) if found else None
        rows = 0 if tbody is None else tbody.group(1).count("<tr>") - tbody.group(1).count('class="none"')
        if rows != page.rows:
            errors.append(f"{page.label}: {rows} rows in table#partitions, expected {page.rows}")
        counted = _SUMMARY.search(body)
    else:
        counted = _TABLE_COUNT.search(body)
    # past COUNTED partitions a page says "more than COUNTED"
    expected = f"{COUNTED:,}" if page.count > COUNTED else f"{page.count:,}"
    shown = counted.group(1).lower().removeprefix("more than ") if counted else None
    if shown != expected:
        errors.append(f"{page.label}: shows {shown} partitions, expected {expected}")
    return errors


def get(conn: http.client.HTTPConnection, path: str) -> tuple[float, int, bytes]:
    """Milliseconds from the request sent to the last byte of the answer read, its status and body."""
    started = time.perf_counter()
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read()
    return (time.perf_counter() - started) * 1000, response.status, body


def timed(action: Callable[[], object], iterations: int) -> list[float]:
    samples = []
    for _ in range(iterations):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def summary(samples: list[float]) -> dict:
    ordered = sorted(samples)
    return {"p50_ms": round(percentile(ordered, 0.5), 2), "max_ms": round(ordered[-1], 2), "samples": len(ordered)}


def measure(catalog: Catalog, n: int, iterations: int) -> tuple[dict[str, dict], list[str]]:
    """Each page's first call, p50 and max over HTTP, its size, and its catalog reads alone; the errors."""
    server = ConsoleServer(catalog, "127.0.0.1", 0)
    server.start()
    out: dict[str, dict] = {}
    errors: list[str] = []
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=600)
    table = table_name(n)
    try:
        for page in pages(n):
            first, status, body = get(conn, page.path)
            errors += check(page, status, body.decode(errors="replace"))
            samples = []
            for _ in range(iterations):
                ms, status, body = get(conn, page.path)
                samples.append(ms)
                if status != 200:
                    errors.append(f"{page.label}: HTTP {status} on a repeat")
            result = summary(samples) | {"first_ms": round(first, 2), "bytes": len(body), "path": page.path}
            result["rows"], result["count"] = page.rows, page.count
            if page.rows is not None:
                result["page_call"] = summary(
                    timed(lambda p=page: catalog.partitions.page(DB, table, p.filter, p.after, PAGE_SIZE), iterations)
                )
            result["count_call"] = summary(
                timed(lambda p=page: catalog.partitions.count_by_filter(DB, table, p.filter, COUNTED + 1), iterations)
            )
            out[page.label] = result
            note(f"  {page.label}: p50 {result['p50_ms']} ms, max {result['max_ms']} ms, {len(body):,} bytes")
    finally:
        conn.close()
        server.stop()
    return out, errors


# -- output ------------------------------------------------------------------------------------------------


def fmt(ms: float | None) -> str:
    if ms is None:
        return ""
    return f"{ms:,.1f}" if ms < 10_000 else f"{ms:,.0f}"


def markdown(result: dict) -> str:
    settings, load_run = result["settings"], result["load"]
    lines = [
        f"### {settings['partitions']:,} partitions on {settings['database']}\n",
        "| page | rows | p50 ms | max ms | first ms | KB | `page()` p50 ms | `count_by_filter()` p50 ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label in [*PAGES, TABLE_PAGE]:
        r = result["pages"][label]
        page_call = r.get("page_call", {}).get("p50_ms")
        lines.append(
            f"| {label} | {'' if r['rows'] is None else r['rows']} | {fmt(r['p50_ms'])} | {fmt(r['max_ms'])} | "
            f"{fmt(r['first_ms'])} | {r['bytes'] / 1024:,.1f} | {fmt(page_call)} | {fmt(r['count_call']['p50_ms'])} |"
        )
    lines.append("")
    if load_run.get("partitions_added"):
        resumed = f", resumed at {load_run['resumed_at']:,}" if load_run["resumed_at"] else ""
        lines.append(
            f"- loaded {load_run['partitions_added']:,} partitions in {load_run['seconds']:,} s "
            f"({load_run['partitions_per_s']:,}/s, {load_run['batch']:,} a call, slowest call "
            f"{load_run['slowest_batch_s']} s{resumed})"
        )
    else:
        lines.append("- reused a table already loaded")
    slowest = max(result["pages"].items(), key=lambda item: item[1]["max_ms"])
    lines.append(f"- slowest page: {slowest[0]}, {fmt(slowest[1]['max_ms'])} ms; errors: {len(result['errors'])}")
    lines += [f"  - {e}" for e in result["errors"][:10]]
    return "\n".join(lines) + "\n"


# -- main --------------------------------------------------------------------------------------------------


def database_name(db_url: str) -> str:
    driver = make_url(db_url).drivername
    return {"sqlite": "SQLite", "mysql": "MariaDB/MySQL", "postgresql": "PostgreSQL"}.get(driver.split("+")[0], driver)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--partitions", type=int, default=1_000_000, help="N (default %(default)s)")
    parser.add_argument("--batch", type=int, default=10_000, help="partitions per partitions.add while loading")
    parser.add_argument("--iterations", type=int, default=10, help="timed GETs per page (default %(default)s)")
    parser.add_argument("--db-url", help="the catalog database (default: a SQLite file in a temporary directory)")
    parser.add_argument("--reuse", action="store_true", help="keep a table t<N> already loaded (or load it on)")
    parser.add_argument("--warehouse", help="where partition directories are made (default: temporary, removed)")
    parser.add_argument("--json", metavar="PATH", help="write the JSON result here instead of printing it")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    n = args.partitions
    scratch = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX))
    scratches: list[Path] = []  # those of earlier runs that this one made partition directories in
    present = None
    db_url = args.db_url or f"sqlite:///{scratch}/catalog.db"
    warehouse = args.warehouse or str(scratch / "warehouse")
    try:
        if args.reuse:
            database_exists_or_made(db_url)
        else:
            fresh_database(db_url)
        note(f"opening the catalog at {make_url(db_url).render_as_string(hide_password=True)} ...")
        catalog = Catalog.open(db_url, warehouse, max_batch_partitions=max(args.batch, 100_000))
        try:
            present = partitions_of(catalog, n)
            note(f"{DB}.{table_name(n)}: {'no table' if present is None else f'{present:,} partitions'}")
            if present is not None and (not args.reuse or present > n):
                raise SystemExit(f"{DB}.{table_name(n)} has {present:,} partitions, not {n:,}: run without --reuse")
            if present is None:
                create_table(catalog, n)
                present = 0
            load_run: dict = {"partitions_added": 0}
            if present < n:
                note(f"loading {n - present:,} partitions into {DB}.{table_name(n)} ...")
                load_run = load(catalog, n, present, args.batch)
            note(f"timing the pages of {n:,} partitions ...")
            measured, errors = measure(catalog, n, args.iterations)
        finally:
            if args.warehouse is None and present is not None:
                made = scratch_of(catalog, n)
                scratches = [made] if made is not None and made != scratch.resolve() and made.exists() else []
            catalog.close()
    except CatalogError as error:
        raise SystemExit(f"{type(error).__name__}: {error}") from None
    finally:
        for directory in [scratch, *scratches]:  # only the defaults: the SQLite file, the warehouse
            if args.warehouse is None:
                note(f"removing the partition directories in {directory} ...")
            shutil.rmtree(directory, True)
        note("done")
    result = {
        "settings": {
            "partitions": n,
            "database": database_name(db_url),
            "db_url": make_url(db_url).render_as_string(hide_password=True),
            "batch": args.batch,
            "iterations": args.iterations,
            "page_size": PAGE_SIZE,
            "client": "http.client, one keep-alive connection; server: ConsoleServer in process",
        },
        "load": load_run,
        "pages": measured,
        "errors": errors,
    }
    print(markdown(result))
    emit_json(result, args.json)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
