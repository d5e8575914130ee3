"""Brute-force oracle for small define networks: enumerate every leaf assignment.

Independent of the BDD and of SAT: each condition family takes one concrete representative value
per interval segment and conditions are evaluated concretely (``eval_rel``); ω, p* and opaque
atoms take both values; deposits are evaluated with ``deposit()`` itself (PAS Table 1). An
across-iteration query (pas.md §2.9) gives the second operand's per-iteration leaves their own
dimensions. All assignments are evaluated at once as bit vectors (bit j of a node's int = its
value under assignment j). References: pas.md §7 ("a third oracle for small cases").
"""
from __future__ import annotations

from itertools import product

from pylogic.ir.deposit_types import deposit
from pylogic.ir.ops import eval_rel
from pylogic.predicates.conditions import ConditionLayer


class TooLarge(Exception):
    """The cone has more leaf assignments than the oracle's limit."""


class BruteForce:
    """Answers the PAS queries by exhaustive evaluation of the cone of the operands."""

    def __init__(self, nets, mode: str = "family", layer: ConditionLayer | None = None,
                 limit: int = 1 << 18):
        self.nets = list(nets)
        self.layer = layer if layer is not None else ConditionLayer(self.nets, mode)
        self.limit = limit

    def truth_tables(self, operands, across=None) -> tuple[list[int], int]:
        """Bit-vector truth tables of the operand nodes over all leaf assignments, and the mask.

        With ``across`` (a loop's block set) the LAST operand is evaluated in another iteration:
        its leaves that vary per iteration of that loop (``ConditionLayer.varies_in``) are
        enumerated as separate dimensions (pas.md §2.9, as the BDD renames them).
        """
        body = None if across is None else frozenset(across)
        last = len(operands) - 1
        ctxs = [body if j == last else None for j in range(len(operands))]
        cone = [(i, n, ctx) for (i, nid), ctx in zip(operands, ctxs)
                for n in self.nets[i].cone([nid])]
        cone = list(dict.fromkeys(cone))
        dims: dict = {}          # dimension key -> radix
        leaves = {}
        for i, n, ctx in cone:
            if self.nets[i].nodes[n][0] in ("not", "ite", "deposit"):
                continue
            leaf = self.layer.leaf(i, n)
            copy = "other" if ctx is not None and self.layer.varies_in(i, n, ctx) else ""
            leaves[(i, n, ctx)] = (leaf, copy)
            if leaf[0] == "interval":
                dims[("family", leaf[1], copy)] = len(self.layer.families[leaf[1]].segments)
            elif leaf[0] in ("free", "atom"):
                dims[(leaf[0], leaf[1], copy)] = 2
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
        for i, n, ctx in sorted(cone, key=lambda x: x[1]):
            node = self.nets[i].nodes[n]
            kind = node[0]
            if kind == "not":
                val[(i, n, ctx)] = full ^ val[(i, node[1], ctx)]
            elif kind == "ite":
                s, t, e = (val[(i, c, ctx)] for c in node[1:])
                val[(i, n, ctx)] = (s & t) | (~s & e & full)
            elif kind == "deposit":
                g, c, o = (val[(i, x, ctx)] for x in node[2:])
                out = 0
                for gv, cv, ov in product((0, 1), repeat=3):   # Table 1, row by row
                    if deposit(node[1], gv, cv, ov):
                        out |= (g if gv else full ^ g) & (c if cv else full ^ c) & \
                            (o if ov else full ^ o)
                val[(i, n, ctx)] = out
            else:
                leaf, copy = leaves[(i, n, ctx)]
                if leaf[0] == "const":
                    val[(i, n, ctx)] = full if leaf[1] else 0
                elif leaf[0] == "interval":
                    fam = self.layer.families[leaf[1]]
                    _, _, rel, k = node
                    ind = indicator[("family", leaf[1], copy)]
                    v = 0
                    for d, rep in enumerate(fam.representatives()):
                        if eval_rel(rel, rep, k):        # concrete evaluation
                            v |= ind[d]
                    val[(i, n, ctx)] = v
                else:
                    on = indicator[(leaf[0], leaf[1], copy)][1]
                    val[(i, n, ctx)] = (full ^ on) if leaf[0] == "atom" and leaf[2] else on
        return [val[(i, nid, ctx)] for (i, nid), ctx in zip(operands, ctxs)], full

    def ask(self, query: str, operands, across=None) -> bool:
        """Answer ``query`` (same names and operand conventions as ``SatChecker.ask``)."""
        vs, full = self.truth_tables(operands, across)
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
