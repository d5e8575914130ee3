"""The Value Name Graph (PathFinder ch. 3, pathfinder.md §3.4, §11.1): value threads by
symbolic back-substitution (Fig. 3.12) and Symbolic Value Numbering (§3.4.1.3), as facts.

Symbolic language P (§3.4.1.1): linear forms ``c0 + c1*v1 + ... + ck*vk`` over atoms, with
coefficients in Z/2^64 (machine arithmetic: the footnote of Ex. 3.1), where an atom is a register,
a global's address, an opaque operator application ``op(n1, n2)`` (and, cmp.lt, div, ...; the
operands of commutative ones sorted) or a load ``*N(L)`` of N bytes, sign- (``s``) or
zero-extended (``u``), at address name L (8-byte loads print as ``*(L)``): indirection is part
of the name (§3.4.1.1, Example 1). ``ω`` (``OMEGA``) names a value no other name can.

``substitute(ins, e)`` maps the name ``e`` at the exit of ``ins`` to the name of the same value
at its entry: across ``r = mov s`` r becomes s, across ``r = add a, 4`` r becomes a+4 (linear
forms simplify), across ``t = load L`` t becomes ``*(L)`` (indirection increases), across
``store L, t`` ``*(L)`` becomes t (decreases; exact only when t survives the load's
extension, ``flow.fits_extension``), a register written by a call, ``input``,
``alloca`` or a guarded write makes the name ω. May-aliasing is ignored here (threads run across stores and calls that may
change a load in the name); those instructions are *kills* in the dataflow (§3.4.1.4).

Step 1 (``threads``, Fig. 3.12): from every computation (seed: an unguarded expression or load,
named at its entry) the name is carried backwards through the CFG, one statement at a time;
worklists hold names at statement exits; ``w + 1`` traversals, a name crossing a back edge
waits for the next one; names reaching the start, or still pending after the last traversal,
are grounded to ω. The value transfers ``(n, e, e')`` (e at n's exit is e' at its entry) are
the VNG's name changes; everything else flows through unchanged.

Step 2 (``synonyms``, ``classes``, Fig. 3.15's semantics): two names at a point are synonyms when,
on every path backwards from it, they reduce to the same non-ω name before either reduces to ω
(optimistic around cycles, at most ``w`` back edges per path; crossing a store or call while a
name still holds a load fails, so every synonym is exact). The Fig. 3.15 algorithm reaches this by
deleting interference edges of the SSA'ed name variables; here the same relation is decided
per pair by a backward search over pairs of names, only for the pairs the facts need: a
computation n *generates* the name e at its exit when e back-substituted across n is a synonym
of n's own seed name, and computations are in one class when one generates the other's thread
(union-find). The classes are what Fig. 3.3 and Fig. 3.14 expect: SVN relates x0, y0, y1, y2
where a hash-based GVN does not (tests/facts_gen/test_vng.py).

Facts (declared in ``datalog/schema.dl``, used by ``datalog/vng.dl``): ``vng_seed``,
``vng_node``, ``vng_transfer``, ``vng_kill``, ``vng_gen``, ``vng_class``, ``vng_merge`` and
``vng_merge_succ`` (the thread merges ANTIC's ⊔ runs over, enumerated so the "for all thread
successors" is a positive chain, pathfinder.md §10.2); a function whose threads would take
more than ``MAX_VISITS`` steps is cut short, its pending names grounded to ω (fewer names: never
a wrong claim) and reported in ``vng_truncated``.
"""
from __future__ import annotations

from collections import defaultdict
from functools import lru_cache
from typing import Optional

from pylogic.ir.model import (BinOp, Call, Cmp, Function, GlobalAddr, Imm, Instr, Load, Mov,
                              Select, Store, UnOp)
from facts_gen.naming import instr_id
from pylogic.flow.definitions import definitions
from pylogic.flow.fits_extension import fits_extension
from pylogic.union_find import UnionFind

#: Relations this module writes (declared in datalog/schema.dl, "Value Name Graph" section).
VNG_RELATIONS = ("vng_seed", "vng_node", "vng_transfer", "vng_kill", "vng_gen", "vng_class",
                 "vng_merge", "vng_merge_succ", "vng_truncated")
