"""PRE(MS), its speculation step (``pathlogic optimize --passes pre-ms``; PathFinder
§6.3.2.1, Fig. 6.15 steps 2-3): where code motion is blocked by the CMP region, compute the
expression speculatively on the edges of a minimum cut between the region's No entries and its
Must exits, weighted by the interpreter's edge profile; ``pre-m`` then recomputes availability
with those computations as generators (step 3) and removes what became redundant (step 4).

The network (pathfinder.md §6.3.2.1 [Inference], per expression): source -> each No-entry edge,
each edge inside the region, each Must-exit edge -> sink, every CFG edge with its profile
frequency as capacity. The benefit of speculation is Σ freq(Must exits) - min cut (Theorem 6.3).
Of the minimum cuts the one nearest the sink is taken (nodes that reach the sink in the
residual network), so a cut that ties with "optimize nothing" (cutting every Must exit) inserts
nothing; a cut edge that is a Must exit is an exit left unoptimized. Only expressions that cannot
fault are speculated (no loads, divisions or remainders: PIR has no delayed exceptions, §6.5).

Profile: ``pylogic.interp`` runs ``entry`` on ``args`` / ``inputs`` (the thesis measures on its
profiling input; so does ``benchmarks/pre.py``).
"""
from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Optional

import networkx as nx
from networkx.algorithms.flow import edmonds_karp

from pylogic.interp.machine import run_module
from pylogic.ir.model import Function, Module
from pylogic.transforms.driver import run_per_function
from pylogic.transforms.naming import FreshNames, used_names
from pylogic.transforms.pre.pre_m import _place, insertion_templates
from pylogic.transforms.record import TransformRecord

NEEDS = ("pre_cmp_entry", "pre_cmp_exit", "pre_prevented")
#: Operators a speculative computation may not have (they can fault).
FAULTING = ("load", "div", "rem")


@dataclass(frozen=True)
class Speculation:
    function: str
    expression: str
    edges: tuple           # insertion edges (from, to)
    must_exits: int        # Σ profile frequency of the region's Must exits
    cut: int               # the minimum cut
    benefit: int           # must_exits - cut


@dataclass
class SpeculationRecord(TransformRecord):
    transform: str = "pre-ms"

    def totals(self) -> dict:
        return {"expressions": len(self.applied),
                "inserted": sum(len(a.edges) for a in self.applied),
                "benefit": sum(a.benefit for a in self.applied)}


def speculation_cut(entries: dict, inner: dict, exits: dict):
    """``(cut value, insertion edges, exits left)`` of the minimum cut nearest the sink.

    ``entries``, ``inner``, ``exits``: ``{(a, b): frequency}`` of No entries, edges inside the
    region, Must exits. Example (pathfinder.md §12 item 12): the running example's cut is 30.
    """
    g = nx.DiGraph()
    for kind, table in (("entry", entries), ("inner", inner), ("exit", exits)):
        for (a, b), freq in table.items():
            tail = ("S", a, b) if kind == "entry" else a
            head = ("T", a, b) if kind == "exit" else b
            g.add_edge(tail, head, capacity=freq, cfg=(a, b), kind=kind)
            if kind == "entry":
                g.add_edge("__source__", tail)            # no capacity: unbounded
            if kind == "exit":
                g.add_edge(head, "__sink__")
    if not entries or not exits:
        return 0, [], []
    residual = edmonds_karp(g, "__source__", "__sink__")
    value = residual.graph["flow_value"]
    sink_side, stack = {"__sink__"}, ["__sink__"]
    while stack:                                   # reach the sink in the residual network
        v = stack.pop()
        for u in residual.predecessors(v):
            if u not in sink_side and residual[u][v]["capacity"] - residual[u][v]["flow"] > 0:
                sink_side.add(u)
                stack.append(u)
    cut = [d for u, v, d in g.edges(data=True) if "cfg" in d
           and u not in sink_side and v in sink_side]
    insert = sorted(d["cfg"] for d in cut if d["kind"] != "exit")
    left = sorted(d["cfg"] for d in cut if d["kind"] == "exit")
    return value, insert, left


def pre_ms(module: Module, rows, *, functions: Optional[Iterable[str]] = None,
           entry: str = "main", args=(), inputs=(), profile: Optional[dict] = None
           ) -> tuple[Module, SpeculationRecord]:
    """``(new module, record)``: speculative computations on min-cut edges of every CMP region
    (``rows``: ``pre_cmp_entry``, ``pre_cmp_exit``, ``pre_prevented``); ``profile``
    ``{(function, from, to): count}``, default: the interpreter's run of ``entry``."""
    if profile is None:
        profile = run_module(module, entry, args, inputs).edge_profile
    record = SpeculationRecord(options={"entry": entry, "args": list(args),
                                        "inputs": list(inputs)})

    def rewrite(fn: Function) -> tuple[Function, None]:     # records its own entries
        view = rows.function(fn.name)
        freq = lambda a, b: profile.get((fn.name, a, b), 0)  # noqa: E731
        prevented = defaultdict(set)
        for b, e in view["pre_prevented"]:
            prevented[e].add(b)
        by_e = defaultdict(lambda: ({}, {}, {}))
        for a, b, e, kind in view["pre_cmp_entry"]:
            if kind == "no":
                by_e[e][0][(a, b)] = freq(a, b)
        for a, b, e, kind in view["pre_cmp_exit"]:
            if kind == "must":
                by_e[e][2][(a, b)] = freq(a, b)
        edges = fn.edges()
        for e, region in prevented.items():
            by_e[e][1].update({(a, b): freq(a, b) for a, b in edges
                               if a in region and b in region})
        return _speculate(fn, by_e, FreshNames(used_names(fn, module)), record), None
    return run_per_function(module, functions, record, rewrite)


def _speculate(fn: Function, by_e: dict, fresh: FreshNames, record) -> Function:
    names, exprs, template = insertion_templates(fn)
    on_edge = defaultdict(list)
    for e in sorted(by_e):
        entries, inner, exits = by_e[e]
        if e not in template or exprs[e][0].startswith(FAULTING):
            continue
        value, insert, left = speculation_cut(entries, inner, exits)
        if not insert:
            continue
        total = sum(exits.values())
        record.applied.append(Speculation(fn.name, e, tuple(insert), total, value,
                                          total - value))
        for a, b in insert:
            on_edge[(a, b)].append(dataclasses.replace(
                template[e], dest=fresh.fresh("pre.s"), annotations=()))
    if not on_edge:
        return fn
    blocks, _ = _place(fn, list(fn.blocks), on_edge, fresh)
    return dataclasses.replace(fn, blocks=tuple(blocks))
