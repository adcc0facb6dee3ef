"""What the catalog reports about its own work, for a front end's metrics.

The catalog calls a ``CatalogObserver`` it was opened with; the HMS front end passes one that feeds
Prometheus (``hms_adapter/metrics.py``), so the core depends on no metrics library. Each method runs in the
thread doing the work and must be cheap.
"""

from __future__ import annotations


class CatalogObserver:
    """Receives the catalog's reports; this base class ignores them all."""

    def connection_acquired(self, wait_seconds: float) -> None:
        """A transaction got a database connection after waiting ``wait_seconds`` for it (pool and connect)."""

    def connection_released(self) -> None:
        """A transaction gave its database connection back."""

    def events_logged(self, count: int) -> None:
        """A transaction wrote ``count`` notification events as its last statements."""

    def timeline_reconciled(self, catalog: str, database: str, table: str, behind: int) -> None:
        """The background reconciliation looked at a Hudi table's storage: the catalog lacked (or held in an
        earlier state) ``behind`` of its instants, now recorded (0: it was current)."""


IGNORED = CatalogObserver()
"""The observer of a catalog opened without one."""
