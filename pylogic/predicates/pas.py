"""PAS predicate layer on one shared ROBDD (``dd``, CUDD backend when available) + query interface.

``PredicateAnalysis(function, rows)`` extracts the define network (``network.py``) using the
function's Datalog rows for its CFG structure (``PAS_RELATIONS``: order, dominators, loops,
liveness), builds the condition layer (``conditions.py``: families, intervals, finite domain)
and then one BDD node per network node in creation order (the predicate layer: Table 2 ITEs
with ct/cf corrected, γ/μ as ITEs on ω). Queries take predicate references and answer with
canonical-BDD tests.

References: pas.md §2.3 (Table 2), §3.1-§3.7, §7 checklist.
"""
from __future__ import annotations

import re
import time
from typing import Mapping, Optional, Sequence

from pylogic.errors import PathlogicError
from pylogic.ir.model import TRUE_PREDICATES, Function
from pylogic.predicates.brute_force import BruteForce
from pylogic.predicates.conditions import ConditionLayer, domain_bits, finite_domain_cubes
from pylogic.predicates.network import (
    PAS_RELATIONS, DefineNetwork, PredicateError, _safe, build_network, last_defining_blocks,
)
from pylogic.predicates.sat_check import SatChecker

__all__ = ["PAS_RELATIONS", "PredicateAnalysis", "BddEngine", "CrossCheckError", "new_manager",
           "DEPOSIT_ITE", "TABLE2_AS_PRINTED"]

try:  # CUDD: complement edges, O(1) negation and equality (pas.md §3.2)
    from dd import cudd as _dd
except ImportError:  # pragma: no cover - pure-Python fallback
    from dd import autoref as _dd


def new_manager(reorder: bool = False):
    """A fresh BDD manager; variable order = creation order unless ``reorder`` (pas.md §3.8)."""
    bdd = _dd.BDD()
    bdd.configure(reordering=reorder)
    return bdd


def _ite(bdd, f, g, h):
    return bdd.ite(f, g, h)


#: PAS Table 2 as ITE constructions over (bdd, g, c, old), with ct/cf corrected to Table 1.
DEPOSIT_ITE = {
    "ut": lambda b, g, c, o: _ite(b, c, g, b.false),
    "uf": lambda b, g, c, o: _ite(b, c, b.false, g),
    "ot": lambda b, g, c, o: _ite(b, c, _ite(b, g, b.true, o), o),
    "of": lambda b, g, c, o: _ite(b, c, o, _ite(b, g, b.true, o)),
    "at": lambda b, g, c, o: _ite(b, g, _ite(b, c, o, b.false), o),
    "af": lambda b, g, c, o: _ite(b, g, _ite(b, c, b.false, o), o),
    "ct": lambda b, g, c, o: _ite(b, g, c, o),          # corrected: g ? C : old
    "cf": lambda b, g, c, o: _ite(b, g, ~c, o),         # corrected: g ? ¬C : old
    "disjt": lambda b, g, c, o: _ite(b, c, b.true, _ite(b, g, b.true, o)),
    "disjf": lambda b, g, c, o: _ite(b, c, _ite(b, g, b.true, o), b.true),
    "conjt": lambda b, g, c, o: _ite(b, g, _ite(b, c, o, b.false), b.false),
    "conjf": lambda b, g, c, o: _ite(b, g, _ite(b, c, b.false, o), b.false),
}

#: ct/cf exactly as printed in PAS Table 2 (wrong in 2 of 8 rows each); kept for the regression test.
TABLE2_AS_PRINTED = {
    "ct": lambda b, g, c, o: _ite(b, c, g, o),
    "cf": lambda b, g, c, o: _ite(b, c, o, g),
}


class CrossCheckError(PathlogicError, AssertionError):
    """The BDD and an independent oracle (SAT or brute force) disagree: a bug, never averaged away.

    Attributes: ``query`` (text), ``bdd_answer``, ``other_answer``, ``oracle`` ("sat"|"brute"),
    ``reproducer`` (PIR text of the defines involved).
    """

    kind = "cross-check error"

    def __init__(self, query: str, bdd_answer, other_answer, oracle: str, reproducer: str):
        self.query = query
        self.bdd_answer = bdd_answer
        self.other_answer = other_answer
        self.oracle = oracle
        self.reproducer = reproducer
        super().__init__(f"{query}: BDD says {bdd_answer}, {oracle} says {other_answer}\n"
                         f"reproducer:\n{reproducer}")


