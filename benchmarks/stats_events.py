"""Column statistics reads and notification event polling, on ours and on Apache Hive Metastore 2.3.10 side by
side.

1. **Statistics.** A table of ``--columns`` (20) columns of seven types and ``--partitions`` (1,000)
   partitions gets statistics of every column of every partition (``set_aggr_stats_for``, ``--batch``
   partitions per call; the load is timed too). Then, timed (``--repeat`` calls after one warm-up, which
   is reported as ``first_ms``): ``get_partitions_statistics_req`` of all partitions and columns (what Trino
   asks while planning), ``get_aggr_stats_for`` of all of them (what Hive and Spark ask), and
   ``get_table_statistics_req`` of the table.
2. **Events.** ``--events`` (10,000) notification events, then one consumer reading all of them from the
   first in batches of ``--event-batch`` (1,000), as Impala's catalogd polls ``get_next_notification``.
   Ours writes its events with the changes that make them (``alter_partitions`` of 100 partitions: 100
   ALTER_PARTITION events a call; the time is reported). The Hive 2.3.10 of the pyspark wheel has no
   ``DbNotificationListener``, so the same events (ids, types, messages) are copied into its
   ``NOTIFICATION_LOG`` table, from which its ``get_next_notification`` reads.

Calls are made by Hive's Java Thrift client (``java/HmsCallTimer.java``), as engines make them, of the
``--peer-version`` (2.3.10 by default, or 4.0.1); the answers of both servers are checked to be the same
(digests of the statistics and of the event lists).
The load goes through thriftpy2. Servers: ``--ours`` (``hudi-metastore serve`` on MariaDB), ``--peer``,
``--compare`` both, ``--uri`` any running metastore (statistics only).

Prints a markdown table (ours/HMS ratios when both run), then the result as JSON (or ``--json PATH``).

Usage: python benchmarks/stats_events.py [--compare | --ours | --peer | --uri thrift://host:port]
       [--partitions 1000] [--columns 20] [--events 10000] [--repeat 5] [--json stats.json]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from contextlib import ExitStack, closing
from decimal import Decimal
from pathlib import Path

import pymysql
from sqlalchemy.engine import make_url
from thriftpy2.rpc import make_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_server import Target, add_server_options, emit_json, start_targets  # noqa: E402
from java_client import client_classpath, compile_timer, time_calls  # noqa: E402

from hms_adapter.convert.column_stats import from_decimal  # noqa: E402
from hms_adapter.idl import hive  # noqa: E402

OURS_URL = "mysql://root@127.0.0.1:3306/statsbench_ours"
PEER_URL = "mysql://root@127.0.0.1:3306/statsbench_peer"
DB = "statsbench"
TYPES = ["bigint", "double", "string", "decimal(18,4)", "date", "boolean", "int"]


def columns(count: int) -> list[tuple[str, str]]:
    return [(f"c{i:02d}", TYPES[i % len(TYPES)]) for i in range(count)]


def stats_obj(name: str, type_: str, seed: int):
    """Statistics of one column of one partition, varied by ``seed`` (exact in every type)."""
    if type_ in ("bigint", "int"):
        data = hive.ColumnStatisticsData(
            longStats=hive.LongColumnStatsData(
                lowValue=-seed, highValue=seed * 100, numNulls=seed % 7, numDVs=seed % 50 + 1
            )
        )
    elif type_ == "double":
        data = hive.ColumnStatisticsData(
            doubleStats=hive.DoubleColumnStatsData(
                lowValue=seed / 4, highValue=seed * 2.5, numNulls=seed % 3, numDVs=seed % 90 + 1
            )
        )
    elif type_ == "string":
        data = hive.ColumnStatisticsData(
            stringStats=hive.StringColumnStatsData(
                maxColLen=seed % 40 + 1, avgColLen=(seed % 40) / 2 + 0.5, numNulls=seed % 5, numDVs=seed % 70 + 1
            )
        )
    elif type_.startswith("decimal"):
        data = hive.ColumnStatisticsData(
            decimalStats=hive.DecimalColumnStatsData(
                lowValue=from_decimal(Decimal(seed) / 4),
                highValue=from_decimal(Decimal(seed) * 3),
                numNulls=0,
                numDVs=seed % 30 + 1,
            )
        )
    elif type_ == "date":
        data = hive.ColumnStatisticsData(
            dateStats=hive.DateColumnStatsData(
                lowValue=hive.Date(19000 + seed % 100),
                highValue=hive.Date(19200 + seed % 100),
                numNulls=0,
                numDVs=seed % 200 + 1,
            )
        )
    else:
        data = hive.ColumnStatisticsData(
            booleanStats=hive.BooleanColumnStatsData(numTrues=seed, numFalses=seed // 2, numNulls=seed % 2)
        )
    return hive.ColumnStatisticsObj(colName=name, colType=type_, statsData=data)


def part_name(i: int) -> str:
    return f"p={i:05d}"


def table(name: str, cols: list[tuple[str, str]], location: str):
    sd = hive.StorageDescriptor(
        cols=[hive.FieldSchema(n, t, None) for n, t in cols],
        location=location,
        inputFormat="org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
        outputFormat="org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
        compressed=False,
        numBuckets=-1,
        serdeInfo=hive.SerDeInfo(
            serializationLib="org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe", parameters={}
        ),
        bucketCols=[],
        sortCols=[],
        parameters={},
    )
    return hive.Table(
        tableName=name,
        dbName=DB,
        owner="bench",
        createTime=0,
        lastAccessTime=0,
        retention=0,
        sd=sd,
        partitionKeys=[hive.FieldSchema("p", "string", None)],
        parameters={"EXTERNAL": "TRUE"},
        tableType="EXTERNAL_TABLE",
    )


def load_statistics(client, args, location: str) -> dict:
    cols = columns(args.columns)
    client.create_database(hive.Database(name=DB, locationUri=location, parameters={}))
    client.create_table(table("sales", cols, f"{location}/sales"))
    started = time.monotonic()
    for start in range(0, args.partitions, 500):
        client.add_partitions(
            [
                hive.Partition(
                    dbName=DB,
                    tableName="sales",
                    values=[f"{i:05d}"],
                    sd=table("sales", cols, f"{location}/sales/p={i:05d}").sd,
                    parameters={},
                )
                for i in range(start, min(start + 500, args.partitions))
            ]
        )
    added = time.monotonic() - started
    started = time.monotonic()
    for start in range(0, args.partitions, args.batch):
        client.set_aggr_stats_for(
            hive.SetPartitionsStatsRequest(
                colStats=[
                    hive.ColumnStatistics(
                        statsDesc=hive.ColumnStatisticsDesc(
                            isTblLevel=False, dbName=DB, tableName="sales", partName=part_name(i)
                        ),
                        statsObj=[stats_obj(n, t, i + 1) for n, t in cols],
                    )
                    for i in range(start, min(start + args.batch, args.partitions))
                ]
            )
        )
    client.update_table_column_statistics(
        hive.ColumnStatistics(
            statsDesc=hive.ColumnStatisticsDesc(isTblLevel=True, dbName=DB, tableName="sales"),
            statsObj=[stats_obj(n, t, 7) for n, t in cols],
        )
    )
    return {"add_partitions_s": round(added, 2), "write_stats_s": round(time.monotonic() - started, 2)}


def make_events(client, count: int) -> dict:
    """About ``count`` events on ours (100 ALTER_PARTITION events per alter_partitions call)."""
    client.create_table(table("events", columns(3), None))
    client.add_partitions(
        [hive.Partition(dbName=DB, tableName="events", values=[f"{i:05d}"], parameters={}) for i in range(100)]
    )
    parts = client.get_partitions(DB, "events", -1)
    started = time.monotonic()
    for round_ in range(count // 100):
        for part in parts:
            part.parameters["round"] = str(round_)
        client.alter_partitions(DB, "events", parts)
    return {"write_events_s": round(time.monotonic() - started, 2)}


def copy_events_to_peer(source, peer_db_url: str, peer_client) -> None:
    """Put ``source``'s events into the peer's NOTIFICATION_LOG (made by DataNucleus on first use)."""
    peer_client.get_current_notificationEventId()
    peer_client.get_next_notification(hive.NotificationEventRequest(lastEvent=0, maxEvents=1))
    events = source.get_next_notification(hive.NotificationEventRequest(lastEvent=0)).events
    url = make_url(peer_db_url)
    conn = pymysql.connect(
        host=url.host,
        port=url.port or 3306,
        user=url.username,
        password=url.password or "",
        database=url.database,
        autocommit=True,
    )
    with conn.cursor() as cur:
        # DataNucleus made MESSAGE a VARCHAR(255); Hive's schema script makes it LONGTEXT
        cur.execute("ALTER TABLE NOTIFICATION_LOG MODIFY MESSAGE LONGTEXT")
        cur.execute("DELETE FROM NOTIFICATION_LOG")
        cur.executemany(
            "INSERT INTO NOTIFICATION_LOG (NL_ID, EVENT_ID, EVENT_TIME, EVENT_TYPE, DB_NAME, TBL_NAME, MESSAGE, "
            "MESSAGE_FORMAT) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            [
                (e.eventId, e.eventId, e.eventTime, e.eventType, e.dbName, e.tableName, e.message, e.messageFormat)
                for e in events
            ],
        )
        cur.execute("DELETE FROM NOTIFICATION_SEQUENCE")
        cur.execute(
            "INSERT INTO NOTIFICATION_SEQUENCE (NNI_ID, NEXT_EVENT_ID) VALUES (1, %s)", (events[-1].eventId + 1,)
        )
    conn.close()


def timed_reads(classes: Path, target: Target, args) -> dict:
    names = [c for c, _ in columns(args.columns)]
    parts = [part_name(i) for i in range(args.partitions)]
    calls = [
        (
            "partitions_statistics",
            args.repeat,
            ["get_partitions_statistics", DB, "sales", ",".join(names), ",".join(parts)],
        ),
        ("aggr_stats", args.repeat, ["get_aggr_stats", DB, "sales", ",".join(names), ",".join(parts)]),
        ("table_statistics", args.repeat, ["get_table_statistics", DB, "sales", ",".join(names)]),
    ]
    return {
        r["label"]: r
        for r in time_calls(classes, target.host, target.port, calls, errors="return", classpath=args.classpath)
    }


def timed_polling(classes: Path, target: Target, args) -> dict:
    calls = [("poll_events", args.repeat, ["poll_notifications", "0", str(args.event_batch)])]
    return {
        r["label"]: r
        for r in time_calls(classes, target.host, target.port, calls, errors="return", classpath=args.classpath)
    }


def run_target(classes: Path, target: Target, args, work: Path, ours_client=None) -> dict:
    client = make_client(hive.ThriftHiveMetastore, target.host, target.port, timeout=600_000)
    try:
        result = load_statistics(client, args, f"file:{work / target.key.replace('/', '_')}")
        result["reads"] = timed_reads(classes, target, args)
        if args.events and target.key == "ours":
            result.update(make_events(client, args.events))
        elif args.events and target.key == "hms" and ours_client is not None:
            copy_events_to_peer(ours_client, args.peer_db_url, client)
        if args.events and target.key in ("ours", "hms"):
            result["reads"].update(timed_polling(classes, target, args))
    finally:
        client.close()
    return result


LABELS = {
    "partitions_statistics": "get_partitions_statistics_req",
    "aggr_stats": "get_aggr_stats_for",
    "table_statistics": "get_table_statistics_req",
    "poll_events": "poll all events",
}


def markdown(result: dict) -> str:
    servers = list(result["servers"])
    header = "| call | " + " | ".join(f"{s} p50 ms (first)" for s in servers)
    both = "ours" in servers and "hms" in servers
    lines = [header + (" | ours/HMS |" if both else " |"), "|---" * (len(servers) + 1 + both) + "|"]
    for label, name in LABELS.items():
        row = [result["servers"][s]["reads"].get(label) for s in servers]
        if not any(row):
            continue
        cells = [("error" if "error" in r else f"{r['p50_ms']:.1f} ({r['first_ms']:.1f})") if r else "-" for r in row]
        line = f"| {name} | " + " | ".join(cells)
        if both:
            ours, peer = result["servers"]["ours"]["reads"].get(label), result["servers"]["hms"]["reads"].get(label)
            ratio = (
                ours["p50_ms"] / peer["p50_ms"]
                if ours and peer and "error" not in ours and "error" not in peer
                else None
            )
            line += f" | {ratio:.2f}x" if ratio else " | -"
            same = ours and peer and ours.get("digest") == peer.get("digest")
            line += "" if same else " (answers differ)"
        lines.append(line + " |")
    for s in servers:
        extra = {k: v for k, v in result["servers"][s].items() if k != "reads"}
        lines.append(f"\n{s}: " + ", ".join(f"{k} {v}" for k, v in extra.items()))
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__
    )
    add_server_options(parser, OURS_URL, PEER_URL)
    parser.add_argument("--partitions", type=int, default=1000)
    parser.add_argument("--columns", type=int, default=20)
    parser.add_argument("--batch", type=int, default=50, help="partitions per set_aggr_stats_for (default 50)")
    parser.add_argument("--events", type=int, default=10_000, help="0 skips the event polling (default 10000)")
    parser.add_argument("--event-batch", type=int, default=1000, help="maxEvents per poll (default 1000)")
    parser.add_argument("--repeat", type=int, default=5, help="timed calls after the warm-up (default 5)")
    parser.add_argument("--json", metavar="PATH", help="write the JSON result here instead of printing it")
    args = parser.parse_args()
    args.classpath = client_classpath(args.peer_version)
    classes = compile_timer(args.classpath)
    work = Path(tempfile.mkdtemp(prefix="statsbench-"))
    result: dict = {
        "settings": {
            "partitions": args.partitions,
            "columns": args.columns,
            "batch": args.batch,
            "events": args.events,
            "event_batch": args.event_batch,
            "repeat": args.repeat,
            "client_version": args.peer_version,
            "cpus": os.cpu_count(),
            "load_before": os.getloadavg(),
        },
        "servers": {},
    }
    started = time.monotonic()
    try:
        with ExitStack() as stack:
            targets = start_targets(stack, args, result["settings"], args.ours_option, str(work / "ours"))
            ours_client = None
            for target in targets:
                result["servers"][target.key] = run_target(classes, target, args, work, ours_client)
                if target.key == "ours":
                    ours_client = stack.enter_context(
                        closing(make_client(hive.ThriftHiveMetastore, target.host, target.port, timeout=600_000))
                    )
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(classes, ignore_errors=True)
    result["wall_s"] = round(time.monotonic() - started, 1)
    print(markdown(result))
    print(f"\nrun time {result['wall_s']} s")
    emit_json(result, args.json)
    return 1 if any("error" in r for s in result["servers"].values() for r in s["reads"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
