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
from typing import Callable, Iterator, Optional

from pylogic.errors import PathlogicError, did_you_mean


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
    #: run again on its own output, it can change only the functions its last run changed (what
    #: the rounds of a function-local ``fixpoint`` pass assume): ``optimize`` runs such a repeat
    #: (``pre-mr,pre-m`` = pre-mr-split, pre-m, pre-m) on those functions alone
    repeats_per_function: bool = False
    #: a ``whole_module`` round only narrows the paths into a branch (threading, clones for some
    #: callers or returns, dropped uncalled functions): a branch no path decided stays so where
    #: no limit cut its questions, and the next round does not ask it again
    #: (``correlation_rounds``: settled branches)
    narrowing: bool = False
    #: the paper (and section) it implements, and the pipeline it is usually run in
    #: (``pathlogic passes``; docs/passes.md has the long form of both)
    paper: str = ""
    pipeline: str = ""
    #: ``rows_for(module, **options)``: the functions whose rows the pass will read on
    #: ``module`` (None: every function it rewrites); its module's ``rows_for`` if it has one
    #: (``simplify``: not the functions it will find settled)
    rows_for: Optional[Callable] = None


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
    repeats_per_function: bool = False
    narrowing: bool = False
    paper: str = ""
    pipeline: str = ""

    def load(self) -> Pass:
        """The ``Pass``: its module imported, ``needs`` the module's ``NEEDS``."""
        module_name, function = self.run.split(":")
        module = importlib.import_module(f"pylogic.transforms.{module_name}")
        return Pass(self.name, getattr(module, function), module.NEEDS, self.summary,
                    fixpoint=self.fixpoint, whole_module=self.whole_module,
                    repeats_per_function=self.repeats_per_function,
                    narrowing=self.narrowing, paper=self.paper,
                    pipeline=self.pipeline, rows_for=getattr(module, "rows_for", None))


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

    def declared(self, name: str) -> Pass | Declared:
        """The entry of ``name`` as it is (name, summary, paper, pipeline), without loading
        its module (``pathlogic passes``)."""
        return self._passes[name]

    def __repr__(self) -> str:
        return f"Registry({list(self._passes)})"


