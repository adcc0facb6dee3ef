"""Metadata-bound queries through a real Trino 476, on hudi-metastore and on Apache Hive Metastore 2.3.10.

One Trino (``sql_engines.py``) with two Hive catalogs: ``ours`` at ``hudi-metastore serve`` and ``hms`` at
Hive Metastore 2.3.10 (``peer.py``), each on a fresh MariaDB database of the same server. Both metastores
get the same objects through Thrift: a table of ``--partitions`` partitions, ``--tables`` small tables in a
schema of their own, and ``--column-tables`` tables of 20 columns in another. Then, alternating between
the catalogs, each query runs ``--repeat`` times after one warm-up:

- ``count(*)`` of one partition of the partitioned table (planning prunes to one partition);
- ``SHOW TABLES`` of the schema of many tables;
- ``information_schema.columns`` of the schema of column tables.

Trino's own statistics of each query give its planning and elapsed times. Trino keeps no metastore cache
here (``hive.metastore-cache-ttl`` is 0 by default), so every query asks the metastore again. Usage::

    python benchmarks/trino_planning.py [--partitions 10000] [--tables 1000] [--column-tables 100] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import thriftpy2
from thriftpy2.rpc import make_client

sys.path.insert(0, str(Path(__file__).parent))
from bench_server import Target, emit_json, hms, ours  # noqa: E402
from engines import TRINO  # noqa: E402
from sql_engines import running_engine, trino_hive_catalog  # noqa: E402

IDL = Path(__file__).resolve().parents[1] / "thrift" / "hive_metastore.thrift"
hive = thriftpy2.load(str(IDL), module_name="hive_metastore_thrift")

PARQUET = (
    "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
    "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
    "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
)
BATCH = 1000


def _sd(location: str, columns: list[tuple[str, str]]):
    input_format, output_format, serde = PARQUET
    return hive.StorageDescriptor(
        cols=[hive.FieldSchema(name, kind, "") for name, kind in columns],
        location=location,
        inputFormat=input_format,
        outputFormat=output_format,
        compressed=False,
        numBuckets=-1,
        serdeInfo=hive.SerDeInfo(name="", serializationLib=serde, parameters={}),
        bucketCols=[],
        sortCols=[],
        parameters={},
        skewedInfo=hive.SkewedInfo([], [], {}),
        storedAsSubDirectories=False,
    )


def _table(db: str, name: str, location: str, columns: list[tuple[str, str]], keys: list[tuple[str, str]]):
    return hive.Table(
        tableName=name,
        dbName=db,
        owner="bench",
        createTime=int(time.time()),
        lastAccessTime=0,
        retention=0,
        sd=_sd(location, columns),
        partitionKeys=[hive.FieldSchema(key, kind, "") for key, kind in keys],
        parameters={"EXTERNAL": "TRUE"},
        tableType="EXTERNAL_TABLE",
    )


def populate(target: Target, data: Path, partitions: int, tables: int, column_tables: int) -> str:
    """Create the benchmark's objects in ``target``; returns the value of the partition that is queried (its
    directory exists, empty; the others' directories do not, as Trino reads only the one it plans)."""
    client = make_client(hive.ThriftHiveMetastore, target.host, target.port, timeout=600_000)
    try:
        for db in ("bench", "many", "wide"):
            client.create_database(hive.Database(name=db, description="", locationUri=f"file:{data}/{db}"))
        location = f"file:{data}/bench/parts"
        client.create_table(_table("bench", "parts", location, [("id", "bigint")], [("ds", "string")]))
        for start in range(0, partitions, BATCH):
            batch = [
                hive.Partition(
                    values=[f"p{i:07d}"],
                    dbName="bench",
                    tableName="parts",
                    createTime=int(time.time()),
                    lastAccessTime=0,
                    sd=_sd(f"{location}/ds=p{i:07d}", [("id", "bigint")]),
                    parameters={},
                )
                for i in range(start, min(start + BATCH, partitions))
            ]
            client.add_partitions(batch)
        for i in range(tables):
            client.create_table(_table("many", f"t{i:05d}", f"file:{data}/many/t{i:05d}", [("id", "bigint")], []))
        wide_columns = [(f"c{j:02d}", "bigint" if j % 2 else "string") for j in range(20)]
        for i in range(column_tables):
            client.create_table(_table("wide", f"w{i:04d}", f"file:{data}/wide/w{i:04d}", wide_columns, []))
    finally:
        client.close()
    queried = f"p{partitions // 2:07d}"
    (data / "bench" / "parts" / f"ds={queried}").mkdir(parents=True, exist_ok=True)
    return queried


