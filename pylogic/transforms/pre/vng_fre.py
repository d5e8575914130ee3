"""Full redundancy elimination on the general Value Name Graph (``pathlogic optimize --passes
vng-fre``; PathFinder §3.4, §4.4, §6.4: PRE implanted into the VNG's threads).

``datalog/vng.dl`` decides: a computation whose value is Must-available on the VNG
(``vng_avail``) was computed on every path to it, under whatever names the value had there
(``b - a`` computed where ``z = b + x`` is asked, ``A[i]`` loaded where ``A[min]`` is loaded
next, a store's value where a load reads it back). This pass keeps one temporary per VNG name
the reuse needs -- the sparse φ/copy chain of Fig. 3.6 (``C3 := φ(C2, C1)``) as copies: after a
generator of name ``e`` (``vng_gen``), ``t_e = dest`` (a store: ``t_e = value``); where the
thread renames ``e`` to ``e'`` across an instruction (``vng_transfer``), ``t_e = t_e'`` after
it; and the redundant computation becomes ``dest = t_e``. Only the names on the threads from
the redundant computations back to their generators get temporaries.

Why it is exact: a name denotes, at each point, the value of its expression in the state there;
every write of ``t_e`` stores that value; a thread keeps the name ``e`` only across instructions
that do not change it, and Must availability means every path to the user meets a generator or
a renaming (never a kill or ω) on the way back, so ``t_e`` holds the value at the user.
"""
from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Optional

from facts_gen.naming import instr_id
from facts_gen.vng import START, Graph
from pylogic.ir.model import Function, Module, Mov, Reg, Store
from pylogic.transforms.driver import run_per_function
from pylogic.transforms.naming import FreshNames, used_names
from pylogic.transforms.record import TransformRecord

NEEDS = ("vng_avail", "vng_transfer", "vng_gen", "vng_seed")


@dataclass(frozen=True)
class FunctionFre:
    function: str
    replaced: int        # computations turned into copies of a temporary
    temporaries: int     # VNG names given a temporary
    copies: int          # copies inserted (after generators and renamings)


@dataclass
class FreRecord(TransformRecord):
    transform: str = "vng-fre"

    def totals(self) -> dict:
        keys = ("replaced", "temporaries", "copies")
        return {"functions": len(self.applied),
                **{k: sum(getattr(a, k) for a in self.applied) for k in keys}}


def _threads_back(graph: Graph, users: dict, transfers: dict, gens: set):
    """``(sources, renames)``: the (node, name) generators and renamings the threads of
    ``users`` ({node: name at its entry}) pass on their way back, each path ending at its
    first generator."""
    sources, renames, seen = set(), {}, set()
    stack = [(m, e) for j, e in users.items() for m in graph.pred[j]]
    while stack:
        n, e = stack.pop()
        if n == START or (n, e) in seen:
            continue
        seen.add((n, e))
        if (n, e) in gens:
            sources.add((n, e))
            continue
        e2 = transfers.get((n, e), e)
        if e2 != e:
            renames[(n, e)] = e2
        stack.extend((m, e2) for m in graph.pred[n])
    return sources, renames


def vng_fre_function(fn: Function, view, fresh: FreshNames):
    """``(new function, FunctionFre)`` given the function's rows ``view``."""
    seeds = {i: e for i, e in view["vng_seed"]}
    users = {i: e for i, e, s in view["vng_avail"] if s == "must"}
    if not users:
        return fn, FunctionFre(fn.name, 0, 0, 0)
    transfers = {(i, e): e2 for i, e, e2 in view["vng_transfer"]}
    gens = set(view["vng_gen"])
    graph = Graph(fn)
    sources, renames = _threads_back(graph, users, transfers, gens)
    names = sorted({e for _, e in sources} | {e for _, e in renames} | set(renames.values())
                   | set(users.values()))
    temp = {e: fresh.fresh("vng.t") for e in names}
    after = defaultdict(list)           # node -> [(dest temp, source operand)] (parallel)
    for n, e in sorted(renames):
        after[n].append((temp[e], Reg(temp[renames[(n, e)]])))
    for n, e in sorted(sources):
        ins = graph.instr[n]
        src = ins.value if isinstance(ins, Store) else Reg(ins.dest)
        after[n].append((temp[e], src))
    blocks, copies = [], 0
    for b in fn.blocks:
        out = []
        for k, ins in enumerate(b.instrs):
            n = instr_id(b.label, k)
            if n in users and n in seeds and getattr(ins, "dest", None):
                out.append(Mov(dest=ins.dest, src=Reg(temp[users[n]]),
                               annotations=ins.annotations, loc=ins.loc))
            else:
                out.append(ins)
            moves = after.get(n, ())
            # a parallel copy: sources that are also written here are read first
            written = {d for d, _ in moves}
            staged = {}
            for _, s in moves:
                if isinstance(s, Reg) and s.name in written and s.name not in staged:
                    staged[s.name] = fresh.fresh("vng.s")
                    out.append(Mov(dest=staged[s.name], src=s))
            for d, s in moves:
                if isinstance(s, Reg) and s.name in staged:
                    s = Reg(staged[s.name])
                out.append(Mov(dest=d, src=s))
            copies += len(moves) + len(staged)
        blocks.append(dataclasses.replace(b, instrs=tuple(out)))
    replaced = sum(1 for n in users if n in seeds)
    return (dataclasses.replace(fn, blocks=tuple(blocks)),
            FunctionFre(fn.name, replaced, len(names), copies))


def vng_fre(module: Module, rows, *, functions: Optional[Iterable[str]] = None
            ) -> tuple[Module, FreRecord]:
    """``(new module, record)``: full redundancies on the VNG removed in every (or each named)
    function; ``rows``: ``vng_avail``, ``vng_transfer``, ``vng_gen``, ``vng_seed``."""
    return run_per_function(module, functions, FreRecord(), lambda fn: vng_fre_function(
        fn, rows.function(fn.name), FreshNames(used_names(fn, module))))
