"""Values memoized by an object's identity, for every layer (the standard library only).

Modules, functions, instructions and checked programs are compared structurally (or not
hashable), so hashing them costs as much as what is cached; their identity is free. An entry
keeps its object alive, so the object's ``id`` cannot be reused by another object while the entry
exists, and a lookup checks ``is`` as well. ``size`` bounds the entries (least recently used go
first); ``None`` keeps every entry for the cache's own lifetime (a per-pass or per-function cache).
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Hashable, Optional

_MISSING = object()


class IdentityCache:
    """``obj`` (plus an optional hashable ``tag``) -> a value, by identity."""

    __slots__ = ("_size", "_entries")

    def __init__(self, size: Optional[int] = None):
        self._size = size
        # id(obj), or (id(obj), tag) -> (obj, value)
        self._entries: dict = OrderedDict() if size else {}

    def get(self, obj: Any, tag: Hashable = None, default: Any = None) -> Any:
        """The value kept for ``obj`` (and ``tag``), else ``default``."""
        key = id(obj) if tag is None else (id(obj), tag)
        hit = self._entries.get(key)
        if hit is None or hit[0] is not obj:
            return default
        if self._size:
            self._entries.move_to_end(key)
        return hit[1]

    def put(self, obj: Any, value: Any, tag: Hashable = None) -> Any:
        """Keep ``value`` for ``obj`` (and ``tag``); returns ``value``."""
        key = id(obj) if tag is None else (id(obj), tag)
        self._entries[key] = (obj, value)
        if self._size:
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return value

    def get_or_compute(self, obj: Any, compute: Callable[[], Any], tag: Hashable = None) -> Any:
        """The value kept for ``obj``, computed by ``compute()`` and kept on a miss."""
        got = self.get(obj, tag, _MISSING)
        return self.put(obj, compute(), tag) if got is _MISSING else got

    def copy(self) -> "IdentityCache":
        """A cache of the same size holding the same entries (its own from now on)."""
        twin = IdentityCache(self._size)
        twin._entries = type(self._entries)(self._entries)
        return twin

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()


class BodyCache:
    """Values per function body: a function's blocks, by identity, and a hashable ``key`` of
    what else the value reads (its id, parameters, ...). The rounds of an iterated pass (icbe)
    rebuild the Function objects but keep the Block objects they did not change, so a body
    is recognised by its blocks (issue #28 item 1)."""

    __slots__ = ("_entries",)

    def __init__(self, size: int):
        self._entries = IdentityCache(size)     # first block -> (blocks, key, value)

    def get_or_compute(self, fn: Any, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The value kept for ``fn``'s blocks and ``key``, computed by ``compute()`` and kept
        on a miss (a function without blocks: computed, not kept)."""
        blocks = fn.blocks
        if not blocks:
            return compute()
        hit = self._entries.get(blocks[0])
        if hit is not None and hit[1] == key and len(hit[0]) == len(blocks) and \
                all(a is b for a, b in zip(hit[0], blocks)):
            return hit[2]
        return self._entries.put(blocks[0], (blocks, key, compute()))[2]

    def clear(self) -> None:
        self._entries.clear()
