"""The strongly connected components of a graph that only grows (the executable graph of a
constant propagation): which exits of a block lead back to it, for the loop φs of the sparse SC
(``pcp/sparse.py``) and of Algorithm 1's registers mentioned in one hyperblock only
(``pcp/global_cp.py``).

Edges are added as they become executable; ``update()`` condenses the ones added since the last
call into the graph of components found so far (Tarjan, iterative), merging the components it
finds cyclic in a union-find. A round re-runs Tarjan over the edges between components (rebuilt
from the last round's plus the new ones): at most the graph's edges, fewer as components merge.
Components only merge as edges are added, so ``same(u, v)`` (``u`` and ``v`` on one cycle) once
true stays true.

Example
-------
>>> c = Condensation(); c.add("a", "b"); c.add("b", "c"); c.update(); c.same("a", "b")
False
>>> c.add("c", "a"); c.update(); c.same("a", "b"), c.same("b", "c")
(True, True)

References: R. Tarjan, "Depth-first search and linear graph algorithms", SIAM J. Comput. 1(2),
1972; R. Tarjan, "Efficiency of a good but not linear set union algorithm", JACM 22(2), 1975.
"""
from __future__ import annotations

from pylogic.ir.cfg import strongly_connected
from pylogic.union_find import UnionFind

__all__ = ["Condensation"]


class Condensation:
    """A union-find of the strongly connected components of the edges ``add``-ed so far, as of
    the last ``update()``."""

    def __init__(self):
        self._sets = UnionFind()
        #: the representative of ``x``'s component
        self.find = self._sets.find
        self._cedges: set = set()           # edges between components
        self._new: list = []                # edges added since the last update

    def add(self, u, v) -> None:
        self._new.append((u, v))

    def update(self) -> None:
        """Merge the components that the edges added since the last call put on a cycle."""
        find = self.find
        edges = {(find(u), find(v)) for u, v in self._cedges}
        edges.update((find(u), find(v)) for u, v in self._new)
        self._new = []
        edges = {(u, v) for u, v in edges if u != v}
        succ: dict = {}
        for u, v in edges:
            succ.setdefault(u, []).append(v)
        comp = strongly_connected(list(succ), succ)
        for x, root in comp.items():
            if x != root:
                self._sets.union(x, root)
        self._cedges = {(a, b) for u, v in edges if (a := find(u)) != (b := find(v))}

    def same(self, u, v) -> bool:
        return u == v or self.find(u) == self.find(v)
