"""If-conversion: hyperblock formation in the IMPACT style (Mahlke et al. 1992).

``if_convert(module, ...)`` selects acyclic single-entry regions (``regions.py``), gives every
block of a region an execution predicate, and lays the region out as ONE straight-line
``!hyperblock``: each block's instructions under its predicate, in a topological order of the
region (so every path keeps the relative order of its instructions, ``input``/``print``
included), and every edge that leaves the region as a guarded side exit at the point where its
block ends.

Predicates (Park & Schlansker's control-dependence construction, as in IMPACT; pas.md §2.1 "simple
if-conversion produces only unconditional and or-type defines"; predicated_cp.md §3.2):
- control dependence inside the region is read from the ``cdep_acyclic`` rows of
  ``datalog/acyclic_control_dependence.dl`` (post-dominance towards a virtual exit that every exit
  edge, retreating edge and ``ret`` reaches); blocks with the same control-dependence set share
  one predicate;
- a block control dependent on nothing runs unguarded (the head, joins such as F and J of
  predicated_cp.md Table 1);
- a block control dependent on one branch edge ``X -T-> `` gets an unconditional define at the end
  of X, under X's predicate: ``(pX) %hp.B:ut, %hp.C:uf = pcmp.ne c, 0`` (``cmp.unc B,C``);
  one dependent on X's unconditional edge shares X's predicate;
- a block control dependent on several edges (a join reached along some, not all, paths) gets an
  or-type predicate, cleared at the head (``%hp.J:uf = pcmp.eq 0, 0``) and set by an ``ot``/``of``
  destination at each of those branches.
- ``cbr c`` where ``c = cmp.REL x, y`` in the same block and c is read nowhere else: the compare is
  folded into the define, ``pcmp.REL x, y`` (so PAS sees the condition family of x).

Exits: an edge leaving the region (or going back to its head) becomes ``(p) br L`` at the end of
its block; a ``ret`` in a block that is not last becomes a guarded ``(p) ret v`` side exit (docs/pir.md:
any instruction may carry a guard; facts_gen treats a block containing a ``ret`` as an exit). The
last exit of the layout is left unguarded: control only gets there when no other exit was taken.

Existing predicated code in a merged (non-head) block B with predicate p:
- an unguarded ordinary instruction gets guard p; an unguarded define of type ut/uf/conjt/conjf
  becomes ct/cf/at/af under p (identical when p holds, no write when not); ot/of/at/af/ct/cf get p;
- a guarded instruction ``(q) I`` (side exits included) gets the conjunction
  ``(p) %hp.B.and:ut = pcmp.ne q, 0`` then ``(%hp.B.and) I``, valid for instructions that a 0
  guard nullifies; blocks holding a guarded ut/uf/disj/conj define, or any disjt/disjf, are not
  merged (those types write under a 0 guard).
Fresh predicates are named ``%hp.<block>`` (made unique against every name of the function).

References: predicated_cp.md §2.2, §3.2, §4.2 Table 1; pas.md §2.1, Figure 1; docs/pir.md.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Iterable, Optional

from pylogic.errors import PathlogicError
from pylogic.ir.model import (TRUE_PREDICATES, Block, Br, Cmp, CondBr, Function, Imm,
                              Instr, Module, PredDefine, PredDest, Reg, Ret)
from pylogic.transforms.driver import run_per_function
from pylogic.transforms.naming import FreshNames, used_names
from pylogic.transforms.record import TransformRecord
from pylogic.transforms.regions import Region, RegionLimits, select_regions

__all__ = ["if_convert", "IfConversionRecord", "ConvertedRegion", "convert_region"]

#: Unguarded define types rewritten when the block gets predicate p (same effect when p holds,
#: no write when it does not; docs/pir.md deposit table).
_UNDER_PREDICATE = {"ut": "ct", "uf": "cf", "conjt": "at", "conjf": "af"}


@dataclass(frozen=True)
class ConvertedRegion:
    """One hyperblock formed. ``blocks``: the merged blocks in layout (topological) order, head
    first; ``predicates``: block -> its predicate (None = unguarded); ``side_exits``: (block,
    target label or "ret", guard or None) in layout order, the last one unguarded;
    ``instructions_predicated``: original instructions that received a block predicate;
    ``defines_inserted``: predicate defines created; ``compares_folded``: ``cmp`` folded into them;
    ``instrs_before``/``instrs_after``: static sizes."""
    function: str
    head: str
    blocks: tuple
    predicates: dict
    side_exits: tuple
    instructions_predicated: int
    defines_inserted: int
    compares_folded: int
    instrs_before: int
    instrs_after: int


@dataclass
class IfConversionRecord(TransformRecord):
    """What ``if_convert`` did: ``applied`` lists :class:`ConvertedRegion`, ``rejected`` the
    :class:`~pylogic.transforms.record.Rejection` of every region boundary block not merged
    (``where`` = the region head, ``item`` = the block, ``reason`` a fixed phrase)."""
    transform: str = "if-conversion"

    @property
    def regions(self) -> list:
        return self.applied

    def totals(self) -> dict:
        return {
            "regions_converted": len(self.applied),
            "blocks_merged": sum(len(r.blocks) for r in self.applied),
            "instructions_predicated": sum(r.instructions_predicated for r in self.applied),
            "defines_inserted": sum(r.defines_inserted for r in self.applied),
            "compares_folded": sum(r.compares_folded for r in self.applied),
            "side_exits": sum(len(r.side_exits) for r in self.applied),
            "rejected": len(self.rejected),
        }

    def summary(self) -> str:
        """Human-readable lines: totals, one line per hyperblock, rejections grouped by reason."""
        t = self.totals()
        lines = [f"if-conversion: {t['regions_converted']} region(s) converted, "
                 f"{t['blocks_merged']} blocks merged, {t['instructions_predicated']} "
                 f"instructions predicated, {t['defines_inserted']} defines inserted, "
                 f"{t['compares_folded']} compares folded, {t['side_exits']} exits"]
        for r in self.applied:
            lines.append(f"  {r.function}: {r.head} <- {' '.join(r.blocks)} "
                         f"({r.instructions_predicated} predicated, {r.defines_inserted} defines, "
                         f"{len(r.side_exits)} exits, {r.instrs_before} -> {r.instrs_after} "
                         f"instrs)")
        for reason, n in self.rejected_by_reason().items():
            where = [f"{x.function}:{x.where}->{x.item}" for x in self.rejected
                     if x.reason == reason]
            more = f" ... (+{len(where) - 6})" if len(where) > 6 else ""
            lines.append(f"  not merged, {reason}: {n} ({', '.join(where[:6])}{more})")
        return "\n".join(lines)


#: Relations this pass reads (the analysis layer computes them for its input module).
NEEDS = ("cdep_acyclic",)


def if_convert(module: Module, rows, *, max_blocks: int = 16, max_instrs: int = 128,
               allow_calls: bool = False, allow_memory: bool = True,
               functions: Optional[Iterable[str]] = None) -> tuple[Module, IfConversionRecord]:
    """If-convert ``module`` into hyperblocks; return ``(new_module, record)``.

    Parameters
    ----------
    module: the input (never modified).
    rows: the module's analysis rows (``Rows`` with ``relpath``), ``NEEDS`` among them.
    max_blocks, max_instrs: bounds of one region (blocks; original instructions, terminators
        included).
    allow_calls: merge blocks containing calls (calls then run under a predicate).
    allow_memory: merge blocks with load/store/alloca (a nullified access does nothing, docs/pir.md).
    functions: names of the functions to convert (default: every defined function).

    Raises PathlogicError for bad options or an unknown function name.

    Example: ``new, rec = if_convert(m, module_rows(m, relations=NEEDS))`` on
    ``examples/pcp_branchy.pir`` gives one
    hyperblock ``A`` holding all nine blocks.
    References: predicated_cp.md §3.2 and Table 1; Mahlke et al. 1992 (IMPACT hyperblocks).
    """
    if max_blocks < 1 or max_instrs < 1:
        raise PathlogicError(f"max_blocks and max_instrs must be positive "
                             f"(got {max_blocks}, {max_instrs})")
    limits = RegionLimits(max_blocks, max_instrs, allow_calls, allow_memory)
    record = IfConversionRecord(options=dataclasses.asdict(limits))
    return run_per_function(module, functions, record, lambda fn: (_convert_function(
        fn, module, limits, record, rows.function(fn.name)["cdep_acyclic"]), None))


def _convert_function(fn: Function, module: Module, limits: RegionLimits,
                      record: IfConversionRecord, cdep_rows) -> Function:
    regions, rejections = select_regions(fn, limits)
    record.rejected.extend(rejections)
    namer = _Namer(fn, module)
    use_counts = _use_counts(fn)
    new_head: dict = {}
    merged: set = set()
    # once per function, not per region (issue #28: the block map and a scan of every
    # cdep_acyclic row per region were quadratic, most of if-convert at 33,885 instructions)
    bm = fn.block_map()
    cdep_of = _cdep_by_block(cdep_rows)
    for region in regions:
        if len(region.blocks) < 2:
            continue
        block, info = convert_region(fn, region, namer, cdep_rows, use_counts, bm, cdep_of)
        new_head[region.head] = block
        merged.update(region.blocks[1:])
        record.applied.append(info)
    if not new_head:
        return fn
    blocks = tuple(new_head.get(b.label, b) for b in fn.blocks if b.label not in merged)
    return dataclasses.replace(fn, blocks=blocks)


class _Namer(FreshNames):
    """Fresh predicate names ``%hp.<base>`` that collide with no name of the function/module."""

    def __init__(self, fn: Function, module: Module):
        super().__init__(used_names(fn, module))

    def fresh(self, base: str) -> str:
        return super().fresh("%hp." + re.sub(r"[^A-Za-z0-9_.$]", "_", base.lstrip("%@")))  # docs/pir.md


def _use_counts(fn: Function) -> dict:
    counts: dict = {}
    for b in fn.blocks:
        for ins in b.instrs:
            for op in ins.uses():
                if isinstance(op, Reg):
                    counts[op.name] = counts.get(op.name, 0) + 1
            if ins.guard is not None:
                counts[ins.guard] = counts.get(ins.guard, 0) + 1
    return counts


def _final_edges(block: Block) -> list:
    """[(direction, target)] of the final terminator: T/F for a two-way cbr, U for br (or a cbr
    whose targets coincide), R for ret (target None)."""
    term = block.instrs[-1]
    if isinstance(term, Br):
        return [("U", term.target)]
    if isinstance(term, CondBr):
        if term.if_true == term.if_false:
            return [("U", term.if_true)]
        return [("T", term.if_true), ("F", term.if_false)]
    return [("R", None)]


def _foldable_compare(block: Block, use_counts: dict) -> Optional[int]:
    """Index of an unguarded ``c = cmp.REL x, y`` in ``block`` whose only use in the function is
    the block's final ``cbr c`` and whose operands are not redefined before it; else None."""
    term = block.instrs[-1]
    if not isinstance(term, CondBr) or not isinstance(term.cond, Reg):
        return None
    c = term.cond.name
    if use_counts.get(c, 0) != 1:
        return None
    for k in range(len(block.instrs) - 2, -1, -1):
        ins = block.instrs[k]
        if c in ins.defs():
            if not isinstance(ins, Cmp) or ins.guard is not None:
                return None
            operands = {op.name for op in (ins.a, ins.b) if isinstance(op, Reg)}
            later = {d for i in block.instrs[k + 1:-1] for d in i.defs()}
            return None if operands & later else k
    return None


