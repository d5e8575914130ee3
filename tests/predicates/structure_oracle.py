"""Python oracles for the CFG structure PAS reads from Datalog rows (``cfg_structure``): the
algorithms ``pylogic/predicates/network.py`` ran before the structure moved to Datalog (DESIGN.md:
"Python versions of those algorithms live only in tests, as oracles").

- ``dfs``: iterative DFS from the entry, successors in block order (facts_gen's order);
- ``immediate_dominators``: networkx on the reachable CFG;
- ``natural_loops``: per target of a retreating edge, its latches, reducibility (the header
  dominates every latch) and, when reducible, the body by backward search from the latches;
- ``live_in``: predicate-aware backward liveness over every CFG edge (pas.md §3.6).
"""
from __future__ import annotations

from collections import defaultdict

import networkx as nx

from pylogic.ir.model import Function, PredDefine, Reg


def dfs(function: Function) -> tuple[list[str], set]:
    """(reverse postorder of the reachable blocks, retreating edges) of a DFS from the entry.

    Examples
    --------
    >>> rpo, retreating = dfs(fn)           # doctest: +SKIP
    """
    blocks = function.block_map()
    entry = function.blocks[0].label
    order, retreating, onstack, seen = [], set(), {entry}, {entry}
    stack = [(entry, iter(blocks[entry].successors()))]
    while stack:
        b, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            stack.pop()
            onstack.discard(b)
            order.append(b)
        elif nxt in onstack:
            retreating.add((b, nxt))
        elif nxt not in seen:
            seen.add(nxt)
            onstack.add(nxt)
            stack.append((nxt, iter(blocks[nxt].successors())))
    return order[::-1], retreating


def reachable_graph(function: Function) -> nx.DiGraph:
    rpo, _ = dfs(function)
    blocks = function.block_map()
    g = nx.DiGraph()
    g.add_nodes_from(rpo)
    g.add_edges_from((a, b) for a in rpo for b in blocks[a].successors())
    return g


def immediate_dominators(function: Function) -> dict[str, str]:
    """``{n: idom(n)}`` of the reachable blocks, the entry excluded (networkx)."""
    entry = function.blocks[0].label
    idom = nx.immediate_dominators(reachable_graph(function), entry)
    return {n: d for n, d in idom.items() if n != entry}


def dominates(idom: dict, a: str, b: str) -> bool:
    while True:
        if a == b:
            return True
        if b not in idom:
            return False
        b = idom[b]


def natural_loops(function: Function) -> dict[str, tuple[list, set, bool]]:
    """``{header: (latches in RPO, body, reducible)}``, headers in RPO (pas.md §3.6)."""
    rpo, retreating = dfs(function)
    idom = immediate_dominators(function)
    rev = reachable_graph(function).reverse(copy=False)
    latches = defaultdict(list)
    for a, b in sorted(retreating, key=lambda e: (rpo.index(e[1]), rpo.index(e[0]))):
        latches[b].append(a)
    loops = {}
    for h, ls in latches.items():
        reducible = all(dominates(idom, h, u) for u in ls)
        body = {h}
        if reducible:
            work = list(ls)
            while work:
                u = work.pop()
                if u not in body:
                    body.add(u)
                    work.extend(rev.successors(u))   # CFG predecessors
        loops[h] = (ls, body, reducible)
    return loops


def live_in(function: Function) -> dict[str, set]:
    """Block live-in sets: guards are read, predicate defines read the old value of non-ut/uf
    destinations and kill every destination, guarded ordinary writes read their destination and
    kill nothing; backward over every CFG edge to a fixpoint."""
    gen, kill = {}, {}
    for b in function.blocks:
        used, killed = set(), set()
        for ins in b.instrs:
            reads = {op.name for op in ins.uses() if isinstance(op, Reg)}
            if ins.guard:
                reads.add(ins.guard)
            if isinstance(ins, PredDefine):
                reads |= {d.name for d in ins.dests if d.dtype not in ("ut", "uf")}
                writes = set(ins.defs())
            else:
                writes = set(ins.defs()) if ins.guard is None else set()
                if ins.guard is not None:
                    reads |= set(ins.defs())
            used |= reads - killed
            killed |= writes
        gen[b.label], kill[b.label] = used, killed
    live = {b.label: set(gen[b.label]) for b in function.blocks}
    changed = True
    while changed:
        changed = False
        for b in reversed(function.blocks):
            succ = b.successors()
            out = set().union(*(live[s] for s in succ)) if succ else set()
            new = gen[b.label] | (out - kill[b.label])
            if new != live[b.label]:
                live[b.label] = new
                changed = True
    return live
