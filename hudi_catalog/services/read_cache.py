"""A process-local cache of catalog reads, keyed on a revision that the database holds.

Every change of a cached thing raises its revision in the database, in the same transaction as the
change. A read first fetches the current revision (in the query it needs anyway), then takes the cached
value only if it was stored under that same revision. So a change made by any server process sharing the
database is seen by the next read in every other process: nothing is invalidated by messages, and a value
read inside one transaction is stored under the revision that transaction saw.

Values are kept pickled: each hit returns a fresh copy that the caller may change freely, at a fraction of
the cost of a deep copy.
"""

from __future__ import annotations

import pickle
import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

T = TypeVar("T")

DEFAULT_MAX_ENTRIES = 4096


class RevisionCache(Generic[T]):
    """At most ``max_entries`` values, each stored with the revision it was read at; least recently used
    entries leave first."""

    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        self._max_entries = max_entries
        self._entries: OrderedDict[Hashable, tuple[int, bytes]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable, revision: int) -> T | None:
        """A copy of the value stored for ``key`` at ``revision``; None if there is none."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[0] != revision:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            data = entry[1]
        return pickle.loads(data)

    def put(self, key: Hashable, revision: int, value: T) -> None:
        """Stores ``value`` as read at ``revision``; an entry of a newer revision is kept."""
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        with self._lock:
            current = self._entries.get(key)
            if current is not None and current[0] > revision:
                return
            self._entries[key] = (revision, data)
            self._entries.move_to_end(key)
            while len(self._entries) > self._max_entries:
                self._entries.popitem(last=False)
