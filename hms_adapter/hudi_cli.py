"""The Hudi subcommands of ``hudi-metastore``: ``import``, ``timeline`` and ``snapshot``.

``timeline --json`` and ``snapshot --json`` print the stable shapes documented in ``docs/cli.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from hudi_catalog import Catalog
from hudi_catalog.model import InstantState
from hudi_catalog.services.hudi_import import HudiImporter

from .event_messages import HiveJsonMessages
from .import_progress import import_progress

PROGRESS_INTERVAL_SECONDS = 10.0


def add_commands(commands, add_store_options: Callable[[argparse.ArgumentParser], None]) -> dict:
    """Add the subcommands to ``commands``; returns ``{name: handler}``."""
    imported = commands.add_parser("import", help="register an existing Hudi table, or bring it up to date")
    add_store_options(imported)
    imported.add_argument("path", metavar="PATH", help="the table's base path (local path or URI)")
    imported.add_argument("--database", help="default: hoodie.database.name, else 'default'")
    imported.add_argument("--table", help="default: hoodie.table.name")
    imported.add_argument(
        "--spark",
        action="store_true",
        help="read and decode the instant files in Spark tasks (needs pyspark): for big timelines",
    )
    imported.add_argument("--master", help="with --spark: the Spark master (default: spark-submit's, else local[*])")
    imported.add_argument(
        "--progress-interval",
        type=_seconds,
        default=PROGRESS_INTERVAL_SECONDS,
        metavar="SECONDS",
        help="when stderr is not a terminal: log the progress every SECONDS "
        f"(default {PROGRESS_INTERVAL_SECONDS:g}); on a terminal a bar shows it",
    )

    timeline = commands.add_parser("timeline", help="print a Hudi table's timeline")
    add_store_options(timeline)
    timeline.add_argument("table", metavar="DB.TABLE")
    timeline.add_argument("--json", action="store_true")

    snapshot = commands.add_parser("snapshot", help="print the latest file slices of a Hudi table")
    add_store_options(snapshot)
    snapshot.add_argument("table", metavar="DB.TABLE")
    snapshot.add_argument("--partition", help="only this partition path ('' for an unpartitioned table)")
    snapshot.add_argument("--as-of", help="an instant time: the slices as of then (time travel)")
    snapshot.add_argument("--json", action="store_true")
    return {"import": _import, "timeline": _timeline, "snapshot": _snapshot}


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}")
    return seconds


def _split(name: str) -> tuple[str, str]:
    database, dot, table = name.partition(".")
    if not dot or not table:
        raise SystemExit("hudi-metastore: the table is named DB.TABLE")
    return database.lower(), table.lower()


def _import(args: argparse.Namespace) -> int:
    if args.master and not args.spark:
        raise SystemExit("hudi-metastore: --master goes with --spark")
    catalog = Catalog.open(args.db_url, args.warehouse, event_format=HiveJsonMessages())
    progress = import_progress(sys.stderr, args.progress_interval)
    try:
        if args.spark:
            from hudi_catalog.spark.importer import SparkHudiImporter, SparkUnavailableError

            try:
                importer = SparkHudiImporter(catalog, master=args.master, progress=progress)
                result = importer.run(args.path, args.database, args.table)
            except SparkUnavailableError as error:
                print(f"hudi-metastore: {error}", file=sys.stderr)
                return 2
        else:
            result = HudiImporter(catalog, progress=progress).run(args.path, args.database, args.table)
    finally:
        progress.close()
        catalog.close()
    print(
        f"{result.database}.{result.table}: {result.recorded} instants recorded, "
        f"latest commit {result.latest_commit or '-'}"
    )
    return 0


def _timeline(args: argparse.Namespace) -> int:
    database, table = _split(args.table)
    catalog = Catalog.open(args.db_url, args.warehouse, init=False)
    try:
        instants = catalog.timeline.instants(database, table)
    finally:
        catalog.close()
    rows = [
        {"requested": i.requested_time, "completed": i.completion_time, "action": i.action, "state": i.state.value}
        for i in instants
    ]
    if args.json:
        print(json.dumps({"table": f"{database}.{table}", "instants": rows}, indent=2))
    else:
        _print_table(
            ["requested", "completed", "action", "state"],
            [[r["requested"], r["completed"] or "-", r["action"], r["state"]] for r in rows],
        )
    return 0


def _snapshot(args: argparse.Namespace) -> int:
    database, table = _split(args.table)
    catalog = Catalog.open(args.db_url, args.warehouse, init=False)
    try:
        slices = catalog.snapshot.latest_file_slices(database, table, args.partition, args.as_of)
        completed = [
            i.requested_time
            for i in catalog.timeline.instants(database, table, [InstantState.COMPLETED])
            if args.as_of is None or i.requested_time <= args.as_of
        ]
    finally:
        catalog.close()
    partitions = {
        path: [{"file_id": s.file_id, "base_file": s.base_file, "log_files": list(s.log_files)} for s in found]
        for path, found in sorted(slices.items())
    }
    if args.json:
        print(
            json.dumps(
                {
                    "table": f"{database}.{table}",
                    "latest_instant": max(completed, default=None),
                    "partitions": partitions,
                },
                indent=2,
            )
        )
    else:
        _print_table(
            ["partition", "file id", "base file", "log files"],
            [
                [path, s.file_id, s.base_file or "-", ", ".join(s.log_files) or "-"]
                for path, found in sorted(slices.items())
                for s in found
            ],
        )
    return 0


def _print_table(header: list[str], rows: Sequence[Sequence[object]]) -> None:
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows)]
    for row in [header, *rows]:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())
