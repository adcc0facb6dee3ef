"""The server's own figures over the last half hour, for the health page's small charts.

The Thrift and REST front ends record Prometheus metrics in files of a shared directory (prometheus_client's
multiprocess mode; ``serve --console-port`` records them, as ``--metrics-port`` does). ``MetricsHistory``
reads that directory every ``interval`` seconds on a thread of its own and keeps a bounded series of each
figure: rates from the counters' growth between two samples, gauges as read. Every process of ``--workers``
reads the same directory, so each draws the same server-wide figures.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

SAMPLE_SECONDS = 5.0
KEPT_SAMPLES = 360
"""Half an hour of samples, five seconds apart."""


@dataclass(frozen=True)
class Series:
    """One charted figure: its title, its unit and its ``(epoch seconds, value)`` points, oldest first."""

    title: str
    unit: str
    points: tuple[tuple[float, float], ...]

    @property
    def last(self) -> float | None:
        return self.points[-1][1] if self.points else None


_CALLS = "hudi_metastore_thrift_calls_total"
_ERRORS = "hudi_metastore_thrift_call_errors_total"
_DURATION = "hudi_metastore_thrift_call_duration_seconds"
_REST = "hudi_metastore_iceberg_rest_requests_total"
_CONNECTIONS = "hudi_metastore_open_connections"
_POOL = "hudi_metastore_db_pool_connections_in_use"
_EVENTS = "hudi_metastore_notification_events_written_total"

_CHARTS = (
    ("calls", "Thrift calls", "per second"),
    ("errors", "Thrift call errors", "per second"),
    ("latency", "Mean Thrift call time", "ms"),
    ("rest", "Iceberg REST requests", "per second"),
    ("connections", "Open Thrift connections", ""),
    ("pool", "Catalog database connections in use", ""),
    ("events", "Notification events written", "per second"),
)


class MetricsHistory:
    """Samples the metric files of ``directory`` every ``interval`` seconds until ``stop``."""

    def __init__(self, directory: Path, interval: float = SAMPLE_SECONDS, kept: int = KEPT_SAMPLES) -> None:
        self.directory = directory
        self.interval = interval
        self._lock = threading.Lock()
        self._totals: dict[str, float] | None = None
        self._taken_at = 0.0
        self._points: dict[str, deque[tuple[float, float]]] = {key: deque(maxlen=kept) for key, _, _ in _CHARTS}
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="console-metrics", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(self.interval + 1)

    def _run(self) -> None:
        while True:
            try:
                self.sample()
            except Exception:  # a figure missing for a while beats a console without charts
                log.warning("cannot sample the metrics for the console", exc_info=True)
            if self._stopping.wait(self.interval):
                return

    def sample(self, at_least_seconds: float = 0.0) -> None:
        """Read the figures now (unless the last sample is younger than ``at_least_seconds``)."""
        with self._lock:
            now = time.time()
            if now - self._taken_at < at_least_seconds:
                return
            totals = _totals(self._read())
            previous, elapsed = self._totals, now - self._taken_at
            self._totals, self._taken_at = totals, now
            for key in ("connections", "pool"):
                self._points[key].append((now, totals[key]))
            if previous is None or elapsed <= 0:
                return
            for key in ("calls", "errors", "rest", "events"):
                self._points[key].append((now, max(0.0, totals[key] - previous[key]) / elapsed))
            calls = totals["duration_count"] - previous["duration_count"]
            spent = totals["duration_sum"] - previous["duration_sum"]
            self._points["latency"].append((now, 1000 * spent / calls if calls > 0 else 0.0))

    def series(self) -> list[Series]:
        with self._lock:
            return [Series(title, unit, tuple(self._points[key])) for key, title, unit in _CHARTS]

    def _read(self) -> Iterable:
        from prometheus_client import CollectorRegistry
        from prometheus_client.multiprocess import MultiProcessCollector

        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=str(self.directory))
        return registry.collect()


def _totals(families: Iterable) -> dict[str, float]:
    """The server-wide sum of each sampled figure (a counter's samples are named ``<name>_total``)."""
    totals = dict.fromkeys(("calls", "errors", "rest", "events", "connections", "pool"), 0.0)
    totals.update(duration_sum=0.0, duration_count=0.0)
    names = {
        _CALLS: "calls",
        _ERRORS: "errors",
        _REST: "rest",
        _EVENTS: "events",
        _CONNECTIONS: "connections",
        _POOL: "pool",
        _DURATION + "_sum": "duration_sum",
        _DURATION + "_count": "duration_count",
    }
    for name, value in _samples(families):
        key = names.get(name)
        if key is not None:
            totals[key] += value
    return totals


def _samples(families: Iterable) -> Iterator[tuple[str, float]]:
    for family in families:
        for sample in family.samples:
            yield sample.name, sample.value
