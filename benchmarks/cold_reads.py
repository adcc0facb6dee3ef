"""The first read of partitions never read before: encoded when they were added, against encoded by that read.

A partition list is answered from each partition's wire encoding, kept in ``partitions.encoded``. Partitions
added over Thrift (``add_partition(s)``, ``add_partitions_req``) are stored with their encoding; partitions
that have none (made by a Hudi commit, or changed since) are encoded by their first read, which stores the
encodings for the next. One ``hudi-metastore serve`` on a fresh MariaDB database: ``--partitions`` partitions
are added in batches of ``--batch`` through the Python client, then, each as the first call after the
partitions were written, the 10% range (``h < 10`` of 100 hours) and getPartitions (all), then the same
calls again (answered from the reply cache); then the stored encodings are dropped (as any change of the
partitions drops them) and the two first reads timed again. Reads are timed through ``scale.RawClient``,
from the request to the last byte of the reply, without decoding it: the server's time and the wire's.

Usage: python benchmarks/cold_reads.py [--partitions 20000] [--batch 2000] [--db-url mysql://...]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_server import ours  # noqa: E402
from scale import DB, RawClient, request_bytes  # noqa: E402

from hms_adapter.client import connect  # noqa: E402
from hms_adapter.idl import hive  # noqa: E402
from hudi_catalog import Catalog  # noqa: E402
from hudi_catalog.store import partitions as partition_store  # noqa: E402
from hudi_catalog.store import tables as table_store  # noqa: E402

DEFAULT_URL = "mysql://root@127.0.0.1:3306/cold_reads"
TABLE = "t"
RANGE = "h < 10"


def _columns(*names: str) -> list:
    return [hive.FieldSchema(name=n.split(":")[0], type=(n.split(":") + ["string"])[1]) for n in names]


def _partition(location: str, i: int) -> hive.Partition:
    day, hour = f"2024-{1 + i // 2400:02d}-{1 + (i // 100) % 24:02d}", str(i % 100)
    sd = hive.StorageDescriptor(
        cols=_columns("id:bigint", "v"),
        location=f"{location}/day={day}/h={hour}",
        inputFormat="org.apache.hadoop.mapred.TextInputFormat",
        outputFormat="org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
        serdeInfo=hive.SerDeInfo(serializationLib="org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", parameters={}),
    )
    return hive.Partition(values=[day, hour], dbName=DB, tableName=TABLE, sd=sd, parameters={})


def _reads(host: str, port: int) -> dict[str, float]:
    """The 10% range and getPartitions (all), first and again: ms from the request to the reply's last byte,
    and the replies' sizes."""
    raw = RawClient(host, port)
    try:
        in_range = request_bytes("get_partitions_by_filter", {"db_name": DB, "tbl_name": TABLE, "filter": RANGE})
        every = request_bytes("get_partitions", {"db_name": DB, "tbl_name": TABLE, "max_parts": -1})
        range_first, range_bytes = raw.call(in_range)
        all_first, all_bytes = raw.call(every)
        range_again, all_again = raw.call(in_range)[0], raw.call(every)[0]
    finally:
        raw.close()
    return {
        "range_mb": range_bytes / 1e6,
        "all_mb": all_bytes / 1e6,
        "range_first_ms": range_first,
        "all_first_ms": all_first,
        "range_again_ms": range_again,
        "all_again_ms": all_again,
    }


def _forget_encodings(db_url: str, warehouse: str) -> None:
    """Drop the table's stored encodings and raise its partitions revision, as a change of them does."""
    catalog = Catalog.open(db_url, warehouse, init=False)
    try:
        with catalog.store.write() as conn:
            partition_store.all_changed(conn, table_store.get_keys(conn, DB, TABLE).id)
    finally:
        catalog.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db-url", default=DEFAULT_URL, help="a fresh database for the server (default %(default)s)")
    parser.add_argument("--partitions", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=2000, help="partitions per add_partitions call")
    args = parser.parse_args()
    warehouse = tempfile.mkdtemp(prefix="cold-reads-")
    location = f"file:{warehouse}/{DB}.db/{TABLE}"
    with (
        ours(args.db_url, [], warehouse) as target,
        connect(f"thrift://{target.host}:{target.port}", timeout=600) as client,
    ):
        client.create_database(hive.Database(name=DB, locationUri=f"file:{warehouse}/{DB}.db"))
        client.create_table(
            hive.Table(
                tableName=TABLE,
                dbName=DB,
                tableType="EXTERNAL_TABLE",
                parameters={"EXTERNAL": "TRUE"},
                partitionKeys=_columns("day", "h:int"),
                sd=_partition(location, 0).sd,
            )
        )
        started = time.perf_counter()
        for start in range(0, args.partitions, args.batch):
            end = min(start + args.batch, args.partitions)
            client.add_partitions([_partition(location, i) for i in range(start, end)])
        added_s = time.perf_counter() - started
        encoded_at_add = _reads(target.host, target.port)
        _forget_encodings(args.db_url, warehouse)
        encoded_at_read = _reads(target.host, target.port)
    result = {"partitions": args.partitions, "add_s": added_s, "at_add": encoded_at_add, "at_read": encoded_at_read}
    print(f"## {args.partitions:,} partitions added in {added_s:.2f} s ({args.partitions / added_s:,.0f} a second)\n")
    print("| read | encoded when added, ms | encoded by the read, ms |")
    print("|---|---:|---:|")
    for key, name in (
        ("range_first_ms", f"10% range ({args.partitions // 10:,}, {encoded_at_add['range_mb']:.1f} MB), first"),
        ("all_first_ms", f"getPartitions (all, {encoded_at_add['all_mb']:.1f} MB), first"),
        ("range_again_ms", "10% range, again"),
        ("all_again_ms", "getPartitions (all), again"),
    ):
        print(f"| {name} | {encoded_at_add[key]:.0f} | {encoded_at_read[key]:.0f} |")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
