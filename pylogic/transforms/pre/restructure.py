"""The restructuring step of PRE(MR) and PRE(R) (PathFinder §6.3.1.1, Fig. 6.10; the passes
``pre-mr``, ``pre-mr-budget`` in ``pre_mr.py`` and ``pre-r`` in ``pre_r.py``): duplicate a region
of blocks per expression so that Must-available and No-available paths through it never merge;
``pre-m`` then recomputes availability on the new CFG, finds the region's Must exits fully
available and removes their computations, and hoists what it can.

Fig. 6.10: every block n gets one copy per assignment of Must / No to the expressions of
CMP(n) = {e | Prevented[n, e]} (one copy, the original, when CMP(n) is empty; the all-No copy
keeps the original label, so the function still starts at its entry); a copy's AVAIL_out for e is
its assigned value inside e's region and the original AVAIL_out outside; each branch of a copy
goes to the copy of its target whose assigned values equal the copy's AVAIL_out (the
compatibility test of line 14, read as "AVAIL_in[n_j] ⊑ AVAIL_out[m_i]", pathfinder.md
[Inference]); copies the entry does not reach are dropped (lines 18-24). Every copy holds the
same instructions as its original and branches to copies of the same targets, so the program
computes exactly what it did: restructuring alone never changes behaviour.

Growth is bounded: at most ``max_names`` expressions are split at any one block (2^k copies),
and with ``budget`` (``pre-mr-budget``, PRE(Mr) §6.3.2.2) expressions are taken one at a time,
in order of their Must exits, only while the instructions the copies add (counted before
unreached copies are dropped, an upper bound) stay within ``budget`` times the function's size.

Reducibility (Fig. 6.19, ``reducible.py``): when the input function is reducible and
the split gives a loop a second entry (Fig. 6.2(c)), the duplication is extended up to one loop
node that becomes the loop's only entry (``reducible=False``: left irreducible).

The growth bound (issue #28 item 1): the restructured function, split and fix together, may
hold at most ``MAX_GROWTH`` times the instructions it had; otherwise only a prefix of the
expressions in their order (most Must exits first) is split, the longest that fits as found by
bisection, down to no split at all, and the rest are counted (``over_growth``). The cap on names
per block bounds the split, not the fix: making a graph reducible by node splitting can take
exponentially many copies (Carter, Ferrante, Thomborson, "Folklore confirmed: reducible flow
graphs are exponentially larger", POPL 2003). On varargs.c's ``@mixed`` (a loop over a switch
whose every case reads ``%ap``) four expressions cover the loop, the split makes 16 copies of it
that enter one another mid-body, and the fix removes one entry a round, its copy again a loop
with several entries: 292 -> 13,629 instructions in 64 rounds. Like LLVM's duplication
thresholds (``-jump-threading-threshold``, ``-tail-dup-size``) the bound is a constant set from
measurement, relative here since a split copies whole regions: 8x is above every function of
csmith 1-50 (largest 6.1x, csmith-12's ``@func_9``) and of the C fixtures and a torture sample
but varargs.c's; a function within it is restructured exactly as without it (the first attempt
is the full split).
"""
from __future__ import annotations

import dataclasses
import itertools
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Optional

from pylogic.ir.model import Br, CondBr, Function, Module
from pylogic.transforms.driver import run_per_function
from pylogic.transforms.naming import FreshNames, used_names
from pylogic.transforms.pre.reducible import make_reducible, multi_entry_loop
from pylogic.transforms.record import TransformRecord


@dataclass(frozen=True)
class FunctionRestructure:
    function: str
    expressions: int          # expressions whose CMP region was split
    skipped: int              # expressions with a CMP region left alone (cap or budget)
    blocks_before: int
    blocks_after: int
    size_before: int
    size_after: int
    irreducible_fixed: int = 0   # loops the split left with two entries, given one (Fig. 6.19)
    irreducible_left: int = 0    # such loops the fix could not give one entry
    size_split: int = 0          # size after the split, before the fix
    over_growth: int = 0         # expressions left unsplit by the growth bound (MAX_GROWTH)


@dataclass
class RestructureRecord(TransformRecord):
    transform: str = "pre-mr"

    def totals(self) -> dict:
        keys = ("expressions", "skipped", "blocks_before", "blocks_after", "size_before",
                "size_after", "irreducible_fixed", "irreducible_left", "size_split",
                "over_growth")
        return {k: sum(getattr(a, k) for a in self.applied) for k in keys}


#: The most instructions a restructured function may hold, as a multiple of its own before
#: (the split and the reducibility fix together; see the module doc).
MAX_GROWTH = 8


