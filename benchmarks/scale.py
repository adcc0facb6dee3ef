"""One table from 1,000 to 1,000,000 partitions on MariaDB: what each partition call costs at each size.

For each size N (``--sizes 1000,10000,100000,1000000``) the benchmark loads a table ``scale.t<N>`` (keys
``dt`` string and ``hr`` int, 24 hours a day, the table and partitions of ``hmsbench.py``) with ``add_partitions``
calls of ``--batch`` partitions over the socket, then times each call two ways:

- **server**: a client that does not decode (``RawClient``): the request's bytes are sent on a socket and the
  reply's bytes read until its end, which a second, pipelined ``get_database`` call marks (its reply's bytes
  are known); the time is request sent to last byte read, sentinel included (``sentinel ms`` in the JSON).
- **Java client**: Hive's generated client (``benchmarks/java/HmsCallTimer.java``), as engines call, with the
  time it needs to decode the answer from memory (``client decoding ms``) and its time for the same call on
  a server that answers the same bytes at once, doing no work (``instant server ms``: the request written,
  the answer taken off a loopback socket and decoded): no server can answer this client faster.

Calls: getTable, getPartition, getPartitionsByNames (100), getPartitionsByFilter on one partition and on a
10% range of days, listPartitionNames (all, and at most 100), getPartitions (all), and dropPartition then
addPartition of one partition (Java client only, ``--iterations`` pairs). The first call of each read is
reported apart (``first ms``): it encodes and caches partitions not read before. Every answer's size is
checked. The server's peak resident memory (``VmHWM`` of its processes) is read after each size.

``--reuse`` keeps a table already loaded with N partitions (the database is otherwise dropped and created);
``--compare`` also runs Apache Hive Metastore 2.3.10 (``benchmarks/peer.py``) at ``--peer-sizes`` only: it adds
about 40 partitions a second, so a million would take a week. Prints a markdown table (ours and the peer side
by side), the JSON result (or writes it to ``--json``), and with ``--plot PATH`` a PNG of each call's server
time against N (``pip install matplotlib``, the ``bench`` extra).

Usage: python benchmarks/scale.py [--sizes 1000,10000,100000,1000000] [--iterations 10] [--reuse]
       [--compare] [--peer-sizes 1000,10000] [--json PATH] [--plot docs/images/scale.png]
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import signal
import socket
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import java_client as jc  # noqa: E402
from bench_server import (  # noqa: E402
    HIVE_2_3,
    Target,
    emit_json,
    ensure_empty_database,
    free_port,
    hms,
    int_list,
    peak_rss_mib,
    percentile,
    running_server,
)
from thriftpy2.protocol import TCyBinaryProtocol  # noqa: E402
from thriftpy2.thrift import TMessageType  # noqa: E402
from thriftpy2.transport import TCyMemoryBuffer  # noqa: E402

from hms_adapter.idl import hive  # noqa: E402
from hudi_catalog import Catalog  # noqa: E402
from hudi_catalog.errors import CatalogError  # noqa: E402

OURS_URL = "mysql://root@127.0.0.1:3306/hms_scale"
PEER_URL = "mysql://root@127.0.0.1:3306/hms_scale_peer"
WAREHOUSE = "/tmp/hms-scale"
DB = "scale"
START = dt.date(2000, 1, 1)
BY_NAMES = 100
NAMES_MAX = 100
SENTINEL_SEQID = 0x5E471
"""The sequence id of the pipelined ``get_database`` call whose reply ends a raw read."""

READS = [
    "getTable",
    "getPartition",
    "getPartitionsByNames (100)",
    "getPartitionsByFilter (1 partition)",
    "getPartitionsByFilter (10% range)",
    "listPartitionNames (max 100)",
    "listPartitionNames (all)",
    "getPartitions (all)",
]
CHANGES = ["dropPartition", "addPartition"]


def day(i: int) -> str:
    return (START + dt.timedelta(days=i)).isoformat()


def values(i: int) -> tuple[str, str]:
    return day(i // 24), str(i % 24)


def part_name(v: tuple[str, str]) -> str:
    return f"dt={v[0]}/hr={v[1]}"


def table_name(n: int) -> str:
    return f"t{n}"


def db_location(warehouse: str, key: str) -> str:
    """Where a server's database lives: each server its own directories."""
    return f"file:{warehouse}/{key}/{DB}.db"


