"""Passes ``pcp-basic`` and ``pcp-full``: constant propagation on predicated code (Knoop &
Rüthing; predicated_cp.md) on the acyclic single-entry regions of branchy code.

Each region that ``regions.select_regions`` picks (the hyperblocks if-conversion would form) is
put into PSSA (``pcp/pssa.py``), its PVG evaluated by the basic or full local rules
(``pcp/pvg.py``); by default the constants found are remapped onto the original instructions
(Fig. 3(b)/(c)); with ``emit="hyperblock"`` the region is replaced by its simplified PSSA
(§3.9: off-predicated instructions removed, false OR operands dropped, compares folded,
constants substituted) as one ``!hyperblock`` (``pcp/emit.py``). Registers live into a region are ⊥ (the start state σ⊥ of Algorithm 1; the
global component that would carry constants between hyperblocks is not implemented yet), so
every region is analysed on its own. A region the construction does not model (predicated
code, memory, calls, more than ``max_paths`` paths) is left branchy, with the reason recorded.

References: predicated_cp.md §3.1 (pipeline), §3.3, §3.6-§3.9; Table 3.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from pylogic.errors import PathlogicError
from pylogic.ir.model import Function, Imm, Module, Mov, Ret
from pylogic.transforms.naming import used_names
from pylogic.transforms.pcp.emit import _Names, emit_region
from pylogic.transforms.pcp.pssa import PSSAUnsupported, build_pssa
from pylogic.transforms.pcp.pvg import (build_pvg, evaluate, false_predicates, off_predicated,
                                        simplify, source_constants)
from pylogic.transforms.record import Rejection, TransformRecord
from pylogic.transforms.regions import RegionLimits, select_regions

NEEDS: tuple = ()
#: ``remap``: the analysis results written back into the original code (Fig. 3(b)/(c)): every
#: source instruction found constant becomes ``mov C``. ``hyperblock``: each region replaced by
#: its simplified PSSA (Table 3 form; exponential in the region, as PSSA is).
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


@dataclass
class PCPRecord(TransformRecord):
    def totals(self) -> dict:
        return {"regions": len(self.applied),
                "constants_found": sum(r.constants for r in self.applied),
                "off_predicated_removed": sum(r.off_predicated for r in self.applied),
                "false_predicates": sum(r.false_predicates for r in self.applied),
                "rejected": len(self.rejected)}


def _remap(fn: Function, constants: dict) -> Function:
    """Fig. 3(b)/(c): each source instruction found constant becomes ``d = mov C`` in place."""
    blocks = []
    for b in fn.blocks:
        instrs = tuple(Mov(dest=ins.defs()[0], src=Imm(constants[(b.label, k)]),
                           annotations=ins.annotations)
                       if (b.label, k) in constants else ins for k, ins in enumerate(b.instrs))
        blocks.append(dataclasses.replace(b, instrs=instrs))
    return dataclasses.replace(fn, blocks=tuple(blocks))


def _run(module: Module, rows, *, full: bool, emit: str = "remap", max_blocks: int = 16,
         max_paths: int = 64):
    if emit not in EMIT:
        raise PathlogicError(f"emit must be one of {', '.join(EMIT)}, not {emit!r}")
    record = PCPRecord("pcp-full" if full else "pcp-basic",
                       options={"emit": emit, "max_blocks": max_blocks, "max_paths": max_paths})
    functions = []
    for fn in module.functions:
        if fn.extern or not fn.blocks:
            functions.append(fn)
            continue
        regions, _ = select_regions(fn, RegionLimits(max_blocks=max_blocks, allow_memory=False))
        names = _Names(used_names(fn, module))
        rets = {b.label: b.instrs[-1].value for b in fn.blocks
                if isinstance(b.instrs[-1], Ret) and b.instrs[-1].value is not None}
        new_head, merged, constants = {}, set(), {}
        for region in regions:
            if len(region.blocks) < 2:
                continue
            try:
                pssa = build_pssa(fn, region)
                paths = len(pssa.exits)             # every path ends in one exit
                if paths > max_paths:
                    raise PSSAUnsupported(f"{paths} paths (more than {max_paths})")
                g = evaluate(build_pvg(pssa, full=full))
                simplified = simplify(g)
                block = emit_region(pssa, simplified, names, false_predicates(g) if full else set(),
                                    {b: rets.get(b, 0) for b in region.blocks})
            except PSSAUnsupported as exc:
                record.rejected.append(Rejection(fn.name, region.head, None, "not modelled",
                                                 str(exc)))
                continue
            found = source_constants(g)
            constants.update(found)
            if emit == "hyperblock":
                new_head[region.head] = block
                merged.update(region.blocks[1:])
            record.applied.append(RegionResult(
                fn.name, region.head, region.blocks, paths, len(pssa.instrs), len(simplified),
                len(found), len(off_predicated(g)) if emit == "hyperblock" else 0,
                len(false_predicates(g)) if full else 0))
        if emit == "remap":
            functions.append(_remap(fn, constants) if constants else fn)
            continue
        blocks = tuple(new_head.get(b.label, b) for b in fn.blocks if b.label not in merged)
        functions.append(dataclasses.replace(fn, blocks=blocks) if new_head else fn)
    return dataclasses.replace(module, functions=tuple(functions)), record


def pcp_basic(module: Module, rows, **options):
    """Basic version: trace-precise for non-deterministic branching (Theorem 3.1)."""
    return _run(module, rows, full=False, **options)


def pcp_full(module: Module, rows, **options):
    """Full version: predicate-sensitive, removes off-predicated instructions (Theorem 3.2)."""
    return _run(module, rows, full=True, **options)