OMEGA = None
OMEGA_TEXT = "ω"
#: default loop iteration window (§3.8: w = 2, 3 are the practically relevant windows)
WINDOW = 2
#: steps of Step 1 per function before its pending names are grounded to ω
MAX_VISITS = 20_000
#: steps of one synonym search, and searches per function (beyond: no synonym, fewer classes)
MAX_SYNONYM_STEPS = 500
MAX_SYNONYM_CALLS = 500
START = "__start__"

_M = 1 << 64
COMMUTATIVE = frozenset({"add", "mul", "and", "or", "xor", "cmp.eq", "cmp.ne"})


def _wrap(c: int) -> int:
    c %= _M
    return c - _M if c >= 1 << 63 else c


# ------------------------------------------------------------------ the symbolic language
# A name is ("lin", c0, ((atom, coeff), ...)) with atoms sorted by their text and no zero
# coefficient; atoms are ("reg", r), ("op", op, (name, ...)) or ("load", N, signed, name).

def const(c: int) -> tuple:
    return ("lin", _wrap(c), ())


def atom(a: tuple) -> tuple:
    return ("lin", 0, ((a, 1),))


def _lin(c0: int, terms: dict) -> tuple:
    items = tuple(sorted(((a, _wrap(k)) for a, k in terms.items() if _wrap(k)),
                         key=lambda t: atom_text(t[0])))
    return ("lin", _wrap(c0), items)


def add(x: tuple, y: tuple, k: int = 1) -> tuple:
    """x + k*y."""
    terms = dict(x[2])
    for a, c in y[2]:
        terms[a] = terms.get(a, 0) + k * c
    return _lin(x[1] + k * y[1], terms)


def scale(x: tuple, k: int) -> tuple:
    return _lin(x[1] * k, {a: c * k for a, c in x[2]})


def single_atom(x: tuple) -> Optional[tuple]:
    """The atom a when x is exactly a (coefficient 1, no constant)."""
    return x[2][0][0] if x[1] == 0 and len(x[2]) == 1 and x[2][0][1] == 1 else None


@lru_cache(maxsize=1 << 16)
def atom_text(a: tuple) -> str:
    if a[0] == "reg":
        return a[1]
    if a[0] == "op":
        return f"{a[1]}({','.join(text(n) for n in a[2])})"
    size, signed, addr = a[1], a[2], a[3]
    return f"*({text(addr)})" if size == 8 else f"*{size}{'s' if signed else 'u'}({text(addr)})"


@lru_cache(maxsize=1 << 16)
def text(n: Optional[tuple]) -> str:
    """The name as text: ``-3*a``, ``b-a``, ``*(@Lp)+1``, ``and(x,255)``, ``ω``."""
    if n is OMEGA:
        return OMEGA_TEXT
    out = ""
    for a, c in n[2]:
        t = atom_text(a)
        if c == 1:
            out += ("+" if out else "") + t
        elif c == -1:
            out += "-" + t
        else:
            out += ("+" if out and c > 0 else "") + f"{c}*{t}"
    if n[1] or not out:
        out += ("+" if out and n[1] > 0 else "") + str(n[1])
    return out


def operand(a) -> tuple:
    """The name of an operand at the point it is read."""
    if isinstance(a, Imm):
        return const(a.value)
    if isinstance(a, GlobalAddr):
        return atom(("reg", a.name))
    return atom(("reg", a.name))


def _opaque(op: str, args: list) -> tuple:
    if op in COMMUTATIVE:
        args = sorted(args, key=text)
    return atom(("op", op, tuple(args)))


def value_of(ins: Instr) -> Optional[tuple]:
    """The name of the value ``ins`` writes, over the names of its operands at its entry; ω for
    values no name describes (calls, input, alloca, predicate defines)."""
    if isinstance(ins, Mov):
        return operand(ins.src)
    if isinstance(ins, BinOp):
        a, b = operand(ins.a), operand(ins.b)
        if ins.op == "add":
            return add(a, b)
        if ins.op == "sub":
            return add(a, b, -1)
        if ins.op == "mul" and not a[2]:
            return scale(b, a[1])
        if ins.op == "mul" and not b[2]:
            return scale(a, b[1])
        if ins.op == "shl" and not b[2]:
            return scale(a, 1 << (b[1] % 64))
        return _opaque(ins.op, [a, b])
    if isinstance(ins, UnOp):
        a = operand(ins.a)
        return scale(a, -1) if ins.op == "neg" else add(const(-1), a, -1)   # not x = -x-1
    if isinstance(ins, Cmp):
        return _opaque(f"cmp.{ins.rel}", [operand(ins.a), operand(ins.b)])
    if isinstance(ins, Select):
        return _opaque("select", [operand(ins.cond), operand(ins.a), operand(ins.b)])
    if isinstance(ins, Load):
        return atom(("load", ins.size, ins.signed, operand(ins.addr)))
    return OMEGA


