"""Wiring ``hudi-metastore serve``: from its options to a catalog, its Thrift ports (``make_server``,
``make_metaserver``), the background tasks, the operations port and, with ``--workers``, the worker
processes (``serve_command``)."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import ssl
import sys
import threading
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import NoReturn, Protocol

from hudi_catalog import Catalog
from hudi_catalog.authorization import AccessMode, AccessPolicy
from hudi_catalog.catalog import EventCleaner, SnapshotSyncer, TimelineReconciler
from hudi_catalog.config import STORAGE_CONFIG_ENV
from hudi_catalog.delegation_tokens import TokenLifetimes
from hudi_catalog.iceberg_views import ViewSettings
from hudi_catalog.observability import IGNORED
from hudi_catalog.pruning.hive4_like import LikeRule
from hudi_catalog.pruning.parse import FilterLimits
from hudi_catalog.retries import RetryPolicy

from .audit import AuditLog
from .authentication import check_options, exposure_warning, password_file, sasl_mechanisms, user_names
from .catalog_access import hive_wire, refuse_missing_catalog
from .descriptors import fit_max_connections
from .handler import MetastoreHandler
from .idl import hive, metaserver
from .metaserver import METASERVER_PREFERENCES, MetaserverHandler
from .ops_http import OpsServer, forget_process, fresh_metrics_directory
from .passwords import PasswordFile
from .processor import CallRecorder, MetastoreProcessor
from .sasl import MechanismFactories
from .server import ServingLimits, ThriftServer
from .tls import ServerTls, TlsFiles
from .workers import WorkerPool, install_stop_handlers, reserve_port

log = logging.getLogger("hudi_metastore")


def make_server(
    catalog: Catalog,
    host: str,
    port: int,
    transport: str = "buffered",
    protocol: str = "binary",
    reuse_port: bool = False,
    tls: ServerTls | None = None,
    audit: AuditLog | None = None,
    sasl: MechanismFactories | None = None,
    user_name: Callable[[str], str] = str,
    limits: ServingLimits = ServingLimits(),
    on_call: CallRecorder | None = None,
) -> ThriftServer:
    """The Hive Metastore port; ``user_name`` maps authenticated principals to user names; ``on_call``
    hears of each call (metrics)."""
    handler = MetastoreHandler(catalog, user_name=user_name)
    processor = MetastoreProcessor(hive.ThriftHiveMetastore, handler, audit=audit, on_call=on_call)
    return ThriftServer(processor, host, port, transport, protocol, reuse_port, tls=tls, sasl=sasl, limits=limits)


def make_metaserver(
    catalog: Catalog,
    host: str,
    port: int,
    reuse_port: bool = False,
    tls: ServerTls | None = None,
    audit: AuditLog | None = None,
    limits: ServingLimits = ServingLimits(),
    on_call: CallRecorder | None = None,
    on_commit: Callable[[], None] = lambda: None,
) -> ThriftServer:
    """Hudi's metaserver protocol, as its clients speak it: binary protocol over a socket."""
    processor = MetastoreProcessor(
        metaserver.ThriftHoodieMetaserver,
        MetaserverHandler(catalog, on_commit),
        METASERVER_PREFERENCES,
        audit=audit,
        on_call=on_call,
    )
    return ThriftServer(
        processor, host, port, "buffered", "binary", reuse_port, name="Hudi metaserver", tls=tls, limits=limits
    )


def _serving_limits(args: argparse.Namespace) -> ServingLimits:
    return ServingLimits(
        args.max_connections,
        args.idle_timeout,
        args.read_timeout,
        args.max_message_size,
        args.threads,
        args.graceful_timeout,
    )


def _token_lifetimes(args: argparse.Namespace) -> TokenLifetimes:
    return TokenLifetimes(args.token_renew_interval, args.token_max_lifetime, args.token_key_update_interval)


def _tls(args: argparse.Namespace) -> ServerTls | None:
    """The TLS of ``serve``'s options; ``SystemExit`` with a message when they do not go together."""
    if not (args.tls_cert or args.tls_key or args.tls_ca):
        return None
    if not (args.tls_cert and args.tls_key):
        raise SystemExit("hudi-metastore: --tls-cert and --tls-key go together (and --tls-ca needs them)")
    try:
        return ServerTls(TlsFiles(args.tls_cert, args.tls_key, args.tls_ca))
    except (OSError, ssl.SSLError) as error:
        raise SystemExit(f"hudi-metastore: cannot use the TLS files: {error}") from None


