"""Extraction of the predicate define network of a PIR function (PAS §3.1 steps 0, 1 and 3).

PIR is not SSA, so this module renames on the fly: it walks the acyclic-rendered CFG once in
topological order (DFS retreating edges removed) with an abstract *state* mapping every register
to a symbolic value, and records every Boolean operation in a hash-consed, engine-neutral node
graph (``DefineNetwork``). The BDD (``pas.py``), the SAT cross-check (``sat_check.py``) and the
brute-force oracle (``brute_force.py``) all consume this one network.

Symbolic register values (interned to ints):
- ``("const", k)``: a known 64-bit constant (never-written registers read 0, docs/pir.md);
- ``("val", info)``: an opaque SSA value; conditions ``val REL K`` on it form one *family*;
- ``("sel", node, then, else)``: ``node ? then : else``, from a γ/μ merge (node = ω), a guarded
  write (node = guard), or a predicate/cmp result (``sel(node, 1, 0)``).
A predicate reads as ``value != 0``; a condition on a ``sel`` value expands into an ITE of the
conditions on its operands (pas.md §3.5, Figure 8).

Network nodes (interned tuples, ids are ints; 0 = false, 1 = true):
``("var", name)`` free ω variable; ``("cond", val, rel, k)`` family condition;
``("rcond", rel, val_a, val_b)`` register-vs-register condition (``rel`` in eq/lt/ltu; an opaque
atom); ``("not", a)``; ``("ite", s, t, e)``; ``("deposit", dtype, g, c, old)`` (PAS Table 1).

ω allocation: one fresh ω per merge block and per unrolled copy, shared by every γ at that merge;
a merge of m incoming edges uses m-1 ω variables chained as ``ω1 ? (ω2 ? ... : e2) : e1``.
μ at a loop header is ``ω ? preheader : backedge`` (Figure 8 polarity). Loops are unrolled
virtually ``lookback`` times (§3.6) starting from free p* values (fresh opaque values, so a
predicate p* is the free condition ``p* != 0``). Irreducible loops get p* values without copies.

The CFG structure is not computed here (DESIGN.md "Datalog decides"): reverse postorder and
retreating edges are facts, dominators and natural loops come from ``datalog/dominance.dl`` and
``loops.dl``, block live-in sets from ``datalog/liveness.dl`` (``PAS_RELATIONS``,
``cfg_structure``).
"""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Mapping, Optional

from pylogic.errors import PathlogicError
from pylogic.identity_cache import IdentityCache
from pylogic.ir.deposit_types import deposit
from pylogic.ir.model import (
    TRUE_PREDICATES, BinOp, Br, Cmp, CondBr, Function, GlobalAddr, Imm, Input, Mov, PredDefine,
    Reg, Select, UnOp, to_signed64,
)
from pylogic.ir.ops import REFLEXIVE, SWAPPED, eval_rel, fold

FALSE, TRUE = 0, 1


#: Last defining blocks per function, by identity (a Function's own hash walks all of it).
_LAST_DEFS = IdentityCache(256)


def last_defining_blocks(function: Function) -> dict[str, str]:
    """``{register: label of the block that defines it last in layout order}``, computed once
    per function (issue #12 item 2: it was rescanned for every predicate pair). A register no
    block defines is absent; readers use the entry block for it."""
    hit = _LAST_DEFS.get(function)
    if hit is not None:
        return hit
    last: dict[str, str] = {}
    for b in function.blocks:
        for ins in b.instrs:
            for name in ins.defs():
                last[name] = b.label
    return _LAST_DEFS.put(function, last)


class PredicateError(PathlogicError):
    """A predicate query names something the analysis does not know."""

    kind = "predicate error"