def seed_name(ins: Instr) -> Optional[tuple]:
    """The lexical name of the computation ``ins`` (an unguarded expression or load), or None."""
    if ins.guard is not None or isinstance(ins, Mov):
        return None
    if not isinstance(ins, (BinOp, UnOp, Cmp, Select, Load)):
        return None
    return value_of(ins)


_KEEP = ("keep",)
#: Operator/load nesting beyond which a name is ω (fewer names, never a wrong one); keeps the
#: recursive name operations within Python's stack on long def-use chains.
MAX_NAME_DEPTH = 16


def _map_atoms(n: tuple, f, depth: int = 0) -> Optional[tuple]:
    """n with every atom a replaced by the name f(a) (f returns _KEEP to keep a; OMEGA is
    propagated), rebuilt bottom-up so operator and load arguments are rewritten too."""
    if depth > MAX_NAME_DEPTH:
        return OMEGA
    out = const(n[1])
    for a, c in n[2]:
        if a[0] == "op":
            args = [_map_atoms(x, f, depth + 1) for x in a[2]]
            if any(x is OMEGA for x in args):
                return OMEGA
            a2 = _opaque(a[1], args)
        elif a[0] == "load":
            addr = _map_atoms(a[3], f, depth + 1)
            if addr is OMEGA:
                return OMEGA
            a2 = atom(("load", a[1], a[2], addr))
        else:
            a2 = atom(a)
        new = f(single_atom(a2))
        if new is OMEGA:
            return OMEGA
        out = add(out, a2 if new is _KEEP else new, c)
    return out


@lru_cache(maxsize=1 << 16)
def registers(n: Optional[tuple]) -> frozenset:
    """The registers (and globals) a name is built from."""
    if n is OMEGA:
        return frozenset()
    out = set()
    for a, _ in n[2]:
        if a[0] == "reg":
            out.add(a[1])
        elif a[0] == "op":
            for x in a[2]:
                out |= registers(x)
        else:
            out |= registers(a[3])
    return frozenset(out)


def mentions(n: Optional[tuple], r: str) -> bool:
    return r in registers(n)


@lru_cache(maxsize=1 << 16)
def has_load(n: Optional[tuple]) -> bool:
    if n is OMEGA:
        return False
    return any(a[0] == "load" or (a[0] == "op" and any(has_load(x) for x in a[2]))
               for a, _ in n[2])


def _syntactic(x: tuple, y: tuple) -> Optional[int]:
    d = add(x, y, -1)
    return None if d[2] else d[1]


def substitute(ins: Instr, e: Optional[tuple], defs: Optional[dict] = None,
               diff=_syntactic) -> Optional[tuple]:
    """The name at the entry of ``ins`` of the value named ``e`` at its exit (Def 3.1's
    back-substitution b(n, e)); ``defs`` (``flow.definitions``) enables the store rule;
    ``diff(x, y)``: the constant x - y of two names at the entry of ``ins``, or None (default:
    from the names alone; ``Graph.differ`` also looks at the instructions before ``ins``)."""
    if e is OMEGA:
        return OMEGA
    written = [r for r in ins.defs() if mentions(e, r)]
    if written:
        if ins.guard is not None:
            return OMEGA                      # may or may not be written
        v = value_of(ins)
        if v is OMEGA or len(ins.defs()) != 1:
            return OMEGA
        r = written[0]
        e = _map_atoms(e, lambda a: v if a == ("reg", r) else _KEEP)
    if isinstance(ins, Store) and ins.guard is None and defs is not None and has_load(e):
        addr, val = operand(ins.addr), operand(ins.value)

        def store_rule(a):
            if a is not None and a[0] == "load" and a[1] == ins.size and \
                    (a[3] == addr or diff(a[3], addr) == 0) and \
                    fits_extension(ins.value, ins.size, a[2], defs, set()):
                return val
            return _KEEP
        e = _map_atoms(e, store_rule)
    return e


