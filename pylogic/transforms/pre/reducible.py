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

import networkx as nx

from pylogic.ir.model import Function, retargeted
from pylogic.transforms.naming import FreshNames

#: Rounds of the fix on one function (each removes one multi-entry loop).
MAX_ROUNDS = 64


def _graph(fn: Function) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(b.label for b in fn.blocks)
    g.add_edges_from((b.label, s) for b in fn.blocks for s in b.successors())
    return g


def multi_entry_loop(fn: Function) -> Optional[tuple[set, set]]:
    """``(blocks, entries)`` of a loop of ``fn`` entered at more than one block, or None when
    ``fn`` is reducible."""
    g = _graph(fn)
    entry = fn.blocks[0].label
    pending = [set(g.nodes)]
    while pending:
        nodes = pending.pop()
        for scc in nx.strongly_connected_components(g.subgraph(nodes)):
            if len(scc) == 1 and not any(g.has_edge(n, n) for n in scc):
                continue
            entries = {n for n in scc if n == entry or any(p not in scc for p in g.predecessors(n))}
            if len(entries) > 1:
                return scc, entries
            pending.append(scc - entries)
    return None


def _peel(g: nx.DiGraph, loop: set, entries: set, header: str) -> tuple[set, bool]:
    """Loop blocks reachable from ``entries`` without passing ``header``, and whether they hold
    no cycle (every cycle of the loop passes ``header``)."""
    seen, stack = set(), [x for x in entries if x != header]
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        stack.extend(s for s in g.successors(x) if s in loop and s != header)
    return seen, nx.is_directed_acyclic_graph(g.subgraph(seen))





def fix_loop(fn: Function, loop: set, entries: set, fresh: FreshNames) -> Optional[Function]:
    """``fn`` with the multi-entry ``loop`` given one entry (see the module doc), or None."""
    g = _graph(fn)
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