@dataclass(frozen=True)
class ValueInfo:
    """Provenance of an opaque SSA value (one condition family)."""
    name: str          # register name (or global name)
    kind: str          # "param" | "livein" | "def" | "pstar" | "global"
    label: str = ""    # block of the definition (header for p*)
    index: int = -1    # instruction index (-1 for block-level values)
    copy: str = ""     # virtual copy tag ("" = the real iteration)
    loop: Optional[str] = None  # innermost loop header whose iterations create it

    @property
    def display(self) -> str:
        """Readable name: ``r1``, ``r1@b3.2'`` (copy), ``p1*``."""
        if self.kind == "pstar":
            return f"{self.name}*{self.copy}"
        if self.kind in ("param", "livein", "global"):
            return self.name
        return f"{self.name}@{self.label}.{self.index}{self.copy}"


@dataclass
class SSAVersion:
    """One SSA definition of a register in the real (recorded) pass."""
    name: str
    version: int
    value: int          # value id
    label: str
    index: int          # instruction index; -1 for a γ/μ at block entry
    kind: str           # "def" | "gamma" | "mu"

    @property
    def ssa_name(self) -> str:
        return f"{self.name}.{self.version}"


@dataclass
class Loop:
    header: str
    latches: list
    body: set
    reducible: bool
    defined: list = field(default_factory=list)  # names written in the body (sorted by first def)


_IDENT = re.compile(r"[^A-Za-z0-9_]")


def _safe(name: str) -> str:
    """A BDD-variable-friendly spelling of a name (``p1*`` -> ``p1_star``)."""
    return _IDENT.sub("_", name.replace("*", "_star").replace("'", "_c"))


