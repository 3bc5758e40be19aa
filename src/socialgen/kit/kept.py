"""A small least-recently-used cache for what a Runtime keeps (`runtime.held`): the
creators' trained rankers (insights/ranking.py). Safe across threads; standard library
only, so a Runtime makes one at start for nothing.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

# Trained rankers a Runtime keeps (insights/ranking.py; a few workspaces' latest).
KEPT_RANKERS = 8

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Kept(Generic[K, V]):
    """The newest `limit` values, by key. `get_or_make` makes a missing one outside the
    lock (making may be slow: other keys need not wait); two threads making the same
    key at once both make it, and the later one is kept."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._values: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
        value = make()
        with self._lock:
            self._values[key] = value
            while len(self._values) > self._limit:
                self._values.popitem(last=False)
        return value

    def __len__(self) -> int:
        with self._lock:
            return len(self._values)
