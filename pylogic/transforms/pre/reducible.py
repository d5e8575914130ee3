"""Reducible restructuring (PathFinder §6.5, Fig. 6.19): duplicating a CMP region can give a loop
a second entry (Fig. 6.2(c)); extending the duplication so that every way into the loop arrives
at one loop node makes the CFG reducible again.

A loop with several entries is found as a strongly connected component entered at more than one
block (recursively: a reducible graph's every component, and every component of a component
without its header, has one entry; Hecht & Ullman). Fig. 6.19's fix: the region exits must sink
onto a single loop node, the closest common postdominator within the loop of the offending
entries and the original loop entry, which becomes the new header. Here [Inference: the figure is
lost]: the new header ``P`` is the loop block that every cycle of the loop passes through whose
peel ``D`` -- the loop blocks reachable from the entries without passing ``P`` -- holds the
fewest instructions; ``D`` is copied once, every edge from outside the loop into ``D`` goes to
the copy, and the copy flows into ``P`` (or leaves the loop) as the original did. The originals
of ``D`` are then entered only through ``P``. The copies hold the same instructions and branch
to copies of the same blocks, so behaviour never changes; availability at a copy is the meet over
a subset of its original's predecessors, so no Must and No paths merge that were apart.

When no block lies on every cycle of the loop, the new header is one of its entries and the copy
holds the cycles that avoid it (node splitting, the [JC96] normalisation §6.5 names); the copy is
entered only from outside the loop and is fixed in a later round if it has several entries. A
loop whose peel would hold the function's entry is left as it is and counted.
"""
from __future__ import annotations

import dataclasses
from typing import Optional

from pylogic.ir.model import Function, retargeted
from pylogic.transforms.naming import FreshNames

#: Rounds of the fix on one function (each removes one multi-entry loop).
MAX_ROUNDS = 64


class _Graph:
    """``fn``'s CFG as the ``networkx.DiGraph`` this module built before (issue #28 item 1: its
    import was 0.1 s of a ``pre-mr`` process, its subgraph views 8% of csmith-32's PRE
    pipeline): ``nodes`` the blocks' labels, then any other successor, in that order; ``succ``
    and ``pred`` in the order the edges were added (block order, ``successors()`` order)."""

    __slots__ = ("nodes", "succ", "pred")

    def __init__(self, fn: Function):
        self.succ: dict = {b.label: [] for b in fn.blocks}
        self.pred: dict = {b.label: [] for b in fn.blocks}
        for b in fn.blocks:
            for s in b.successors():
                if s not in self.succ:
                    self.succ[s], self.pred[s] = [], []
                self.succ[b.label].append(s)
                self.pred[s].append(b.label)
        self.nodes = list(self.succ)

    def components(self, within: set):
        """The strongly connected components of the subgraph on ``within``, each a set, in
        ``networkx.strongly_connected_components(g.subgraph(within))``'s order, its sets built
        as it builds them (the first multi-entry loop found, and so the output, depends on it):
        the roots are visited in the order of a copy of ``within`` when it holds fewer than half
        the nodes, else in the graph's order (networkx 3's ``FilterAtlas``).

        References: networkx 3.6 ``algorithms/components/strongly_connected.py`` (Nuutila's
        refinement of Tarjan's algorithm), ``classes/coreviews.py`` (``FilterAtlas``)."""
        ok = set(n for n in within if n in self.succ)     # as networkx's show_nodes builds it
        order = list(ok) if 2 * len(ok) < len(self.nodes) \
            else [n for n in self.nodes if n in ok]
        adj = {v: [w for w in self.succ[v] if w in ok] for v in order}
        preorder: dict = {}
        lowlink: dict = {}
        found: set = set()
        queue_scc: list = []
        i = 0
        neighbors = {v: iter(adj[v]) for v in order}
        for source in order:
            if source in found:
                continue
            queue = [source]
            while queue:
                v = queue[-1]
                if v not in preorder:
                    i += 1
                    preorder[v] = i
                done = True
                for w in neighbors[v]:
                    if w not in preorder:
                        queue.append(w)
                        done = False
                        break
                if done:
                    lowlink[v] = preorder[v]
                    for w in adj[v]:
                        if w not in found:
                            if preorder[w] > preorder[v]:
                                lowlink[v] = min(lowlink[v], lowlink[w])
                            else:
                                lowlink[v] = min(lowlink[v], preorder[w])
                    queue.pop()
                    if lowlink[v] == preorder[v]:
                        scc = {v}
                        while queue_scc and preorder[queue_scc[-1]] > preorder[v]:
                            scc.add(queue_scc.pop())
                        found.update(scc)
                        yield scc
                    else:
                        queue_scc.append(v)

    def acyclic(self, within: set) -> bool:
        """Whether the subgraph on ``within`` has no cycle (no self loop, every component one
        block): Kahn's topological sort removes every node (a yes or no, so not built on the
        components' order; ``fix_loop`` asks once per candidate header, issue #28 item 1)."""
        indegree = dict.fromkeys(within, 0)
        for v in within:
            for w in self.succ[v]:
                if w in indegree:
                    indegree[w] += 1
        ready = [v for v, d in indegree.items() if d == 0]
        removed = 0
        while ready:
            v = ready.pop()
            removed += 1
            for w in self.succ[v]:
                if w in indegree:
                    indegree[w] -= 1
                    if indegree[w] == 0:
                        ready.append(w)
        return removed == len(indegree)


