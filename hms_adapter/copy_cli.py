"""``hudi-metastore copy --from URI --to URI``: copy a whole Hive Metastore into another through Thrift
(``hms_adapter.migration``), with a dry run, patterns, progress, a summary and ``--verify``."""

from __future__ import annotations

import argparse
import os
import sys

from .authentication import AUTH_MODES
from .cli_errors import EXIT_USAGE, CommandError
from .cli_options import add_log_level_option, positive_seconds
from .client import DEFAULT_SERVICE_PRINCIPAL, Security
from .migration.copier import Copier, CopyOptions
from .migration.endpoint import Endpoint, EndpointDown
from .migration.progress import CopyProgress
from .migration.verify import Verifier

PASSWORD_VARIABLES = {"from": "HUDI_METASTORE_FROM_PASSWORD", "to": "HUDI_METASTORE_TO_PASSWORD"}
EXIT_CODES_HELP = (
    "Exit codes: 0 everything copied (and the same on both sides, with --verify); 1 the run stopped (a metastore "
    "cannot be reached); 2 a usage mistake; 3 copied, but the target cannot hold some objects (listed with the "
    "reason); 4 some objects failed (listed; run again to finish them); 5 --verify found differences."
)


def add_commands(commands) -> dict:
    """Add ``copy`` to ``commands``; returns ``{name: handler}``."""
    copy = commands.add_parser(
        "copy",
        help="copy a Hive Metastore (Apache HMS 2.3, 3.1, 4.0, or this server) into another, through Thrift",
        description="Copy the catalogs, databases, tables, partitions, statistics, constraints, functions, roles "
        "and grants of one metastore into another, through their Thrift APIs; only what differs is written, so "
        "the same command also catches up and finishes a stopped run. " + EXIT_CODES_HELP,
    )
    copy.add_argument(
        "--from", dest="source", required=True, metavar="URI", help="the metastore to copy: thrift://host:port"
    )
    copy.add_argument(
        "--to", dest="target", required=True, metavar="URI", help="the metastore to write: thrift://host:port"
    )
    copy.add_argument(
        "--databases",
        type=_patterns,
        default=["*"],
        metavar="PATTERNS",
        help="comma-separated shell patterns of the databases to copy (default: all)",
    )
    copy.add_argument(
        "--tables",
        type=_patterns,
        default=["*"],
        metavar="PATTERNS",
        help="comma-separated shell patterns of the tables to copy, by name or DATABASE.TABLE (default: all)",
    )
    copy.add_argument(
        "--dry-run", action="store_true", help="say what would be copied and what cannot be; write nothing"
    )
    copy.add_argument(
        "--verify",
        action="store_true",
        help="then compare the answers of the read calls engines make on both sides, object by object "
        "(with --dry-run: compare only)",
    )
    copy.add_argument(
        "--drop-missing",
        action="store_true",
        help="drop from the target the tables of copied databases that the source no longer has (their files are kept)",
    )
    copy.add_argument(
        "--no-grants", dest="grants", action="store_false", help="copy no roles, role grants or privileges"
    )
    copy.add_argument(
        "--no-events",
        dest="continue_events",
        action="store_false",
        help="leave the target's notification event ids where they are (by default this server's continue after "
        "the source's)",
    )
    copy.add_argument(
        "--parallel",
        type=_positive_int,
        default=4,
        help="tables copied at once, each on its own connections to both sides (default %(default)s)",
    )
    copy.add_argument(
        "--batch-size", type=_positive_int, default=1000, help="partitions per call (default %(default)s)"
    )
    copy.add_argument(
        "--max-calls-per-second",
        type=float,
        default=0.0,
        help="calls a second the source is sent at most, to spare it (default: no limit)",
    )
    copy.add_argument(
        "--timeout", type=positive_seconds, default=600.0, help="seconds to wait for each answer (default 600)"
    )
    copy.add_argument(
        "--progress-interval",
        type=positive_seconds,
        default=10.0,
        help="seconds between progress lines when stderr is not a terminal (default 10)",
    )
    for side in ("from", "to"):
        _add_security_options(copy, side)
    add_log_level_option(copy, "WARNING", "INFO logs each object as it is copied")
    return {"copy": _copy}


def _add_security_options(parser: argparse.ArgumentParser, side: str) -> None:
    which = "source" if side == "from" else "target"
    parser.add_argument(
        f"--{side}-auth",
        choices=AUTH_MODES,
        default="none",
        help=f"how the {which} authenticates: password (SASL PLAIN, with --{side}-user; the password is "
        f"{PASSWORD_VARIABLES[side]}) or kerberos (the ticket of kinit) (default %(default)s)",
    )
    parser.add_argument(f"--{side}-user", help=f"the user of --{side}-auth password")
    parser.add_argument(
        f"--{side}-kerberos-service-principal",
        default=DEFAULT_SERVICE_PRINCIPAL,
        help=f"the {which}'s Kerberos principal (default %(default)s)",
    )
    parser.add_argument(
        f"--{side}-tls-ca", help=f"speak TLS to the {which}, verifying it with these PEM CA certificates"
    )
    parser.add_argument(f"--{side}-tls-cert", help=f"PEM client certificate for the {which} (with --{side}-tls-key)")
    parser.add_argument(f"--{side}-tls-key", help=f"PEM private key of --{side}-tls-cert")


def _security(args: argparse.Namespace, side: str) -> Security:
    auth, user = getattr(args, f"{side}_auth"), getattr(args, f"{side}_user")
    if auth == "password":
        if not user:
            raise CommandError(f"--{side}-auth password needs --{side}-user", EXIT_USAGE)
        if PASSWORD_VARIABLES[side] not in os.environ:
            raise CommandError(f"--{side}-auth password reads the password from {PASSWORD_VARIABLES[side]}", EXIT_USAGE)
    elif user:
        raise CommandError(f"--{side}-user goes with --{side}-auth password", EXIT_USAGE)
    return Security(
        auth=auth,
        user=user,
        password=os.environ.get(PASSWORD_VARIABLES[side]) if auth == "password" else None,
        kerberos_service_principal=getattr(args, f"{side}_kerberos_service_principal"),
        tls_ca=getattr(args, f"{side}_tls_ca"),
        tls_cert=getattr(args, f"{side}_tls_cert"),
        tls_key=getattr(args, f"{side}_tls_key"),
    )


def _copy(args: argparse.Namespace) -> int:
    if args.source == args.target:
        raise CommandError("--from and --to name the same metastore", EXIT_USAGE)
    options = CopyOptions(
        databases=args.databases,
        tables=args.tables,
        dry_run=args.dry_run,
        drop_missing=args.drop_missing,
        batch_size=args.batch_size,
        grants=args.grants,
        continue_events=args.continue_events,
        parallel=args.parallel,
    )
    source = Endpoint("source", args.source, _security(args, "from"), args.timeout, args.max_calls_per_second)
    target = Endpoint("target", args.target, _security(args, "to"), args.timeout)
    report = Copier(source, target, options, CopyProgress(args.progress_interval)).run()
    if args.verify and not report.stopped:
        try:
            Verifier(source, target, options, report).run()
        except EndpointDown as error:
            report.stopped = str(error)
    for line in report.summary():
        print(line)
    print(f"calls: {source.calls} to the source, {target.calls} to the target")
    sys.stdout.flush()
    return report.exit_code


def _patterns(text: str) -> list[str]:
    patterns = [p.strip() for p in text.split(",") if p.strip()]
    if not patterns:
        raise argparse.ArgumentTypeError("name at least one pattern")
    return patterns


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value