def timed(engine, catalog: str, sql: str, repeat: int) -> dict:
    """``repeat`` runs of ``sql`` after one warm-up: planning and elapsed p50 (ms) from Trino's statistics."""
    planning, elapsed, rows = [], [], None
    for run in range(repeat + 1):
        cursor = engine.connect(catalog=catalog).cursor()
        cursor.execute(sql)
        rows = cursor.fetchall()
        if run:
            planning.append(cursor.stats["planningTimeMillis"])
            elapsed.append(cursor.stats["elapsedTimeMillis"])
    return {
        "planning_p50_ms": statistics.median(planning),
        "elapsed_p50_ms": statistics.median(elapsed),
        "rows": len(rows or []),
        "first_row": [str(value) for value in (rows or [[None]])[0]],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--partitions", type=int, default=10_000)
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--column-tables", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--ours-db-url", default="mysql://root@127.0.0.1:3306/trino_bench_ours")
    parser.add_argument("--peer-db-url", default="mysql://root@127.0.0.1:3306/trino_bench_hms")
    parser.add_argument("--ours-option", action="append", default=[], help="extra option of hudi-metastore serve")
    parser.add_argument("--json", help="write the result as JSON to this file")
    args = parser.parse_args()

    with ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="trino-bench-")))
        targets = {
            "ours": stack.enter_context(ours(args.ours_db_url, args.ours_option, f"file://{work / 'wh-ours'}")),
            "hms": stack.enter_context(hms(args.peer_db_url, "2g")),
        }
        queried = {}
        for key, target in targets.items():
            started = time.monotonic()
            queried[key] = populate(target, work / key, args.partitions, args.tables, args.column_tables)
            print(f"{key}: populated in {time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)
        catalogs = {key: trino_hive_catalog(target.uri) for key, target in targets.items()}
        started = time.monotonic()
        engine = stack.enter_context(running_engine(TRINO, catalogs))
        print(f"Trino started in {time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)
        queries = {
            "count(*) of one partition": f"SELECT count(*) FROM bench.parts WHERE ds = '{queried['ours']}'",
            f"SHOW TABLES ({args.tables} tables)": "SHOW TABLES FROM many",
            f"information_schema.columns ({args.column_tables} tables)": (
                "SELECT count(*) FROM information_schema.columns WHERE table_schema = 'wide'"
            ),
        }
        results: dict[str, dict] = {}
        for label, sql in queries.items():
            results[label] = {key: timed(engine, key, sql, args.repeat) for key in targets}
            if results[label]["ours"]["first_row"] != results[label]["hms"]["first_row"]:
                raise SystemExit(f"{label}: the catalogs answered differently: {results[label]}")

    print(f"\nTrino 476, {args.partitions} partitions, p50 of {args.repeat} runs (ms)\n")
    print("| query | planning ours | planning HMS 2.3.10 | ratio | elapsed ours | elapsed HMS 2.3.10 | ratio |")
    print("|---|---|---|---|---|---|---|")
    for label, by_key in results.items():
        ours_r, hms_r = by_key["ours"], by_key["hms"]
        print(
            f"| {label} | {ours_r['planning_p50_ms']:.0f} | {hms_r['planning_p50_ms']:.0f} | "
            f"{ours_r['planning_p50_ms'] / max(hms_r['planning_p50_ms'], 1):.2f} | {ours_r['elapsed_p50_ms']:.0f} | "
            f"{hms_r['elapsed_p50_ms']:.0f} | {ours_r['elapsed_p50_ms'] / max(hms_r['elapsed_p50_ms'], 1):.2f} |"
        )
    if args.json:
        emit_json({"settings": vars(args), "results": results}, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