class DefineNetwork:
    """The hash-consed Boolean network of one function plus what was recorded at each point."""

    def __init__(self, function: Function):
        self.function = function
        self.nodes: list[tuple] = [("const", 0), ("const", 1)]
        self._node_ids: dict[tuple, int] = {n: i for i, n in enumerate(self.nodes)}
        self.node_origin: dict[int, tuple] = {}   # node id -> (label, index) creating it
        self.values: list[tuple] = []
        self._value_ids: dict[tuple, int] = {}
        self.infos: list[ValueInfo] = []
        self.var_loop: dict[int, Optional[str]] = {}  # ω node -> loop context
        self.var_kind: dict[int, str] = {}            # ω node -> "omega" | "mu"
        # recorded by the real pass
        self.block_entry: dict[str, dict] = {}
        self.writes: dict[str, list] = {}
        self.guards: dict[tuple, int] = {}
        self.ssa: dict[str, list[SSAVersion]] = defaultdict(list)
        self.predicates: list[str] = []
        self.loops: dict[str, Loop] = {}
        self.loop_of: dict[str, Optional[str]] = {}
        self.idom: dict[str, str] = {}
        self.order: list[str] = []
        self.defines = 0
        self._origin: Optional[tuple] = None
        self._cond_memo: dict[tuple, int] = {}

    # ------------------------------------------------------------ node construction
    def node(self, n: tuple) -> int:
        nid = self._node_ids.get(n)
        if nid is None:
            nid = len(self.nodes)
            self.nodes.append(n)
            self._node_ids[n] = nid
            if self._origin is not None:
                self.node_origin[nid] = self._origin
        return nid

    def var(self, name: str, kind: str, loop: Optional[str]) -> int:
        nid = self.node(("var", name))
        self.var_kind[nid] = kind
        self.var_loop[nid] = loop
        return nid

    def neg(self, a: int) -> int:
        if a <= TRUE:
            return 1 - a
        n = self.nodes[a]
        if n[0] == "not":
            return n[1]
        return self.node(("not", a))

    def ite(self, s: int, t: int, e: int) -> int:
        if s == TRUE or t == e:
            return t
        if s == FALSE:
            return e
        if t == TRUE and e == FALSE:
            return s
        if t == FALSE and e == TRUE:
            return self.neg(s)
        return self.node(("ite", s, t, e))

    def deposit_node(self, dtype: str, g: int, c: int, old: int) -> int:
        if g <= TRUE and c <= TRUE and old <= TRUE:
            return deposit(dtype, g, c, old)
        return self.node(("deposit", dtype, g, c, old))

    # ------------------------------------------------------------ values
    def value(self, v: tuple) -> int:
        vid = self._value_ids.get(v)
        if vid is None:
            vid = len(self.values)
            self.values.append(v)
            self._value_ids[v] = vid
        return vid

    def const(self, k: int) -> int:
        return self.value(("const", to_signed64(k)))

    def fresh(self, info: ValueInfo) -> int:
        self.infos.append(info)
        return self.value(("val", len(self.infos) - 1))

    def sel(self, s: int, t: int, e: int) -> int:
        if s == TRUE or t == e:
            return t
        if s == FALSE:
            return e
        return self.value(("sel", s, t, e))

    def bool_value(self, n: int) -> int:
        return self.const(n) if n <= TRUE else self.sel(n, self.const(1), self.const(0))

    def cond(self, rel: str, a: int, b: int) -> int:
        """Node of ``a REL b`` for value ids ``a``, ``b`` (pas.md §3.3, §3.5)."""
        key = (rel, a, b)
        hit = self._cond_memo.get(key)
        if hit is not None:
            return hit
        va, vb = self.values[a], self.values[b]
        if va[0] == "sel":
            r = self.ite(va[1], self.cond(rel, va[2], b), self.cond(rel, va[3], b))
        elif vb[0] == "sel":
            r = self.ite(vb[1], self.cond(rel, a, vb[2]), self.cond(rel, a, vb[3]))
        elif va[0] == "const" and vb[0] == "const":
            r = int(eval_rel(rel, va[1], vb[1]))                       # constant folding, e.g. (0=0)
        elif a == b:
            r = int(rel in REFLEXIVE)
        elif va[0] == "const":
            r = self.cond(SWAPPED[rel], b, a)                          # K rel x -> x rel' K
        elif vb[0] == "const":
            r = self.node(("cond", a, rel, vb[1]))
        else:
            r = self._rcond(rel, a, b)
        self._cond_memo[key] = r
        return r

    def _rcond(self, rel: str, a: int, b: int) -> int:
        # opaque register-vs-register atom, shared with its opposite (pas.md §3.3 [INF])
        unsigned = rel.endswith("u")
        base = rel[:-1] if unsigned else rel
        lt = "ltu" if unsigned else "lt"
        if base in ("eq", "ne"):
            n = self.node(("rcond", "eq", min(a, b), max(a, b)))
            return self.neg(n) if base == "ne" else n
        if base == "lt":
            return self.node(("rcond", lt, a, b))
        if base == "ge":
            return self.neg(self.node(("rcond", lt, a, b)))
        if base == "gt":
            return self.node(("rcond", lt, b, a))
        return self.neg(self.node(("rcond", lt, b, a)))               # le

    def truth(self, v: int) -> int:
        """Predicate node of a register value: ``v != 0``."""
        return self.cond("ne", v, self.const(0))

    # ------------------------------------------------------------ introspection
    def family_conditions(self) -> dict[int, list]:
        """``{val id: [(rel, k), ...]}`` in order of first appearance in the network."""
        fams: dict[int, list] = {}
        for n in self.nodes:
            if n[0] == "cond":
                lst = fams.setdefault(n[1], [])
                if (n[2], n[3]) not in lst:
                    lst.append((n[2], n[3]))
        return fams

    def cone(self, roots) -> list[int]:
        """Node ids reachable from ``roots`` in increasing (topological) order."""
        seen, stack = set(), list(roots)
        while stack:
            nid = stack.pop()
            if nid in seen:
                continue
            seen.add(nid)
            stack.extend(self.children(nid))
        return sorted(seen)

    def postorder(self, nid: int, done):
        """Nodes of ``nid``'s cone for which ``done(node)`` is false, children first.

        Iterative (networks can be deep). The caller records each yielded node's result before
        asking for the next, so a node shared below two parents is yielded once.
        """
        stack = [nid]
        while stack:
            x = stack[-1]
            if done(x):
                stack.pop()
                continue
            kids = [c for c in self.children(x) if not done(c)]
            if kids:
                stack.extend(kids)
                continue
            stack.pop()
            yield x

    def children(self, nid: int) -> tuple:
        n = self.nodes[nid]
        if n[0] == "not":
            return (n[1],)
        if n[0] == "ite":
            return n[1:]
        if n[0] == "deposit":
            return n[2:]
        return ()

    def value_name(self, vid: int) -> str:
        v = self.values[vid]
        if v[0] == "const":
            return str(v[1])
        if v[0] == "val":
            return self.infos[v[1]].display
        return f"({self.node_name(v[1])} ? {self.value_name(v[2])} : {self.value_name(v[3])})"

    def node_name(self, nid: int) -> str:
        """A short human-readable name of a leaf or a node id."""
        n = self.nodes[nid]
        if n[0] == "const":
            return str(n[1])
        if n[0] == "var":
            return n[1]
        if n[0] == "cond":
            return f"({self.value_name(n[1])} {n[2]} {n[3]})"
        if n[0] == "rcond":
            return f"({self.value_name(n[2])} {n[1]} {self.value_name(n[3])})"
        if n[0] == "not":
            return "!" + self.node_name(n[1])
        return f"n{nid}"

    def reproducer(self, roots) -> str:
        """PIR text of the instructions that built the cone of ``roots`` (a minimal reproducer)."""
        where = sorted({self.node_origin[n] for n in self.cone(roots) if n in self.node_origin},
                       key=lambda li: (self.order.index(li[0]) if li[0] in self.order else 1 << 30,
                                       li[1]))
        blocks = self.function.block_map()
        lines, last = [f"func {self.function.name}({', '.join(self.function.params)}) {{"], None
        for label, index in where:
            if label != last:
                lines.append(f"{label}:")
                last = label
            if index >= 0:
                lines.append("    " + instr_text(blocks[label].instrs[index]))
        lines.append("}")
        return "\n".join(lines)


