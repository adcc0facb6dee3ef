"""A process-local cache of catalog reads, keyed on a revision that the database holds.

Every change of a cached thing raises its revision in the database, in the same transaction as the
change. A read first fetches the current revision (in the query it needs anyway), then takes the cached
value only if it was stored under that same revision. So a change made by any server process sharing the
database is seen by the next read in every other process: nothing is invalidated by messages, and a value
read inside one transaction is stored under the revision that transaction saw.

Values are kept pickled by default: each hit returns a fresh copy that the caller may change freely, at a
fraction of the cost of a deep copy. A cache of values nobody changes (tuples of bytes or strings) keeps
them as they are.

Every cache of one server process draws on one ``CacheMemory``: entries are weighed in bytes, their keys
included, and the least recently used entries of whichever cache leave first once the caches hold more than
its bound together (``serve --cache-max-bytes``). So requests with large keys (filters, lists of names) or
large answers cannot make the process grow beyond it; a key a client writes, such as a filter, is best
given as a digest (``digest``).
"""

from __future__ import annotations

import hashlib
import itertools
import pickle
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar, cast

T = TypeVar("T")

DEFAULT_MAX_BYTES = 256 * 1024 * 1024
"""The bytes all read caches of one server process hold at most, by default (``serve --cache-max-bytes``)."""

ENTRY_OVERHEAD = 200
"""Bytes an entry costs besides its key and value: its place in the ordered dict and its record."""

_LEAVES = (str, bytes, bytearray, int, float, bool, type(None))


def approximate_size(value: object) -> int:
    """The bytes ``value`` holds with what it contains (containers, named tuples, objects' attributes), by
    ``sys.getsizeof``; a string reached twice counts twice, so the figure errs high.

    Example:
        >>> approximate_size(("ds=1", b"x" * 100)) > 100
        True
    """
    total, pending, seen = 0, [value], set()
    while pending:
        item = pending.pop()
        total += sys.getsizeof(item)
        if isinstance(item, _LEAVES):
            continue
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, (tuple, list, set, frozenset)):
            pending.extend(item)
        elif hasattr(item, "__dict__"):
            pending.append(vars(item))
        else:
            pending.extend(getattr(item, slot) for slot in getattr(type(item), "__slots__", ()) if hasattr(item, slot))
    return total


def digest(*parts: object) -> bytes:
    """A 32-byte digest of ``parts`` (strings, numbers, None and tuples of them), to key a cache on what a
    client wrote without keeping it: a 5 MB filter costs its cache entry 32 bytes."""
    return hashlib.blake2b(pickle.dumps(parts, protocol=pickle.HIGHEST_PROTOCOL), digest_size=32).digest()


class CacheMemory:
    """The bytes the read caches of one server process hold together: at most ``max_bytes``, least recently
    used entries (of whichever cache) leaving first; an entry over a quarter of it is not kept, so that one
    answer cannot empty every cache."""

    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        if max_bytes < 0:
            raise ValueError("max_bytes must not be negative")
        self.max_bytes = max_bytes
        self.lock = threading.Lock()
        # (cache number, key) -> (revision, the value pickled or as it is, bytes)
        self.entries: OrderedDict[tuple[int, Hashable], tuple[int, object, int]] = OrderedDict()
        self.bytes = 0
        self._numbers = itertools.count()

    @property
    def largest_entry(self) -> int:
        """The most bytes one entry may weigh."""
        return self.max_bytes // 4

    def new_cache_number(self) -> int:
        return next(self._numbers)

    def add(self, key: tuple[int, Hashable], entry: tuple[int, object, int]) -> None:
        """Store ``entry`` (its last field its bytes), then drop the least recently used entries until the
        caches fit. The caller holds ``lock``."""
        self.entries[key] = entry
        self.bytes += entry[2]
        while self.bytes > self.max_bytes:
            self.remove(next(iter(self.entries)))

    def remove(self, key: tuple[int, Hashable]) -> None:
        """Drop one entry. The caller holds ``lock``."""
        self.bytes -= self.entries.pop(key)[2]


class RevisionCache(Generic[T]):
    """Values each stored with the revision they were read at, in ``memory`` (a ``CacheMemory`` of their
    own when None); each entry weighs the bytes of its key and value (``approximate_size``, or the length
    of the pickle for kept copies, or what ``weigh`` says of the value).

    ``copies=False`` keeps values as they are, for values that are never changed (tuples of immutables).
    """

    def __init__(
        self,
        memory: CacheMemory | None = None,
        copies: bool = True,
        weigh: Callable[[T], int] | None = None,
    ) -> None:
        self._memory = memory if memory is not None else CacheMemory()
        self._number = self._memory.new_cache_number()
        self._copies = copies
        self._weigh = weigh
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable, revision: int) -> T | None:
        """The value stored for ``key`` at ``revision`` (a copy, unless ``copies=False``); None if there is
        none. An entry of an older revision is dropped: no reader will ask for it again."""
        memory, full_key = self._memory, (self._number, key)
        with memory.lock:
            entry = memory.entries.get(full_key)
            if entry is None or entry[0] != revision:
                if entry is not None and entry[0] < revision:
                    memory.remove(full_key)
                self.misses += 1
                return None
            memory.entries.move_to_end(full_key)
            self.hits += 1
            value = entry[1]
        return pickle.loads(cast(bytes, value)) if self._copies else cast(T, value)

    def put(self, key: Hashable, revision: int, value: T) -> None:
        """Stores ``value`` as read at ``revision``; an entry of a newer revision is kept, and an entry
        heavier than ``CacheMemory.largest_entry`` is not stored."""
        memory, full_key = self._memory, (self._number, key)
        stored: object = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL) if self._copies else value
        if self._copies:
            value_bytes = sys.getsizeof(stored)
        else:
            value_bytes = self._weigh(value) if self._weigh is not None else approximate_size(value)
        weight = ENTRY_OVERHEAD + approximate_size(key) + value_bytes
        if weight > memory.largest_entry:
            return
        with memory.lock:
            current = memory.entries.get(full_key)
            if current is not None:
                if current[0] > revision:
                    return
                memory.remove(full_key)
            memory.add(full_key, (revision, stored, weight))
