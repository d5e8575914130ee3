"""The PPG queries PPDE asks (predicated_pde.md §2.3): IsDisjoint, IsSubset, equality and
LUB_Diff, on the predicate-register PPG of ``ppg.dl`` rows (``PartitionGraph``), answered with
predicate register names that hold the values at one block's end.

LUB_Diff(p, q), q ⊂ p: the existing predicates whose union is the smallest superset of p − q.
Found by the PPG-path walk (§2.3 [INF]): a downward path p = n0 →(P1) n1 → … → nk = q through
partitions; the answer is the union of the siblings of n(i+1) in P(i+1). Only existing nodes
come back, so the parent-collapsing simplification holds by construction.

Example (the paper's Figure 4, T1): with p0 = p1 ∪ p2, p1 = p3 ∪ p4, p1 = p5 ∪ p6,
``lub_diff("p0", "p3") == {"p2", "p4"}``; ``is_disjoint("p4", "p5")`` is False.

References: predicated_pde.md §2.3 (queries), §8 checklist; ppg.md §4.6 (the pred graph).
"""
from __future__ import annotations

from typing import Optional

from pylogic.predicates.network import PredicateError
from pylogic.ir.model import TRUE_PREDICATES
from pylogic.predicates.ppg import TRUE_NODE, PartitionGraph


class BlockPredicates:
    """PPDE's queries on the predicates of one block (a hyperblock, or a basic block with
    guarded code): a predicate is a register name read at the block's end, ``p0`` the block's
    own control predicate (true inside the region the block forms).

    Parameters
    ----------
    ppg : PartitionGraph of the function.
    label : the block.
    names : the predicate registers the block defines (each once) or reads as guards.
    """

    def __init__(self, ppg: PartitionGraph, label: str, names):
        self.ppg = ppg
        self.label = label
        self.node: dict[str, tuple] = {"p0": TRUE_NODE}
        for name in names:
            if name in TRUE_PREDICATES:
                continue
            node = ppg.value(name, label)
            if node is not None:
                self.node[name] = node
        self.name_of: dict[tuple, str] = {}
        for name, node in sorted(self.node.items(), key=lambda kv: kv[0] != "p0"):
            for equal in ppg._equivalents("pred", node):
                self.name_of.setdefault(equal, name)

    def known(self, p: str) -> bool:
        """The PPG models ``p``'s value in this block."""
        return self._canon(p) in self.node

    @staticmethod
    def _canon(p: Optional[str]) -> str:
        return "p0" if p is None or p in TRUE_PREDICATES else p

    def _n(self, p):
        try:
            return self.node[self._canon(p)]
        except KeyError:
            raise PredicateError(f"the PPG does not model predicate {p!r} in block "
                                 f"{self.label!r}") from None

    def is_disjoint(self, p, q) -> bool:
        """IsDisjoint(p, q): the domains are proven not to overlap."""
        return self.ppg.is_disjoint(self._n(p), self._n(q), "pred")

    def is_subset(self, p, q) -> bool:
        """IsSubset(p, q): Dom(p) ⊆ Dom(q) is proven."""
        return self.ppg.is_subset(self._n(p), self._n(q), "pred")

    def equal(self, p, q) -> bool:
        """p = q: both inclusions proven."""
        return self.is_subset(p, q) and self.is_subset(q, p)

    def lub_diff(self, p, q) -> Optional[set]:
        """LUB_Diff(p, q) for q ⊂ p as register names, or None when no PPG path from p down to
        q exists or a sibling on it has no register name here (then no motion may rely on it)."""
        target = self._n(q)
        ppg = self.ppg
        parts = ppg._by_parent["pred"]

        def walk(node, seen) -> Optional[list]:
            if node in ppg._equivalents("pred", target) or \
                    ppg.is_subset(node, target, "pred") and ppg.is_subset(target, node, "pred"):
                return []
            for x in ppg._equivalents("pred", node):
                for kids in parts.get(x, ()):
                    for child in kids:
                        if child in seen or not ppg.is_subset(target, child, "pred"):
                            continue
                        rest = walk(child, seen | {child})
                        if rest is not None:
                            return [k for k in kids if k != child] + rest
            return None

        path = walk(self._n(p), {self._n(p)})
        if path is None:
            return None
        names = {self.name_of.get(n) for n in path}
        return None if None in names else names
