"""Brute-force oracle for small define networks: enumerate every leaf assignment.

Independent of the BDD and of SAT: each condition family takes one concrete representative value
per interval segment and conditions are evaluated concretely (``eval_rel``); ω, p* and opaque
atoms take both values; deposits are evaluated with ``deposit()`` itself (PAS Table 1). All
assignments are evaluated at once as bit vectors (bit j of a node's int = its value under
assignment j). References: pas.md §7 ("a third oracle for small cases").
"""
from __future__ import annotations

from itertools import product

from pylogic.ir.deposit_types import deposit
from pylogic.predicates.conditions import ConditionLayer, eval_rel


class TooLarge(Exception):
    """The cone has more leaf assignments than the oracle's limit."""


class BruteForce:
    """Answers the PAS queries by exhaustive evaluation of the cone of the operands."""

    def __init__(self, nets, mode: str = "family", layer: ConditionLayer | None = None,
                 limit: int = 1 << 18):
        self.nets = list(nets)
        self.layer = layer if layer is not None else ConditionLayer(self.nets, mode)
        self.limit = limit

    def truth_tables(self, operands) -> tuple[list[int], int]:
        """Bit-vector truth tables of the operand nodes over all leaf assignments, and the mask."""
        cone = [(i, n) for i, nid in operands for n in self.nets[i].cone([nid])]
        dims: dict = {}          # dimension key -> radix
        leaves = {}
        for i, n in dict.fromkeys(cone):
            if self.nets[i].nodes[n][0] in ("not", "ite", "deposit"):
                continue
            leaf = self.layer.leaf(i, n)
            leaves[(i, n)] = leaf
            if leaf[0] == "interval":
                dims[("family", leaf[1])] = len(self.layer.families[leaf[1]].segments)
            elif leaf[0] in ("free", "atom"):
                dims[(leaf[0], leaf[1])] = 2
        total = 1
        for r in dims.values():
            total *= r
        if total > self.limit:
            raise TooLarge(total)
        full = (1 << total) - 1
        stride, indicator = 1, {}
        for key, radix in dims.items():       # mixed-radix enumeration of assignments
            period = stride * radix
            repunit = ((1 << total) - 1) // ((1 << period) - 1) if period < total else 1
            indicator[key] = [(((1 << stride) - 1) << (d * stride)) * repunit for d in range(radix)]
            stride = period
        val: dict = {}
        for i, n in sorted(dict.fromkeys(cone), key=lambda x: x[1]):
            node = self.nets[i].nodes[n]
            kind = node[0]
            if kind == "not":
                val[(i, n)] = full ^ val[(i, node[1])]
            elif kind == "ite":
                s, t, e = (val[(i, c)] for c in node[1:])
                val[(i, n)] = (s & t) | (~s & e & full)
            elif kind == "deposit":
                g, c, o = (val[(i, x)] for x in node[2:])
                out = 0
                for gv, cv, ov in product((0, 1), repeat=3):   # Table 1, row by row
                    if deposit(node[1], gv, cv, ov):
                        out |= (g if gv else full ^ g) & (c if cv else full ^ c) & \
                            (o if ov else full ^ o)
                val[(i, n)] = out
            else:
                leaf = leaves[(i, n)]
                if leaf[0] == "const":
                    val[(i, n)] = full if leaf[1] else 0
                elif leaf[0] == "interval":
                    fam = self.layer.families[leaf[1]]
                    _, _, rel, k = node
                    ind = indicator[("family", leaf[1])]
                    val[(i, n)] = 0
                    for d, rep in enumerate(fam.representatives()):
                        if eval_rel(rel, rep, k):        # concrete evaluation
                            val[(i, n)] |= ind[d]
                else:
                    on = indicator[(leaf[0], leaf[1])][1]
                    val[(i, n)] = (full ^ on) if leaf[0] == "atom" and leaf[2] else on
        return [val[(i, nid)] for i, nid in operands], full

    def ask(self, query: str, operands) -> bool:
        """Answer ``query`` (same names and operand conventions as ``SatChecker.ask``)."""
        vs, full = self.truth_tables(operands)
        if query == "always_true":
            return vs[0] == full
        if query == "always_false":
            return vs[0] == 0
        a, b = vs[0], vs[-1]
        if query == "equivalent":
            return a == b
        if query == "complementary":
            return a == full ^ b
        if query == "implies":
            return a & ~b & full == 0
        if query == "disjoint":
            return a & b == 0
        if query == "exhaustive":
            return a | b == full
        if query == "covers":
            acc = 0
            for x in vs[1:]:
                acc |= x
            return vs[0] & ~acc & full == 0
        raise ValueError(f"unknown query {query!r}")
