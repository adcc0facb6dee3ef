"""``hudi-metastore copy`` at scale: Apache Hive Metastore 2.3.10 on MariaDB copied into this server, timed, with
the load the copy puts on the source.

1. **Setup** (timed apart, not the measured copy): Apache Hive Metastore 2.3.10 (``peer.py``) on a fresh MariaDB
   database (``--peer-db-url``) gets ``--tables`` (1,000) external tables spread over ``--databases`` (10)
   databases, each with three columns and the partition keys ``day`` string and ``hour`` int, and ``--partitions``
   (100,000) partitions spread evenly over the tables (``add_partitions``, 1,000 a call at most), through Thrift
   over ``--load-connections`` connections. Every table gets table-level column statistics, and a
   ``--stats-fraction`` (a tenth) of each table's partitions, evenly spaced, get partition column statistics
   (``set_aggr_stats_for``, long and string statistics). Locations are ``file:`` paths under a temporary folder
   (Hive 2.3 makes the folders as it adds the partitions).
2. ``hudi-metastore serve`` on a fresh ``--target-db-url`` (a SQLite file in the temporary folder, or a MariaDB
   database, dropped and created), with ``--no-metaserver``.
3. ``hudi-metastore copy --from <peer> --to <ours>`` in its own process, timed wall-clock; then the same copy
   again (nothing changed: it writes nothing but the continued event ids); with ``--verify``, a
   ``copy --dry-run --verify`` (compare only) too.

For each run: its seconds, partitions a second, the source's load (the peer JVM's CPU seconds from
``/proc/<pid>/stat`` and the cores that makes on average, MariaDB's CPU seconds and the statements it was sent,
``SHOW GLOBAL STATUS LIKE 'Questions'``), the calls the copy made to the source and to the target (its last
line), the copy process's own CPU seconds and our server's. MariaDB's figures count every client of the server:
with a MariaDB target they include our server's statements too. The copy's summary and log (``--log-level
INFO``, ``--progress-interval 10``) are kept in the temporary folder when a run fails. The target: the first
copy of the default size within 5 minutes on this machine.

Prints the setup as a JSON line, a JSON line per run, then a markdown table. Exits with the first non-zero exit
code of a copy run.

Usage: python benchmarks/copy_scale.py [--quick] [--tables 1000] [--databases 10] [--partitions 100000]
       [--stats-fraction 0.1] [--load-connections 4] [--verify]
       [--peer-db-url mysql://root@127.0.0.1:3306/hms_copy_bench_peer]
       [--target-db-url sqlite:///PATH | mysql://root@127.0.0.1:3306/hms_copy_bench]
``--quick``: 50 tables in 5 databases, 5,000 partitions (a smoke run). A populated source is kept once per machine
under ``~/.cache/hudi-metastore/copy_scale`` (a dump of the peer's database and the folder its locations name) and
loaded from there by later runs of the same size; ``--fresh`` loads it through Thrift again.
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pymysql
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_base import HIVE_2_3  # noqa: E402
from bench_server import Target, ours  # noqa: E402
from peer import recreate_database, running_peer  # noqa: E402

from hms_adapter.client import connect  # noqa: E402
from hms_adapter.idl import hive  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PEER_URL = "mysql://root@127.0.0.1:3306/hms_copy_bench_peer"
TARGET_SECONDS = 300.0
"""The issue's target for the first copy of the default size."""
CACHE = Path(os.environ.get("XDG_CACHE_HOME", "~/.cache")).expanduser() / "hudi-metastore" / "copy_scale"
"""Each populated source kept once per machine: a dump of the peer's database, and the folder its locations
name (loading 100,000 partitions through Hive 2.3's Thrift API takes about 35 minutes here)."""
ADD_BATCH = 1000
"""Partitions per ``add_partitions`` call of the setup."""
FIRST_DAY = dt.date(2024, 1, 1)
COLUMNS = (("id", "bigint"), ("customer", "string"), ("amount", "bigint"))
CALLS_LINE = re.compile(r"calls: (\d+) to the source, (\d+) to the target")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PARQUET = "org.apache.hadoop.hive.ql.io.parquet."


@dataclass(frozen=True)
class TableSpec:
    database: str
    name: str
    partitions: int
    location: str


