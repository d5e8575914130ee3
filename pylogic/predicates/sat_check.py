"""SAT cross-check of PAS answers (python-sat): the same define network, Tseitin-encoded to CNF.

Independent of the BDD on purpose (pas.md §7, SAT cross-check):
- each deposit is encoded from the Table 1 truth table produced by ``deposit()``, not from the
  Table 2 ITEs, so an error like the misprinted ct/cf is caught;
- each condition family is encoded one-hot (one variable per interval, exactly one true), not
  with the BDD's binary finite domain; a condition is the OR of its interval variables;
- ω, p* and register-vs-register atoms are free variables;
- ``scope="across"`` queries read the second operand with independent copies of the leaves that
  vary per iteration of the common loop (``ConditionLayer.varies_in``), as the BDD renames them.
A "must" query holds iff its negation is UNSAT; a SAT model is a witness (``last_witness``).
"""
from __future__ import annotations

from itertools import product

from pysat.formula import IDPool
from pysat.solvers import Minisat22

from pylogic.ir.deposit_types import deposit
from pylogic.ir.model import DEPOSIT_TYPES
from pylogic.predicates.conditions import ConditionLayer

#: ``deposit`` as clauses: for each type the 8 (g, c, old) rows and the written value (PAS Table 1).
DEPOSIT_ROWS = {t: [((g, c, o), deposit(t, g, c, o)) for g, c, o in product((0, 1), repeat=3)]
                for t in DEPOSIT_TYPES}


