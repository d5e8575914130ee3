"""The passes ``pathlogic`` can run, by name (like ``opt -passes=``).

A pass is ``run(module, rows, **options) -> (Module, record)``: it reads the analysis rows of its
input module (``needs`` names the relations; the analysis layer computes them) and returns a new
module and a record of what it changed; it never edits its input. Adding a pass = one module in
its family folder of ``transforms/`` (``pre/``, ``cbe/``, ...) and one line in ``PASSES``.

``PASSES`` names each pass's function as ``"family.module:function"`` (its ``needs`` is that
module's ``NEEDS``) and imports the module when the pass is first looked up: listing the names
(``sorted(PASSES)``, ``name in PASSES``) imports no pass, so ``pathlogic --help`` stays quick.
"""
from __future__ import annotations

import importlib
from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Callable, Iterator

from pylogic.errors import PathlogicError


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


@dataclass(frozen=True)
class Declared:
    """A pass of ``PASSES`` whose module is not imported yet: ``Pass``'s fields, with ``run``
    naming the function as ``"family.module:function"`` under ``pylogic.transforms``."""
    name: str
    run: str
    summary: str
    fixpoint: bool = False
    whole_module: bool = False

    def load(self) -> Pass:
        """The ``Pass``: its module imported, ``needs`` the module's ``NEEDS``."""
        module_name, function = self.run.split(":")
        module = importlib.import_module(f"pylogic.transforms.{module_name}")
        return Pass(self.name, getattr(module, function), module.NEEDS, self.summary,
                    fixpoint=self.fixpoint, whole_module=self.whole_module)


class Registry(MutableMapping):
    """``{name: Pass}`` in registration order, each ``Declared`` pass loaded on first lookup
    (and kept). A ``Pass`` may be set or deleted like in a dict (tests add stand-ins)."""

    def __init__(self, passes):
        self._passes: dict[str, Pass | Declared] = {p.name: p for p in passes}

    def __getitem__(self, name: str) -> Pass:
        found = self._passes[name]
        if isinstance(found, Declared):
            found = self._passes[name] = found.load()
        return found

    def __setitem__(self, name: str, spec: Pass) -> None:
        self._passes[name] = spec

    def __delitem__(self, name: str) -> None:
        del self._passes[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._passes)

    def __len__(self) -> int:
        return len(self._passes)

    def __contains__(self, name) -> bool:  # without loading the pass
        return name in self._passes

    def __repr__(self) -> str:
        return f"Registry({list(self._passes)})"


PASSES: Registry = Registry((
    Declared("if-convert", "ifconvert.if_convert:if_convert",
             "hyperblock formation (IMPACT): acyclic single-entry regions to predicated code"),
    Declared("sccp", "pcp.sccp:sccp",
             "sparse conditional constant propagation (Wegman-Zadeck), predicate-blind, "
             "+ dead defs"),
    Declared("pcp-basic", "pcp.pcp:pcp_basic",
             "predicated CP, basic PVG (Knoop-Ruething): regions to PSSA hyperblocks, constants"),
    Declared("pcp-full", "pcp.pcp:pcp_full",
             "predicated CP, full PVG: also predicate values, off-predicated code removed"),
    Declared("dce", "dce.dce:dce",
             "dead code elimination by marking (datalog/dce.dl): unread pure code, dead cycles"),
    Declared("pde", "pde.pde:pde",
             "partial dead code elimination (Knoop-Ruething-Steffen): sinking + dead assignments, "
             "iterated", fixpoint=True),
    Declared("ppde", "ppde.ppde:ppde",
             "partial dead code elimination on predicated code (Xue-Cai-Gao PPDE): split, merge "
             "and delete under existing predicates (PPG), sink across SEME regions", fixpoint=True),
    Declared("ppde-keep", "ppde.ppde:ppde_keep",
             "ppde in the paper's setting: interface blocks on region exits kept (their br runs)",
             fixpoint=True),
    Declared("pre-m", "pre.pre_m:pre_m",
             "PRE(M), PathFinder: code motion from the CMP region (datalog/pre.dl), "
             "= lazy code motion"),
    Declared("pre-ms", "pre.pre_ms:pre_ms",
             "PRE(MS) speculation step: min-cut insertions on the profiled CMP "
             "(run as pre-ms,pre-m)"),
    Declared("pre-mr", "pre.pre_mr:pre_mr",
             "PRE(MR) restructuring step: CMP regions duplicated, Fig. 6.10 (run as pre-mr,pre-m)"),
    Declared("pre-mr-budget", "pre.pre_mr:pre_mr_budget",
             "PRE(Mr): pre-mr within a 20% code-growth budget (run as pre-mr-budget,pre-m)"),
    Declared("vng-fre", "pre.vng_fre:vng_fre",
             "full redundancies on the Value Name Graph (datalog/vng.dl): one temporary per VNG "
             "name, copies where threads rename values"),
    Declared("pre-r", "pre.pre_r:pre_r",
             "PRE(R) restructuring only: PartialReuse blocks duplicated (run as pre-r,pre-m)"),
    Declared("cbe", "cbe.cbe:cbe",
             "conditional branch elimination (PathFinder ch. 7): paths deciding "
             "a branch duplicated"),
    Declared("icbe", "cbe.icbe:icbe",
             "cbe + entry and exit splitting: callee clones for call sites that decide its entry "
             "branches; callee clones returning through ret.N to per-exit continuations; iterated "
             "within one growth budget", fixpoint=True, whole_module=True),
    Declared("coalesce", "coalesce.coalesce:coalesce",
             "copy coalescing (Chaitin, LLVM RegisterCoalescer) and copy propagation: movs "
             "removed by renaming, guards respected", fixpoint=True),
    Declared("simplify", "simplify.simplify:simplify",
             "instruction simplification (LLVM InstSimplify): folds, identities, known bits, dead"),
))


def get_pass(name: str) -> Pass:
    """The registered pass ``name``; a clear error listing the known ones otherwise."""
    try:
        return PASSES[name]
    except KeyError:
        raise PathlogicError(f"unknown pass {name!r} (known: {', '.join(sorted(PASSES))})") from None
