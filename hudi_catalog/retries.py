"""Calls that survive short database outages: a call whose transaction failed for a transient reason (the
connection lost, the server restarting or failing over, a deadlock, a lock wait timeout) runs again, with
backoff, within a time budget, as long as none of its transactions committed. A call is never run again
after one of its changes committed, nor when a commit's outcome is unknown, so no change applies twice.

``Store`` reports each commit (``note_commit``) and raises ``TransientStorageError`` for what may succeed
if tried again; ``run_retrying`` is what a front end wraps each call in.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TypeVar

from .errors import StorageError, TransientStorageError

log = logging.getLogger(__name__)

T = TypeVar("T")

_commits: ContextVar[list[int] | None] = ContextVar("hudi_metastore_call_commits", default=None)


@dataclass(frozen=True)
class RetryPolicy:
    budget_seconds: float = 10.0
    """How long a call keeps trying (``serve --db-retry-budget``); 0 turns retrying off."""
    first_delay: float = 0.05
    max_delay: float = 1.0


def note_commit() -> None:
    """A transaction of the running call committed: the call may no longer run again."""
    holder = _commits.get()
    if holder is not None:
        holder[0] += 1


def run_retrying(action: Callable[[], T], policy: RetryPolicy, name: str = "call") -> T:
    """``action()``, run again after a ``TransientStorageError`` while nothing it did committed and the
    budget lasts; then the last error. A transient error after one of its transactions committed is raised
    as a plain ``StorageError``: the call was partly applied, and a client must not take it for one that
    changed nothing (front ends word a ``TransientStorageError`` as Hive's client retries)."""
    holder = [0]
    token = _commits.set(holder)
    try:
        deadline = time.monotonic() + policy.budget_seconds
        delay, attempt = policy.first_delay, 1
        while True:
            try:
                return action()
            except TransientStorageError as error:
                if holder[0]:  # a transaction of the call committed: its error must not invite a retry
                    raise StorageError(
                        "The catalog database failed after part of the call was applied; read back what it "
                        "changed before sending it again",
                        detail=error.detail,
                    ) from error
                pause = delay * random.uniform(0.5, 1.0)
                if time.monotonic() + pause > deadline:
                    raise
                log.warning("%s: %s; attempt %d again in %.2f s", name, error, attempt + 1, pause)
                time.sleep(pause)
                delay, attempt = min(delay * 2, policy.max_delay), attempt + 1
    finally:
        _commits.reset(token)