class BddEngine:
    """The shared ROBDD of one or more define networks (one manager, one condition layer)."""

    def __init__(self, nets: Sequence[DefineNetwork], mode: str = "family", reorder: bool = False):
        self.nets = list(nets)
        self.mode = mode
        self.bdd = new_manager(reorder)
        self.layer = ConditionLayer(self.nets, mode)
        self._names: set = set()
        self._leaf: dict = {}       # leaf key -> BDD node
        self.leaf_loop: dict = {}   # BDD var name -> loop header context (or None)
        self.leaf_loops: dict = {}  # BDD var name -> every loop context of its leaf (§2.9)
        self._other: dict = {}      # BDD var name -> its copy for another iteration
        self.family_var_names: dict = {}  # family key -> [v_0, v_1, ...] variable names
        self.pstar_vars: set = set()
        self.interval_nodes: dict = {}
        self.built: list = [dict() for _ in self.nets]
        for i, net in enumerate(self.nets):   # one pass in creation (topological) order
            for nid in range(len(net.nodes)):
                self.node(i, nid)

    # ------------------------------------------------------------ variables
    def _declare(self, base: str, loop, pstar: bool = False, loops=None) -> object:
        name = _safe(base)
        if name in self._names or not name[:1].isalpha():
            name = f"v_{name}"
            n = 2
            while f"{name}_{n}" in self._names:
                n += 1
            name = f"{name}_{n}" if name in self._names else name
        self._names.add(name)
        self._last = name
        if pstar:
            self.pstar_vars.add(name)
        self.bdd.declare(name)
        self.leaf_loop[name] = loop
        self.leaf_loops[name] = tuple(x for x in (loops if loops is not None else [loop])
                                      if x is not None)
        return self.bdd.var(name)

    def other_copy(self, name: str) -> str:
        """Name of the fresh copy of variable ``name`` standing for another loop iteration."""
        other = self._other.get(name)
        if other is None:
            other = f"{name}_other"
            n = 2
            while other in self._names:
                other, n = f"{name}_other{n}", n + 1
            self._names.add(other)
            self.bdd.declare(other)
            self._other[name] = other
        return other

    def varies_in(self, name: str, body) -> bool:
        """Does variable ``name`` take a new value in each iteration of loop ``body``?"""
        return any(x in body for x in self.leaf_loops.get(name, ()))

    def _family_intervals(self, i: int, vid: int, fkey) -> list:
        nodes = self.interval_nodes.get(fkey)
        if nodes is None:
            fam = self.layer.families[fkey]
            n = domain_bits(len(fam.segments))
            net = self.nets[i]
            base = net.value_name(vid) if fkey[0] == "param" or len(self.nets) == 1 else \
                f"{i}_{net.value_name(vid)}"
            loop = self.layer.loop_of(i, vid)
            pstar = net.infos[net.values[vid][1]].kind == "pstar"
            names, vs = [], []
            for j in range(n - 1, -1, -1):      # v_{n-1} (merge variable) first = top
                vs.append(self._declare(f"{base}_v{j}", loop, pstar))
                names.append(self._last)
            vs.reverse()                         # vs[j] = v_j
            self.family_var_names[fkey] = names[::-1]
            nodes = []
            for cube in finite_domain_cubes(len(fam.segments)):
                u = self.bdd.true
                for j, pol in cube:
                    u = u & (vs[j] if pol else ~vs[j])
                nodes.append(u)
            self.interval_nodes[fkey] = nodes
        return nodes

    def _leaf_node(self, i: int, nid: int):
        net = self.nets[i]
        leaf = self.layer.leaf(i, nid)
        bdd = self.bdd
        if leaf[0] == "const":
            return bdd.true if leaf[1] else bdd.false
        if leaf[0] == "interval":
            n = net.nodes[nid]
            ivs = self._family_intervals(i, n[1], leaf[1])
            u = bdd.false
            for node, holds in zip(ivs, leaf[2]):   # condition = OR of its intervals
                if holds:
                    u = u | node
            return u
        key = leaf[1]
        u = self._leaf.get(key)
        if u is None:
            n = net.nodes[nid]
            if leaf[0] == "free":
                u = self._declare(n[1], net.var_loop.get(nid))
            else:
                loops = self.layer.leaf_loop(i, nid)
                loop = next((x for x in loops if x is not None), None)
                vals = [n[1]] if n[0] == "cond" else [n[2], n[3]]
                pstar = any(net.infos[net.values[v][1]].kind == "pstar" for v in vals)
                u = self._declare(f"a_{net.node_name(nid)}", loop, pstar, loops)
            self._leaf[key] = u
        return ~u if leaf[0] == "atom" and leaf[2] else u

    # ------------------------------------------------------------ nodes
    def node(self, i: int, nid: int):
        """BDD node of network node ``nid`` of network ``i`` (built on first use)."""
        built = self.built[i]
        u = built.get(nid)
        if u is not None:
            return u
        net = self.nets[i]
        for x in net.postorder(nid, built.__contains__):
            n = net.nodes[x]
            kind = n[0]
            if kind == "not":
                built[x] = ~built[n[1]]
            elif kind == "ite":
                built[x] = self.bdd.ite(built[n[1]], built[n[2]], built[n[3]])
            elif kind == "deposit":
                built[x] = DEPOSIT_ITE[n[1]](self.bdd, built[n[2]], built[n[3]], built[n[4]])
            else:
                try:
                    built[x] = self._leaf_node(i, x)
                except LookupError as e:
                    raise PredicateError(str(e)) from None
        return built[nid]

    def var_loops(self, u) -> dict:
        return {v: self.leaf_loop.get(v) for v in self.bdd.support(u)}