def _operand(op) -> str:
    return str(op)


def instr_text(ins) -> str:
    """PIR text of an instruction (defines exactly, others best effort)."""
    guard = f"({ins.guard}) " if ins.guard else ""
    if isinstance(ins, PredDefine):
        dests = ", ".join(f"{d.name}:{d.dtype}" for d in ins.dests)
        return f"{guard}{dests} = pcmp.{ins.rel} {_operand(ins.a)}, {_operand(ins.b)}"
    if isinstance(ins, Cmp):
        return f"{guard}{ins.dest} = cmp.{ins.rel} {ins.a}, {ins.b}"
    if isinstance(ins, Mov):
        return f"{guard}{ins.dest} = mov {ins.src}"
    if isinstance(ins, BinOp):
        return f"{guard}{ins.dest} = {ins.op} {ins.a}, {ins.b}"
    if isinstance(ins, UnOp):
        return f"{guard}{ins.dest} = {ins.op} {ins.a}"
    if isinstance(ins, Select):
        return f"{guard}{ins.dest} = select {ins.cond}, {ins.a}, {ins.b}"
    if isinstance(ins, Input):
        return f"{guard}{ins.dest} = input"
    if isinstance(ins, Br):
        return f"{guard}br {ins.target}"
    if isinstance(ins, CondBr):
        return f"{guard}cbr {ins.cond}, {ins.if_true}, {ins.if_false}"
    return f"{guard}{ins.opcode} ; {ins!r}"


#: The relations PAS reads, computed by datalog/dominance.dl, loops.dl and liveness.dl (with
#: ``rpo`` and ``retreating`` from the facts): ``module_rows(module, relations=PAS_RELATIONS)``.
PAS_RELATIONS = ("rpo", "retreating", "idom", "back_edge", "loop_block", "live_in")


@dataclass
class CfgStructure:
    """What the network builder needs to know about a CFG (all read from Datalog rows)."""
    rpo: list          # reachable blocks in reverse postorder
    retreating: set    # DFS retreating edges (a, b)
    idom: dict         # block -> immediate dominator (no entry for the entry, unreachable blocks)
    loops: dict        # header -> Loop, headers in reverse postorder
    live_in: dict      # block -> registers live at its start


def _relation(rows: Mapping, name: str) -> list:
    try:
        return rows[name]
    except KeyError:
        who = getattr(rows, "function_id", "the function")
        raise PredicateError(
            f"predicate analysis of {who} needs the relation {name!r}, which was not computed: "
            f"get the rows with module_rows(module, relations=PAS_RELATIONS)") from None