def serve_command(args: argparse.Namespace) -> int:
    """``hudi-metastore serve``: check the options, then serve in this process or in ``--workers`` ones."""
    if args.workers < 1:
        print("hudi-metastore: --workers must be at least 1", file=sys.stderr)
        return 2
    _tls(args)  # bad TLS or authentication options stop here, before any worker starts
    check_options(args)
    if args.storage_config:  # read by the file systems of this process and of the workers it forks
        os.environ[STORAGE_CONFIG_ENV] = args.storage_config
    if args.iceberg_rest_port is not None:
        _check_rest_extra()
    if not args.create_catalog:
        refuse_missing_catalog(args, "or create one there with `hudi-metastore init-db` (or serve --create-catalog)")
    warning = exposure_warning(args)
    if warning:
        log.warning(warning)
    # before prometheus_client is imported, by this process or the workers it forks; the console charts them
    with fresh_metrics_directory() if _records_metrics(args) else nullcontext() as directory:
        if args.workers == 1:
            return _serve_process(args, metrics_directory=directory)
        return _serve_workers(args, directory)


def _records_metrics(args: argparse.Namespace) -> bool:
    """Whether the serving processes record metrics: for the operations port, or for the console's charts."""
    return args.metrics_port is not None or args.console_port is not None


def _ops_server(args: argparse.Namespace, catalog: Catalog, metrics_directory: Path | None) -> OpsServer | None:
    """The operations port of ``--metrics-port`` (None when off)."""
    if args.metrics_port is None or metrics_directory is None:
        return None
    return OpsServer(args.metrics_host or args.host, args.metrics_port, catalog, metrics_directory)


def _port_error(args: argparse.Namespace, error: OSError) -> int:
    metrics = "" if args.metrics_port is None else f", metrics {args.metrics_host or args.host}:{args.metrics_port}"
    rest = "" if args.iceberg_rest_port is None else f", Iceberg REST {args.iceberg_rest_port}"
    console = "" if args.console_port is None else f", console {args.console_port}"
    print(
        f"hudi-metastore: cannot listen on {args.host} (ports {args.port}, {args.metaserver_port}{metrics}{rest}"
        f"{console}): {error}; choose others with --port / --metaserver-port / --metrics-port / --iceberg-rest-port "
        "/ --console-port, or --no-metaserver",
        file=sys.stderr,
    )
    return 1


class _BackgroundTask(Protocol):
    """A thread of work beside the serving: event clean-up, snapshot sync, connection gauge."""

    def start(self) -> None: ...

    def stop(self) -> None: ...


