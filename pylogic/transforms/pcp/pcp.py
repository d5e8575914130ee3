"""Passes ``pcp-basic`` and ``pcp-full``: constant propagation on predicated code (Knoop &
Rüthing; predicated_cp.md) on branchy and on if-converted (predicated) code alike.

Default (``emit="remap"``): the global component, Algorithm 1 (``pcp/global_cp.py``), over a
partition of each function into hyperblocks, each analysed by the local component (PSSA,
``pcp/pssa.py``, and its PVG evaluated by the basic or full rules, ``pcp/pvg.py``); the results
are then remapped onto the code (§3.9 "Remapping"; Fig. 3(b)/(c)) by the same rewrite ``sccp``
uses (``sccp.apply_constants``): operands found constant become literals, definitions found
constant become ``mov C``, branches whose condition is constant on every feasible path are
folded, instructions whose guard is false on every feasible path are removed (off-predicated),
guards true on every feasible path dropped, unreached blocks removed, dead pure definitions
removed. So the two CPs differ only in what they know.

``emit="hyperblock"``: each branchy region (no predicated code, memory or calls) is replaced by
its simplified PSSA (§3.9: off-predicated instructions removed, false OR operands dropped,
compares folded, constants substituted) as one ``!hyperblock`` (``pcp/emit.py``), analysed on
its own from σ⊥ (the Table 3 form; exponential in the region, as PSSA is).

References: predicated_cp.md §3.1 (pipeline), §3.3, §3.6-§3.9; Table 3.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from pylogic.errors import PathlogicError
from pylogic.ir.model import Function, Module, Ret
from pylogic.transforms.driver import run_per_function
from pylogic.transforms.naming import used_names
from pylogic.transforms.pcp.emit import _Names, emit_region
from pylogic.transforms.pcp.global_cp import global_constants
from pylogic.transforms.pcp.pssa import PSSAUnsupported, build_pssa, use_counts
from pylogic.transforms.pcp.pvg import (build_pvg, evaluate, false_predicates, off_predicated,
                                        simplify, source_constants)
from pylogic.transforms.pcp.sccp import FunctionSccp, SccpRecord, apply_constants
from pylogic.transforms.record import Rejection, TransformRecord
from pylogic.transforms.regions import RegionLimits, select_regions

NEEDS = ("rpo", "reachable")
#: ``remap``: Algorithm 1 and the analysis results written back into the code (Fig. 3(b)/(c)).
#: ``hyperblock``: each branchy region replaced by its simplified PSSA (Table 3 form).
EMIT = ("remap", "hyperblock")


@dataclass(frozen=True)
class RegionResult:
    function: str
    head: str
    blocks: tuple
    paths: int
    pssa_instrs: int
    simplified_instrs: int
    constants: int
    off_predicated: int
    false_predicates: int


@dataclass(frozen=True)
class FunctionPCP:
    """Algorithm 1 on one function: the partition (hyperblocks, of which ``regions`` have more
    than one block, ``blind`` analysed predicate-blind), local analyses run, paths and false
    FPPs of the final local analyses, and the rewrite (as ``sccp`` counts it)."""
    function: str
    hyperblocks: int
    regions: int
    blind: int
    local_analyses: int
    paths: int
    false_paths: int
    rewrite: FunctionSccp


@dataclass
class PCPRecord(TransformRecord):
    def totals(self) -> dict:
        if self.options.get("emit") == "hyperblock":
            return {"regions": len(self.applied),
                    "constants_found": sum(r.constants for r in self.applied),
                    "off_predicated_removed": sum(r.off_predicated for r in self.applied),
                    "false_predicates": sum(r.false_predicates for r in self.applied),
                    "rejected": len(self.rejected)}
        out = SccpRecord(applied=[f.rewrite for f in self.applied]).totals()
        out["off_predicated_removed"] = out["guarded_off_removed"]
        for key in ("hyperblocks", "regions", "blind", "local_analyses", "paths", "false_paths"):
            out[key] = sum(getattr(f, key) for f in self.applied)
        out["false_predicates"] = out["false_paths"]
        return out


def _global_function(fn: Function, module: Module, frows, *, full: bool, max_blocks: int,
                     max_paths: int, record: PCPRecord) -> tuple[Function, FunctionPCP]:
    """Algorithm 1 on ``fn`` (``frows``: its rows): the constants of every hyperblock, remapped
    onto ``fn``'s own blocks (``apply_constants``), and its entry."""
    order = {b: int(n) for b, n in frows["rpo"]}
    gcp = global_constants(fn, module, order, full=full, max_blocks=max_blocks,
                           max_paths=max_paths)
    new, rewrite = apply_constants(fn, gcp, gcp, frows.set("reachable"))
    paths, false_paths = gcp.path_counts()
    for hb in gcp.partition:
        if hb.blind:
            record.rejected.append(Rejection(fn.name, hb.head, None, "analysed predicate-blind",
                                             hb.reason))
    return new, FunctionPCP(
        fn.name, len(gcp.partition), sum(1 for hb in gcp.partition if len(hb.region.blocks) > 1),
        sum(1 for hb in gcp.partition if hb.blind), gcp.analyses, paths, false_paths, rewrite)