def cfg_structure(function: Function, rows: Mapping) -> CfgStructure:
    """Reverse postorder, dominators, natural loops and block live-in sets of ``function``.

    Parameters
    ----------
    function : Function
        A defined function (its block labels and successors are checked against the rows).
    rows : FunctionRows
        The function's rows of ``PAS_RELATIONS``: ``rpo`` and ``retreating`` (facts_gen's DFS),
        ``idom`` (datalog/dominance.dl), ``back_edge`` and ``loop_block`` (datalog/loops.dl),
        ``live_in`` (datalog/liveness.dl).

    Returns
    -------
    CfgStructure
        Loops are keyed by the targets of retreating edges; the latches of header h are the
        sources of retreating edges to h, in reverse postorder. A loop is reducible when each of
        those edges is a back edge (h dominates the latch); its body is then the natural loop
        (``loop_block``), otherwise just ``{h}`` (its values enter as p*, pas.md §3.6).

    Raises
    ------
    PredicateError
        A relation is missing, or the rows describe another CFG (stale rows).

    Example
    -------
    >>> rows = module_rows(module, relations=PAS_RELATIONS)           # doctest: +SKIP
    >>> s = cfg_structure(fn, rows.of(fid))                           # doctest: +SKIP
    >>> s.rpo, {h: sorted(lp.body) for h, lp in s.loops.items()}      # doctest: +SKIP
    (['pre', 'loop', 'exit'], {'loop': ['loop']})

    References: pas.md §3.1 step 0 (acyclic rendering), §3.6 (loops, μ for backedge-live names).
    """
    labels = {b.label for b in function.blocks}
    numbered = sorted((n, b) for b, n in _relation(rows, "rpo"))
    rpo = [b for _, b in numbered]
    edges = set(function.edges())
    retreating = {tuple(e) for e in _relation(rows, "retreating")}
    if not rpo or rpo[0] != function.blocks[0].label or not set(rpo) <= labels \
            or not retreating <= edges:
        who = getattr(rows, "function_id", function.name)
        raise PredicateError(f"the rows of {who} do not describe the CFG of function "
                             f"{function.name} (stale rows?)", function.loc)
    order = {b: k for k, b in enumerate(rpo)}
    idom = {n: d for d, n in _relation(rows, "idom")}
    back = {tuple(e) for e in _relation(rows, "back_edge")}
    bodies: dict = defaultdict(set)
    for h, b in _relation(rows, "loop_block"):
        bodies[h].add(b)
    live_in = {b: set() for b in labels}
    for b, r in _relation(rows, "live_in"):
        live_in.setdefault(b, set()).add(r)
    latches: dict = defaultdict(list)
    for a, h in sorted(retreating, key=lambda e: (order[e[1]], order[e[0]])):
        latches[h].append(a)
    loops = {}
    for h, ls in latches.items():
        reducible = all((u, h) in back for u in ls)
        loops[h] = Loop(h, ls, set(bodies[h]) if reducible else {h}, reducible)
    return CfgStructure(rpo, retreating, idom, loops, live_in)


