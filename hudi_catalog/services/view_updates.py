"""Iceberg view updates off the committing call: one thread per server process takes them in turn.

A completed instant hands its table to the queue and its call answers at once. Requests for one table wait
as one: an update takes every instant completed before it starts, so a table asked for again while it waits
needs no second update; asked for while it is being updated, it is updated once more after. A request
carries the instant's metadata as the completing call decoded it (at most ``MAX_HANDED`` instants per table
are kept; the update decodes any other from the database). What a view has taken is kept in the database
(``hudi.iceberg.applied`` on the view table), never in the queue, so requests lost with their process (a
crash) leave nothing wrong behind: the table's next update, by any server, takes every instant its view
lacks.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from ..catalog_scope import catalog_scope, current_catalog
from ..hudi.metadata import DecodedCompletion

log = logging.getLogger(__name__)

STOP_TIMEOUT_SECONDS = 30.0
"""How long ``stop`` lets the thread finish the updates asked for before it (the thread is a daemon)."""
MAX_HANDED = 64
"""Decoded instants kept per waiting table; beyond, the oldest are dropped (the update reads them again)."""


@dataclass(frozen=True)
class HandedInstant:
    """A completed instant's decoded metadata handed from its commit to the view update: taken only for the
    table it was decoded for (its id: a table dropped and made again under the name is another table)."""

    table_id: int
    decoded: DecodedCompletion


Handed = dict[str, HandedInstant]
"""Decoded instants by requested time."""


class ViewUpdateQueue:
    """Tables whose Iceberg view is to be brought up to date, and the thread that does it.

    ``update(database, table, handed)`` must not raise (``IcebergViewService.update`` logs its failures); it
    runs in the catalog (``catalog_scope``) the request was made in.
    """

    def __init__(self, update: Callable[[str, str, Handed], None], name: str = "iceberg-view-updates") -> None:
        self._update = update
        self._pending: dict[tuple[str, str, str], Handed] = {}  # by (catalog, database, table), oldest first
        self._busy = False
        self._stopping = False
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.updates = 0
        """Updates made so far (for tests and metrics)."""

    @property
    def running(self) -> bool:
        return self._thread.is_alive() and not self._stopping

    @property
    def pending(self) -> int:
        """Tables waiting for their update, the one being updated included."""
        with self._changed:
            return len(self._pending) + self._busy

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = STOP_TIMEOUT_SECONDS) -> None:
        """Take no more requests; the thread finishes those made before and ends (waited for ``timeout``)."""
        with self._changed:
            self._stopping = True
            self._changed.notify_all()
        self._thread.join(timeout)
        if self._thread.is_alive():
            log.warning("%d Iceberg view updates left to the tables' next commits", self.pending)

    def submit(self, database: str, table: str, handed: Handed) -> None:
        """Ask for the table's view to be brought up to date, with instants already decoded; returns at once."""
        with self._changed:
            waiting = self._pending.setdefault((current_catalog(), database, table), {})
            waiting.update(handed)
            for requested_time in list(waiting)[: max(0, len(waiting) - MAX_HANDED)]:
                del waiting[requested_time]
            self._changed.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no update is asked for or running; False if ``timeout`` seconds passed first."""
        with self._changed:
            return self._changed.wait_for(lambda: not self._pending and not self._busy, timeout)

    def _run(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._pending or self._stopping)
                if not self._pending:
                    return
                key = next(iter(self._pending))
                handed = self._pending.pop(key)
                self._busy = True
            try:
                catalog, database, table = key
                with catalog_scope(catalog):
                    self._update(database, table, handed)
            except Exception:  # the update logs its own failures; this keeps the thread alive whatever happens
                log.exception("the Iceberg view update of %s.%s failed", key[1], key[2])
            finally:
                with self._changed:
                    self._busy = False
                    self.updates += 1
                    self._changed.notify_all()