def _cdep_by_block(cdep_rows) -> dict:
    """``cdep_acyclic`` rows ``(n, b, s)`` as n -> [(b, s)]."""
    out: dict = {}
    for n, x, s in cdep_rows:
        out.setdefault(n, []).append((x, s))
    return out


def region_control_dependence(fn: Function, region: Region, cdep_rows, bm: Optional[dict] = None,
                              cdep_of: Optional[dict] = None) -> dict:
    """Block -> its control-dependence set ``{(X, "T"|"F"|"U")}`` inside ``region``.

    Read from ``cdep_acyclic`` rows (``datalog/acyclic_control_dependence.dl``: retreating edges
    go to the virtual exit, so a path leaving the single-entry region never re-enters it and the
    function-level relation restricted to the region is the region-local one). The label is the
    direction of X's final terminator that reaches the dependent edge's target. ``bm``,
    ``cdep_of``: ``fn.block_map()`` and ``_cdep_by_block(cdep_rows)`` when the caller has them.
    """
    inside = set(region.blocks)
    bm = fn.block_map() if bm is None else bm
    cdep_of = _cdep_by_block(cdep_rows) if cdep_of is None else cdep_of
    labels: dict = {}
    for x in region.blocks:
        for d, s in _final_edges(bm[x]):
            if s is not None and s in inside and s != region.head:
                labels.setdefault((x, s), []).append(d)
    cd: dict = {b: set() for b in region.blocks}
    for n in cd:
        for x, s in cdep_of.get(n, ()):
            if (x, s) in labels:
                cd[n].update((x, d) for d in labels[(x, s)])
    return cd