class NetworkBuilder:
    """Walks a function once (plus virtual loop copies) and fills a ``DefineNetwork``.

    Parameters: ``rows`` = the function's Datalog rows (``PAS_RELATIONS``, see
    ``cfg_structure``); ``lookback`` = number of virtual previous iterations per loop (k,
    pas.md §3.6); ``livein`` = "zero" (docs/pir.md: never-written registers read 0) or "free"
    (predicates and registers live into the function are free, pas.md §3.4 [INF]).
    """

    def __init__(self, function: Function, rows: Mapping, lookback: int = 1,
                 livein: str = "zero", merges: str = "gamma"):
        if function.extern or not function.blocks:
            raise PredicateError(f"function {function.name} has no body", function.loc)
        if lookback < 0:
            raise PredicateError("lookback must be >= 0")
        if livein not in ("zero", "free"):
            raise PredicateError(f"livein must be 'zero' or 'free', not {livein!r}")
        if merges not in ("gamma", "independent", "unknown"):
            raise PredicateError(f"merges must be gamma, independent or unknown, not {merges!r}")
        self.f = function
        self.merges = merges
        self.k = lookback
        self.livein = livein
        self.net = DefineNetwork(function)
        self.blocks = function.block_map()
        self._initial_memo: dict[str, int] = {}
        self._merge_count = 0
        self._analyse_cfg(rows)

    # ------------------------------------------------------------ CFG structure
    def _analyse_cfg(self, rows) -> None:
        """Order, loops and liveness from the Datalog rows (pas.md §3.1 step 0, §3.6)."""
        f, net = self.f, self.net
        for b in f.blocks:
            for t in b.successors():
                if t not in self.blocks:
                    raise PredicateError(f"branch to unknown label {t!r}", b.loc)
        s = cfg_structure(f, rows)
        self.rpo = s.rpo
        self.reachable = set(self.rpo)
        self.retreating = s.retreating
        self.live_in = s.live_in
        net.idom = s.idom
        self.fwd_preds: dict[str, list] = defaultdict(list)
        for a in self.rpo:
            for b in self.blocks[a].successors():
                if (a, b) not in self.retreating and a not in self.fwd_preds[b]:
                    self.fwd_preds[b].append(a)
        all_defs = self._defined_names(self.rpo)
        for h, loop in s.loops.items():   # an irreducible loop's p* cover every name (§3.6)
            ordered = [b for b in self.rpo if b in loop.body]
            loop.defined = self._defined_names(ordered) if loop.reducible else all_defs
            net.loops[h] = loop
        for b in self.rpo:
            inner = [lp for lp in net.loops.values() if b in lp.body]
            net.loop_of[b] = min(inner, key=lambda lp: len(lp.body)).header if inner else None
        net.order = self.rpo + [b.label for b in f.blocks if b.label not in self.reachable]
        preds = []
        for b in f.blocks:
            for ins in b.instrs:
                if isinstance(ins, PredDefine):
                    net.defines += 1
                    preds += [d.name for d in ins.dests]
                if ins.guard:
                    preds.append(ins.guard)
        net.predicates = [p for p in dict.fromkeys(preds) if p not in TRUE_PREDICATES]

    def _defined_names(self, labels) -> list:
        names = []
        for lb in labels:
            for ins in self.blocks[lb].instrs:
                names += [d for d in ins.defs() if d not in TRUE_PREDICATES]
        return list(dict.fromkeys(names))

    # ------------------------------------------------------------ state helpers
    def initial(self, name: str) -> int:
        net = self.net
        if name in TRUE_PREDICATES:
            return net.const(1)
        hit = self._initial_memo.get(name)
        if hit is None:
            if name in self.f.params:
                hit = net.fresh(ValueInfo(name, "param"))
            elif self.livein == "free":
                hit = net.fresh(ValueInfo(name, "livein"))
            else:
                hit = net.const(0)  # docs/pir.md: a register never written reads 0
            self._initial_memo[name] = hit
        return hit

    def read(self, state: dict, op) -> int:
        net = self.net
        if isinstance(op, Imm):
            return net.const(op.value)
        if isinstance(op, GlobalAddr):
            key = "@global:" + op.name
            if key not in self._initial_memo:
                self._initial_memo[key] = net.fresh(ValueInfo(op.name, "global"))
            return self._initial_memo[key]
        name = op.name if isinstance(op, Reg) else op
        if name in TRUE_PREDICATES:
            return net.const(1)
        v = state.get(name)
        return self.initial(name) if v is None else v

    def guard_node(self, state: dict, guard: Optional[str]) -> int:
        if guard is None or guard in TRUE_PREDICATES:
            return TRUE
        return self.net.truth(self.read(state, guard))

    def _omega(self, label: str, copy: str, kind: str) -> int:
        self._merge_count += 1
        name = f"w_{_safe(label)}{_safe(copy)}_{self._merge_count}"
        return self.net.var(name, kind, self.net.loop_of.get(label))

    def merge(self, states: list, label: str, copy: str, record: bool) -> dict:
        """γ-merge of the states on the incoming edges of ``label`` (one shared ω set, §3.5)."""
        if len(states) == 1:
            return dict(states[0])
        net = self.net
        names = list(dict.fromkeys(n for s in states for n in s))
        omegas: list = []
        out = {}
        for name in names:
            vals = [s.get(name) for s in states]
            vals = [self.initial(name) if v is None else v for v in vals]
            if all(v == vals[0] for v in vals):
                out[name] = vals[0]
                continue
            if self.merges == "unknown":               # φ as a write of an unknown value
                v = net.fresh(ValueInfo(name, "def", label, -1, copy, net.loop_of.get(label)))
                out[name] = v
                if record:
                    self._record_version(name, v, label, -1, "gamma")
                continue
            if not omegas or self.merges == "independent":
                omegas = [self._omega(label, copy, "omega") for _ in range(len(states) - 1)]
            v = vals[-1]
            for j in range(len(vals) - 2, -1, -1):   # γ(ω, d1, d2) = ω ? d2 : d1
                v = net.sel(omegas[j], v, vals[j])
            out[name] = v
            if record:
                self._record_version(name, v, label, -1, "gamma")
        return out

    def _record_version(self, name, value, label, index, kind) -> None:
        versions = self.net.ssa[name]
        versions.append(SSAVersion(name, len(versions), value, label, index, kind))

    # ------------------------------------------------------------ loops (pas.md §3.6)
    def loop_entry_state(self, header: str, pre: dict, copy: str, record: bool) -> dict:
        net = self.net
        loop = net.loops[header]
        names = loop.defined
        incoming = {n: net.fresh(ValueInfo(n, "pstar", header, -1, copy, header)) for n in names}
        if loop.reducible:
            body = [b for b in self.rpo if b in loop.body]
            for t in range(self.k + 1, 1, -1):
                tag = f"{copy}'{t}"
                hdr = self._mu(header, pre, incoming, names, tag, record=False)
                edges = self.run(body, header, hdr, tag, record=False, header_done=True)
                latch_states = [s for u in loop.latches for s in edges.get((u, header), [])]
                if latch_states:
                    merged = self.merge(latch_states, header, tag + "_latch", record=False)
                    incoming = {n: self.read(merged, n) for n in names}
        return self._mu(header, pre, incoming, names, copy, record)

    def _mu(self, header, pre, incoming, names, copy, record) -> dict:
        net = self.net
        state = dict(pre)
        omega = None
        for n in names:
            p = self.read(pre, n)
            v = incoming[n]
            if p != v:
                if omega is None:
                    omega = self._omega(header, copy + "_mu", "mu")
                v = net.sel(omega, p, v)   # μ(ω, preheader, backedge), ω=1 selects the preheader
                if record and n in self.live_in[header]:   # μ only for backedge-live names
                    self._record_version(n, v, header, -1, "mu")
            state[n] = v
        return state

    # ------------------------------------------------------------ the traversal
    def build(self) -> DefineNetwork:
        entry = self.f.blocks[0].label
        self.run(self.rpo, entry, {}, "", record=True, header_done=False)
        for b in self.f.blocks:                      # unreachable code: initial state
            if b.label not in self.reachable:
                self._exec_block(b.label, {}, "", True, defaultdict(list))
        self._tag_predicates()
        self.net._origin = None
        self.net.initial = self.initial
        return self.net

    def _tag_predicates(self) -> None:
        """Create the node of every predicate value at every recorded point (pas.md §3.1 step 4)."""
        net = self.net
        for name in net.predicates:
            net.truth(self.initial(name))
            for ver in net.ssa.get(name, []):
                net.truth(ver.value)

    def run(self, region: list, entry: str, entry_state: dict, copy: str, record: bool,
            header_done: bool) -> dict:
        """Process ``region`` (topologically ordered labels) from ``entry``; return edge states."""
        edges: dict = defaultdict(list)
        inside = set(region)
        for label in region:
            if label == entry:
                state = dict(entry_state)
                if label in self.net.loops and not header_done:
                    state = self.loop_entry_state(label, state, copy, record)
            else:
                incoming = [s for p in self.fwd_preds[label] if p in inside
                            for s in edges.get((p, label), [])]
                if not incoming:
                    continue
                state = self.merge(incoming, label, copy, record)
                if label in self.net.loops:
                    state = self.loop_entry_state(label, state, copy, record)
            self._exec_block(label, state, copy, record, edges)
        return edges

    def _exec_block(self, label, state, copy, record, edges) -> None:
        net = self.net
        block = self.blocks[label]
        if record:
            net.block_entry[label] = dict(state)
            net.writes[label] = []
        for index, ins in enumerate(block.instrs):
            net._origin = (label, index)
            g = self.guard_node(state, ins.guard)
            if record:
                net.guards[(label, index)] = g
            writes = self._exec(ins, state, g, label, index, copy)
            for name, v in writes:
                state[name] = v
                if record:
                    self._record_version(name, v, label, index, "def")
            if record:
                net.writes[label].append(writes)
            if isinstance(ins, Br):
                edges[(label, ins.target)].append(dict(state))
                if ins.guard is None:
                    break
            elif isinstance(ins, CondBr):
                edges[(label, ins.if_true)].append(dict(state))
                if ins.if_false != ins.if_true:
                    edges[(label, ins.if_false)].append(dict(state))
                break
            elif ins.is_terminator and ins.guard is None:
                break
        net._origin = None

    def _exec(self, ins, state, g, label, index, copy) -> list:
        net = self.net
        if isinstance(ins, PredDefine):
            c = net.cond(ins.rel, self.read(state, ins.a), self.read(state, ins.b))
            news = []
            for d in ins.dests:                      # read every old value before writing (§3.4)
                if d.name in TRUE_PREDICATES:
                    continue
                old = net.truth(self.read(state, d.name))
                news.append((d.name, net.bool_value(net.deposit_node(d.dtype, g, c, old))))
            return news
        dests = [d for d in ins.defs() if d not in TRUE_PREDICATES]
        if not dests or g == FALSE:
            return []
        dest = dests[0]
        v = self._compute(ins, state, dest, label, index, copy)
        if g != TRUE:                                 # guarded write: g ? new : old
            v = net.sel(g, v, self.read(state, dest))
        return [(dest, v)]

    def _compute(self, ins, state, dest, label, index, copy) -> int:
        net = self.net
        rd = lambda op: self.read(state, op)  # noqa: E731
        if isinstance(ins, Mov):
            return rd(ins.src)
        if isinstance(ins, Cmp):
            return net.bool_value(net.cond(ins.rel, rd(ins.a), rd(ins.b)))
        if isinstance(ins, Select):
            return net.sel(net.truth(rd(ins.cond)), rd(ins.a), rd(ins.b))
        if isinstance(ins, (BinOp, UnOp)):
            ops = [rd(ins.a)] + ([rd(ins.b)] if isinstance(ins, BinOp) else [])
            vals = [net.values[o] for o in ops]
            # div and rem may fault: never folded
            if ins.op not in ("div", "rem") and all(v[0] == "const" for v in vals):
                return net.const(fold(ins.op, *[v[1] for v in vals]))
        loop = net.loop_of.get(label)
        return net.fresh(ValueInfo(dest, "def", label, index, copy, loop))


def build_network(function: Function, rows: Mapping, lookback: int = 1, livein: str = "zero",
                  merges: str = "gamma") -> DefineNetwork:
    """Extract the predicate define network of ``function`` (see module docstring).

    Parameters
    ----------
    function : Function
    rows : FunctionRows
        The function's rows of ``PAS_RELATIONS`` (``pylogic.engines.rows``).
    lookback, livein, merges
        As ``NetworkBuilder``.

    Raises
    ------
    PredicateError
        No body, a bad option, or ``rows`` lacking a relation or not matching ``function``.

    References: pas.md §3.1 (pipeline), §3.4 (forward-single), §3.5 (γ), §3.6 (μ, unrolling).
    """
    return NetworkBuilder(function, rows, lookback, livein, merges).build()