@dataclass(frozen=True)
class Load:
    """What the processes measured had used at one moment: CPU seconds (None for a process that cannot be
    read) and MariaDB's ``Questions``."""

    peer_cpu: float | None
    mariadb_cpu: float | None
    server_cpu: float | None
    questions: int


def plan_tables(tables: int, databases: int, partitions: int, data: Path) -> list[TableSpec]:
    """``tables`` tables, in contiguous runs over ``databases`` databases, sharing ``partitions`` evenly (the
    first tables one more each when they do not divide)."""
    base, extra = divmod(partitions, tables)
    specs = []
    for k in range(tables):
        database = f"copy_bench_{k * databases // tables:02d}"
        name = f"t{k:04d}"
        specs.append(TableSpec(database, name, base + (k < extra), f"file:{data}/{database}/{name}"))
    return specs


def storage(location: str) -> hive.StorageDescriptor:
    return hive.StorageDescriptor(
        cols=[hive.FieldSchema(name, type_, None) for name, type_ in COLUMNS],
        location=location,
        inputFormat=f"{PARQUET}MapredParquetInputFormat",
        outputFormat=f"{PARQUET}MapredParquetOutputFormat",
        compressed=False,
        numBuckets=-1,
        serdeInfo=hive.SerDeInfo(serializationLib=f"{PARQUET}serde.ParquetHiveSerDe", parameters={}),
        bucketCols=[],
        sortCols=[],
        parameters={},
    )