def _loads(n: Optional[tuple]):
    """Every load atom inside a name."""
    if n is OMEGA:
        return
    for a, _ in n[2]:
        if a[0] == "load":
            yield a
            yield from _loads(a[3])
        elif a[0] == "op":
            for x in a[2]:
                yield from _loads(x)


def disjoint(store: Store, load: tuple, diff=_syntactic) -> bool:
    """Whether ``store`` surely writes no byte the load atom reads: the two addresses differ by
    a constant at least the width of the lower access (``A[i]`` vs ``A[i-1]``)."""
    d = diff(load[3], operand(store.addr))
    return d is not None and (d >= store.size or -d >= load[1])


def clobbers(ins: Instr, e_entry: Optional[tuple], diff=_syntactic) -> bool:
    """Whether ``ins`` may change the value named (at its entry) ``e_entry`` without the name
    saying so (a kill, §3.4.1.4): a call and a load in the name, or a store and a load in the
    name it may overlap."""
    if isinstance(ins, Call):
        return has_load(e_entry)
    if isinstance(ins, Store):
        return any(not disjoint(ins, a, diff) for a in _loads(e_entry))
    return False


# ------------------------------------------------------------------ Step 1: value threads

class Graph:
    """Statement-level CFG of a function: nodes are instruction ids, START precedes the
    entry's first instruction; back edges are the retreating edges of a DFS from the entry."""

    def __init__(self, fn: Function):
        self.instr: dict[str, Instr] = {}
        self.pred: dict[str, list[str]] = defaultdict(list)
        first, last = {}, {}
        for b in fn.blocks:
            ids = [instr_id(b.label, k) for k in range(len(b.instrs))]
            for k, ins in enumerate(b.instrs):
                self.instr[ids[k]] = ins
                if k:
                    self.pred[ids[k]].append(ids[k - 1])
            first[b.label], last[b.label] = ids[0], ids[-1]
        self.order = list(self.instr)
        self.pred[first[fn.blocks[0].label]].append(START)
        succ = {b.label: list(dict.fromkeys(b.successors())) for b in fn.blocks}
        self.back: set = set()
        root = fn.blocks[0].label
        state, stack = {root: 1}, [(root, iter(succ[root]))]
        while stack:                                  # iterative DFS: retreating edges
            b, it = stack[-1]
            for s in it:
                if s not in succ:
                    continue
                if state.get(s) == 1:
                    self.back.add((last[b], first[s]))
                elif s not in state:
                    state[s] = 1
                    stack.append((s, iter(succ[s])))
                    break
            else:
                state[b] = 2
                stack.pop()
        for b in fn.blocks:
            for s in succ[b.label]:
                if s in first:
                    self.pred[first[s]].append(last[b.label])
        self.first = set(first.values())

    def differ(self, n: str):
        """``diff(x, y)`` for names at the entry of ``n``: their constant difference, found by
        back-substituting both through the instructions before ``n`` in its block (exact:
        straight-line code), or None."""
        def diff(x, y):
            m = n
            while True:
                d = _syntactic(x, y)
                if d is not None or m in self.first or m == START:
                    return d
                m = self.pred[m][0]
                ins = self.instr[m]
                if isinstance(ins, (Store, Call)) and (has_load(x) or has_load(y)):
                    return None
                x, y = substitute(ins, x), substitute(ins, y)
                if x is OMEGA or y is OMEGA:
                    return None
        return diff