def _serve_process(
    args: argparse.Namespace, worker: int | None = None, ready=None, metrics_directory: Path | None = None
) -> int:
    """Serves in this process until SIGTERM/SIGINT; as worker ``worker`` of ``--workers`` when given.
    With ``--metrics-port`` or ``--console-port``, records metrics (in ``metrics_directory``, which a single
    process also serves over HTTP; a worker's supervisor serves it otherwise)."""
    tls = _tls(args)
    recording = _records_metrics(args)
    if recording:
        from . import metrics  # only now: prometheus_client reads the metrics directory when first imported
    # a worker's supervisor has made the schema ready already
    catalog = Catalog.open(
        args.db_url,
        args.warehouse,
        init=worker is None,
        snapshot_sync=args.snapshot_sync,
        txn_timeout=args.txn_timeout,
        **hive_wire(),
        event_ttl=args.event_ttl,
        token_lifetimes=_token_lifetimes(args),
        access_policy=AccessPolicy(AccessMode(args.authorization), frozenset(args.admin)),
        filter_limits=FilterLimits(args.max_filter_length, args.max_filter_terms),
        filter_like=LikeRule(args.filter_like),
        retry_policy=RetryPolicy(args.db_retry_budget),
        data_roots=args.data_root,
        upgrade_schema=args.upgrade_schema,
        observer=metrics.PrometheusObserver() if recording else IGNORED,
        iceberg_views=ViewSettings(args.iceberg_views, args.iceberg_view_suffix, args.iceberg_metadata_root),
        cache_max_bytes=args.cache_max_bytes,
        max_batch_partitions=args.max_batch_partitions,
    )
    if worker is None:  # a worker inherits its supervisor's
        catalog.compile_statements()
    passwords = password_file(args)  # read once, for the Thrift ports and the REST port
    sasl = sasl_mechanisms(args, catalog.delegation_tokens.verify, passwords)
    # with several workers one of them applies pending instants and removes old events: the work is per
    # database, not per process
    background: list[_BackgroundTask] = [EventCleaner(catalog)] if not worker else []
    if args.snapshot_sync == "async" and not worker:
        background.append(SnapshotSyncer(catalog))
    if args.follow_interval > 0 and not worker:
        background.append(TimelineReconciler(catalog, args.follow_interval))
    # every process: a commit answers without waiting for its Iceberg view, which this process's thread updates
    background.append(catalog.iceberg_views.updates_in_background())
    reuse_port = worker is not None
    try:
        audit = AuditLog(args.audit_log) if args.audit_log else None
        limits = _serving_limits(args)
        ports = 1 if args.no_metaserver else 2
        limits = replace(limits, max_connections=fit_max_connections(limits.max_connections, ports))
        on_call = metrics.record_call if recording else None
        server = make_server(
            catalog,
            args.host,
            args.port,
            args.transport,
            args.protocol,
            reuse_port,
            tls,
            audit,
            sasl,
            user_names(args),
            limits,
            on_call,
        )
        hudi_server = (
            None
            if args.no_metaserver
            else make_metaserver(
                catalog,
                args.host,
                args.metaserver_port,
                reuse_port,
                tls,
                audit,
                limits,
                on_call,
                metrics.record_metaserver_commit if recording else lambda: None,
            )
        )
        ops = _ops_server(args, catalog, metrics_directory)
        on_request = metrics.record_rest_request if recording else None
        rest = _rest_server(args, catalog, reuse_port, tls, audit, passwords, on_request)
        console = _console_server(args, catalog, reuse_port, tls, audit, passwords)
    except OSError as error:  # a port in use: say which, without a traceback
        catalog.close()
        return _port_error(args, error)
    if recording:
        servers = [server] if hudi_server is None else [server, hudi_server]
        background.append(metrics.ConnectionGauge(lambda: sum(s.open_connections for s in servers)))

    def _stop(signum, _frame) -> None:
        log.info("received signal %d, stopping", signum)
        server.stop()
        if hudi_server is not None:
            hudi_server.stop()
        if rest is not None:
            rest.request_stop()
        if console is not None:
            console.request_stop()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    log.info(
        "catalog database %s, warehouse %s",
        catalog.store.engine.url.render_as_string(hide_password=True),
        catalog.warehouse.root,
    )
    metaserver = None
    if hudi_server is not None:
        metaserver = threading.Thread(target=hudi_server.serve_forever, name="hudi-metaserver", daemon=True)
        metaserver.start()
    for task in background:
        task.start()
    if ops is not None:
        ops.start()
    if rest is not None:
        rest.start()
    if console is not None:
        console.start()
    if ready is not None:
        ready.set()
    else:
        _print_listening(
            args.host,
            server.port,
            None if hudi_server is None else hudi_server.port,
            rest_port=None if rest is None else rest.port,
            console_port=None if console is None else console.port,
            secure=tls is not None,
        )
    server.serve_forever()
    drained = server.drained
    if metaserver is not None and hudi_server is not None:  # stopped with the Thrift port, draining meanwhile
        metaserver.join(args.graceful_timeout + 1)
        drained = drained and hudi_server.drained and not metaserver.is_alive()
    if rest is not None:
        drained = rest.stop() and drained
    if console is not None:
        drained = console.stop() and drained
    if ops is not None:
        ops.stop()
    for task in background:
        task.stop()
    catalog.close()
    if not drained:
        _exit_now()
    return 0


def _exit_now() -> NoReturn:
    """Exit although calls are still running past ``--graceful-timeout``: the interpreter's exit would wait
    for their threads. Their transactions roll back as the process ends; nothing of them was answered."""
    logging.shutdown()
    os._exit(0)


def _http_security(
    args: argparse.Namespace, tls: ServerTls | None, audit: AuditLog | None, passwords: PasswordFile | None
) -> dict:
    """What an HTTP front end (the REST port, the console) takes of the Thrift ports' security: the
    ``--auth`` mode, the password file's check and groups, the TLS context and the audit log."""
    return {
        "auth": args.auth,
        "check_password": passwords.check if passwords is not None else None,
        "groups_of": passwords.groups_of if passwords is not None else lambda user: (),
        "ssl_context": tls.context() if tls is not None else None,
        "audit": audit,
    }


def _rest_server(
    args: argparse.Namespace,
    catalog: Catalog,
    reuse_port: bool,
    tls: ServerTls | None,
    audit: AuditLog | None,
    passwords: PasswordFile | None,
    on_request: Callable[[str, int, float], None] | None,
):
    """The Iceberg REST port of ``--iceberg-rest-port`` (None when off), with the Thrift ports' TLS,
    authentication and audit log, its requests reported to ``on_request`` (the metrics)."""
    if args.iceberg_rest_port is None:
        return None
    _check_rest_extra()
    from iceberg_rest.security import RestSecurity
    from iceberg_rest.server import RestServer

    security = RestSecurity(**_http_security(args, tls, audit, passwords), on_request=on_request)
    return RestServer(
        catalog, args.host, args.iceberg_rest_port, reuse_port, security, args.threads, args.graceful_timeout
    )


