"""How ``hudi-metastore copy`` shows its progress: a bar of tables and a count of partitions drawn by ``rich``
on a terminal's stderr, or, when stderr is not a terminal (a log file, a pipe), a log line every
``interval`` seconds with the same counts and the rate."""

from __future__ import annotations

import logging
import sys
import threading
import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

log = logging.getLogger(__name__)


class CopyProgress:
    def __init__(self, interval: float = 10.0, terminal: bool | None = None) -> None:
        self.tables_total = self.tables_done = self.partitions = 0
        self.interval = interval
        self._guard = threading.Lock()
        self.started = self._logged = time.monotonic()
        draw = sys.stderr.isatty() if terminal is None else terminal
        self._bar: Progress | None = None
        if draw:
            self._bar = Progress(
                TextColumn("tables"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[partitions]} partitions"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._task = self._bar.add_task("tables", total=0, partitions=0)
            self._bar.start()

    def add_tables(self, count: int) -> None:
        with self._guard:
            self.tables_total += count
            self._update()

    def table_done(self) -> None:
        with self._guard:
            self.tables_done += 1
            self._update()

    def partitions_done(self, count: int) -> None:
        with self._guard:
            self.partitions += count
            self._update()

    def _update(self) -> None:
        if self._bar is not None:
            self._bar.update(
                self._task, total=self.tables_total, completed=self.tables_done, partitions=self.partitions
            )
            return
        now = time.monotonic()
        if now - self._logged >= self.interval:
            self._logged = now
            elapsed = now - self.started
            log.info(
                "progress: %d of %d tables, %d partitions, %.0f partitions/s",
                self.tables_done,
                self.tables_total,
                self.partitions,
                self.partitions / elapsed if elapsed > 0 else 0.0,
            )

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
