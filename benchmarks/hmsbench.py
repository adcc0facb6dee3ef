"""An hbench-style workload against Hive Metastore servers: ours, Apache Hive Metastore 2.3.10 or 4.0.1, or any URI.

For each partition count N (``--partitions 1000,10000,100000``), on each server:

1. create a database and an external table partitioned by ``dt`` string and ``hr`` int (24 hours a day);
2. add N partitions in batches of ``--batch`` (1000), each batch one timed ``add_partitions`` call;
3. ``--iterations`` K timed calls (after one warm-up call) of each read: getDatabase, getTable,
   getAllTables, listPartitionNames, getPartitionsByFilter on one partition (``dt = "<day>" and hr = 7``)
   and on a 10% range of days, with Hive 4's client getPartitionsByExpr of the same two as Hive 4 serializes
   them, getPartitionsByNames (100 names), getPartitions (all N), getPartition;
4. with ``--concurrency C``: C client threads at once on getTable and on the one-partition filter, each
   ``--concurrent-calls`` times, for calls per second;
5. K timed alterPartition calls (one partition, one parameter changed), then dropPartition of 100
   partitions one by one, then dropTable and dropDatabase, each timed.

With two servers the reads take turns: ``--rounds`` R (3) rounds of ``--iterations``/R calls of each read,
ours then the peer in one round and the other way round in the next, so that load from elsewhere on the
machine falls on both alike; the other phases (loading, the concurrent calls, the changes) run on one
server and then the other. Each phase is one Java process (one connection), whose first ``--warmups`` calls
(5) of each operation are its unreported warm-up: a fresh JVM takes its first ten calls of getPartitions
(all) at 10,000 partitions at up to twice the time it takes once its decoding code is compiled, which
engines, long-running JVMs, do not pay.

Every answer is checked (sizes, and names through a digest of the sorted answer: database, table, table
names, partition names, partition values, the altered parameter, what is left after the drops); a wrong
answer or a failed call is reported and the run goes on. Calls are made by Hive's Java Thrift client
(``benchmarks/java/HmsCallTimer.java``), as engines make them, of the version ``--peer-version`` names, on
every server: Hive 2.3.10's (the pyspark wheel's jars) or Hive 4.0.1's (``benchmarks/hive4.py``; its
getTable is ``get_table_req``, as Hive 4 has no ``get_table``). Before each run the server gets a small
warm-up workload (a table of 48 partitions) that is not reported.

Servers: ``--ours`` starts ``hudi-metastore serve`` on its own MariaDB database (``--ours-db-url``);
``--peer`` starts Apache Hive Metastore ``--peer-version`` on another (``--peer-db-url``,
``benchmarks/peer.py``; it needs ``benchmarks/install_peer_deps.sh``): 2.3.10 (the default) from the
pyspark wheel, or 4.0.1, assembled from Maven Central on first use; ``--compare`` is both; ``--uri
thrift://host:port`` measures a server already running. With no server option, ``--ours``. The servers
take turns at each partition count.

Prints a markdown table per partition count (p50/p95/max per operation and server, the peer's columns
named with its version, and when both run the ratio of p50s ours/HMS, the client's own time to decode our
answer from memory, its time for the same call on a server that answers our bytes at once without any work
(``instant server``: writing the request, taking the answer off a loopback socket and decoding it), and
that time over HMS's p50: the floor, the ratio a server answering in no time would reach), then the whole
result as JSON (or writes it to ``--json PATH``). ``--plot PATH`` draws the p50 of each operation against
the partition count per server (PNG, needs matplotlib).

Usage: python benchmarks/hmsbench.py [--compare | --ours | --peer | --uri thrift://host:port]
       [--peer-version 2.3.10|4.0.1] [--partitions 1000,10000,100000] [--iterations 10] [--rounds 3]
       [--warmups 5] [--concurrency 8] [--plot docs/hmsbench.png]
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import math
import shutil
import signal
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import java_client as jc  # noqa: E402
from bench_base import HIVE_4  # noqa: E402
from bench_server import (  # noqa: E402
    Target,
    add_server_options,
    emit_json,
    int_list,
    peak_rss_mib,
    percentile,
    start_targets,
)

OURS_URL = "mysql://root@127.0.0.1:3306/hmsbench_ours"
PEER_URL = "mysql://root@127.0.0.1:3306/hms_peer"
DB = "hmsbench"
TABLE = "bench"
START = dt.date(2020, 1, 1)
BY_NAMES = 100
DROPS = 100

# operations in the order of the tables; addPartitions(<batch>) is inserted after createTable
READS = [
    "getDatabase",
    "getTable",
    "getAllTables",
    "listPartitionNames",
    "getPartitionsByFilter (1 partition)",
    "getPartitionsByFilter (10% range)",
    "getPartitionsByExpr (1 partition)",
    "getPartitionsByExpr (10% range)",
    "getPartitionsByNames (100)",
    "getPartitions (all)",
    "getPartition",
]
CHANGES = ["alterPartition", "dropPartition", "dropTable", "dropDatabase"]


def day(i: int) -> str:
    return (START + dt.timedelta(days=i)).isoformat()


def values(i: int) -> tuple[str, str]:
    return day(i // 24), str(i % 24)


def name(v: tuple[str, str]) -> str:
    return f"dt={v[0]}/hr={v[1]}"


@dataclass
class Expect:
    """What a call must answer: ``result`` (size) and/or the items whose digest it must match."""

    result: int | None = None
    items: list[str] | None = None


PHASES = ("load", "reads", "concurrency", "changes")
"""A run's phases, in order; the reads are the phase that is repeated in rounds."""


