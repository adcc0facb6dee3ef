"""Revisions: the numbers read caches key a row's model on, raised by every change of the row."""

from __future__ import annotations

import time


def first_revision() -> int:
    """A new row's revision: the time in microseconds. SQLite (and MariaDB after a restart) may give a dropped
    row's id to a new one; starting above every revision the dropped one reached (one per change, each taking
    longer than a microsecond) keeps a read cache keyed on (id, revision) from confusing the two."""
    return time.time_ns() // 1000
