"""Disjoint sets (union-find) over hashable elements: the one home of the structure the passes,
the engines' stage splitting and facts_gen's value classes share.

Its own module at the bottom layer, beside ``errors``, so that every layer may import it (the
engines know no IR); not networkx's ``UnionFind``, whose import costs about 0.1 s of a process
(``transforms/pre/reducible.py``).

Example
-------
>>> sets = UnionFind()
>>> sets.union("a", "b"), sets.union("c", "b"), sets.find("a"), sets.find("d")
('b', 'b', 'b', 'd')

References: R. Tarjan, J. van Leeuwen, "Worst-case analysis of set union algorithms", JACM
31(2), 1984 (path halving).
"""
from __future__ import annotations

from typing import Hashable, Iterable

__all__ = ["UnionFind"]


class UnionFind:
    """Disjoint sets, an element added as a singleton when first named. The caller chooses the
    representative: ``union(x, into)`` keeps ``into``'s (results that print a representative
    depend on which)."""

    __slots__ = ("parent",)

    def __init__(self, elements: Iterable[Hashable] = ()):
        #: element -> its parent; a representative is its own parent
        self.parent: dict = {x: x for x in elements}

    def find(self, x):
        """The representative of ``x``'s set (path halving)."""
        parent = self.parent
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(self, x, into):
        """Merge ``x``'s set into ``into``'s; returns the representative, ``into``'s."""
        r, s = self.find(x), self.find(into)
        if r != s:
            self.parent[r] = s
        return s