def _console_server(
    args: argparse.Namespace,
    catalog: Catalog,
    reuse_port: bool,
    tls: ServerTls | None,
    audit: AuditLog | None,
    passwords: PasswordFile | None,
):
    """The web console of ``--console-port`` (None when off), with the Thrift ports' TLS, authentication
    and audit log; its health page charts the metrics this server's processes record."""
    if args.console_port is None:
        return None
    from console.security import ConsoleSecurity
    from console.server import ConsoleServer

    from .ops_http import MULTIPROCESS_DIR_ENV

    security = ConsoleSecurity(**_http_security(args, tls, audit, passwords))
    directory = os.environ.get(MULTIPROCESS_DIR_ENV)
    return ConsoleServer(
        catalog,
        args.host,
        args.console_port,
        reuse_port,
        security,
        Path(directory) if directory else None,
        args.threads,
        args.graceful_timeout,
    )


def _check_rest_extra() -> None:
    """``SystemExit`` naming the extra to install when the REST port's packages are missing."""
    try:
        import pyiceberg.table.update  # noqa: F401

        import iceberg_rest.server  # noqa: F401  (starlette, uvicorn and pyiceberg with it)
    except ImportError as error:
        raise SystemExit(
            f"hudi-metastore: --iceberg-rest-port needs the rest extra ({error.name} is missing): "
            "pip install 'hudi-metastore[rest]'"
        ) from None


def _print_listening(
    host: str,
    port: int,
    metaserver_port: int | None,
    workers: int = 1,
    rest_port: int | None = None,
    console_port: int | None = None,
    secure: bool = False,
) -> None:
    if console_port is not None:
        scheme = "https" if secure else "http"
        print(f"hudi-metastore serving the web console on {scheme}://{host}:{console_port}", flush=True)
    if rest_port is not None:
        print(f"hudi-metastore serving the Iceberg REST catalog on http://{host}:{rest_port}", flush=True)
    if metaserver_port is not None:
        print(f"hudi-metastore serving Hudi's metaserver protocol on thrift://{host}:{metaserver_port}", flush=True)
    suffix = f" ({workers} worker processes)" if workers > 1 else ""
    print(f"hudi-metastore listening on thrift://{host}:{port}{suffix}", flush=True)


def _serve_workers(args: argparse.Namespace, metrics_directory: Path | None) -> int:
    """``--workers N``: reserve the ports, create or migrate the schema once, then run N server processes;
    with ``--metrics-port`` this process serves the workers' metrics and the health probes."""
    ports = ["port"] + ([] if args.no_metaserver else ["metaserver_port"])
    ports += [name for name in ("iceberg_rest_port", "console_port") if getattr(args, name) is not None]
    reserved = []
    try:
        for name in ports:
            reserved.append(reserve_port(args.host, getattr(args, name)))
    except OSError as error:
        for sock in reserved:
            sock.close()
        return _port_error(args, error)
    for name, sock in zip(ports, reserved):  # a port given as 0 is the one reserved
        setattr(args, name, sock.getsockname()[1])
    # schema ready, and statements compiled (the workers inherit them), before the workers start
    catalog = Catalog.open(args.db_url, args.warehouse, upgrade_schema=args.upgrade_schema)
    catalog.compile_statements()
    try:
        ops = _ops_server(args, catalog, metrics_directory)
    except OSError as error:
        catalog.close()
        return _port_error(args, error)
    if ops is None:
        catalog.close()  # kept open only to answer the probes and count locks

    def run_worker(index: int, ready) -> None:
        for sock in reserved:
            sock.close()
        sys.exit(_serve_process(args, worker=index, ready=ready))

    pool = WorkerPool(
        run_worker,
        args.workers,
        on_exit=forget_process if ops is not None else lambda pid: None,
        graceful_timeout=args.graceful_timeout,
    )
    install_stop_handlers(pool)
    if not pool.start():
        return 1
    if ops is not None:
        ops.start()
    _print_listening(
        args.host,
        args.port,
        None if args.no_metaserver else args.metaserver_port,
        args.workers,
        args.iceberg_rest_port,
        args.console_port,
        secure=bool(args.tls_cert),
    )
    code = pool.supervise()
    if ops is not None:
        ops.stop()
        catalog.close()
    for sock in reserved:
        sock.close()
    return code