def threads(fn: Function, graph: Graph, seeds: dict, defs: dict, window: Optional[int] = None,
            max_visits: int = MAX_VISITS, sizes: Optional[list] = None):
    """Fig. 3.12: ``(transfers, visited, truncated)``: ``transfers`` {(n, e): e'} for every
    name e at the exit of n that back-substitutes to another name e' (ω included), ``visited``
    the (n, e) pairs at statement exits the threads pass, ``truncated`` whether ``max_visits``
    cut Step 1 short (its pending names grounded to ω). ``sizes``, if given, receives |S1|
    (distinct names, ω excluded) of the seeds and after each traversal (Table 3.1)."""
    window = WINDOW if window is None else window
    names = set(seeds.values())
    if sizes is not None:
        sizes.append(len(names))
    transfers: dict = {}
    visited: set = set()
    work = [[] for _ in range(window + 2)]
    for n, e in seeds.items():
        for m in graph.pred[n]:
            work[0].append((m, e, n))
    truncated = False
    for level in range(window + 1):
        stack = work[level]
        while stack:
            n, e, succ = stack.pop()
            if (n, e) in visited:
                continue
            if len(visited) >= max_visits:
                truncated = True
                transfers[(n, e)] = OMEGA
                visited.add((n, e))
                continue
            visited.add((n, e))
            e2 = OMEGA if n == START else substitute(graph.instr[n], e, defs, graph.differ(n))
            if e2 != e:
                transfers[(n, e)] = e2
            if e2 is OMEGA:
                continue
            names.add(e2)
            for m in graph.pred[n]:
                if (m, e2) not in visited:
                    (work[level + 1] if (m, n) in graph.back else stack).append((m, e2, n))
        if sizes is not None:
            sizes.append(len(names))
    for m, e, _ in work[window + 1]:               # lines 19-21: ground what is left to ω
        if (m, e) not in visited:
            visited.add((m, e))
            transfers[(m, e)] = OMEGA
    return transfers, visited, truncated


def name_space(fn: Function, window: int = 3) -> dict:
    """Table 3.1's columns for one function: ``sizes`` (|S1| of the seeds and after each of the
    ``window + 1`` traversals), ``N`` statements, ``bs`` % of statements where back-substitution
    changed some name, ``V`` registers, ``truncated``."""
    graph = Graph(fn)
    defs = definitions(fn)
    seeds = {n: s for n in graph.order if (s := seed_name(graph.instr[n])) is not None}
    sizes: list = []
    transfers, _, truncated = threads(fn, graph, seeds, defs, window, sizes=sizes)
    changed = {n for (n, _), e2 in transfers.items() if n != START and e2 is not OMEGA}
    regs = {r for ins in graph.instr.values() for r in ins.defs()} | set(fn.params)
    return {"sizes": sizes, "N": len(graph.order), "V": len(regs), "truncated": truncated,
            "bs": round(100 * len(changed) / max(1, len(graph.order)), 1)}


# ------------------------------------------------------------------ Step 2: SVN

def synonyms(graph: Graph, node: str, e1, e2, defs: dict, window: Optional[int] = None,
             max_steps: int = MAX_SYNONYM_STEPS) -> bool:
    """Whether names ``e1`` and ``e2`` at the entry of ``node`` denote the same value on every
    path from the start (Fig. 3.15's semantics): backwards along every path they must become
    the same non-ω name before either becomes ω; optimistic around cycles (a pair met again on
    the same path is assumed equal), at most ``window`` back edges, ``max_steps`` steps."""
    window = WINDOW if window is None else window
    if e1 is OMEGA or e2 is OMEGA:
        return False
    if e1 == e2:
        return True
    seen, steps = set(), 0
    stack = [(m, e1, e2, 0, node) for m in graph.pred[node]]
    while stack:
        m, a, b, back, succ = stack.pop()
        back += (m, succ) in graph.back
        if back > window or m == START:
            return False
        if (m, a, b) in seen:
            continue
        seen.add((m, a, b))
        steps += 1
        if steps > max_steps:
            return False
        ins = graph.instr[m]
        diff = graph.differ(m)
        a2, b2 = substitute(ins, a, defs, diff), substitute(ins, b, defs, diff)
        if a2 is OMEGA or b2 is OMEGA:
            return False
        if clobbers(ins, a2, diff) or clobbers(ins, b2, diff):
            return False                      # a may-alias write: values may differ
        if a2 == b2:
            continue
        stack.extend((p, a2, b2, back, m) for p in graph.pred[m])
    return True