def partition_values(index: int) -> list[str]:
    """The ``[day, hour]`` of a table's ``index``-th partition: 24 hours a day from ``FIRST_DAY``."""
    return [(FIRST_DAY + dt.timedelta(days=index // 24)).isoformat(), str(index % 24)]


def column_stats(seed: int) -> list[hive.ColumnStatisticsObj]:
    """Statistics of the three columns, varied by ``seed``: long statistics of the bigints, string ones of the
    string."""

    def long_stats(low: int, high: int) -> hive.ColumnStatisticsData:
        data = hive.LongColumnStatsData(lowValue=low, highValue=high, numNulls=seed % 7, numDVs=seed % 500 + 1)
        return hive.ColumnStatisticsData(longStats=data)

    text = hive.StringColumnStatsData(maxColLen=40 + seed % 20, avgColLen=12.5, numNulls=seed % 3, numDVs=seed + 1)
    return [
        hive.ColumnStatisticsObj("id", "bigint", long_stats(seed, seed * 1000)),
        hive.ColumnStatisticsObj("customer", "string", hive.ColumnStatisticsData(stringStats=text)),
        hive.ColumnStatisticsObj("amount", "bigint", long_stats(-seed, seed * 10)),
    ]


def load_table(client, spec: TableSpec, stats_fraction: float) -> int:
    """Create one table with its partitions and statistics on the peer; answers the partitions given
    statistics."""
    client.create_table(
        hive.Table(
            tableName=spec.name,
            dbName=spec.database,
            owner="bench",
            createTime=0,
            lastAccessTime=0,
            retention=0,
            sd=storage(spec.location),
            partitionKeys=[hive.FieldSchema("day", "string", None), hive.FieldSchema("hour", "int", None)],
            parameters={"EXTERNAL": "TRUE"},
            tableType="EXTERNAL_TABLE",
        )
    )
    for start in range(0, spec.partitions, ADD_BATCH):
        batch = []
        for index in range(start, min(start + ADD_BATCH, spec.partitions)):
            day, hour = partition_values(index)
            batch.append(
                hive.Partition(
                    dbName=spec.database,
                    tableName=spec.name,
                    values=[day, hour],
                    sd=storage(f"{spec.location}/day={day}/hour={hour}"),
                    parameters={},
                )
            )
        client.add_partitions(batch)
    count = round(spec.partitions * stats_fraction)
    with_stats = sorted({k * spec.partitions // count for k in range(count)}) if count else []
    if with_stats:
        client.set_aggr_stats_for(
            hive.SetPartitionsStatsRequest(
                colStats=[
                    hive.ColumnStatistics(
                        statsDesc=hive.ColumnStatisticsDesc(
                            isTblLevel=False,
                            dbName=spec.database,
                            tableName=spec.name,
                            partName="day={}/hour={}".format(*partition_values(index)),
                        ),
                        statsObj=column_stats(index + 1),
                    )
                    for index in with_stats
                ],
                needMerge=False,
            )
        )
    client.update_table_column_statistics(
        hive.ColumnStatistics(
            statsDesc=hive.ColumnStatisticsDesc(isTblLevel=True, dbName=spec.database, tableName=spec.name),
            statsObj=column_stats(spec.partitions),
        )
    )
    return len(with_stats)


def populate(uri: str, specs: list[TableSpec], data: Path, stats_fraction: float, connections: int) -> int:
    """The databases, then the tables over ``connections`` connections (a contiguous share each); answers the
    partitions given statistics."""
    with connect(uri, timeout=600) as client:
        for database in sorted({spec.database for spec in specs}):
            client.create_database(hive.Database(name=database, locationUri=f"file:{data}/{database}", parameters={}))

    done = itertools.count(1)  # shared by the threads (next() on it is atomic)
    every = max(1, len(specs) // 10)

    def load_share(share: list[TableSpec]) -> int:
        with_stats = 0
        with connect(uri, timeout=600) as client:
            for spec in share:
                with_stats += load_table(client, spec, stats_fraction)
                if (count := next(done)) % every == 0:
                    print(f"setup: {count:,} of {len(specs):,} tables loaded", file=sys.stderr, flush=True)
        return with_stats

    size = -(-len(specs) // connections)
    shares = [specs[start : start + size] for start in range(0, len(specs), size)]
    with ThreadPoolExecutor(len(shares)) as pool:
        return sum(pool.map(load_share, shares))


def cpu_seconds(pid: int | None) -> float | None:
    """User plus system CPU seconds of process ``pid`` so far (all its threads), from ``/proc/<pid>/stat``."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


class Meter:
    """Reads the load figures: the peer JVM's, MariaDB's and our server's CPU, and MariaDB's ``Questions``
    (over one connection of its own, whose two statements a reading adds are negligible)."""

    def __init__(self, peer_db_url: str, peer_pid: int, server_pid: int | None) -> None:
        url = make_url(peer_db_url)
        self.connection = pymysql.connect(
            host=url.host, port=url.port or 3306, user=url.username, password=url.password or "", autocommit=True
        )
        self.peer_pid, self.server_pid = peer_pid, server_pid
        with self.connection.cursor() as cur:
            cur.execute("SELECT @@pid_file")
            try:
                self.mariadb_pid: int | None = int(Path(cur.fetchone()[0]).read_text().split()[0])
            except (OSError, ValueError, IndexError):  # MariaDB on another machine, or in a container
                self.mariadb_pid = None

    def read(self) -> Load:
        with self.connection.cursor() as cur:
            cur.execute("SHOW GLOBAL STATUS LIKE 'Questions'")
            questions = int(cur.fetchone()[1])
        return Load(cpu_seconds(self.peer_pid), cpu_seconds(self.mariadb_pid), cpu_seconds(self.server_pid), questions)

    def close(self) -> None:
        self.connection.close()


def _used(after: float | None, before: float | None) -> float | None:
    return None if after is None or before is None else round(after - before, 2)


def run_copy(
    name: str, source: str, target: Target, extra: list[str], meter: Meter, work: Path, partitions: int
) -> dict:
    """One ``hudi-metastore copy`` process, timed, with the load it caused; its summary and log in ``work``."""
    command = [
        sys.executable,
        "-m",
        "hms_adapter.cli",
        "copy",
        "--from",
        source,
        "--to",
        target.uri,
        "--progress-interval",
        "10",
        "--log-level",
        "INFO",
        *extra,
    ]
    print(f"{name}: {' '.join(command[2:])}", file=sys.stderr, flush=True)
    before = meter.read()
    started = time.perf_counter()
    with open(work / f"{name}.out", "w") as out, open(work / f"{name}.log", "w") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, cwd=ROOT)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    after = meter.read()
    lines = [line for line in (work / f"{name}.out").read_text().splitlines() if line.strip()]
    calls = CALLS_LINE.fullmatch(lines[-1]) if lines else None
    peer_cpu = _used(after.peer_cpu, before.peer_cpu)
    return {
        "run": name,
        "exit_code": process.returncode,
        "seconds": round(seconds, 2),
        "partitions_per_s": round(partitions / seconds),
        "source_cpu_s": peer_cpu,
        "source_cores": None if peer_cpu is None else round(peer_cpu / seconds, 2),
        "mariadb_cpu_s": _used(after.mariadb_cpu, before.mariadb_cpu),
        "mariadb_questions": after.questions - before.questions,
        "source_calls": int(calls.group(1)) if calls else None,
        "target_calls": int(calls.group(2)) if calls else None,
        "copy_cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "target_cpu_s": _used(after.server_cpu, before.server_cpu),
        "summary": lines,
    }


def wrote_nothing(summary: list[str]) -> bool:
    """Whether a copy's summary counts nothing but unchanged objects (the continued event ids aside)."""
    counts = [line for line in summary if line.startswith("  ") and line.split()[0] != "events"]
    return bool(counts) and all(
        part.split(" ", 1)[1] == "unchanged" for line in counts for part in line.split(None, 1)[1].split(", ")
    )


def _figure(value: float | int | None, form: str) -> str:
    return "-" if value is None else format(value, form)


def _mysql_options(db_url: str) -> list[str]:
    url = make_url(db_url)
    options = ["-h", url.host or "127.0.0.1", "-P", str(url.port or 3306), "-u", url.username or "root"]
    return options + ([f"-p{url.password}"] if url.password else [])


def save_dump(db_url: str, dump: Path) -> None:
    """Keep the populated peer database for the next run (``mysqldump``, gzip)."""
    dump.parent.mkdir(parents=True, exist_ok=True)
    partial = dump.with_suffix(".partial")
    with open(partial, "wb") as out:
        dumped = subprocess.Popen(
            ["mysqldump", *_mysql_options(db_url), "--single-transaction", "--quick", make_url(db_url).database],
            stdout=subprocess.PIPE,
        )
        subprocess.run(["gzip", "-1"], stdin=dumped.stdout, stdout=out, check=True)
        if dumped.wait() != 0:
            raise SystemExit("mysqldump of the populated peer failed")
    partial.rename(dump)


def load_dump(db_url: str, dump: Path) -> None:
    """The peer database as a previous run populated it: dropped, created (latin1) and loaded from ``dump``."""
    recreate_database(db_url, "")
    unzipped = subprocess.Popen(["gzip", "-dc", str(dump)], stdout=subprocess.PIPE)
    subprocess.run(["mysql", *_mysql_options(db_url), make_url(db_url).database], stdin=unzipped.stdout, check=True)
    if unzipped.wait() != 0:
        raise SystemExit(f"{dump} cannot be read: remove it, or run with --fresh")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="50 tables in 5 databases, 5,000 partitions")
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--databases", type=int, default=10)
    parser.add_argument("--partitions", type=int, default=100_000, help="in all, spread evenly over the tables")
    parser.add_argument(
        "--stats-fraction", type=float, default=0.1, help="of each table's partitions given column statistics"
    )
    parser.add_argument(
        "--load-connections", type=int, default=4, help="connections the setup loads the peer over (default 4)"
    )
    parser.add_argument("--verify", action="store_true", help="then time a copy --dry-run --verify")
    parser.add_argument("--peer-db-url", default=PEER_URL, help="the peer's database (dropped and created)")
    parser.add_argument(
        "--fresh", action="store_true", help=f"load the source through Thrift even when {CACHE} holds it"
    )
    parser.add_argument("--peer-heap", default="2g", help="the peer JVM's -Xmx (default %(default)s)")
    parser.add_argument(
        "--target-db-url", help="our server's database (dropped and created; default: a SQLite file in a temp dir)"
    )
    args = parser.parse_args()
    if args.quick:
        args.tables, args.databases, args.partitions = 50, 5, 5000
    if not 0 < args.databases <= args.tables or args.load_connections < 1 or not 0 <= args.stats_fraction <= 1:
        parser.error("wants 0 < --databases <= --tables, --load-connections >= 1 and 0 <= --stats-fraction <= 1")

    work = Path(tempfile.mkdtemp(prefix="copy-scale-"))
    population = CACHE / f"{args.tables}t-{args.databases}d-{args.partitions}p-{args.stats_fraction}s"
    data, dump = population / "data", population / "peer.sql.gz"
    target_url = args.target_db_url or f"sqlite:///{work / 'catalog.db'}"
    runs: list[dict] = []
    with ExitStack() as stack:
        print(f"starting Hive Metastore {HIVE_2_3} on {args.peer_db_url} ...", file=sys.stderr, flush=True)
        cached = dump.exists() and not args.fresh
        started = time.perf_counter()  # the setup: the load from the cache, or through Thrift
        if cached:
            load_dump(args.peer_db_url, dump)
        peer = stack.enter_context(
            running_peer(args.peer_db_url, heap=args.peer_heap, version=HIVE_2_3, keep_database=cached)
        )
        specs = plan_tables(args.tables, args.databases, args.partitions, data)
        if cached:
            with_stats = sum(round(s.partitions * args.stats_fraction) for s in specs)
        else:
            shutil.rmtree(data, ignore_errors=True)
            with_stats = populate(peer.uri, specs, data, args.stats_fraction, args.load_connections)
            save_dump(args.peer_db_url, dump)
        setup = {
            "setup": "peer",
            "from_cache": cached,
            "version": HIVE_2_3,
            "databases": args.databases,
            "tables": args.tables,
            "partitions": args.partitions,
            "partitions_with_stats": with_stats,
            "load_connections": args.load_connections,
            "seconds": round(time.perf_counter() - started, 2),
        }
        print(json.dumps(setup), flush=True)
        target = stack.enter_context(ours(target_url, [], str(work / "warehouse")))
        meter = Meter(args.peer_db_url, peer.process.pid, target.pid)
        stack.callback(meter.close)
        plans = [("copy", []), ("re-run", [])] + ([("verify", ["--dry-run", "--verify"])] if args.verify else [])
        for name, extra in plans:
            run = run_copy(name, peer.uri, target, extra, meter, work, args.partitions)
            runs.append(run)
            print(json.dumps(run), flush=True)
            if run["exit_code"] != 0:
                print("\n".join(run["summary"][-20:]), file=sys.stderr)
                break

    print()
    print(
        f"Setup: {args.tables:,} tables in {args.databases} databases, {args.partitions:,} partitions "
        f"({with_stats:,} with column statistics) loaded into Hive Metastore {HIVE_2_3} "
        + (f"from {dump}; " if cached else f"in {setup['seconds']:.1f} s; ")
        + f"target {target_url}"
    )
    print()
    print(
        "| run | exit | s | partitions/s | source CPU s | source cores | MariaDB CPU s | MariaDB questions "
        "| calls to source | calls to target | copy CPU s | target CPU s |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in runs:
        print(
            f"| {r['run']} | {r['exit_code']} | {r['seconds']:.1f} | {r['partitions_per_s']:,} "
            f"| {_figure(r['source_cpu_s'], '.1f')} | {_figure(r['source_cores'], '.2f')} "
            f"| {_figure(r['mariadb_cpu_s'], '.1f')} | {r['mariadb_questions']:,} | {_figure(r['source_calls'], ',')} "
            f"| {_figure(r['target_calls'], ',')} | {r['copy_cpu_s']:.1f} | {_figure(r['target_cpu_s'], '.1f')} |"
        )
    if make_url(target_url).drivername.startswith("mysql"):
        print("(MariaDB's figures include our server's statements: the target is on MariaDB too)")
    first = runs[0]
    met = first["exit_code"] == 0 and first["seconds"] <= TARGET_SECONDS
    rerun = next((r for r in runs if r["run"] == "re-run"), None)
    outcome = {
        "copy_s": first["seconds"],
        "target_s": TARGET_SECONDS,
        "target_met": met,
        "rerun_wrote_nothing": None if rerun is None else wrote_nothing(rerun["summary"]),
    }
    print(json.dumps(outcome))
    print(
        f"copy of {args.partitions:,} partitions in {first['seconds']:.1f} s: the {TARGET_SECONDS / 60:.0f}-minute "
        f"target {'met' if met else 'missed'}"
        + ("" if rerun is None else f"; the re-run {'wrote nothing' if outcome['rerun_wrote_nothing'] else 'wrote'}")
    )
    failed = next((r["exit_code"] for r in runs if r["exit_code"] != 0), 0)
    if failed:
        print(f"a copy failed: its summary and log are in {work}", file=sys.stderr)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return failed


if __name__ == "__main__":
    sys.exit(main())
