"""Prometheus metrics of a serving process (``serve --metrics-port``).

The metrics are kept in prometheus_client's multiprocess mode, so the processes of ``serve --workers N`` and
their restarts report as one target: each writes its values to files in one directory that the HTTP
endpoint (``hms_adapter/ops_http.py``) reads at scrape time. prometheus_client chooses where values live
when it is first imported, so this module is imported only after ``ops_http.fresh_metrics_directory``; ``serve``
does both before it starts any server.

Every name follows Prometheus' conventions: the ``hudi_metastore_`` prefix, base units (seconds), ``_total``
for counters.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from prometheus_client import Counter, Gauge, Histogram

from hudi_catalog.observability import CatalogObserver

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
"""Seconds: most metastore calls answer in well under a millisecond to a few milliseconds."""

CALLS = Counter("hudi_metastore_thrift_calls_total", "Thrift calls answered, by method.", ["method"])
CALL_ERRORS = Counter(
    "hudi_metastore_thrift_call_errors_total",
    "Thrift calls that failed, by method and the exception raised.",
    ["method", "exception"],
)
CALL_DURATION = Histogram(
    "hudi_metastore_thrift_call_duration_seconds",
    "Time from a call's arguments read to its answer ready, by method.",
    ["method"],
    buckets=LATENCY_BUCKETS,
)
REST_REQUESTS = Counter(
    "hudi_metastore_iceberg_rest_requests_total",
    "Iceberg REST requests answered, by operation (the spec's names) and HTTP status.",
    ["operation", "status"],
)
REST_DURATION = Histogram(
    "hudi_metastore_iceberg_rest_request_duration_seconds",
    "Time from an Iceberg REST request's arrival to its answer ready, by operation.",
    ["operation"],
    buckets=LATENCY_BUCKETS,
)
OPEN_CONNECTIONS = Gauge(
    "hudi_metastore_open_connections", "Client connections open on the Thrift ports.", multiprocess_mode="livesum"
)
POOL_IN_USE = Gauge(
    "hudi_metastore_db_pool_connections_in_use",
    "Catalog database connections held by transactions.",
    multiprocess_mode="livesum",
)
POOL_WAIT = Histogram(
    "hudi_metastore_db_pool_wait_seconds",
    "Time a transaction waited for a catalog database connection.",
    buckets=LATENCY_BUCKETS,
)
EVENTS_LOGGED = Counter(
    "hudi_metastore_notification_events_written_total", "Notification events written to the catalog database."
)
METASERVER_COMMITS = Counter(
    "hudi_metastore_metaserver_commits_total", "Instants completed through Hudi's metaserver protocol."
)
TABLE_INSTANTS_BEHIND = Gauge(
    "hudi_metastore_hudi_table_instants_behind",
    "Instants of a Hudi table's storage the catalog lacked (or held in an earlier state) when the background "
    "reconciliation (serve --follow-interval) last looked; 0: it was current.",
    ["catalog", "database", "table"],
    multiprocess_mode="livemax",
)


_per_method: dict[str, tuple] = {}
"""Each method's call counter and duration histogram (looking the labels up costs more than recording)."""


def record_call(method: str, seconds: float, error: str | None) -> None:
    """The processor's report of one call (``error``: the exception's class name, None when it answered)."""
    children = _per_method.get(method)
    if children is None:
        children = _per_method[method] = (CALLS.labels(method), CALL_DURATION.labels(method))
    calls, duration = children
    calls.inc()
    duration.observe(seconds)
    if error is not None:
        CALL_ERRORS.labels(method, error).inc()


def record_rest_request(operation: str, status: int, seconds: float) -> None:
    """The Iceberg REST port's report of one request."""
    REST_REQUESTS.labels(operation, str(status)).inc()
    REST_DURATION.labels(operation).observe(seconds)


def record_metaserver_commit() -> None:
    METASERVER_COMMITS.inc()


class PrometheusObserver(CatalogObserver):
    """The catalog's ``CatalogObserver`` for the metrics above."""

    def connection_acquired(self, wait_seconds: float) -> None:
        POOL_IN_USE.inc()
        POOL_WAIT.observe(wait_seconds)

    def connection_released(self) -> None:
        POOL_IN_USE.dec()

    def events_logged(self, count: int) -> None:
        EVENTS_LOGGED.inc(count)

    def timeline_reconciled(self, catalog: str, database: str, table: str, behind: int) -> None:
        TABLE_INSTANTS_BEHIND.labels(catalog, database, table).set(behind)


class ConnectionGauge:
    """Keeps ``hudi_metastore_open_connections`` at the servers' count, read once a second."""

    INTERVAL_SECONDS = 1.0

    def __init__(self, count: Callable[[], int]) -> None:
        self._count = count
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="metrics-connections", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(5)

    def _run(self) -> None:
        while not self._stopped.is_set():
            OPEN_CONNECTIONS.set(self._count())
            self._stopped.wait(self.INTERVAL_SECONDS)