class SatChecker:
    """Incremental CNF of one or more define networks; answers the PAS queries by UNSAT checks."""

    def __init__(self, nets, mode: str = "family", layer: ConditionLayer | None = None):
        self.nets = list(nets)
        self.layer = layer if layer is not None else ConditionLayer(self.nets, mode)
        self.pool = IDPool()
        self.solver = Minisat22()
        self.true = self.pool.id(("true",))
        self.solver.add_clause([self.true])
        self.lits: dict = {}
        self.onehot: dict = {}       # (family key, copy) -> [interval var per segment]
        self.free: dict = {}         # (leaf key, copy) -> var
        self.other_lits: dict = {}   # (net, node, loop body) -> literal in another iteration
        self.calls = 0
        self.last_witness = None

    def close(self) -> None:
        self.solver.delete()

    # ------------------------------------------------------------ encoding
    def _intervals(self, fkey, copy: str = "") -> list:
        ys = self.onehot.get((fkey, copy))
        if ys is None:
            nseg = len(self.layer.families[fkey].segments)
            ys = [self.pool.id(("seg", fkey, copy, s)) for s in range(nseg)]
            self.solver.add_clause(ys)                      # at least one
            for a in range(nseg):                           # at most one (pairwise)
                for b in range(a + 1, nseg):
                    self.solver.add_clause([-ys[a], -ys[b]])
            self.onehot[(fkey, copy)] = ys
        return ys

    def _leaf(self, i: int, nid: int, copy: str = "") -> int:
        """Literal of a leaf; ``copy="other"`` is its independent copy for another iteration."""
        leaf = self.layer.leaf(i, nid)
        if leaf[0] == "const":
            return self.true if leaf[1] else -self.true
        if leaf[0] == "interval":
            ys = self._intervals(leaf[1], copy)
            x = self.pool.id(("node", i, nid, copy))
            on = [y for y, holds in zip(ys, leaf[2]) if holds]
            self.solver.add_clause([-x] + on)              # x -> OR intervals
            for y in on:
                self.solver.add_clause([x, -y])            # interval -> x
            return x
        key = (leaf[1], copy)
        v = self.free.get(key)
        if v is None:
            v = self.free[key] = self.pool.id(("free", key))
        return -v if leaf[0] == "atom" and leaf[2] else v

    def _gate(self, node: tuple, kids: list, key) -> int:
        """Tseitin literal of an inner node given its children's literals."""
        if node[0] == "not":
            return -kids[0]
        y = self.pool.id(key)
        add = self.solver.add_clause
        if node[0] == "ite":
            s, t, e = kids
            add([-s, -t, y]), add([s, -e, y]), add([-s, t, -y]), add([s, e, -y])
        else:                                               # deposit
            g, c, o = kids
            for (gv, cv, ov), out in DEPOSIT_ROWS[node[1]]:   # Table 1 row -> written value
                add([-g if gv else g, -c if cv else c, -o if ov else o, y if out else -y])
        return y

    def lit(self, i: int, nid: int, across=None) -> int:
        """Literal equivalent to network node ``nid`` of network ``i`` (encodes its cone).

        With ``across`` (the block set of a loop), the leaves that vary per iteration of that
        loop are replaced by independent copies: the node's value in another iteration
        (pas.md §2.9, mirroring ``PredicateAnalysis``'s renaming for ``scope="across"``).
        """
        net = self.nets[i]
        for x in net.postorder(nid, lambda c: (i, c) in self.lits):
            n = net.nodes[x]
            if n[0] in ("not", "ite", "deposit"):
                self.lits[(i, x)] = self._gate(n, [self.lits[(i, c)] for c in net.children(x)],
                                               ("node", i, x))
            else:
                self.lits[(i, x)] = self._leaf(i, x)
        if across is None:
            return self.lits[(i, nid)]
        return self._lit_other(i, nid, frozenset(across))

    def _lit_other(self, i: int, nid: int, body: frozenset) -> int:
        net = self.nets[i]
        other = self.other_lits
        for x in net.postorder(nid, lambda c: (i, c, body) in other):
            n = net.nodes[x]
            if n[0] in ("not", "ite", "deposit"):
                ls = [other[(i, c, body)] for c in net.children(x)]
                if ls == [self.lits[(i, c)] for c in net.children(x)]:
                    other[(i, x, body)] = self.lits[(i, x)]     # no varying leaf below
                else:
                    other[(i, x, body)] = self._gate(n, ls, ("node", i, x, body))
            elif self.layer.varies_in(i, x, body):
                other[(i, x, body)] = self._leaf(i, x, "other")
            else:
                other[(i, x, body)] = self.lits[(i, x)]
        return other[(i, nid, body)]

    # ------------------------------------------------------------ queries
    def satisfiable(self, assumptions) -> bool:
        """Is the conjunction of the literals satisfiable? Stores a decoded witness if so."""
        self.calls += 1
        if self.solver.solve(assumptions=list(assumptions)):
            self.last_witness = self._decode(set(self.solver.get_model()))
            return True
        self.last_witness = None
        return False

    def _decode(self, model: set) -> dict:
        """Witness: a concrete value per family (its segment's lower bound) and free-variable values."""
        out = {}
        for (fkey, copy), ys in self.onehot.items():
            for s, y in enumerate(ys):
                if y in model:
                    seg = self.layer.families[fkey].segments[s][0]
                    out[("family", fkey) + ((copy,) if copy else ())] = seg
        for (key, copy), v in self.free.items():
            out[("free", key) + ((copy,) if copy else ())] = int(v in model)
        return out

    def ask(self, query: str, operands, across=None) -> bool:
        """Answer ``query`` on ``[(net index, node id), ...]`` (same names as PredicateAnalysis).

        ``across``: block set of a loop; the LAST operand is then read in another iteration of
        it (``scope="across"``, pas.md §2.9). None = per-iteration relations.
        """
        ls = [self.lit(i, n) for i, n in operands]
        if across is not None:
            ls[-1] = self.lit(*operands[-1], across=across)
        unsat = lambda *a: not self.satisfiable(a)  # noqa: E731
        if query == "always_true":
            return unsat(-ls[0])
        if query == "always_false":
            return unsat(ls[0])
        a, b = ls[0], ls[-1]
        if query == "equivalent":
            return unsat(a, -b) and unsat(-a, b)
        if query == "complementary":
            return unsat(a, b) and unsat(-a, -b)
        if query == "implies":
            return unsat(a, -b)
        if query == "disjoint":
            return unsat(a, b)
        if query == "exhaustive":
            return unsat(-a, -b)
        if query == "covers":           # operands = [target, p1, ..., pn]
            return unsat(ls[0], *[-x for x in ls[1:]])
        raise ValueError(f"unknown query {query!r}")