def convert_region(fn: Function, region: Region, namer: _Namer, cdep_rows,
                   use_counts: Optional[dict] = None, bm: Optional[dict] = None,
                   cdep_of: Optional[dict] = None) -> tuple[Block, ConvertedRegion]:
    """Lay out one selected region as a single ``!hyperblock`` (see the module docstring).

    ``region.blocks`` must be a topological order of an acyclic single-entry region whose non-head
    blocks are entered only by final terminators of region blocks (``select_regions`` ensures it).
    ``cdep_rows``: the function's ``cdep_acyclic`` rows ``(n, b, s)``; ``bm``, ``cdep_of``: see
    ``region_control_dependence``.
    """
    use_counts = _use_counts(fn) if use_counts is None else use_counts
    names_before = set(namer.used)
    bm = fn.block_map() if bm is None else bm
    order = list(region.blocks)
    head = region.head
    inside = set(order)

    def internal(target) -> bool:
        return target in inside and target != head  # an edge to the head is a loop exit

    cd = region_control_dependence(fn, region, cdep_rows, bm, cdep_of)
    # Predicates per control-dependence class (topological order: X's predicate is known first).
    pred: dict = {}
    edge_pred: dict = {}            # (X, T|F) -> ut/uf destination name
    or_contrib: dict = {}           # (X, T|F|U) -> [or-type destination names]
    or_preds: list = []             # or-type predicates to clear at the head
    by_class: dict = {}
    for b in order:
        key = frozenset(cd[b])
        if key in by_class:
            pred[b] = by_class[key]
            continue
        if not key:
            p = None
        elif len(key) == 1:
            (x, d), = key
            if d == "U":
                p = pred[x]
            else:
                p = edge_pred[(x, d)] = namer.fresh(b)
        else:
            p = namer.fresh(b)
            or_preds.append(p)
            for x, d in sorted(key, key=lambda e: (order.index(e[0]), e[1])):
                if d in ("T", "F") and (x, "TF".replace(d, "")) in key:
                    # dependent on both directions of X's branch (a side exit of X leaves the
                    # region): set whenever X ends its block, once, not as an ot and an of
                    # writing the same predicate in one define
                    d = "U"
                if p not in or_contrib.get((x, d), ()):
                    or_contrib.setdefault((x, d), []).append(p)
        by_class[key] = pred[b] = p
    # Exit edges in layout order; the last one runs unguarded.
    exits = [(x, d, s) for x in order for d, s in _final_edges(bm[x])
             if s is None or not internal(s)]
    last = order[-1]
    keep_last_terminator = pred[last] is None  # its terminator is emitted verbatim
    guarded = [e for e in exits if not (keep_last_terminator and e[0] == last)]
    if not keep_last_terminator:
        guarded = guarded[:-1]
    for x, d, s in guarded:
        if d in ("T", "F") and (x, d) not in edge_pred:
            edge_pred[(x, d)] = namer.fresh(f"{x}.exit.{s}")

    instrs: list = []
    side_exits: list = []
    stats = {"predicated": 0, "defines": 0, "folded": 0}

    def define(rel, dests, a, b, guard, annotations=()):
        for k in range(0, len(dests), 2):
            instrs.append(PredDefine(rel=rel, dests=tuple(dests[k:k + 2]), a=a, b=b, guard=guard,
                                     annotations=annotations))
            stats["defines"] += 1

    zero = Imm(0)
    if or_preds:  # clear the or-type predicates: p:uf = pcmp.eq 0, 0 writes 0 (docs/pir.md example)
        define("eq", [PredDest(p, "uf") for p in or_preds], zero, zero, None)
    for x in order:
        block = bm[x]
        p = pred[x]
        term = block.instrs[-1]
        verbatim = x == last and keep_last_terminator
        needs_define = not verbatim and any(
            (x, d) in edge_pred or (x, d) in or_contrib for d in ("T", "F"))
        fold = _foldable_compare(block, use_counts) if needs_define else None
        conj: dict = {}
        for k, ins in enumerate(block.instrs[:-1]):
            if k == fold:
                stats["folded"] += 1
                continue
            if x == head or p is None:
                instrs.append(ins)
            else:
                instrs.append(_under_predicate(ins, p, x, conj, namer, instrs, stats))
                stats["predicated"] += 1
            for d in ins.defs():
                conj.pop(d, None)
        if verbatim:
            instrs.append(term)
            side_exits.extend((x, s or "ret", None) for _, s in _final_edges(block))
            continue
        if needs_define:
            annotations = term.annotations
            if fold is not None:
                cmp = block.instrs[fold]
                rel, a, b = cmp.rel, cmp.a, cmp.b
                annotations = cmp.annotations + term.annotations   # both become this define
            else:
                rel, a, b = "ne", term.cond, zero
            dests = []
            for d, t_type, o_type in (("T", "ut", "ot"), ("F", "uf", "of")):
                if (x, d) in edge_pred:
                    dests.append(PredDest(edge_pred[(x, d)], t_type))
                dests.extend(PredDest(q, o_type) for q in or_contrib.get((x, d), ()))
            define(rel, dests, a, b, p, annotations)
        if (x, "U") in or_contrib:
            define("eq", [PredDest(q, "ot") for q in or_contrib[(x, "U")]], zero, zero, p)
        for d, s in _final_edges(block):
            if s is not None and internal(s):
                continue
            guard = edge_pred.get((x, d), p) if d in ("T", "F") else p
            if s is None:
                instrs.append(Ret(value=term.value, exit=term.exit, guard=guard,
                                  annotations=term.annotations, loc=term.loc))
            else:
                instrs.append(Br(target=s, guard=guard, annotations=term.annotations,
                                 loc=term.loc))
            side_exits.append((x, s or "ret", guard))
    if not keep_last_terminator:  # the final exit: reached only when it is the one taken
        instrs[-1] = dataclasses.replace(instrs[-1], guard=None)
        x, s, _ = side_exits[-1]
        side_exits[-1] = (x, s, None)
    instrs = _drop_unused_predicates(instrs, set(namer.used) - names_before)
    stats["defines"] = sum(1 for ins in instrs if isinstance(ins, PredDefine)
                           and ins.dests[0].name not in names_before)
    defined = {d for ins in instrs for d in ins.defs()}
    predicates = {b: (p if p in defined else None) for b, p in pred.items()}
    head_block = bm[head]
    new_block = Block(label=head, instrs=tuple(instrs), hyperblock=True,
                      annotations=head_block.annotations, loc=head_block.loc)
    info = ConvertedRegion(
        function=fn.name, head=head, blocks=tuple(order), predicates=predicates,
        side_exits=tuple(side_exits), instructions_predicated=stats["predicated"],
        defines_inserted=stats["defines"], compares_folded=stats["folded"],
        instrs_before=sum(len(bm[x].instrs) for x in order), instrs_after=len(instrs))
    return new_block, info