def _hyperblock_function(fn: Function, module: Module, *, full: bool, max_blocks: int,
                         max_paths: int, record: PCPRecord) -> Function:
    """``fn`` with every region of more than one block emitted as one predicated hyperblock
    (``emit_region``); its ``RegionResult`` entries go to ``record``."""
    regions, _ = select_regions(fn, RegionLimits(max_blocks=max_blocks, allow_memory=False))
    names = _Names(used_names(fn, module))
    rets = {b.label: b.instrs[-1].value for b in fn.blocks
            if isinstance(b.instrs[-1], Ret) and b.instrs[-1].value is not None}
    new_head, merged = {}, set()
    uses, block_map = use_counts(fn), fn.block_map()
    for region in regions:
        if len(region.blocks) < 2:
            continue
        try:
            pssa = build_pssa(fn, region, max_paths=max_paths, uses=uses, block_map=block_map)
            if pssa.predicated or pssa.opaque:
                raise PSSAUnsupported("predicated code, memory or calls (hyperblock emission "
                                      "models ordinary computations)")
            paths = len(pssa.exits)             # every path ends in one exit
            g = evaluate(build_pvg(pssa, full=full))
            simplified = simplify(g)
            block = emit_region(pssa, simplified, names, false_predicates(g) if full else set(),
                                {b: rets.get(b, 0) for b in region.blocks})
        except PSSAUnsupported as exc:
            record.rejected.append(Rejection(fn.name, region.head, None, "not modelled",
                                             str(exc)))
            continue
        new_head[region.head] = block
        merged.update(region.blocks[1:])
        record.applied.append(RegionResult(
            fn.name, region.head, region.blocks, paths, len(pssa.instrs), len(simplified),
            len(source_constants(g)), len(off_predicated(g)),
            len(false_predicates(g)) if full else 0))
    blocks = tuple(new_head.get(b.label, b) for b in fn.blocks if b.label not in merged)
    return dataclasses.replace(fn, blocks=blocks) if new_head else fn


def _run(module: Module, rows, *, full: bool, emit: str = "remap", max_blocks: int = 16,
         max_paths: int = 64, functions=None):
    if emit not in EMIT:
        raise PathlogicError(f"emit must be one of {', '.join(EMIT)}, not {emit!r}")
    record = PCPRecord("pcp-full" if full else "pcp-basic",
                       options={"emit": emit, "max_blocks": max_blocks, "max_paths": max_paths})
    limits = {"full": full, "max_blocks": max_blocks, "max_paths": max_paths, "record": record}
    if emit == "remap":
        def rewrite(fn):
            return _global_function(fn, module, rows.function(fn.name), **limits)
    else:
        def rewrite(fn):
            return _hyperblock_function(fn, module, **limits), None
    return run_per_function(module, functions, record, rewrite)


def pcp_basic(module: Module, rows, **options):
    """Basic version: trace-precise for non-deterministic branching (Theorem 3.1)."""
    return _run(module, rows, full=False, **options)


def pcp_full(module: Module, rows, **options):
    """Full version: predicate-sensitive, removes off-predicated instructions (Theorem 3.2)."""
    return _run(module, rows, full=True, **options)
