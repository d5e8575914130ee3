"""The passes ``pathlogic`` can run, by name (like ``opt -passes=``).

A pass is ``run(module, rows, **options) -> (Module, record)``: it reads the analysis rows of its
input module (``needs`` names the relations; the analysis layer computes them) and returns a new
module and a record of what it changed; it never edits its input. Adding a pass = one module in
its family folder of ``transforms/`` (``pre/``, ``cbe/``, ...) and one line in ``PASSES``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from pylogic.errors import PathlogicError
from pylogic.transforms.cbe import cbe, icbe
from pylogic.transforms.coalesce import coalesce
from pylogic.transforms.dce import dce
from pylogic.transforms.ifconvert import if_convert
from pylogic.transforms.pcp import pcp, sccp
from pylogic.transforms.pde import pde
from pylogic.transforms.ppde import ppde
from pylogic.transforms.pre import pre_m, pre_mr, pre_ms, pre_r, vng_fre
from pylogic.transforms.simplify import simplify


@dataclass(frozen=True)
class Pass:
    name: str
    run: Callable
    needs: tuple[str, ...]
    summary: str
    #: repeat on the rows of its own output while ``record.changed`` (at most MAX_ROUNDS runs)
    fixpoint: bool = False
    #: a ``fixpoint`` pass whose rows are interprocedural: each round reads the whole module's rows
    #: (not only the changed functions') and gets ``record.next_options()`` (e.g. what is left of
    #: a growth budget that bounds the whole iteration)
    whole_module: bool = False


#: the most runs of a ``fixpoint`` pass in one pipeline step
MAX_ROUNDS = 64

PASSES: dict[str, Pass] = {p.name: p for p in (
    Pass("if-convert", if_convert.if_convert, if_convert.NEEDS,
         "hyperblock formation (IMPACT): acyclic single-entry regions to predicated code"),
    Pass("sccp", sccp.sccp, sccp.NEEDS,
         "sparse conditional constant propagation (Wegman-Zadeck), predicate-blind, + dead defs"),
    Pass("pcp-basic", pcp.pcp_basic, pcp.NEEDS,
         "predicated CP, basic PVG (Knoop-Ruething): regions to PSSA hyperblocks, constants"),
    Pass("pcp-full", pcp.pcp_full, pcp.NEEDS,
         "predicated CP, full PVG: also predicate values, off-predicated code removed"),
    Pass("dce", dce.dce, dce.NEEDS,
         "dead code elimination by marking (datalog/dce.dl): unread pure code, dead cycles"),
    Pass("pde", pde.pde, pde.NEEDS,
         "partial dead code elimination (Knoop-Ruething-Steffen): sinking + dead assignments, "
         "iterated", fixpoint=True),
    Pass("ppde", ppde.ppde, ppde.NEEDS,
         "partial dead code elimination on predicated code (Xue-Cai-Gao PPDE): split, merge "
         "and delete under existing predicates (PPG), sink across SEME regions", fixpoint=True),
    Pass("ppde-keep", ppde.ppde_keep, ppde.NEEDS,
         "ppde in the paper's setting: interface blocks on region exits kept (their br runs)",
         fixpoint=True),
    Pass("pre-m", pre_m.pre_m, pre_m.NEEDS,
         "PRE(M), PathFinder: code motion from the CMP region (datalog/pre.dl), = lazy code motion"),
    Pass("pre-ms", pre_ms.pre_ms, pre_ms.NEEDS,
         "PRE(MS) speculation step: min-cut insertions on the profiled CMP (run as pre-ms,pre-m)"),
    Pass("pre-mr", pre_mr.pre_mr, pre_mr.NEEDS,
         "PRE(MR) restructuring step: CMP regions duplicated, Fig. 6.10 (run as pre-mr,pre-m)"),
    Pass("pre-mr-budget", pre_mr.pre_mr_budget, pre_mr.NEEDS,
         "PRE(Mr): pre-mr within a 20% code-growth budget (run as pre-mr-budget,pre-m)"),
    Pass("vng-fre", vng_fre.vng_fre, vng_fre.NEEDS,
         "full redundancies on the Value Name Graph (datalog/vng.dl): one temporary per VNG name, "
         "copies where threads rename values"),
    Pass("pre-r", pre_r.pre_r, pre_r.NEEDS,
         "PRE(R) restructuring only: PartialReuse blocks duplicated (run as pre-r,pre-m)"),
    Pass("cbe", cbe.cbe, cbe.NEEDS,
         "conditional branch elimination (PathFinder ch. 7): paths deciding a branch duplicated"),
    Pass("icbe", icbe.icbe, icbe.NEEDS,
         "cbe + entry and exit splitting: callee clones for call sites that decide its entry "
         "branches; callee clones returning through ret.N to per-exit continuations; iterated "
         "within one growth budget", fixpoint=True, whole_module=True),
    Pass("coalesce", coalesce.coalesce, coalesce.NEEDS,
         "copy coalescing (Chaitin, LLVM RegisterCoalescer) and copy propagation: movs removed "
         "by renaming, guards respected", fixpoint=True),
    Pass("simplify", simplify.simplify, simplify.NEEDS,
         "instruction simplification (LLVM InstSimplify): folds, identities, known bits, dead"),
)}


def get_pass(name: str) -> Pass:
    """The registered pass ``name``; a clear error listing the known ones otherwise."""
    try:
        return PASSES[name]
    except KeyError:
        raise PathlogicError(f"unknown pass {name!r} (known: {', '.join(sorted(PASSES))})") from None
