"""How ``hudi-metastore import`` shows its progress: bars drawn by ``rich`` on a terminal's stderr, or, when stderr is
not a terminal (a log file, a pipe), a log line every ``--progress-interval`` seconds. Both show the counts
the importer reports (``hudi_catalog.import_progress``): instants decoded, then instants written
and commits applied, with the rate and the time left."""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

from hudi_catalog.import_progress import ImportProgress

log = logging.getLogger(__name__)


class _Step:
    """One step of the import (decoding, then writing): how much of ``total`` is done, and since when."""

    def __init__(self, verb: str, total: int, now: float) -> None:
        self.verb, self.total, self.done, self.applied, self.started = verb, total, 0, 0, now

    @property
    def complete(self) -> bool:
        return self.done >= self.total

    def rate(self, now: float) -> float:
        elapsed = now - self.started
        return self.done / elapsed if elapsed > 0 else 0.0

    def seconds_left(self, now: float) -> float | None:
        rate = self.rate(now)
        return (self.total - self.done) / rate if rate > 0 else None

    def counts(self) -> str:
        applied = f", {self.applied} commits applied" if self.verb == "written" else ""
        return f"{self.done}/{self.total} instants {self.verb}{applied}"


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class _Steps(ImportProgress):
    """Keeps the current step from the importer's reports; ``show`` is what a subclass does with it."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.total = 0
        self.step: _Step | None = None

    def listed(self, instants: int) -> None:
        self.total = instants
        self._begin("decoded")
        self.show(final=self.total == 0)

    def decoded(self, instants: int) -> None:
        self._advance("decoded", instants, 0)

    def written(self, instants: int, applied: int) -> None:
        self._advance("written", instants, applied)

    def _begin(self, verb: str) -> None:
        self.step = _Step(verb, self.total, self.clock())

    def _advance(self, verb: str, instants: int, applied: int) -> None:
        if self.step is None or self.step.verb != verb:
            self._begin(verb)
        step = self.step
        if step is None:
            return
        step.done += instants
        step.applied += applied
        self.show(final=step.complete)
        if step.complete and verb == "decoded":  # writing starts now (registering the table first)
            self._begin("written")

    def show(self, final: bool) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """The import stopped (done, or failed part way)."""


class ProgressBar(_Steps):
    """Bars on a terminal, drawn by ``rich`` to the terminal's width, one per step, each kept when done::

    instants decoded  ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 120/120                    0:00:01
    instants written  ━━━━━━━━━━━━━━╸━━━━━━━━━━━━━━━━━━━  50/120 48 commits applied 0:00:01
    """

    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(clock)
        self._bars = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[applied]}"),
            TimeRemainingColumn(elapsed_when_finished=True),
            console=Console(file=stream),
        )
        self._tasks: dict[str, TaskID] = {}
        self._stream = stream
        self._moved: list[tuple[logging.StreamHandler, TextIO]] = []

    def _start(self) -> None:
        """Draws from now on; log lines written meanwhile go above the bars (through rich's stand-in for
        stderr) instead of into them."""
        self._bars.start()
        for handler in logging.getLogger().handlers:
            if isinstance(handler, logging.StreamHandler) and handler.stream is self._stream:
                self._moved.append((handler, handler.setStream(sys.stderr) or self._stream))

    def show(self, final: bool) -> None:
        step = self.step
        if step is None:
            return
        if not self._tasks:
            self._start()
        task = self._tasks.get(step.verb)
        if task is None:
            task = self._tasks[step.verb] = self._bars.add_task(f"instants {step.verb}", total=step.total, applied="")
        applied = f"{step.applied} commits applied" if step.verb == "written" else ""
        self._bars.update(task, completed=step.done, applied=applied, refresh=final)

    def close(self) -> None:
        """Stops the drawing (done, or the import failed), so that what follows starts on a line of its own."""
        self._bars.stop()
        for handler, stream in self._moved:
            handler.setStream(stream)
        self._moved.clear()


class ProgressLog(_Steps):
    """A log line every ``interval`` seconds while a step runs, and one when it completes."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(clock)
        self.interval = interval
        self._logged = float("-inf")

    def _begin(self, verb: str) -> None:
        self._logged = self.clock()  # the first line comes an interval into the step
        super()._begin(verb)

    def show(self, final: bool) -> None:
        step, now = self.step, self.clock()
        if step is None or (not final and (step.done == 0 or now - self._logged < self.interval)):
            return
        self._logged = now
        if final:
            log.info("%s in %s", step.counts(), _duration(now - step.started))
        else:
            log.info("%s (%.1f/s, %s left)", step.counts(), step.rate(now), _duration(step.seconds_left(now)))


def import_progress(stream: TextIO, interval: float) -> ProgressBar | ProgressLog:
    """A bar when ``stream`` is a terminal, log lines every ``interval`` seconds otherwise."""
    return ProgressBar(stream) if stream.isatty() else ProgressLog(interval)