def _drop_unused_predicates(instrs: list, fresh: set) -> list:
    """Remove destinations named in ``fresh`` that no instruction reads (e.g. the predicate of a
    block whose only content became the final unguarded exit), and defines left without any."""
    while True:
        read = {ins.guard for ins in instrs} | {op.name for ins in instrs for op in ins.uses()
                                                 if isinstance(op, Reg)}
        out = []
        for ins in instrs:
            if isinstance(ins, PredDefine) and any(d.name in fresh for d in ins.dests):
                dests = tuple(d for d in ins.dests if d.name not in fresh or d.name in read)
                if not dests:
                    continue
                ins = dataclasses.replace(ins, dests=dests)
            out.append(ins)
        if out == instrs:
            return out
        instrs = out


def _under_predicate(ins: Instr, p: str, label: str, conj: dict, namer: _Namer, instrs: list,
                     stats: dict) -> Instr:
    """``ins`` of a block whose predicate is ``p``: guard it with p, or with p ∧ its own guard
    (a conjunction define appended to ``instrs`` first, cached per guard in ``conj``)."""
    q = ins.guard
    if q is None or q in TRUE_PREDICATES:
        if isinstance(ins, PredDefine):
            dests = tuple(PredDest(d.name, _UNDER_PREDICATE.get(d.dtype, d.dtype))
                          for d in ins.dests)
            return dataclasses.replace(ins, guard=p, dests=dests)
        return dataclasses.replace(ins, guard=p)
    t = conj.get(q)
    if t is None:
        t = conj[q] = namer.fresh(f"{label}.and")
        instrs.append(PredDefine(rel="ne", dests=(PredDest(t, "ut"),), a=Reg(q), b=Imm(0),
                                 guard=p))
        stats["defines"] += 1
    return dataclasses.replace(ins, guard=t)