PASSES: Registry = Registry((
    Declared("if-convert", "ifconvert.if_convert:if_convert",
             "hyperblock formation (IMPACT): acyclic single-entry regions to predicated code",
             paper="Mahlke et al. 1992 (IMPACT hyperblocks), Park & Schlansker predicates; "
                   "Knoop & Rüthing, Constant Propagation on Predicated Code §3.2",
             pipeline="if-convert,pcp-full"),
    Declared("sccp", "pcp.sccp:sccp",
             "sparse conditional constant propagation (Wegman-Zadeck), predicate-blind, "
             "+ dead defs",
             paper="Wegman & Zadeck 1991; the predicate-blind baseline of Knoop & Rüthing §4.2",
             pipeline="sccp,dce"),
    Declared("pcp-basic", "pcp.pcp:pcp_basic",
             "predicated CP, basic PVG (Knoop-Ruething): regions to PSSA hyperblocks, constants",
             paper="Knoop & Rüthing, Constant Propagation on Predicated Code §3.1, §3.3, §3.6-§3.9",
             pipeline="if-convert,pcp-basic"),
    Declared("pcp-full", "pcp.pcp:pcp_full",
             "predicated CP, full PVG: also predicate values, off-predicated code removed",
             paper="Knoop & Rüthing, Constant Propagation on Predicated Code §3.1, §3.3, §3.6-§3.9",
             pipeline="if-convert,pcp-full"),
    Declared("dce", "dce.dce:dce",
             "dead code elimination by marking (datalog/dce.dl): unread pure code, dead cycles",
             paper="classical marking DCE (LLVM ADCE without its control-flow part)",
             pipeline="sccp,dce"),
    Declared("pde", "pde.pde:pde",
             "partial dead code elimination (Knoop-Ruething-Steffen): sinking + dead assignments, "
             "iterated", fixpoint=True,
             paper="Knoop, Rüthing, Steffen, Partial Dead Code Elimination (PLDI 1994)",
             pipeline="pde"),
    Declared("ppde", "ppde.ppde:ppde",
             "partial dead code elimination on predicated code (Xue-Cai-Gao PPDE): split, merge "
             "and delete under existing predicates (PPG), sink across SEME regions", fixpoint=True,
             paper="Xue, Cai, Gao, Partial dead code elimination on predicated code regions "
                   "§3, §4.3",
             pipeline="if-convert,ppde"),
    Declared("ppde-keep", "ppde.ppde:ppde_keep",
             "ppde in the paper's setting: interface blocks on region exits kept (their br runs)",
             fixpoint=True,
             paper="Xue, Cai, Gao, Partial dead code elimination on predicated code regions "
                   "§3, §4.3",
             pipeline="if-convert,ppde-keep"),
    Declared("pre-m", "pre.pre_m:pre_m",
             "PRE(M), PathFinder: code motion from the CMP region (datalog/pre.dl), "
             "= lazy code motion",
             repeats_per_function=True,
             paper="Bodík 1999 (PhD thesis) §6.3.1.2; Bodík, Gupta, Soffa PLDI'98",
             pipeline="pre-m"),
    Declared("pre-ms-speculate", "pre.pre_ms:pre_ms",
             "PRE(MS)'s speculation step alone: min-cut insertions on the profiled CMP, no "
             "motion (pre-ms = pre-ms-speculate,pre-m)",
             paper="Bodík 1999 §6.3.2.1, Fig. 6.15",
             pipeline="pre-ms"),
    Declared("pre-mr-split", "pre.pre_mr:pre_mr",
             "PRE(MR)'s restructuring step alone: CMP regions duplicated (Fig. 6.10), nothing "
             "removed (pre-mr = pre-mr-split,pre-m)",
             paper="Bodík 1999 §6.3.1.1 (Fig. 6.10), Fig. 6.19; PLDI'98",
             pipeline="simplify,pre-mr,simplify"),
    Declared("pre-mr-budget-split", "pre.pre_mr:pre_mr_budget",
             "PRE(Mr)'s restructuring step alone: pre-mr-split within a 20% code-growth budget "
             "(pre-mr-budget = pre-mr-budget-split,pre-m)",
             paper="Bodík 1999 §6.3.2.2",
             pipeline="pre-mr-budget"),
    Declared("vng-fre", "pre.vng_fre:vng_fre",
             "full redundancies on the Value Name Graph (datalog/vng.dl): one temporary per VNG "
             "name, copies where threads rename values",
             paper="Bodík 1999 §3.4, §4.4, §6.4",
             pipeline="vng-fre,pre-mr"),
    Declared("pre-r-split", "pre.pre_r:pre_r",
             "PRE(R)'s restructuring step alone: PartialReuse blocks duplicated "
             "(pre-r = pre-r-split,pre-m)",
             paper="Bodík 1999 §6.3.1 (PRE(R))",
             pipeline="pre-r"),
    Declared("cbe", "cbe.cbe:cbe",
             "conditional branch elimination (PathFinder ch. 7): paths deciding "
             "a branch duplicated",
             paper="Bodík, Gupta, Soffa, Interprocedural conditional branch elimination "
                   "(PLDI'97); Bodík 1999 ch. 7",
             pipeline="cbe"),
    Declared("icbe", "cbe.icbe:icbe",
             "cbe + entry and exit splitting: callee clones for call sites that decide its entry "
             "branches; callee clones returning through ret.N to per-exit continuations; iterated "
             "within one growth budget", fixpoint=True, whole_module=True, narrowing=True,
             paper="Bodík 1999 §7.2-§7.5; PLDI'97",
             pipeline="icbe"),
    Declared("coalesce", "coalesce.coalesce:coalesce",
             "copy coalescing (Chaitin, LLVM RegisterCoalescer) and copy propagation: movs "
             "removed by renaming, guards respected; blocks merged into an only predecessor",
             fixpoint=True,
             paper="Chaitin 1982; Briggs, Cooper, Torczon (TOPLAS 1994); LLVM RegisterCoalescer",
             pipeline="simplify,pre-mr,simplify,coalesce"),
    Declared("simplify", "simplify.simplify:simplify",
             "instruction simplification (LLVM InstSimplify): folds, identities, known bits, dead",
             paper="LLVM InstSimplify / ValueTracking, GVN's propagateEquality",
             pipeline="simplify,pre-mr,simplify"),
))


