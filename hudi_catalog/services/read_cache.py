"""A process-local cache of catalog reads, keyed on a revision that the database holds.

Every change of a cached thing raises its revision in the database, in the same transaction as the
change. A read first fetches the current revision (in the query it needs anyway), then takes the cached
value only if it was stored under that same revision. So a change made by any server process sharing the
database is seen by the next read in every other process: nothing is invalidated by messages, and a value
read inside one transaction is stored under the revision that transaction saw.

Values are kept pickled by default: each hit returns a fresh copy that the caller may change freely, at a
fraction of the cost of a deep copy. A cache of values nobody changes (tuples of bytes or strings) keeps
them as they are.
"""

from __future__ import annotations

import pickle
import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar, cast

T = TypeVar("T")

DEFAULT_MAX_WEIGHT = 4096


class RevisionCache(Generic[T]):
    """Values each stored with the revision they were read at, up to ``max_weight`` in all (each value
    weighs what ``put`` is told, 1 by default); least recently used entries leave first.

    ``copies=False`` keeps values as they are, for values that are never changed (tuples of immutables).
    """

    def __init__(self, max_weight: int = DEFAULT_MAX_WEIGHT, copies: bool = True) -> None:
        self._max_weight = max_weight
        self._copies = copies
        # (revision, the value pickled or as it is, weight)
        self._entries: OrderedDict[Hashable, tuple[int, T | bytes, int]] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable, revision: int) -> T | None:
        """The value stored for ``key`` at ``revision`` (a copy, unless ``copies=False``); None if there is
        none. An entry of an older revision is dropped: no reader will ask for it again."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[0] != revision:
                if entry is not None and entry[0] < revision:
                    self._remove(key)
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            value = entry[1]
        return pickle.loads(cast(bytes, value)) if self._copies else cast(T, value)

    def put(self, key: Hashable, revision: int, value: T, weight: int = 1) -> None:
        """Stores ``value`` as read at ``revision``; an entry of a newer revision is kept, and a value
        heavier than the whole cache is not stored."""
        if weight > self._max_weight:
            return
        stored: T | bytes = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL) if self._copies else value
        with self._lock:
            current = self._entries.get(key)
            if current is not None:
                if current[0] > revision:
                    return
                self._remove(key)
            self._entries[key] = (revision, stored, weight)
            self._weight += weight
            while self._weight > self._max_weight:
                self._remove(next(iter(self._entries)))

    def _remove(self, key: Hashable) -> None:
        self._weight -= self._entries.pop(key)[2]