_SSA_NAME = re.compile(r"^(.*)\.(\d+)$")


class PredicateAnalysis:
    """PAS predicate analysis of one PIR function, answering queries on a shared ROBDD.

    Parameters
    ----------
    function : Function
        The analysed function (whole CFG; hyperblocks, merges and loops).
    rows : FunctionRows
        The function's Datalog rows of ``PAS_RELATIONS`` (reverse postorder, retreating edges,
        idom, natural loops, live-in sets), e.g.
        ``module_rows(module, relpath, relations=PAS_RELATIONS).of("relpath::name")``.
    mode : "family" | "basic"
        Condition families with intervals (PAS) or one variable per condition with opposite
        recognition (the paper's "basic condition analysis").
    lookback : int
        k, the number of virtually unrolled previous iterations per loop (pas.md §3.6); 0 makes
        every loop-carried value a free p* at the header.
    livein : "zero" | "free"
        Value of never-written registers at function entry: 0 (docs/pir.md) or free variables.
    check : None | "sat" | "brute"
        Re-check every answer with the SAT encoding (or brute force); a disagreement raises
        ``CrossCheckError`` with both answers and a PIR reproducer.
    merges : "gamma" | "independent" | "unknown"
        Merge handling (pas.md §3.5): γ with ONE fresh free ω set per merge block shared by all
        its γs (default); a fresh ω per γ; or φ as a write of an unknown value.
    engine : BddEngine, optional
        Internal: a shared engine (see ``PredicateAnalysis.group``).

    Predicate references (``ref`` below) are: a predicate name (value at the end of the block
    that defines it last, in layout order; a never-defined name is read at the entry); an SSA
    name ``"p2.2"`` (the 3rd definition, γ and μ included, in topological order); a tuple
    ``(name, at)`` with ``at`` a block label (value at the end of that block) or
    ``(label, index)`` (value just before that instruction); or a BDD node.
    All relations are per static instance (per loop iteration, pas.md §2.9) unless a binary
    query is asked with ``scope="across"``: then the second operand's loop-variant variables
    are renamed, asking about two different iterations of the innermost common loop (``check``
    re-checks these too: the oracles give the same leaves fresh copies).

    Raises
    ------
    PredicateError
        A bad option, a function without body, or ``rows`` lacking one of ``PAS_RELATIONS``
        (or describing another CFG).

    Example
    -------
    >>> rows = module_rows(module, "t.pir", relations=PAS_RELATIONS)   # doctest: +SKIP
    >>> pa = PredicateAnalysis(fn, rows.of("t.pir::fig3b"))            # doctest: +SKIP
    >>> pa.disjoint("p4", "p2"), pa.implies("p4", "p3")                # doctest: +SKIP
    (True, True)
    """

    def __init__(self, function: Function, rows: Mapping, mode: str = "family",
                 lookback: int = 1, livein: str = "zero", check: Optional[str] = None,
                 merges: str = "gamma", *, engine=None, net_index: int = 0,
                 network: Optional[DefineNetwork] = None):
        if mode not in ("family", "basic"):
            raise PredicateError(f"mode must be 'family' or 'basic', not {mode!r}")
        if check not in (None, "sat", "brute"):
            raise PredicateError(f"check must be None, 'sat' or 'brute', not {check!r}")
        t0 = time.perf_counter()
        self.function = function
        self.mode = mode
        self.lookback = lookback
        self.net = network if network is not None else \
            build_network(function, rows, lookback, livein, merges)
        t1 = time.perf_counter()
        self.engine = engine if engine is not None else BddEngine([self.net], mode)
        self.index = net_index
        self.bdd = self.engine.bdd
        self.build_seconds = time.perf_counter() - t0
        self.network_seconds = t1 - t0
        self.queries = 0
        self.check = check
        self._oracle = None

    @classmethod
    def group(cls, functions: Sequence[Function], rows: Sequence[Mapping], mode: str = "family",
              lookback: int = 1, livein: str = "zero") -> list["PredicateAnalysis"]:
        """Analyses of several functions in ONE manager; parameters of the same name share a
        condition family, so nodes of different functions can be compared (pas.md test 8).
        ``rows``: each function's ``FunctionRows``, in the same order."""
        if len(rows) != len(functions):
            raise PredicateError(f"{len(functions)} functions but {len(rows)} row sets")
        nets = [build_network(f, r, lookback, livein) for f, r in zip(functions, rows)]
        engine = BddEngine(nets, mode)
        return [cls(f, r, mode, lookback, livein, engine=engine, net_index=i, network=n)
                for i, (f, r, n) in enumerate(zip(functions, rows, nets))]

    # ------------------------------------------------------------ references
    @property
    def predicates(self) -> list[str]:
        """Predicate registers of the function (define destinations and guards), in order."""
        return list(self.net.predicates)

    def ssa_names(self, pred: str) -> list[str]:
        """SSA names of ``pred``'s definitions (``p.0``, ``p.1``, ...) in topological order."""
        return [v.ssa_name for v in self.net.ssa.get(pred, [])]

    def _node_id(self, ref) -> tuple[int, Optional[str]]:
        """(network node id, block label of the point) of a predicate reference."""
        name, at = ref if isinstance(ref, tuple) else (ref, None)
        if not isinstance(name, str):
            raise PredicateError(f"bad predicate reference {ref!r}")
        if name in TRUE_PREDICATES:
            return 1, None
        vid, label = self._point_value(name, at)
        return self.net.truth(vid), label

    def _point_value(self, name: str, at) -> tuple[int, Optional[str]]:
        """(symbolic value id, block label) of register ``name`` at point ``at``."""
        net = self.net
        known = name in net.ssa or name in net.predicates or name in self.function.params
        if at is None:
            m = _SSA_NAME.match(name)
            if not known and m and m.group(1) in net.ssa:
                versions = net.ssa[m.group(1)]
                j = int(m.group(2))
                if j >= len(versions):
                    raise PredicateError(f"{m.group(1)} has only {len(versions)} SSA versions")
                return versions[j].value, versions[j].label
            if not known:
                raise PredicateError(f"unknown predicate {name!r} in {self.function.name}")
            at = last_defining_blocks(self.function).get(name, self.function.blocks[0].label)
        label, index = at if isinstance(at, tuple) else (at, None)
        if label not in net.block_entry:
            raise PredicateError(f"unknown block {label!r} in {self.function.name}")
        writes = net.writes[label]
        index = len(writes) if index is None else index
        if not 0 <= index <= len(writes):
            raise PredicateError(f"instruction index {index} out of range in block {label!r}")
        value = net.block_entry[label].get(name)
        for ws in writes[:index]:
            for dest, v in ws:
                if dest == name:
                    value = v
        return (net.initial(name) if value is None else value), label

    def condition(self, reg: str, rel: str, k: int, at=None):
        """BDD node of the condition ``reg REL k`` on the value of ``reg`` at point ``at``.

        The condition must be representable on the analysed family (e.g. one that occurs in the
        code, or any union of its segments); otherwise ``PredicateError``.
        """
        vid, _ = self._point_value(reg, at)
        return self.engine.node(self.index, self.net.cond(rel, vid, self.net.const(k)))

    def value(self, pred, at=None):
        """BDD node of predicate ``pred`` at program point ``at`` (see class docstring)."""
        if not isinstance(pred, (str, tuple)):
            return pred
        nid, _ = self._node_id(pred if at is None else (pred, at))
        return self.engine.node(self.index, nid)

    def _resolve(self, ref):
        if not isinstance(ref, (str, tuple)):
            return ref, None, None
        nid, label = self._node_id(ref)
        return self.engine.node(self.index, nid), nid, label

    def guard(self, label: str, index: int):
        """BDD node of the guard of instruction ``index`` of block ``label`` (1 if unguarded)."""
        try:
            nid = self.net.guards[(label, index)]
        except KeyError:
            raise PredicateError(f"no instruction {index} in block {label!r}") from None
        return self.engine.node(self.index, nid)

    # ------------------------------------------------------------ oracle plumbing
    def _oracle_engine(self):
        if self._oracle is None:
            oracle = SatChecker if self.check == "sat" else BruteForce
            self._oracle = oracle(self.engine.nets, self.mode, layer=self.engine.layer)
        return self._oracle

    def _answer(self, query: str, answer: bool, nids: list, across=None) -> bool:
        """Count the query and, with ``check``, re-ask the oracle (same ``across`` loop body:
        the last operand is read in another iteration of it); disagreement raises."""
        self.queries += 1
        if self.check is None or any(n is None for n in nids):
            return answer
        other = self._oracle_engine().ask(query, [(self.index, n) for n in nids], across=across)
        if other != answer:
            names = ", ".join(self.net.node_name(n) for n in nids)
            scope = "" if across is None else ", scope=across"
            raise CrossCheckError(f"{query}({names}{scope})", answer, other, self.check,
                                  self.net.reproducer(nids))
        return answer

    # ------------------------------------------------------------ scope (pas.md §2.9)
    def _common_loop_body(self, label_a, label_b):
        """Block set of the innermost loop containing both points (None if there is none)."""
        loops = self.net.loops
        common = [lp for lp in loops.values() if label_a in lp.body and label_b in lp.body]
        if not common:
            return None
        return frozenset(min(common, key=lambda lp: len(lp.body)).body)

    def _across(self, u, body):
        """``u`` with the variables that vary per iteration of loop ``body`` renamed to fresh
        copies (a value from a different iteration). The SAT and brute-force oracles mirror
        this by giving the same leaves (``ConditionLayer.varies_in``) fresh copies."""
        if body is None:
            return u
        rename = {v: self.engine.other_copy(v) for v in self.bdd.support(u)
                  if self.engine.varies_in(v, body)}
        return self.bdd.let(rename, u) if rename else u

    def _pair(self, a, b, scope):
        if scope not in ("iteration", "across"):
            raise PredicateError(f"scope must be 'iteration' or 'across', not {scope!r}")
        ua, na, la = self._resolve(a)
        ub, nb, lb = self._resolve(b)
        body = None
        if scope == "across":
            body = self._common_loop_body(la, lb)
            ub = self._across(ub, body)
        return ua, ub, [na, nb], body

    # ------------------------------------------------------------ queries (pas.md §2.10, §3.7)
    def always_true(self, p) -> bool:
        """Is ``p`` identically 1?"""
        u, n, _ = self._resolve(p)
        return self._answer("always_true", u == self.bdd.true, [n])

    def always_false(self, p) -> bool:
        """Is ``p`` identically 0?"""
        u, n, _ = self._resolve(p)
        return self._answer("always_false", u == self.bdd.false, [n])

    def equivalent(self, a, b, scope: str = "iteration") -> bool:
        """Same function (O(1): canonical node identity)."""
        ua, ub, ns, body = self._pair(a, b, scope)
        return self._answer("equivalent", ua == ub, ns, body)

    def complementary(self, a, b, scope: str = "iteration") -> bool:
        """``a == ¬b`` (O(1): complement edge)."""
        ua, ub, ns, body = self._pair(a, b, scope)
        return self._answer("complementary", ua == ~ub, ns, body)

    def implies(self, a, b, scope: str = "iteration") -> bool:
        """``a ⊆ b``: ``ite(a, ¬b, 0) == 0``."""
        ua, ub, ns, body = self._pair(a, b, scope)
        return self._answer("implies", self.bdd.ite(ua, ~ub, self.bdd.false) == self.bdd.false,
                            ns, body)

    subset = implies

    def superset(self, a, b, scope: str = "iteration") -> bool:
        """``a ⊇ b``."""
        return self.implies(b, a, scope)

    def disjoint(self, a, b, scope: str = "iteration") -> bool:
        """``a ∧ b == 0``: ``ite(a, b, 0) == 0``."""
        ua, ub, ns, body = self._pair(a, b, scope)
        return self._answer("disjoint", self.bdd.ite(ua, ub, self.bdd.false) == self.bdd.false,
                            ns, body)

    def intersect(self, a, b, scope: str = "iteration") -> bool:
        """May ``a`` and ``b`` both hold (not provably disjoint)?"""
        return not self.disjoint(a, b, scope)

    def exhaustive(self, a, b, scope: str = "iteration") -> bool:
        """``a ∨ b == 1``: ``ite(a, 1, b) == 1``."""
        ua, ub, ns, body = self._pair(a, b, scope)
        return self._answer("exhaustive", self.bdd.ite(ua, self.bdd.true, ub) == self.bdd.true,
                            ns, body)

    def covers(self, preds, target=None) -> bool:
        """``target ⊆ OR(preds)``; with no target, do ``preds`` sum to 1 (pas.md §2.10)?"""
        us, ns = [], []
        for p in preds:
            u, n, _ = self._resolve(p)
            us.append(u)
            ns.append(n)
        acc = self.bdd.false
        for u in us:
            acc = acc | u
        if target is None:
            return self._answer("covers", acc == self.bdd.true, [1] + ns)
        ut, nt, _ = self._resolve(target)
        return self._answer("covers", self.bdd.ite(ut, ~acc, self.bdd.false) == self.bdd.false,
                            [nt] + ns)

    def sums_to_one(self, preds) -> bool:
        """Do ``preds`` cover every execution (e.g. side exits making later code dead)?"""
        return self.covers(preds)

    def fdom(self, i: tuple, j: tuple) -> bool:
        """Fetch dominance of instruction ``i=(label, index)`` over ``j`` in the CFG."""
        (la, ia), (lb, ib) = i, j
        for lbl in (la, lb):
            if lbl not in self.net.block_entry:
                raise PredicateError(f"unknown block {lbl!r}")
        if la == lb:
            return ia <= ib
        b = lb
        idom = self.net.idom
        while b in idom and idom[b] != b:
            b = idom[b]
            if b == la:
                return True
        return False

    def edom(self, i: tuple, j: tuple) -> bool:
        """Execution dominance: ``i fdom j`` and guard(i) ⊇ guard(j) (pas.md §2.10)."""
        if not self.fdom(i, j):
            return False
        gi, gj = self.net.guards[i], self.net.guards[j]
        ui, uj = self.engine.node(self.index, gi), self.engine.node(self.index, gj)
        return self._answer("implies", self.bdd.ite(uj, ~ui, self.bdd.false) == self.bdd.false,
                            [gj, gi])

    # ------------------------------------------------------------ introspection
    def support(self, p) -> set:
        """BDD variable names ``p`` depends on."""
        return set(self.bdd.support(self.value(p)))

    def has_free_history(self, p) -> bool:
        """Does ``p`` still depend on a p* (unknown loop-carried) variable (pas.md §3.6)?"""
        return bool(self.support(p) & self.engine.pstar_vars)

    def expr(self, p) -> str:
        """The BDD of ``p`` as a Boolean expression over the BDD variables."""
        return self.bdd.to_expr(self.value(p))

    def stats(self) -> dict:
        """Defines, SSA versions, families, variables, node counts, queries, build time."""
        roots = []
        for name, versions in self.net.ssa.items():
            if name in self.net.predicates:
                roots += [self.engine.node(self.index, self.net.truth(v.value)) for v in versions]
        fams = self.engine.layer.families
        return {
            "function": self.function.name,
            "mode": self.mode,
            "lookback": self.lookback,
            "defines": self.net.defines,
            "predicate_ssa_values": len(roots),
            "network_nodes": len(self.net.nodes),
            "families": len(fams),
            "family_sizes": sorted((len(f.conditions) for f in fams.values()), reverse=True),
            "bdd_vars": len(self.bdd.vars),
            "manager_nodes": len(self.bdd),
            "predicate_nodes": _dd.count_nodes(roots) if roots and hasattr(_dd, "count_nodes")
            else len(self.bdd),
            "queries": self.queries,
            "build_seconds": self.build_seconds,
        }