def restructure(fn: Function, cmp: dict, avail_out: dict, fresh: FreshNames) -> Function:
    """``fn`` with the CMP regions ``cmp`` ({block: set of expressions}) split (Fig. 6.10);
    ``avail_out``: {(block, e): "must" | "may"} (absent: No)."""
    copies: dict[str, list] = {}
    for b in fn.blocks:
        names = sorted(cmp.get(b.label, ()))
        table = []
        for values in itertools.product(("no", "must"), repeat=len(names)):
            assign = dict(zip(names, values))
            label = b.label if all(v == "no" for v in values) else fresh.fresh(f"{b.label}.mr")
            table.append((assign, label))
        copies[b.label] = table

    def out(block: str, assign: dict, e: str) -> str:
        # a transparent block passes its copy's value on (CMP blocks always: AVAIL_out = May);
        # a block that computes or kills e has AVAIL_out Must or No in every copy (PRE(R))
        if e in assign and avail_out.get((block, e)) == "may":
            return assign[e]
        return avail_out.get((block, e), "no")

    def target(block: str, assign: dict, succ: str) -> str:
        for cand, label in copies[succ]:
            if all(out(block, assign, e) == v for e, v in cand.items()):
                return label
        return copies[succ][0][1]          # a May or ⊤ value: any copy computes the same

    made = {}
    for b in fn.blocks:
        for assign, label in copies[b.label]:
            instrs = []
            for ins in b.instrs:
                if isinstance(ins, Br):
                    ins = dataclasses.replace(ins, target=target(b.label, assign, ins.target))
                elif isinstance(ins, CondBr):
                    ins = dataclasses.replace(ins, if_true=target(b.label, assign, ins.if_true),
                                              if_false=target(b.label, assign, ins.if_false))
                instrs.append(ins)
            made[label] = dataclasses.replace(b, label=label, instrs=tuple(instrs))
    order = [label for b in fn.blocks for _, label in copies[b.label]]
    reached, stack = {fn.blocks[0].label}, [fn.blocks[0].label]
    while stack:
        for s in made[stack.pop()].successors():
            if s not in reached:
                reached.add(s)
                stack.append(s)
    out = target = None         # compiled, a cycle through their shared scope: broken here
    return dataclasses.replace(fn, blocks=tuple(made[l] for l in order if l in reached))


def restructure_regions(module: Module, rows, record: RestructureRecord, region_relation: str, *,
                        functions: Optional[Iterable[str]] = None, max_names: int = 4,
                        budget: Optional[float] = None, reducible: bool = True,
                        avail_relation: str = "pre_cand_avail_out"
                        ) -> tuple[Module, RestructureRecord]:
    """``(new module, record)``: the regions ``rows[region_relation]`` (``(block, e)``: block in
    e's region) of every (or each named) function split (Fig. 6.10), with ``pre_cmp_exit`` and
    ``rows[avail_relation]`` of the module (``pre_cand_avail_out``, or ``pre_cmp_avail_out``:
    its rows at the predecessors of the CMP regions, all that ``restructure`` reads of
    ``pre_prevented``'s regions): the body of ``pre-mr``, ``pre-mr-budget`` and ``pre-r``."""
    pure = region_relation == "pre_partial_reuse"
    record.options.update({"max_names": max_names, "budget": budget, "reducible": reducible})
    return run_per_function(module, functions, record, lambda fn: _restructure_function(
        fn, module, rows.function(fn.name), region_relation, pure, max_names, budget, reducible,
        avail_relation))


def _restructure_function(fn: Function, module: Module, view, region_relation: str, pure: bool,
                          max_names: int, budget: Optional[float], reducible: bool,
                          avail_relation: str = "pre_cand_avail_out"
                          ) -> tuple[Function, Optional[FunctionRestructure]]:
    region = defaultdict(set)
    for b, e in view[region_relation]:
        region[e].add(b)
    if not region:
        return fn, None
    avail_out = {(b, e): s for b, e, s in view[avail_relation]}
    must_exits = defaultdict(int)
    for _, _, e, kind in view["pre_cmp_exit"]:
        must_exits[e] += kind == "must"
    order = sorted(region, key=lambda e: (-must_exits[e], len(region[e]), e))
    chosen: list[str] = []
    per_block = defaultdict(int)
    size = fn.instruction_count()
    block_size = {b.label: len(b.instrs) for b in fn.blocks}
    for e in order:
        if (must_exits[e] == 0 and not pure) or any(per_block[b] >= max_names
                                                     for b in region[e]):
            continue
        if budget is not None:
            # copies before pruning bound the growth: each block of e's region doubles
            grown = sum(block_size[b] * ((2 ** (per_block[b] + (b in region[e]))) - 1)
                        for b in set(per_block) | region[e])
            if grown > budget * size:
                continue
        chosen.append(e)
        for b in region[e]:
            per_block[b] += 1
    # a prefix of ``chosen`` whose copies stay within the growth bound: all of it when they do
    # (the first attempt is the unbounded split), else the longest found by bisection (a
    # logarithmic number of attempts, each stopped once past the bound)
    bound = MAX_GROWTH * size
    fix = reducible and bool(chosen) and multi_entry_loop(fn) is None

    def attempt(kept: int) -> Optional[tuple]:
        """``(function, split alone, loops fixed, loops left)`` or None when past the bound."""
        fresh = FreshNames(used_names(fn, module))
        split = _split(fn, chosen[:kept], region, avail_out, fresh, bound)
        if split is None:
            return None
        if not fix:
            return split, split, 0, 0
        made = make_reducible(split, fresh, bound)
        return None if made is None else (made[0], split, made[1], made[2])

    kept, done = len(chosen), attempt(len(chosen)) if chosen else None
    if done is None:
        low, high, done = 0, len(chosen), (fn, fn, 0, 0)     # low fits, high does not
        while high - low > 1:
            middle = (low + high) // 2
            tried = attempt(middle)
            if tried is None:
                high = middle
            else:
                low, done = middle, tried
        kept = low
    new, split, fixed, left = done
    return new, FunctionRestructure(
        fn.name, kept, len(region) - kept, len(fn.blocks), len(new.blocks),
        size, new.instruction_count(), fixed, left, split.instruction_count(), len(chosen) - kept)


def _split(fn: Function, chosen: list, region: dict, avail_out: dict, fresh: FreshNames,
           bound: float) -> Optional[Function]:
    """``fn`` with the regions of the expressions ``chosen`` split (``restructure``), or None
    when the split alone holds more than ``bound`` instructions."""
    cmp = defaultdict(set)
    for e in chosen:
        for b in region[e]:
            cmp[b].add(e)
    new = restructure(fn, cmp, avail_out, fresh)
    return new if new.instruction_count() <= bound else None