@dataclass(frozen=True)
class Composite:
    """A pass that is a fixed sequence of registered steps (issue #30 item 7: a pass named after
    an algorithm does that algorithm; PRE(MR) is restructuring followed by motion, and the
    restructuring alone has its own name). ``optimize`` runs the steps in its place, each on the
    rows of its own input and with its own row in the tables; options given to the composite
    go to its first step."""
    name: str
    steps: tuple[str, ...]
    summary: str
    paper: str = ""
    pipeline: str = ""
    fixpoint: bool = False


#: The composite passes, by name (``pathlogic passes`` lists them after ``PASSES``).
COMPOSITES: dict[str, Composite] = {c.name: c for c in (
    Composite("pre-ms", ("pre-ms-speculate", "pre-m"),
              "PRE(MS), PathFinder: speculation on the profile (min-cut insertions on the "
              "profiled CMP), then motion",
              paper="Bodík 1999 §6.3.2.1, Fig. 6.15", pipeline="pre-ms"),
    Composite("pre-mr", ("pre-mr-split", "pre-m"),
              "PRE(MR), PathFinder: CMP regions restructured (Fig. 6.10), then motion: every "
              "computation the restructuring made fully redundant removed",
              paper="Bodík 1999 §6.3.1.1 (Fig. 6.10), Fig. 6.19; PLDI'98",
              pipeline="simplify,pre-mr,simplify"),
    Composite("pre-mr-budget", ("pre-mr-budget-split", "pre-m"),
              "PRE(Mr): PRE(MR) within a 20% code-growth budget",
              paper="Bodík 1999 §6.3.2.2", pipeline="pre-mr-budget"),
    Composite("pre-r", ("pre-r-split", "pre-m"),
              "PRE(R): PartialReuse blocks restructured, then motion",
              paper="Bodík 1999 §6.3.1 (PRE(R))", pipeline="pre-r"),
)}


def known_names() -> list[str]:
    """Every name ``optimize --passes`` takes: the passes, then the composites."""
    return list(PASSES) + list(COMPOSITES)


def expand(names, options=None) -> tuple[list[str], dict]:
    """``(steps, options)``: each composite of ``names`` replaced by its steps, its options
    moved to its first step (``{"pre-mr": {...}}`` -> ``{"pre-mr-split": {...}}``)."""
    steps: list[str] = []
    out = {k: dict(v) for k, v in (options or {}).items() if k not in COMPOSITES}
    for name in names:
        composite = COMPOSITES.get(name)
        if composite is None:
            steps.append(name)
            continue
        steps.extend(composite.steps)
        if name in (options or {}):
            out.setdefault(composite.steps[0], {}).update(options[name])
    return steps, out


def get_pass(name: str) -> Pass:
    """The registered pass ``name``; a clear error listing the known ones otherwise (a composite
    is not one pass: ``expand`` it first)."""
    if name in COMPOSITES:
        raise PathlogicError(f"{name!r} is the pipeline {','.join(COMPOSITES[name].steps)}: "
                             "expand it (registry.expand) before running its steps")
    try:
        return PASSES[name]
    except KeyError:
        known = known_names()
        raise PathlogicError(f"unknown pass {name!r}{did_you_mean(name, known)} "
                             f"(known: {', '.join(sorted(known))})") from None
