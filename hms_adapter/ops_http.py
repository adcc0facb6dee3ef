"""The operations HTTP port of ``serve --metrics-port``: ``/metrics`` for Prometheus, ``/health/live`` and
``/health/ready`` for probes (Kubernetes' liveness and readiness).

One process serves it: the supervisor of ``--workers N`` (whose workers write their metrics to the shared
directory), or the single serving process. ``/metrics`` adds the locks held and waiting, read from the
catalog database at scrape time: shared state lives there, so the figure is right across processes and
servers. Ready means the catalog database answers and its schema layout is the one this build serves.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from hudi_catalog import Catalog
from hudi_catalog.schema_layout import SchemaState

log = logging.getLogger(__name__)

MULTIPROCESS_DIR_ENV = "PROMETHEUS_MULTIPROC_DIR"
LIVE, READY, METRICS = "/health/live", "/health/ready", "/metrics"


@contextmanager
def fresh_metrics_directory() -> Iterator[Path]:
    """A fresh directory for the serving processes' metric files, with prometheus_client pointed at it in
    this process and those it forks; removed when the block ends. Must be entered before prometheus_client
    is first imported. Only the process that entered it leaves the block: a forked worker exits through
    multiprocessing's own exit and leaves the files to the supervisor."""
    directory = Path(tempfile.mkdtemp(prefix="hudi-metastore-metrics-"))
    os.environ[MULTIPROCESS_DIR_ENV] = str(directory)
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def forget_process(pid: int) -> None:
    """Drop the live gauges of a process that ended (a worker restarted or stopped)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(pid)


class _LocksCollector:
    """``hudi_metastore_locks{state}``: live lock components acquired and waiting, from the database."""

    def __init__(self, catalog: Catalog) -> None:
        self._catalog = catalog

    def collect(self) -> Iterator:
        from prometheus_client.core import GaugeMetricFamily

        try:
            counts = self._catalog.locks.counts()
        except Exception as error:  # a scrape must answer with the other metrics while the database is away
            log.warning("cannot count locks for /metrics: %s", error)
            return
        family = GaugeMetricFamily("hudi_metastore_locks", "Live Hive lock components, by state.", labels=["state"])
        for state, count in counts.items():
            family.add_metric([state.name.lower()], count)
        yield family


class OpsServer:
    """The HTTP port: serves in a daemon thread until ``stop``. ``serve`` removes the metrics directory after."""

    def __init__(self, host: str, port: int, catalog: Catalog, metrics_directory: Path) -> None:
        self.catalog = catalog
        self.metrics_directory = metrics_directory
        self._httpd = ThreadingHTTPServer((host, port), _handler_for(self))
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="ops-http", daemon=True)

    def start(self) -> None:
        self._thread.start()
        log.info("metrics and health on http://%s:%d%s", self._httpd.server_address[0], self.port, METRICS)

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def metrics(self) -> bytes:
        from prometheus_client import CollectorRegistry, generate_latest, multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=str(self.metrics_directory))
        registry.register(_LocksCollector(self.catalog))
        return generate_latest(registry)

    def readiness(self) -> tuple[bool, str]:
        """Whether the catalog database answers with the schema layout this build serves, and why not."""
        try:
            status = self.catalog.schema.status()
        except Exception as error:
            return False, f"catalog database unreachable: {error}"
        if status.state is not SchemaState.CURRENT:
            found = "empty" if status.database_version is None else f"layout {status.database_version}"
            return False, f"catalog schema is {found}, this build serves layout {status.build_version}"
        return True, "ready"


def _handler_for(ops: OpsServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802  (http.server's name)
            path = self.path.split("?", 1)[0]
            if path == METRICS:
                from prometheus_client import CONTENT_TYPE_LATEST

                self._answer(HTTPStatus.OK, ops.metrics(), CONTENT_TYPE_LATEST)
            elif path == LIVE:
                self._json(HTTPStatus.OK, {"status": "live"})
            elif path == READY:
                ready, reason = ops.readiness()
                self._json(
                    HTTPStatus.OK if ready else HTTPStatus.SERVICE_UNAVAILABLE,
                    {"status": "ready" if ready else "not ready", "reason": reason},
                )
            else:
                self._json(HTTPStatus.NOT_FOUND, {"status": "not found", "paths": [METRICS, LIVE, READY]})

        def _json(self, status: HTTPStatus, body: dict) -> None:
            self._answer(status, json.dumps(body).encode(), "application/json")

        def _answer(self, status: HTTPStatus, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args) -> None:  # noqa: A002  (http.server's signature)
            log.debug("ops http %s: " + format, self.client_address[0], *args)

    return Handler
