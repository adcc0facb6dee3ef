"""Chunking of long id and name lists, so each ``IN (...)`` stays within the drivers' parameter limits."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

IN_CHUNK = 5000
"""The most values bound into one ``IN`` list (SQLite allows 32,766 parameters per statement)."""

T = TypeVar("T")


def chunks(values: Sequence[T], size: int = IN_CHUNK) -> Iterator[list[T]]:
    """``values`` in consecutive lists of at most ``size``."""
    for start in range(0, len(values), size):
        yield list(values[start : start + size])