def build(fn: Function, window: Optional[int] = None, max_visits: int = MAX_VISITS) -> dict:
    """The VNG of ``fn``: ``{"seeds": {node: name}, "nodes", "transfers", "kills", "gens",
    "classes": {node: class number}, "truncated", "graph"}`` (names as tuples; ``vng_facts``
    prints them); ``window`` default: ``WINDOW``."""
    window = WINDOW if window is None else window
    graph = Graph(fn)
    defs = definitions(fn)
    seeds = {n: s for n in graph.order if (s := seed_name(graph.instr[n])) is not None}
    transfers, visited, truncated = threads(fn, graph, seeds, defs, window, max_visits)
    kills = set()
    gens = set()
    classes = UnionFind()      # classes are numbered by first member: any representative does
    budget = [MAX_SYNONYM_CALLS]
    # the seed whose thread a visited (n, e) belongs to is not kept; instead each visited name at
    # a computation's exit is tested against the computation's own value (generation)
    by_name = defaultdict(list)
    for n, e in seeds.items():
        by_name[e].append(n)
    # program order, then the name: the synonym budget goes to the same tests for every hash seed
    position = {n: k for k, n in enumerate(graph.order)}
    for n, e in sorted((t for t in visited if t[0] != START),
                       key=lambda t: (position[t[0]], text(t[1]), repr(t[1]))):
        ins = graph.instr[n]
        e_in = transfers.get((n, e), e)
        if e_in is not OMEGA and clobbers(ins, e_in, graph.differ(n)):
            kills.add((n, e))
        if n in seeds and e_in is not OMEGA:
            if e_in == seeds[n]:
                gens.add((n, e))
            elif budget[0] > 0:
                budget[0] -= 1
                if synonyms(graph, n, e_in, seeds[n], defs, window):
                    gens.add((n, e))
        elif isinstance(ins, Store) and ins.guard is None and single_atom(e) is not None \
                and single_atom(e)[0] == "load" and e_in == operand(ins.value) \
                and transfers.get((n, e)) is not None:
            gens.add((n, e))                  # store L, t generates *(L) (Ex. 4.1: D ∋ stores)
    # classes: n and every computation m whose seed name reaches n's exit as a generated name
    # along m's thread without a kill or another name in between
    for m, e in seeds.items():
        classes.find(m)
        for p in graph.pred[m]:
            _join_thread(graph, p, e, m, transfers, gens, kills, seeds, classes, window)
    order = {}
    out = {}
    for n in graph.order:
        if n in seeds:
            r = classes.find(n)
            out[n] = order.setdefault(r, len(order) + 1)
    return {"seeds": seeds, "nodes": visited, "transfers": transfers, "kills": kills,
            "gens": gens, "classes": out, "truncated": truncated, "graph": graph}


def _join_thread(graph, start, e, user, transfers, gens, kills, seeds, classes, window):
    """Union ``user`` with the computations generating its value on its thread (backwards
    from ``start``'s exit, the first generator or kill on each path ends the walk)."""
    seen = set()
    stack = [(start, e, 0, user)]
    while stack:
        n, name, back, succ = stack.pop()
        back += (n, succ) in graph.back
        if n == START or back > window or (n, name) in seen or name is OMEGA:
            continue
        seen.add((n, name))
        if (n, name) in gens:
            if n in seeds:
                classes.union(user, n)
            continue
        if (n, name) in kills:
            continue
        name2 = transfers.get((n, name), name)
        stack.extend((p, name2, back, n) for p in graph.pred[n])


def vng_facts(f: str, fn: Function, out: dict[str, list[tuple]],
              window: Optional[int] = None) -> None:
    """Append the VNG relations (``VNG_RELATIONS``) of one defined function to ``out``."""
    g = build(fn, window)
    for n, e in g["seeds"].items():
        out["vng_seed"].append((f, n, text(e)))
        out["vng_class"].append((f, n, g["classes"][n]))
    out["vng_node"].extend(sorted((f, n, text(e)) for n, e in g["nodes"] if n != START))
    for (n, e), e2 in sorted(g["transfers"].items(), key=lambda t: (t[0][0], text(t[0][1]))):
        if n != START:
            out["vng_transfer"].append((f, n, text(e), text(e2)))
    out["vng_kill"].extend(sorted((f, n, text(e)) for n, e in g["kills"]))
    out["vng_gen"].extend(sorted((f, n, text(e)) for n, e in g["gens"]))
    # thread merges (Def 3.3, Ex. 4.2): several names at n's exit that are one name at its entry
    into = defaultdict(set)
    for n, e in g["nodes"]:
        if n != START:
            e_in = g["transfers"].get((n, e), e)
            if e_in is not OMEGA:
                into[(n, text(e_in))].add(text(e))
    for (n, e_in), outs in sorted(into.items()):
        if len(outs) > 1:
            out["vng_merge"].append((f, n, e_in, len(outs)))
            out["vng_merge_succ"].extend((f, n, e_in, k, e) for k, e in enumerate(sorted(outs)))
    if g["truncated"]:
        out["vng_truncated"].append((f,))