def table_location(warehouse: str, key: str, n: int) -> str:
    return f"{db_location(warehouse, key)}/{table_name(n)}"


# -- the calls ---------------------------------------------------------------------------------------------


@dataclass
class Read:
    """One timed read: its Java client call, the same call as Thrift arguments for the raw client, and the
    size of the right answer (``None``: not a list)."""

    java: list[str]
    method: str
    args: dict
    expected: int | None


def reads(n: int) -> dict[str, Read]:
    """The reads timed on ``t<n>``: a partition in the middle, 100 names spread over the table, the
    middle day's hour 7, the 10% of days from the middle on."""
    table = table_name(n)
    days = max(1, n // 24)
    middle, tenth = days // 2, max(1, days // 10)
    target = values(n // 2)
    step = max(1, n // BY_NAMES)
    names = [part_name(values(i)) for i in range(0, n, step)][:BY_NAMES]
    one = f'dt = "{day(middle)}" and hr = 7'
    ten = f'dt >= "{day(middle)}" and dt < "{day(middle + tenth)}"'
    in_range = sum(1 for i in range(n) if day(middle) <= values(i)[0] < day(middle + tenth))
    both = {"db_name": DB, "tbl_name": table}
    return {
        "getTable": Read(jc.get_table(DB, table), "get_table", {"dbname": DB, "tbl_name": table}, None),
        "getPartition": Read(jc.get_partition(DB, table, target), "get_partition", {**both, "part_vals": target}, 1),
        "getPartitionsByNames (100)": Read(
            jc.get_partitions_by_names(DB, table, names), "get_partitions_by_names", {**both, "names": names}, 100
        ),
        "getPartitionsByFilter (1 partition)": Read(
            jc.get_partitions_by_filter(DB, table, one),
            "get_partitions_by_filter",
            {**both, "filter": one, "max_parts": -1},
            1,
        ),
        "getPartitionsByFilter (10% range)": Read(
            jc.get_partitions_by_filter(DB, table, ten),
            "get_partitions_by_filter",
            {**both, "filter": ten, "max_parts": -1},
            in_range,
        ),
        "listPartitionNames (max 100)": Read(
            jc.get_partition_names(DB, table, NAMES_MAX),
            "get_partition_names",
            {**both, "max_parts": NAMES_MAX},
            min(n, NAMES_MAX),
        ),
        "listPartitionNames (all)": Read(
            jc.get_partition_names(DB, table), "get_partition_names", {**both, "max_parts": -1}, n
        ),
        "getPartitions (all)": Read(jc.get_partitions(DB, table), "get_partitions", {**both, "max_parts": -1}, n),
    }


# -- a client that does not decode -------------------------------------------------------------------------


def request_bytes(method: str, args: dict, seqid: int = 1) -> bytes:
    """The binary-protocol message of a call."""
    buffer = TCyMemoryBuffer()
    protocol = TCyBinaryProtocol(buffer)
    protocol.write_message_begin(method, TMessageType.CALL, seqid)
    getattr(hive.ThriftHiveMetastore, f"{method}_args")(**args).write(protocol)
    protocol.write_message_end()
    return buffer.getvalue()


class RawClient:
    """Times calls over a plain socket without decoding the replies (buffered transport, binary protocol).

    Each request is followed by ``get_database(DB)``, whose reply's bytes are learnt once: the reply of a call
    ends where that reply has arrived whole.
    """

    def __init__(self, host: str, port: int, timeout: float = 120) -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sentinel_request = request_bytes("get_database", {"name": DB}, SENTINEL_SEQID)
        self._sentinel_reply = self._learn_sentinel()
        self._buffer = bytearray(1 << 20)

    def _learn_sentinel(self) -> bytes:
        """The reply of the sentinel call: what arrives until the socket is quiet for half a second."""
        self.sock.sendall(self._sentinel_request)
        reply = bytearray(self.sock.recv(1 << 16))
        self.sock.settimeout(0.5)
        try:
            while chunk := self.sock.recv(1 << 16):
                reply += chunk
        except TimeoutError:
            pass
        self.sock.settimeout(120)
        return bytes(reply)

    def call(self, request: bytes) -> tuple[float, int]:
        """Milliseconds from sending ``request`` to the last byte of its reply (and the sentinel's), and the
        reply's size in bytes."""
        sentinel, end = self._sentinel_reply, len(self._sentinel_reply)
        buffer, view, filled = self._buffer, memoryview(self._buffer), 0
        started = time.perf_counter()
        self.sock.sendall(request + self._sentinel_request)
        while filled < end or buffer[filled - end : filled] != sentinel:
            if filled == len(buffer):
                view.release()
                buffer.extend(bytes(len(buffer)))
                view = memoryview(buffer)
            got = self.sock.recv_into(view[filled:])
            if not got:
                raise ConnectionError("the server closed the connection")
            filled += got
        elapsed = (time.perf_counter() - started) * 1000
        view.release()
        self._buffer = buffer
        return elapsed, filled - end

    def sentinel_ms(self, repeat: int) -> float:
        """p50 of the sentinel call alone (what every raw time includes)."""
        return statistics.median(self.call(b"")[0] for _ in range(repeat))

    def close(self) -> None:
        self.sock.close()


def raw_times(target: Target, n: int, iterations: int) -> dict[str, dict]:
    """Per read: first call, p50, p95, max and the reply's bytes through ``RawClient``."""
    client = RawClient(target.host, target.port)
    try:
        out: dict[str, dict] = {"sentinel": {"p50_ms": round(client.sentinel_ms(max(3, iterations)), 3)}}
        for op, read in reads(n).items():
            request = request_bytes(read.method, read.args)
            first, size = client.call(request)
            samples = sorted(client.call(request)[0] for _ in range(iterations))
            out[op] = summary(samples, first) | {"reply_bytes": size}
        return out
    finally:
        client.close()


def summary(samples: list[float], first: float | None = None) -> dict:
    ordered = sorted(samples)
    out = {
        "p50_ms": round(percentile(ordered, 0.5), 3),
        "p95_ms": round(percentile(ordered, 0.95), 3),
        "max_ms": round(ordered[-1], 3),
        "samples": len(ordered),
    }
    if first is not None:
        out["first_ms"] = round(first, 3)
    return out


# -- loading -----------------------------------------------------------------------------------------------


def loaded(db_url: str, warehouse: str, sizes: list[int]) -> tuple[bool, dict[int, int | None]]:
    """Whether the catalog database has the benchmark's database, and the partitions of each ``t<n>`` in it
    (``None`` for a table it does not have)."""
    catalog = Catalog.open(db_url, warehouse)
    try:
        exists = DB in catalog.databases.names()
        counts: dict[int, int | None] = {}
        for n in sizes:
            try:
                counts[n] = catalog.partitions.count_by_filter(DB, table_name(n), "")
            except CatalogError:
                counts[n] = None
        return exists, counts
    finally:
        catalog.close()


def load_calls(warehouse: str, key: str, n: int, batch: int, exists: bool) -> list[tuple[str, int, list[str]]]:
    """The Java client's calls that create ``t<n>`` with ``n`` partitions on server ``key``."""
    table, location = table_name(n), table_location(warehouse, key, n)
    calls: list[tuple[str, int, list[str]]] = []
    if not exists:
        calls.append(("createDatabase", 0, jc.create_database(DB, db_location(warehouse, key))))
    calls.append(("createTable", 0, jc.create_table(DB, table, location)))
    for number, start in enumerate(range(0, n, batch)):
        chunk = [values(i) for i in range(start, min(n, start + batch))]
        calls.append((f"addPartitions#{number}", 0, jc.add_partitions(DB, table, location, chunk)))
    return calls


def load(classes: Path, target: Target, n: int, args: argparse.Namespace, database_exists: bool) -> float:
    """Create ``t<n>`` and add its partitions; returns the seconds it took."""
    started = time.perf_counter()
    calls = load_calls(args.warehouse, target.key, n, args.batch, database_exists)
    batches = len(calls)

    def progress(result: dict) -> None:
        if "error" in result:
            raise RuntimeError(f"loading t{n}: {result['label']}: {result['error']}")
        number = result["label"].partition("#")[2]
        if number and (int(number) + 1) % 100 == 0:
            elapsed = time.perf_counter() - started
            print(f"  {target.key} t{n}: {number} of {batches} batches, {elapsed:.0f} s", file=sys.stderr, flush=True)

    jc.time_calls(classes, target.host, target.port, calls, progress=progress, timeout=24 * 3600)
    return time.perf_counter() - started


# -- timing ------------------------------------------------------------------------------------------------


def java_calls(location: str, n: int, iterations: int) -> list[tuple[str, int, list[str]]]:
    """The reads, then ``iterations`` pairs of dropPartition and addPartition of one partition each
    (``location``: the table's)."""
    table = table_name(n)
    calls = [(op, iterations, read.java) for op, read in reads(n).items()]
    for number in range(iterations):
        v = values((n // 3 + number * 7919) % n)
        calls.append((f"dropPartition#{number}", 0, jc.drop_partition(DB, table, v)))
        calls.append((f"addPartition#{number}", 0, jc.add_partitions(DB, table, location, [v])))
    return calls


def java_times(classes: Path, target: Target, n: int, args: argparse.Namespace) -> tuple[dict, list[str]]:
    """Per operation: first call, p50, p95, max and client decoding; and the errors (failed calls, answers
    of the wrong size)."""
    expected = {op: read.expected for op, read in reads(n).items()}
    results = jc.time_calls(
        classes,
        target.host,
        target.port,
        java_calls(table_location(args.warehouse, target.key, n), n, args.iterations),
        errors="return",
        timeout=args.timeout,
    )
    samples: dict[str, list[float]] = {}
    out: dict[str, dict] = {}
    errors: list[str] = []
    for r in results:
        op = r["label"].split("#")[0]
        if "error" in r:
            errors.append(f"{r['label']}: {r['error'][:300]}")
            out.setdefault(op, {})["error"] = r["error"][:300]
            continue
        if expected.get(op) is not None and r["result"] != expected[op]:
            errors.append(f"{op}: answered {r['result']} items, expected {expected[op]}")
        if op in CHANGES:
            samples.setdefault(op, []).extend(r["samples_ms"])
            continue
        out[op] = summary(r["samples_ms"], r["first_ms"])
        if "decode_p50_ms" in r:
            out[op]["client_decode_ms"] = round(r["decode_p50_ms"], 3)
            out[op]["instant_server_ms"] = round(r["instant_p50_ms"], 3)
    for op, values_ms in samples.items():
        out[op] = summary(values_ms)
    return out, errors


# -- servers -----------------------------------------------------------------------------------------------


@contextmanager
def our_server(db_url: str, warehouse: str, options: list[str]) -> Iterator[Target]:
    port = free_port()
    with running_server(db_url, warehouse, ["--port", str(port), "--no-metaserver", *options], port) as server:
        yield Target("ours", "127.0.0.1", port, server.pid)


def measure_sizes(
    classes: Path,
    target: Target,
    sizes: list[int],
    args: argparse.Namespace,
    state: tuple[bool, dict[int, int | None]] = (False, {}),
) -> dict[str, dict]:
    """Load and time each size on ``target``; ``state``: whether its database exists and the partitions of
    the tables it has (``loaded``): a table of the right size is reused, another one stops the run."""
    database_exists, counts = state
    out: dict[str, dict] = {}
    for n in sizes:
        run: dict = {"load_s": None}
        if counts.get(n) is None:
            print(f"{target.key}: loading {n:,} partitions ...", file=sys.stderr, flush=True)
            run["load_s"] = round(load(classes, target, n, args, database_exists), 1)
            database_exists = True
        elif counts[n] != n:
            raise SystemExit(f"{DB}.{table_name(n)} has {counts[n]:,} partitions, not {n:,}: run without --reuse")
        if args.load_only:
            continue
        print(f"{target.key}: timing {n:,} partitions ...", file=sys.stderr, flush=True)
        run["java"], run["errors"] = java_times(classes, target, n, args)
        run["server"] = raw_times(target, n, args.iterations)
        if target.pid is not None:
            run["peak_rss_mib"] = round(peak_rss_mib(target.pid))
        out[str(n)] = run
    return out


# -- output ------------------------------------------------------------------------------------------------


def fmt(ms: float | None) -> str:
    if ms is None or (isinstance(ms, float) and math.isnan(ms)):
        return ""
    return f"{ms:,.1f}" if ms < 10_000 else f"{ms:,.0f}"


def cell(stats: dict | None, key: str) -> str:
    if not stats:
        return ""
    if "error" in stats and key not in stats:
        return "error"
    return fmt(stats.get(key))


def slowest_call(run: dict) -> tuple[float, str]:
    """The longest single call of a run, first calls included, through either client, and its operation."""
    times = [
        (stats[key], op)
        for side in ("server", "java")
        for op, stats in run[side].items()
        if op != "sentinel"
        for key in ("max_ms", "first_ms")
        if key in stats
    ]
    return max(times, default=(0.0, ""))


def markdown(result: dict) -> str:
    """One table per size: server p50/p95 and first call, Java client p50 and decoding, per server."""
    servers = result["servers"]
    lines = []
    for n in result["settings"]["sizes"]:
        present = [key for key in servers if str(n) in servers[key]]
        if not present:
            continue
        lines.append(f"### {n:,} partitions\n")
        header = ["call"]
        for key in present:
            header += [
                f"{key} server p50 ms",
                f"{key} server p95 ms",
                f"{key} first ms",
                f"{key} Java p50 ms",
                f"{key} Java p95 ms",
                f"{key} client decoding ms",
                f"{key} instant server ms",
            ]
        header.append("reply MB")
        lines += ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
        for op in READS + CHANGES:
            row = [op]
            reply = None
            for key in present:
                run = servers[key][str(n)]
                raw, java = run["server"].get(op), run["java"].get(op)
                row += [cell(raw, "p50_ms"), cell(raw, "p95_ms"), cell(raw or java, "first_ms")]
                row += [cell(java, "p50_ms"), cell(java, "p95_ms"), cell(java, "client_decode_ms")]
                row.append(cell(java, "instant_server_ms"))
                if raw and reply is None:
                    reply = raw["reply_bytes"] / 1e6
            row.append("" if reply is None else f"{reply:.2f}")
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
        for key in present:
            run = servers[key][str(n)]
            load = f"loaded in {run['load_s']} s" if run["load_s"] is not None else "reused"
            rss = f", server peak RSS {run['peak_rss_mib']} MiB" if "peak_rss_mib" in run else ""
            sentinel = run["server"]["sentinel"]["p50_ms"]
            slowest, slowest_op = slowest_call(run)
            lines.append(
                f"- {key}: {load}{rss}; slowest call {fmt(slowest)} ms ({slowest_op}); sentinel {sentinel} ms; "
                f"errors: {len(run['errors'])}"
            )
            lines += [f"  - {e}" for e in run["errors"][:10]]
        lines.append("")
    return "\n".join(lines)


def plot(result: dict, path: str) -> None:
    """Server p50 of each call against the partition count, one panel per call (log scales)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    sizes = result["settings"]["sizes"]
    ops = READS + CHANGES
    columns = 5
    rows = math.ceil(len(ops) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.3 * columns, 2.8 * rows + 0.8), squeeze=False)
    styles = {
        ("ours", "server"): dict(color="tab:blue", marker="o", label="hudi-metastore, server (raw socket)"),
        ("ours", "java"): dict(color="tab:blue", marker="o", ls=":", label="hudi-metastore, Hive 2.3 Java client"),
        ("hms", "server"): dict(color="tab:orange", marker="s", label="Hive Metastore 2.3.10, server"),
        ("hms", "java"): dict(color="tab:orange", marker="s", ls=":", label="Hive Metastore 2.3.10, Java client"),
    }
    for ax, op in zip(axes.flat, ops):
        for key, runs in result["servers"].items():
            for side in ("server", "java"):
                points = [
                    (n, runs[str(n)][side][op]["p50_ms"])
                    for n in sizes
                    if str(n) in runs
                    and "p50_ms" in runs[str(n)][side].get(op, {})
                    and "error" not in runs[str(n)]["java"].get(op, {})  # a refusal's time is not the call's
                ]
                if points:
                    ax.plot(*zip(*points), **styles[(key, side)])
        ax.axhline(10_000, color="tab:red", lw=0.8, ls="--")
        ax.set_title(op, fontsize=9)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(min(sizes) / 2, max(sizes) * 2)
        ax.xaxis.set_major_locator(FixedLocator(sizes))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:,.0f}"))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
        ax.tick_params(labelsize=7)
        ax.grid(True, which="major", alpha=0.3)
    for ax in list(axes.flat)[len(ops) :]:
        ax.axis("off")
    for row in axes:
        row[0].set_ylabel("p50 ms", fontsize=8)
    handles, labels = [], []
    for ax in axes.flat:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.suptitle("p50 per call against the partitions of the table (MariaDB; log scales; red: 10 s)", fontsize=10)
    fig.tight_layout(rect=(0, 0.08, 1, 0.97))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


# -- main --------------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int_list, default=[1000, 10_000, 100_000, 1_000_000])
    parser.add_argument("--iterations", type=int, default=10, help="timed calls per read (default %(default)s)")
    parser.add_argument("--batch", type=int, default=2000, help="partitions per add_partitions while loading")
    parser.add_argument("--db-url", default=OURS_URL, help="our catalog database (default %(default)s)")
    parser.add_argument("--reuse", action="store_true", help="keep tables already loaded with N partitions")
    parser.add_argument("--warehouse", default=WAREHOUSE, help="the servers' directories (default %(default)s)")
    parser.add_argument("--load-only", action="store_true", help="load the tables (for --reuse) and stop")
    parser.add_argument("--ours-option", action="append", default=[], help="an option of hudi-metastore serve (repeat)")
    parser.add_argument("--compare", action="store_true", help="also Hive Metastore 2.3.10 at --peer-sizes")
    parser.add_argument("--peer-sizes", type=int_list, default=[1000, 10_000])
    parser.add_argument("--peer-db-url", default=PEER_URL, help="dropped and created (default %(default)s)")
    parser.add_argument("--peer-heap", default="4g")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds of timed calls per size")
    parser.add_argument("--json", metavar="PATH", help="write the JSON result here instead of printing it")
    parser.add_argument("--plot", metavar="PATH", help="write the plot of server p50 against N (PNG)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    if args.plot:
        import matplotlib  # noqa: F401  (fail now rather than after the run)

    classes = jc.compile_timer()
    result: dict = {
        "settings": {
            "sizes": args.sizes,
            "peer_sizes": args.peer_sizes if args.compare else [],
            "iterations": args.iterations,
            "batch": args.batch,
            "ours_options": args.ours_option,
            "client": f"Hive {HIVE_2_3} ThriftHiveMetastore.Client; raw socket client without decoding",
        },
        "servers": {},
    }
    if not args.reuse:
        ensure_empty_database(args.db_url)
    state = loaded(args.db_url, args.warehouse, args.sizes)
    with our_server(args.db_url, args.warehouse, args.ours_option) as target:
        result["servers"]["ours"] = measure_sizes(classes, target, args.sizes, args, state)
    if args.compare:
        print(f"starting Hive Metastore {HIVE_2_3} ...", file=sys.stderr, flush=True)
        with hms(args.peer_db_url, args.peer_heap) as peer:
            result["servers"]["hms"] = measure_sizes(classes, peer, args.peer_sizes, args)
    if args.load_only:
        return 0
    print(markdown(result))
    emit_json(result, args.json)
    if args.plot:
        plot(result, args.plot)
        print(f"plot written to {args.plot}")
    errors = sum(len(run["errors"]) for runs in result["servers"].values() for run in runs.values())
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