def multi_entry_loop(fn: Function) -> Optional[tuple[set, set]]:
    """``(blocks, entries)`` of a loop of ``fn`` entered at more than one block, or None when
    ``fn`` is reducible."""
    g = _Graph(fn)
    entry = fn.blocks[0].label
    pending = [set(g.nodes)]
    while pending:
        nodes = pending.pop()
        for scc in g.components(nodes):
            if len(scc) == 1 and not any(n in g.succ[n] for n in scc):
                continue
            entries = {n for n in scc if n == entry or any(p not in scc for p in g.pred[n])}
            if len(entries) > 1:
                return scc, entries
            pending.append(scc - entries)
    return None


def _peel(g: _Graph, loop: set, entries: set, header: str) -> tuple[set, bool]:
    """Loop blocks reachable from ``entries`` without passing ``header``, and whether they hold
    no cycle (every cycle of the loop passes ``header``)."""
    seen, stack = set(), [x for x in entries if x != header]
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        stack.extend(s for s in g.succ[x] if s in loop and s != header)
    return seen, g.acyclic(seen)


def fix_loop(fn: Function, loop: set, entries: set, fresh: FreshNames) -> Optional[Function]:
    """``fn`` with the multi-entry ``loop`` given one entry (see the module doc), or None."""
    g = _Graph(fn)
    size = {b.label: len(b.instrs) for b in fn.blocks}
    start = fn.blocks[0].label
    best = None
    # a block on every cycle, else (node splitting [JC96]) one of the entries: the copies then
    # hold the cycles that avoid it, entered only from outside, fixed in a later round
    for header in sorted(loop):
        peel, acyclic = _peel(g, loop, entries, header)
        if start in peel or not (acyclic or header in entries):
            continue
        cost = (not acyclic, sum(size[x] for x in peel))
        if best is None or cost < best[0]:
            best = (cost, header, peel)
    if best is None:
        return None
    _, header, peel = best
    copy = {x: fresh.fresh(f"{x}.rd") for x in peel}
    blocks = []
    for b in fn.blocks:
        if b.label in loop:
            blocks.append(b)
        else:                                      # edges from outside the loop enter the copies
            blocks.append(dataclasses.replace(
                b, instrs=tuple(retargeted(i, copy) for i in b.instrs)))
        if b.label in peel:
            blocks.append(dataclasses.replace(
                b, label=copy[b.label], instrs=tuple(retargeted(i, copy) for i in b.instrs)))
    return dataclasses.replace(fn, blocks=tuple(blocks))


def make_reducible(fn: Function, fresh: FreshNames, max_size: Optional[int] = None
                   ) -> Optional[tuple[Function, int, int]]:
    """``(function, loops fixed, loops left with several entries)``: ``fn`` with every
    multi-entry loop given one entry where the fix applies; None as soon as the copies take
    the function past ``max_size`` instructions (a fix only adds blocks)."""
    for fixed_loops in range(MAX_ROUNDS):
        found = multi_entry_loop(fn)
        if found is None:
            return fn, fixed_loops, 0
        fixed = fix_loop(fn, *found, fresh)
        if fixed is None:
            return fn, fixed_loops, 1
        fn = fixed
        if max_size is not None and fn.instruction_count() > max_size:
            return None
    return fn, MAX_ROUNDS, int(multi_entry_loop(fn) is not None)