@dataclass
class Workload:
    """The calls of one run (one server, one partition count), by phase, and what each must answer."""

    phases: dict[str, list[tuple[str, int, list[str]]]] = field(default_factory=lambda: {p: [] for p in PHASES})
    expect: dict[str, Expect] = field(default_factory=dict)
    phase: str = PHASES[0]
    """The phase ``add`` adds to."""

    @property
    def calls(self) -> list[tuple[str, int, list[str]]]:
        return [call for phase in PHASES for call in self.phases[phase]]

    def add(self, label: str, repeat: int, call: list[str], expect: Expect | None = None) -> None:
        self.phases[self.phase].append((label, repeat, call))
        if expect is not None:
            self.expect[label] = expect


def workload(
    n: int,
    db: str,
    location: str,
    iterations: int,
    batch: int,
    concurrency: list[int],
    concurrent_calls: int,
    prefix: str = "",
    rounds: int = 1,
    expressions: bool = False,
) -> Workload:
    """The hbench-style calls on a table of ``n`` partitions; ``prefix`` labels a warm-up run. The reads are
    made ``iterations`` times in all when their phase is run ``rounds`` times; ``expressions``: with the reads
    by Hive 4's serialized expressions (the same partitions as the filters)."""
    w = Workload()
    table_location = f"{location}/tables/{TABLE}"
    parts = [values(i) for i in range(n)]
    names = [name(v) for v in parts]
    days = max(1, n // 24)
    middle_day = days // 2
    tenth = max(1, days // 10)

    w.add(f"{prefix}setup", 0, jc.drop_database_if_exists(db))
    w.add(f"{prefix}createDatabase", 0, jc.create_database(db, f"{location}/{db}.db"))
    w.add(f"{prefix}createTable", 0, jc.create_table(db, TABLE, table_location))
    for number, start in enumerate(range(0, n, batch)):
        chunk = parts[start : start + batch]
        w.add(
            f"{prefix}addPartitions ({batch})#{number}",
            0,
            jc.add_partitions(db, TABLE, table_location, chunk),
            Expect(result=len(chunk)),
        )

    one = f'dt = "{day(middle_day)}" and hr = 7'
    one_parts = [v for v in parts if v[0] == day(middle_day) and v[1] == "7"]
    low, high = day(middle_day), day(middle_day + tenth)
    range_filter = f'dt >= "{low}" and dt < "{high}"'
    range_parts = [v for v in parts if low <= v[0] < high]
    step = max(1, n // BY_NAMES)
    by_names = [names[i] for i in range(0, n, step)][:BY_NAMES]
    by_names_parts = [parts[i] for i in range(0, n, step)][:BY_NAMES]
    target = parts[n // 2]
    items = jc.partition_item
    reads = {
        "getDatabase": (jc.get_database(db), [db]),
        "getTable": (jc.get_table(db, TABLE), [jc.table_item(db, TABLE, jc.BENCH_KEYS)]),
        "getAllTables": (jc.get_all_tables(db), [TABLE]),
        "listPartitionNames": (jc.get_partition_names(db, TABLE), names),
        "getPartitionsByFilter (1 partition)": (
            jc.get_partitions_by_filter(db, TABLE, one),
            [items(v) for v in one_parts],
        ),
        "getPartitionsByFilter (10% range)": (
            jc.get_partitions_by_filter(db, TABLE, range_filter),
            [items(v) for v in range_parts],
        ),
        **(
            {
                "getPartitionsByExpr (1 partition)": (
                    jc.get_partitions_by_expr(db, TABLE, expression(_ONE.format(day=day(middle_day)))),
                    [items(v) for v in one_parts],
                ),
                "getPartitionsByExpr (10% range)": (
                    jc.get_partitions_by_expr(db, TABLE, expression(_RANGE.format(low=low, high=high))),
                    [items(v) for v in range_parts],
                ),
            }
            if expressions
            else {}
        ),
        "getPartitionsByNames (100)": (
            jc.get_partitions_by_names(db, TABLE, by_names),
            [items(v) for v in by_names_parts],
        ),
        "getPartitions (all)": (jc.get_partitions(db, TABLE), [items(v) for v in parts]),
        "getPartition": (jc.get_partition(db, TABLE, target), [items(target)]),
    }
    assert list(reads) == [op for op in READS if op in reads]
    w.phase = "reads"
    for op, (call, expected) in reads.items():
        w.add(f"{prefix}{op}", math.ceil(iterations / rounds), call, Expect(len(expected), expected))

    w.phase = "concurrency"
    for threads in concurrency:
        for op in ("getTable", "getPartitionsByFilter (1 partition)"):
            w.add(f"{prefix}concurrent {op} x{threads}", concurrent_calls, jc.concurrent(threads, reads[op][0]))

    w.phase = "changes"
    w.add(f"{prefix}alterPartition", iterations, jc.alter_partition(db, TABLE, table_location, target))
    w.add(
        f"{prefix}check: altered partition",
        0,
        jc.get_partition(db, TABLE, target),
        Expect(1, [items(target, altered=True)]),
    )
    dropped = set()
    drop_step = max(1, n // DROPS)
    for number, i in enumerate(range(drop_step // 2, n, drop_step)):
        if number == DROPS:
            break
        dropped.add(i)
        w.add(f"{prefix}dropPartition#{number}", 0, jc.drop_partition(db, TABLE, parts[i]), Expect(1, ["true"]))
    left = [names[i] for i in range(n) if i not in dropped]
    w.add(f"{prefix}check: names after the drops", 0, jc.get_partition_names(db, TABLE), Expect(len(left), left))
    w.add(f"{prefix}dropTable", 0, jc.drop_table(db, TABLE))
    w.add(f"{prefix}check: tables after dropTable", 0, jc.get_all_tables(db), Expect(0, []))
    w.add(f"{prefix}dropDatabase", 0, jc.drop_database(db))
    return w


_ONE = '(and (= (col dt string) (const string "{day}")) (= (col hr int) (const int "7")))'
_RANGE = '(and (>= (col dt string) (const string "{low}")) (< (col dt string) (const string "{high}")))'
"""The filters' expressions, in ``java/HiveExpressions.java``'s form."""


@functools.cache
def expression(spec: str) -> bytes:
    """``spec`` as Hive 4.0.1 serializes it."""
    return jc.serialize_expressions([spec])[0]


def op_of(label: str) -> str:
    return label.split("#")[0]


def summarize(results: list[dict], w: Workload) -> dict:
    """Per operation: p50/p95/max (and the warm-up call) over its samples; errors: failed calls and wrong
    answers."""
    samples: dict[str, list[float]] = {}
    first: dict[str, float] = {}
    decoding: dict[str, list[float]] = {}
    instant: dict[str, list[float]] = {}
    concurrent: dict[str, dict] = {}
    errors: list[str] = []
    for r in results:
        label = r["label"]
        if "error" in r:
            errors.append(f"{label}: {r['error'][:500]}")
            if "threads" not in r:
                continue
        if "threads" in r:
            concurrent[label.removeprefix("concurrent ")] = {
                k: r[k] for k in ("threads", "calls", "errors", "wall_s", "calls_per_s", "p50_ms", "p95_ms", "max_ms")
            }
            continue
        expect = w.expect.get(label)
        if expect is not None:
            if expect.result is not None and r["result"] != expect.result:
                errors.append(f"{label}: answered {r['result']} items, expected {expect.result}")
            elif expect.items is not None and r["digest"] != jc.digest(expect.items):
                errors.append(f"{label}: answered other items than expected ({r['result']} items)")
        if label.startswith(("check:", "setup")):
            continue
        op = op_of(label)
        samples.setdefault(op, []).extend(r["samples_ms"])
        first.setdefault(op, r["first_ms"])
        if "decode_p50_ms" in r:
            decoding.setdefault(op, []).append(r["decode_p50_ms"])
        if "instant_p50_ms" in r:
            instant.setdefault(op, []).append(r["instant_p50_ms"])
    missing = {op_of(label) for label, _, _ in w.calls} - set(samples) - {"setup"}
    missing = {op for op in missing if not op.startswith(("check:", "concurrent "))}
    ops = {}
    for op, values_ms in samples.items():
        ordered = sorted(values_ms)
        ops[op] = {
            "p50_ms": round(percentile(ordered, 0.5), 3),
            "p95_ms": round(percentile(ordered, 0.95), 3),
            "max_ms": round(ordered[-1], 3),
            "first_ms": round(first[op], 3),
            "samples": len(ordered),
            "total_ms": round(sum(ordered), 3),
        }
        if op in decoding:  # the client's own share: decoding the answer (HmsCallTimer's decode_p50_ms)
            ops[op]["client_decode_ms"] = round(statistics.median(decoding[op]), 3)
        if op in instant:  # the client's whole share: the same call on a server doing no work (instant_p50_ms)
            ops[op]["instant_server_ms"] = round(statistics.median(instant[op]), 3)
    return {"ops": ops, "concurrency": concurrent, "errors": errors, "not_measured": sorted(missing)}


@dataclass
class Run:
    """One server's run at one partition count: its workloads, and the results and time of its phases so
    far."""

    target: Target
    n: int
    warm: Workload
    main: Workload
    results: list[dict] = field(default_factory=list)
    seconds: float = 0.0


def run_phase(classes: Path, classpath: str, run: Run, calls: list, args) -> None:
    """``calls`` on ``run``'s server, in one Java process; their results are added to the run's."""
    started = time.perf_counter()
    batches = sum(1 for label, _, _ in run.main.calls if label.startswith("addPartitions"))

    def progress(r: dict) -> None:
        label, key, elapsed = r["label"], run.target.key, run.seconds + time.perf_counter() - started
        if label.startswith("addPartitions") and (int(label.split("#")[1]) + 1) % 10 == 0:
            done = int(label.split("#")[1]) + 1
            print(f"  {key} n={run.n:,}: {done}/{batches} batches added ({elapsed:.0f} s)", file=sys.stderr, flush=True)
        elif not label.startswith(("addPartitions", "dropPartition", "warmup")):
            print(f"  {key} n={run.n:,}: {label} done ({elapsed:.0f} s)", file=sys.stderr, flush=True)

    run.results += jc.time_calls(
        classes,
        run.target.host,
        run.target.port,
        calls,
        errors="return",
        timeout=args.timeout,
        progress=progress,
        classpath=classpath,
        warmups=args.warmups,
    )
    run.seconds += time.perf_counter() - started


def run_size(classes: Path, classpath: str, targets: list[Target], n: int, args, work: str) -> dict[str, dict]:
    """The workload at ``n`` partitions on every server, after the warm-up workload: each phase on one
    server after the other, the reads in ``args.rounds`` rounds whose order alternates. Returns each
    server's summary by its key."""
    runs = []
    for target in targets:
        location = f"file:{work}/{target.key.replace('/', '_').replace(':', '_')}/{n}"
        warm = workload(48, f"{DB}_warmup", f"{location}/warmup", 2, args.batch, [], 0, prefix="warmup: ")
        main = workload(
            n,
            DB,
            location,
            args.iterations,
            args.batch,
            args.concurrency,
            args.concurrent_calls,
            rounds=args.rounds,
            expressions=args.peer_version == HIVE_4,
        )
        runs.append(Run(target, n, warm, main))
    for run in runs:
        print(f"{run.target.key}: {n:,} partitions ...", file=sys.stderr, flush=True)
        run_phase(classes, classpath, run, run.warm.calls + run.main.phases["load"], args)
    for round_number in range(args.rounds):
        for run in runs if round_number % 2 == 0 else runs[::-1]:
            run_phase(classes, classpath, run, run.main.phases["reads"], args)
    for phase in ("concurrency", "changes"):
        for run in runs:
            run_phase(classes, classpath, run, run.main.phases[phase], args)
    summaries = {}
    for run in runs:
        warm_up = summarize([r for r in run.results if r["label"].startswith("warmup: ")], run.warm)
        out = summarize([r for r in run.results if not r["label"].startswith("warmup: ")], run.main)
        out["errors"] = [f"warm-up {e}" for e in warm_up["errors"]] + out["errors"]
        out["wall_s"] = round(run.seconds, 1)
        if run.target.pid is not None:
            out["peak_rss_mib"] = round(peak_rss_mib(run.target.pid))
        summaries[run.target.key] = out
    return summaries


# -- servers -----------------------------------------------------------------------------------------------

# -- output ------------------------------------------------------------------------------------------------


def ordered_ops(report: dict) -> list[str]:
    seen: list[str] = []
    for per_n in report.values():
        for op in per_n["ops"]:
            if op not in seen:
                seen.append(op)
    order = ["createDatabase", "createTable"] + [op for op in seen if op.startswith("addPartitions")] + READS + CHANGES
    return [op for op in order if op in seen] + [op for op in seen if op not in order]


def shown(result: dict, key: str) -> str:
    """How the tables name server ``key``: the peer with its version (``hms 4.0.1``)."""
    peer = result["settings"].get("hms")
    return f"hms {peer['version']}" if key == "hms" and peer else key


def ratio_pair(keys: list[str]) -> tuple[str, str] | None:
    """Which two servers the ratio column compares: the other one over ``hms``."""
    if len(keys) == 2 and "hms" in keys:
        other = keys[0] if keys[1] == "hms" else keys[1]
        return other, "hms"
    return None


def fmt(ms: float | None) -> str:
    if ms is None:
        return ""
    return f"{ms:,.1f}" if ms < 10_000 else f"{ms:,.0f}"


def markdown(result: dict) -> str:
    servers: dict[str, dict] = result["servers"]
    keys = list(servers)
    pair = ratio_pair(keys)
    names = {key: shown(result, key) for key in keys}
    settings = result["settings"]
    lines = []
    for n in settings["partitions"]:
        lines.append(
            f"### {n:,} partitions, {settings['iterations']} iterations, Hive {settings['client_version']} client\n"
        )
        header = ["operation"]
        for key in keys:
            header += [f"{names[key]} p50 ms", f"{names[key]} p95 ms", f"{names[key]} max ms"]
        if pair:
            header.append(f"{names[pair[0]]}/{names[pair[1]]} p50")
            header += ["client decoding ms", "instant server ms", f"floor: instant/{names[pair[1]]} p50"]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|---|" + "---:|" * (len(header) - 1))
        runs = {key: servers[key][str(n)] for key in keys}
        for op in ordered_ops({key: runs[key] for key in keys}):
            row = [op]
            for key in keys:
                stats = runs[key]["ops"].get(op)
                row += [fmt(stats["p50_ms"]), fmt(stats["p95_ms"]), fmt(stats["max_ms"])] if stats else ["", "", ""]
            if pair:
                a, b = (runs[k]["ops"].get(op) for k in pair)
                row.append(f"{a['p50_ms'] / b['p50_ms']:.2f}" if a and b and b["p50_ms"] > 0 else "")
                decode, instant = ((a or {}).get(k) for k in ("client_decode_ms", "instant_server_ms"))
                row.append(fmt(decode) if decode is not None else "")
                row.append(fmt(instant) if instant is not None else "")
                row.append(f"{instant / b['p50_ms']:.2f}" if instant is not None and b and b["p50_ms"] > 0 else "")
            lines.append("| " + " | ".join(row) + " |")
        concurrent = sorted({label for key in keys for label in runs[key]["concurrency"]})
        if concurrent:
            lines.append("")
            header = ["concurrent calls"] + [f"{names[key]} calls/s" for key in keys]
            header += [f"{names[key]} p50 ms" for key in keys]
            if pair:
                header.append(f"{names[pair[0]]}/{names[pair[1]]} calls/s")
            lines.append("| " + " | ".join(header) + " |")
            lines.append("|---|" + "---:|" * (len(header) - 1))
            for label in concurrent:
                stats = [runs[key]["concurrency"].get(label) for key in keys]
                row = [label] + [f"{s['calls_per_s']:,.0f}" if s else "" for s in stats]
                row += [fmt(s["p50_ms"]) if s else "" for s in stats]
                if pair:
                    a, b = (runs[k]["concurrency"].get(label) for k in pair)
                    row.append(f"{a['calls_per_s'] / b['calls_per_s']:.2f}" if a and b and b["calls_per_s"] else "")
                lines.append("| " + " | ".join(row) + " |")
        lines.append("")
        for key in keys:
            run = runs[key]
            add = sum(stats["total_ms"] for op, stats in run["ops"].items() if op.startswith("addPartitions"))
            extra = f", peak RSS {run['peak_rss_mib']} MiB" if "peak_rss_mib" in run else ""
            lines.append(
                f"- {names[key]}: {n:,} partitions added in {add / 1000:.1f} s, run {run['wall_s']} s{extra}; "
                f"errors: {len(run['errors'])}"
            )
            lines += [f"  - {e}" for e in run["errors"][:20]]
            if run["not_measured"]:
                lines.append(f"  - not measured: {', '.join(run['not_measured'])}")
        lines.append("")
    return "\n".join(lines)


def plot(result: dict, path: str) -> None:
    """p50 per operation against the partition count, one panel per operation, one line per server."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator

    servers = result["servers"]
    sizes = result["settings"]["partitions"]
    ops = ordered_ops({f"{key}|{n}": run for key, runs in servers.items() for n, run in runs.items()})
    columns = 4
    rows = math.ceil(len(ops) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.6 * columns, 2.7 * rows + 0.8), squeeze=False)
    styles = {"ours": dict(color="tab:blue", marker="o"), "hms": dict(color="tab:orange", marker="s", ls="--")}
    labels = {"ours": "hudi-metastore"}
    if "hms" in result["settings"]:
        labels["hms"] = f"Hive Metastore {result['settings']['hms']['version']}"
    plain = FuncFormatter(lambda y, _: f"{y:g}")
    for ax, op in zip(axes.flat, ops):
        for key, runs in servers.items():
            points = [
                (n, runs[str(n)]["ops"][op]["p50_ms"]) for n in sizes if str(n) in runs and op in runs[str(n)]["ops"]
            ]
            if points:
                ax.plot(*zip(*points), label=labels.get(key, key), **styles.get(key, dict(marker="^")))
        ax.set_title(op, fontsize=9)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(min(sizes) / 2, max(sizes) * 2)
        ax.xaxis.set_major_locator(FixedLocator(sizes))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:,.0f}"))
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.tick_params(labelsize=7)
        ax.grid(True, which="major", alpha=0.3)
    for ax in list(axes.flat)[len(ops) :]:
        ax.axis("off")
    for row in axes:
        row[0].set_ylabel("p50 ms", fontsize=8)
    handles, names = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="lower center", ncol=len(servers), fontsize=9, frameon=False)
    fig.suptitle(
        f"p50 latency per call against partitions in the table ({result['settings']['iterations']} "
        f"iterations, Hive {result['settings']['client_version']} Java client; log scales)",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0.04, 1, 0.98))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


# -- main --------------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_server_options(parser, OURS_URL, PEER_URL)
    parser.add_argument(
        "--partitions",
        type=int_list,
        default=[1000, 10000, 100000],
        help="partition counts, comma-separated (default 1000,10000,100000)",
    )
    parser.add_argument("--iterations", type=int, default=10, help="timed calls per read (default %(default)s)")
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds the reads are split into, servers taking turns (default 3)"
    )
    parser.add_argument(
        "--warmups", type=int, default=5, help="untimed calls of each read per Java process (default %(default)s)"
    )
    parser.add_argument("--batch", type=int, default=1000, help="partitions per add_partitions (default %(default)s)")
    parser.add_argument(
        "--concurrency",
        type=int_list,
        default=[],
        help="client threads for the concurrent getTable and filter (comma-separated list)",
    )
    parser.add_argument("--concurrent-calls", type=int, default=200, help="calls per thread (default %(default)s)")
    parser.add_argument("--json", metavar="PATH", help="write the JSON result here instead of printing it")
    parser.add_argument("--plot", metavar="PATH", help="write the p50-against-partitions plot (PNG)")
    parser.add_argument("--timeout", type=float, default=6 * 3600, help="seconds per server and partition count")
    args = parser.parse_args()
    # SIGTERM unwinds like Ctrl-C, so that the servers started here are stopped
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    if args.iterations < 1 or args.rounds < 1 or args.warmups < 1:
        parser.error("--iterations, --rounds and --warmups must be at least 1")
    if args.plot:
        import matplotlib  # noqa: F401  (fail now rather than after the run)

    classpath = jc.client_classpath(args.peer_version)
    classes = jc.compile_timer(classpath)
    work = tempfile.mkdtemp(prefix="hmsbench-")
    result: dict = {
        "settings": {
            "partitions": args.partitions,
            "iterations": args.iterations,
            "rounds": args.rounds,
            "batch": args.batch,
            "concurrency": args.concurrency,
            "concurrent_calls": args.concurrent_calls,
            "client": f"Hive {args.peer_version} ThriftHiveMetastore.Client, TBinaryProtocol over TSocket",
            "client_version": args.peer_version,
        },
        "servers": {},
    }
    started = time.perf_counter()
    try:
        with ExitStack() as stack:
            targets = start_targets(stack, args, result["settings"], args.ours_option, f"{work}/ours")
            for target in targets:
                result["servers"][target.key] = {}
            for n in args.partitions:
                for key, summary in run_size(classes, classpath, targets, n, args, work).items():
                    result["servers"][key][str(n)] = summary
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result["wall_s"] = round(time.perf_counter() - started, 1)

    print(markdown(result))
    emit_json(result, args.json)
    if args.plot:
        plot(result, args.plot)
        print(f"plot written to {args.plot}")
    errors = sum(len(run["errors"]) for runs in result["servers"].values() for run in runs.values())
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
