"""The Hudi subcommands of ``hudi-metastore``: ``import``, ``timeline``, ``snapshot`` and ``iceberg`` (which also
expires a view's snapshots: ``--expire-snapshots``).

``timeline --json`` and ``snapshot --json`` print the stable shapes documented in ``docs/cli.md``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

from hudi_catalog import Catalog
from hudi_catalog.hudi.properties import TABLE_TYPE
from hudi_catalog.iceberg import (
    DEFAULT_METADATA_DIR,
    MAX_SNAPSHOT_AGE_MS_DEFAULT,
    MIN_SNAPSHOTS_TO_KEEP_DEFAULT,
    build_view,
    expire_view,
    uri_file_system,
)
from hudi_catalog.iceberg_views import ExpiryResult, ViewResult
from hudi_catalog.model import Instant, InstantState

from .catalog_access import describe, hive_wire, open_existing
from .cli_errors import EXIT_FAILED, EXIT_USAGE, CommandError
from .cli_options import add_create_catalog_option
from .import_progress import import_progress

log = logging.getLogger("hudi_metastore")

PROGRESS_INTERVAL_SECONDS = 10.0
SPARK_PROVIDER = "spark.sql.sources.provider"


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

    imported.add_argument(
        "--iceberg-view",
        action="store_true",
        help="then build the table's Iceberg view and register it, kept up to date from then on (a table that "
        "has one already: its view takes what the import recorded, with or without this option)",
    )
    imported.add_argument("--iceberg-view-name", metavar="NAME", help="with --iceberg-view: default <table>_iceberg")
    add_create_catalog_option(
        imported, default=False, why="refused by default, so that a table does not land in a new catalog by mistake"
    )

    iceberg = commands.add_parser(
        "iceberg",
        help="build (or rebuild) the Iceberg view of a Hudi table, DB.TABLE in the catalog or a PATH; or expire its "
        "old snapshots (--expire-snapshots)",
    )
    add_store_options(iceberg)
    iceberg.add_argument(
        "target",
        metavar="DB.TABLE|PATH",
        help="a table in the catalog: its view is built from the catalog's timeline and registered (and kept "
        "up to date by the servers); a base path: the view's metadata is written there, registered nowhere",
    )
    iceberg.add_argument("--name", help="the view table's name (DB.TABLE only; default <table>_iceberg)")
    iceberg.add_argument(
        "--metadata-dir",
        metavar="URI",
        help=f"where the view's metadata goes (default <base path>/{DEFAULT_METADATA_DIR})",
    )
    iceberg.add_argument(
        "--expire-snapshots",
        action="store_true",
        help="expire the view's old snapshots instead of building it, as Iceberg's expire_snapshots procedure: "
        "those older than --older-than but for the --retain-last newest; their manifest lists and the manifests "
        "no other snapshot lists are deleted (never a data file)",
    )
    iceberg.add_argument(
        "--older-than",
        type=_epoch_millis,
        metavar="TIMESTAMP",
        help="with --expire-snapshots: an ISO 8601 time (UTC unless it names its offset) or a Hudi instant time "
        f"(UTC); default {MAX_SNAPSHOT_AGE_MS_DEFAULT // 86_400_000} days ago, as Iceberg's",
    )
    iceberg.add_argument(
        "--retain-last",
        type=_at_least_one,
        metavar="N",
        help=f"with --expire-snapshots: keep the N newest snapshots whatever their age (default "
        f"{MIN_SNAPSHOTS_TO_KEEP_DEFAULT}: the current one)",
    )
    iceberg.add_argument(
        "--dry-run",
        action="store_true",
        help="with --expire-snapshots: list what would be expired and deleted, and change nothing",
    )

    timeline = commands.add_parser("timeline", help="print a Hudi table's timeline")
    add_store_options(timeline)
    timeline.add_argument("table", metavar="DB.TABLE")
    timeline.add_argument("--json", action="store_true", help="print JSON (docs/cli.md) instead of columns")

    snapshot = commands.add_parser("snapshot", help="print the latest file slices of a Hudi table")
    add_store_options(snapshot)
    snapshot.add_argument("table", metavar="DB.TABLE")
    snapshot.add_argument("--partition", help="only this partition path ('' for an unpartitioned table)")
    snapshot.add_argument("--as-of", help="an instant time: the slices as of then (time travel)")
    snapshot.add_argument("--json", action="store_true", help="print JSON (docs/cli.md) instead of columns")
    return {"import": _import, "iceberg": _iceberg, "timeline": _timeline, "snapshot": _snapshot}


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}")
    return seconds


def _epoch_millis(text: str) -> int:
    """``--older-than``: an ISO 8601 time (naive ones in UTC) or a Hudi instant time (``yyyyMMddHHmmss[SSS]``, in
    UTC), as epoch milliseconds.

    >>> _epoch_millis("2024-01-01T00:00:00Z"), _epoch_millis("20240101000000123")
    (1704067200000, 1704067200123)
    """
    try:
        if text.isdigit() and len(text) in (14, 17):
            moment = datetime.strptime(text[:14], "%Y%m%d%H%M%S").replace(
                microsecond=int(text[14:] or 0) * 1000, tzinfo=timezone.utc
            )
        else:
            moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a time: {text!r} (an ISO 8601 time such as 2024-01-05T10:15:30Z, or an instant time)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp() * 1000)


def _at_least_one(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"not a number of snapshots (1 or more): {text!r}")
    return number


def _split(name: str) -> tuple[str, str]:
    database, dot, table = name.partition(".")
    if not dot or not table:
        raise CommandError("the table is named DB.TABLE", EXIT_USAGE)
    return database.lower(), table.lower()


def _import(args: argparse.Namespace) -> int:
    if args.master and not args.spark:
        raise CommandError("--master goes with --spark", EXIT_USAGE)
    if args.iceberg_view_name and not args.iceberg_view:
        raise CommandError("--iceberg-view-name goes with --iceberg-view", EXIT_USAGE)
    if args.create_catalog:
        catalog = Catalog.open(args.db_url, args.warehouse, **hive_wire())
    else:
        hint = "or add --create-catalog to create one there"
        catalog = open_existing(args, init=True, create_hint=hint, **hive_wire())
    log.info("catalog %s, warehouse %s", describe(args.db_url), args.warehouse)
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
            result = catalog.import_table(args.path, args.database, args.table, progress)
        progress.close()
        print(
            f"{result.database}.{result.table}: {result.recorded} instants recorded, "
            f"latest commit {result.latest_commit or '-'}"
        )
        views = catalog.iceberg_views
        view: ViewResult | None
        if args.iceberg_view and not views.has_view(result.database, result.table):
            view = views.create(result.database, result.table, args.iceberg_view_name)
        else:  # a view the table has takes the instants this import recorded
            view = views.refresh(result.database, result.table)
        if view is not None:
            _print_view(f"{result.database}.{view.view}", view.metadata_location, view.skipped, view.error)
    finally:
        progress.close()
        catalog.close()
    return EXIT_FAILED if view is not None and view.error else 0


def _iceberg(args: argparse.Namespace) -> int:
    if args.expire_snapshots:
        return _expire_snapshots(args)
    given = [o for o, v in (("--older-than", args.older_than), ("--retain-last", args.retain_last)) if v is not None]
    if given or args.dry_run:
        raise CommandError(f"{(given or ['--dry-run'])[0]} goes with --expire-snapshots", EXIT_USAGE)
    target = args.target
    if _is_path(target):
        if args.name:
            raise CommandError("--name names a registered view: give DB.TABLE", EXIT_USAGE)
        fs, base_path = uri_file_system(target)
        update = build_view(fs, base_path, args.metadata_dir)
        location = update.metadata.location if update.metadata else None
        _print_view(base_path, location, update.skipped, str(update.error) if update.error else None)
        return EXIT_FAILED if update.error else 0
    database, table = _split(target)
    catalog = open_existing(args, init=True, **hive_wire())
    try:
        view = catalog.iceberg_views.create(database, table, args.name, args.metadata_dir)
    finally:
        catalog.close()
    _print_view(f"{database}.{view.view}", view.metadata_location, view.skipped, view.error)
    return EXIT_FAILED if view.error else 0


def _is_path(target: str) -> bool:
    return "/" in target or ":" in target or Path(target).is_dir()


def _expire_snapshots(args: argparse.Namespace) -> int:
    """``iceberg TARGET --expire-snapshots``: Iceberg's ``expire_snapshots(older_than, retain_last)`` on the view."""
    if args.name:
        raise CommandError("--name does not go with --expire-snapshots", EXIT_USAGE)
    now_ms = int(time.time() * 1000)
    older_than = args.older_than if args.older_than is not None else now_ms - MAX_SNAPSHOT_AGE_MS_DEFAULT
    retain_last = args.retain_last if args.retain_last is not None else MIN_SNAPSHOTS_TO_KEEP_DEFAULT
    target = args.target
    if _is_path(target):
        fs, base_path = uri_file_system(target)
        update = expire_view(fs, base_path, older_than, retain_last, args.metadata_dir, args.dry_run)
        expired, location = update.expired, update.metadata.location if update.metadata else None
        result = ExpiryResult(
            base_path,
            location,
            expired.snapshots,
            expired.manifest_lists,
            expired.manifests,
            expired.metadata_files,
            args.dry_run,
        )
    else:
        if args.metadata_dir:
            raise CommandError("--metadata-dir goes with a PATH for --expire-snapshots: give the base path", EXIT_USAGE)
        database, table = _split(target)
        catalog = open_existing(args, init=True, **hive_wire())
        try:
            result = catalog.iceberg_views.expire_snapshots(database, table, older_than, retain_last, args.dry_run)
        finally:
            catalog.close()
        result = replace(result, view=f"{database}.{result.view}")
    _print_expiry(result, older_than, retain_last)
    return 0


