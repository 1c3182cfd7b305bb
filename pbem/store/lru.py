"""A per-process cache bounded by the memory its values hold, not by their number: a game
at ply 400 or a Magnet board weighs many times a game at ply 10 or a Mastery board."""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Hashable


class BytesLRU:
    """Values by key, each put with its size in bytes (an estimate); once they hold more
    than ``max_bytes`` the least recently used are dropped, the newest always kept."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.nbytes = 0
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Any | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return entry[0]

    def put(self, key: Hashable, value: Any, size: int) -> None:
        with self._lock:
            self._store(key, value, size)

    def _store(self, key: Hashable, value: Any, size: int) -> None:
        """``put`` with the lock held (for subclasses that check what they replace)."""
        known = self._entries.get(key)
        if known is not None:
            self.nbytes -= known[1]
        self._entries[key] = (value, size)
        self._entries.move_to_end(key)
        self.nbytes += size
        while self.nbytes > self.max_bytes and len(self._entries) > 1:
            self.nbytes -= self._entries.popitem(last=False)[1][1]

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.nbytes = 0