def _print_expiry(result: ExpiryResult, older_than_ms: int, retain_last: int) -> None:
    cutoff = datetime.fromtimestamp(older_than_ms / 1000, timezone.utc).isoformat(timespec="milliseconds")
    verb = "would expire" if result.dry_run else "expired"
    gone = "would be deleted" if result.dry_run else "deleted"
    print(
        f"Iceberg view {result.view}: {verb} {len(result.snapshots)} snapshots older than {cutoff} "
        f"(the newest {retain_last} kept); {len(result.manifest_lists)} manifest lists, {len(result.manifests)} "
        f"manifests and {len(result.metadata_files)} metadata files {gone}"
    )
    print(f"  metadata: {result.metadata_location or 'none yet'}")
    for snapshot_id in sorted(result.snapshots):
        print(f"  snapshot {snapshot_id}")
    for path in (*result.manifest_lists, *result.manifests, *result.metadata_files):
        print(f"  file {path}")


def _print_view(name: str, location: str | None, skipped: Mapping[str, int], error: str | None) -> None:
    print(f"Iceberg view {name}: {location or 'no metadata yet'}")
    for reason, count in sorted(skipped.items()):
        print(f"  {count} files left out: {reason}")
    if error:
        print(f"  stopped before an instant it cannot take: {error}", file=sys.stderr)


def _timeline(args: argparse.Namespace) -> int:
    database, table = _split(args.table)
    catalog = open_existing(args, init=False)
    try:
        instants = catalog.timeline.instants(database, table)
        _require_hudi(catalog, database, table, instants)
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
    catalog = open_existing(args, init=False)
    try:
        instants = catalog.timeline.instants(database, table, [InstantState.COMPLETED])
        _require_hudi(catalog, database, table, instants)
        slices = catalog.snapshot.latest_file_slices(database, table, args.partition, args.as_of)
        completed = [i.requested_time for i in instants if args.as_of is None or i.requested_time <= args.as_of]
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


def _require_hudi(catalog: Catalog, database: str, table: str, instants: Sequence[Instant]) -> None:
    """A table with no instant in the catalog that does not say it is a Hudi table (``hoodie.table.type``, or
    Spark's provider ``hudi`` as hive sync sets it): ``CommandError``, rather than an empty listing."""
    if instants:
        return
    parameters = catalog.tables.get(database, table).parameters
    if TABLE_TYPE not in parameters and parameters.get(SPARK_PROVIDER, "").lower() != "hudi":
        raise CommandError(
            f"{database}.{table} is not a Hudi table: the catalog holds no Hudi timeline for it "
            "(`hudi-metastore import PATH` registers one)"
        )


def _print_table(header: list[str], rows: Sequence[Sequence[object]]) -> None:
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows)]
    for row in [header, *rows]:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())
