"""Every shipped Datalog program: where it is, what it outputs, which functions it runs on.

This module is the one owner of the ``datalog/`` directory: nothing else locates it or reads a
``.dl`` file except through the engines' front end (``pylogic.engines.load_program``).

Scopes (what ``pathlogic analyze`` runs an analysis on):

- ``"function"``: every defined function;
- ``"predicated"``: functions with predicate defines (the PPG);
- ``"demand"``: only when a pass or the predicate layer asks for its outputs.

Example
-------
>>> catalog.get("dominance").outputs                        # doctest: +SKIP
('idom',)
>>> catalog.get("dominance_closure").scope                  # doctest: +SKIP
'demand'
>>> [a.name for a in catalog.producing(["cdep", "idom"])]    # doctest: +SKIP
['control_dependence', 'dominance']
>>> sorted(catalog.inputs_read(["idom"]))                   # doctest: +SKIP
['edge', 'rpo']

References: DESIGN.md "Inside the package" (catalog.py), STYLE.md (cclyzer++ layout).
"""
from __future__ import annotations

import functools
import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from pylogic.analysis.cache import Cache, key
from pylogic.user_cache import program_root
from pylogic.errors import PathlogicError

if TYPE_CHECKING:  # the Datalog front end (lark) is imported when a program is first parsed
    from pylogic.engines import CheckedProgram

SCOPES = ("function", "predicated", "demand")
_SHIPPED: dict = {}   # cache key -> checked program (this process)
#: (what, identity) -> what _derived read off a program (this process), looked up before any
#: key is hashed: ``optimize`` asks every analysis's outputs at each pass (290 SHA-256 keys per
#: run of the PRE pipeline, about a third of its fixed 4.4 ms; issue #28 item 1)
_DERIVED: dict = {}


def _shipped(path: Path, identity: str) -> CheckedProgram:
    """The checked program of a shipped (or composed) file, parsed once per pathlogic source:
    the user cache (``user_cache.program_root``; off with PATHLOGIC_CACHE=off) keeps it, keyed by
    pathlogic's own source, ``datalog/`` included, and ``identity``. Parsing the catalog cost
    about 2 s of every command that runs an analysis (issue #12 item 2). ``identity`` names the
    file where it is (a checked program holds its files' paths: Soufflé is run on them, errors
    cite them), so another installation of the same source is not handed this one's paths."""
    from pylogic.engines import load_program_cached
    from pylogic.engines.clingo_cache import identify
    root = program_root()
    if root is None:
        return load_program_cached(path)
    k = key("program", identity)
    program = _SHIPPED.get(k)
    if program is None:
        cache = Cache(root)
        program = cache.get("programs", k)
        if program is None:
            program = load_program_cached(path)
            cache.put("programs", k, program)
        identify(program, k)
        _SHIPPED[k] = program
    return program


def _derived(what: str, identity: str, compute) -> object:
    """What ``compute()`` reads off a shipped (or composed) program -- its outputs, the inputs
    some outputs read -- kept in the user cache beside the program (``_shipped``, same source
    key): ``analyze`` asks it of every catalogued program, and unpickling them all for it cost
    0.3 s of every run (#32)."""
    hit = _DERIVED.get((what, identity))
    if hit is None:
        k = key(what, identity)
        root = program_root()
        cache = Cache(root) if root is not None else None
        hit = cache.get("programs", k) if cache is not None else None
        if hit is None:
            hit = compute()
            if cache is not None:
                cache.put("programs", k, hit)
        _DERIVED[(what, identity)] = hit
    return hit


@functools.lru_cache(maxsize=1)      # asked of every program at every pass of a pipeline
def datalog_dir() -> Path:
    """The shipped ``datalog/`` directory: ``pylogic/datalog`` in an installed wheel, the
    top-level ``datalog/`` of a source checkout (editable install)."""
    package = Path(__file__).resolve().parents[1]
    for candidate in (package / "datalog", package.parent / "datalog"):
        if (candidate / "schema.dl").is_file():
            return candidate
    raise PathlogicError(f"the shipped Datalog programs are missing (looked in {package / 'datalog'} "
                         f"and {package.parent / 'datalog'}): reinstall pathlogic")


@dataclass(frozen=True)
class Analysis:
    """One runnable Datalog program of ``datalog/`` (``souffle -F facts datalog/<file>`` works)."""

    name: str
    file: str
    scope: str
    summary: str
    #: interprocedural: a function's rows need every function of its module in the same engine
    #: call (``run_analyses`` neither shares the functions out nor retries them one by one)
    whole_module: bool = False

    @property
    def path(self) -> Path:
        return datalog_dir() / self.file

    def program(self) -> CheckedProgram:
        """The checked program (parsed once, reused while pathlogic is unchanged)."""
        return _shipped(self.path, str(self.path))

    @property
    def outputs(self) -> tuple[str, ...]:
        """The program's ``.output`` relations, included programs' outputs among them."""
        return _derived("outputs", self.file, lambda: tuple(sorted(self.program().outputs)))


CATALOG: tuple[Analysis, ...] = (
    Analysis("reachability", "reachability.dl", "function",
             "blocks reachable from the entry, and unreachable ones"),
    Analysis("dominance", "dominance.dl", "function", "idom on the CFG"),
    Analysis("dominance_closure", "dominance_closure.dl", "demand",
             "dom, the full dominance relation (N x dominator-tree depth rows): opt-in, "
             "computed only when asked for (relations=['dom'] or an #include)"),
    Analysis("dominance_frontier", "dominance_frontier.dl", "function", "dominance frontiers (df)"),
    Analysis("postdominance", "postdominance.dl", "function",
             "ipdom on the reverse CFG from the virtual exit __exit__"),
    Analysis("control_dependence", "control_dependence.dl", "function",
             "cdep: block n is control dependent on edge b->s"),
    Analysis("loops", "loops.dl", "function",
             "natural loops: back edges, headers, bodies, depth, irreducible functions"),
    Analysis("acyclic_control_dependence", "acyclic_control_dependence.dl", "demand",
             "ipdom_acyclic, cdep_acyclic: retreating edges to __exit__ (hyperblock predicates)"),
    Analysis("liveness", "liveness.dl", "demand", "predicate-aware live_in/live_out of registers"),
    Analysis("dce", "dce.dl", "demand",
             "dce_useful/dce_dead: marking dead code elimination (effects, then what they read)"),
    Analysis("pre", "pre.dl", "demand",
             "PathFinder value flow: AVAIL/ANTIC of lexical expressions and loads on the "
             "{must, may, no} lattice, the CMP region, PRE(M) insertions"),
    Analysis("vng", "vng.dl", "demand",
             "PathFinder Value Name Graph: AVAIL of every computation's value along value "
             "threads (facts_gen/vng.py), fully redundant computations"),
    Analysis("pre_statistics", "pre_statistics.dl", "demand",
             "PathFinder Table 6.1 per computation: optimizable (local / must / may reuse), "
             "prevented by a CMP region, loop invariant, invariant not hoistable by motion"),
    Analysis("correlation", "correlation.dl", "demand",
             "demand-driven interprocedural branch correlation (PathFinder ch. 7): answers of "
             "(v relop c) queries per branch and per incoming edge; needs whole modules",
             whole_module=True),
    Analysis("predicated_deadness", "predicated_deadness.dl", "demand",
             "pd_du/pd_dead/pd_partially_dead/pd_candidate/pd_faint: predicate-aware def-use chains "
             "and deadness per definition (PPDE line 7, predicated_pde.md §2.5-§2.7)"),
    Analysis("ppg", "ppg.dl", "predicated",
             "predicate partition graphs (block and predicate-register PPGs, subset/disjoint "
             "in compact form: core pairs, empty, full and void nodes)"),
    Analysis("ppg_closure", "ppg_closure.dl", "demand",
             "ppg_subset, ppg_disjoint: the PPG closures as pairs (quadratic in a block of "
             "predicate defines): opt-in, computed only when asked for"),
)

#: Files that are not analyses: the schema, #include-only bundles, shared rule sets, families.
BUNDLES = {"cfg_analyses": "cfg_analyses.dl"}


def get(name: str) -> Analysis:
    """The catalogued analysis ``name``."""
    for analysis in CATALOG:
        if analysis.name == name:
            return analysis
    raise PathlogicError(f"no shipped analysis {name!r} (known: "
                         f"{', '.join(a.name for a in CATALOG)})")


def in_scope(scope: str) -> list[Analysis]:
    """The analyses ``analyze`` runs for functions of ``scope`` ("predicated" functions get
    the "function" analyses too)."""
    wanted = {"function": ("function",), "predicated": ("function", "predicated")}[scope]
    return [a for a in CATALOG if a.scope in wanted]


def producing(relations: Iterable[str]) -> list[Analysis]:
    """The fewest catalogued analyses whose outputs cover ``relations`` (smallest first)."""
    need = set(relations)
    chosen: list[Analysis] = []
    by_size = sorted(CATALOG, key=lambda a: len(a.outputs))
    for rel in sorted(need):
        if any(rel in a.outputs for a in chosen):
            continue
        for analysis in by_size:
            if rel in analysis.outputs:
                chosen.append(analysis)
                break
        else:
            raise PathlogicError(f"no shipped analysis outputs relation {rel!r}")
    return sorted(chosen, key=lambda a: a.name)


def inputs_read(outputs: Iterable[str]) -> frozenset[str]:
    """The ``.input`` relations the catalogued programs computing ``outputs`` read: what must be
    extracted for them. Read off the program one engine call runs (``compose`` of ``producing``,
    #includes resolved) by the rule dependencies the engines prune with (``engines/relevance``),
    so an input left out cannot change an output."""
    outputs = tuple(sorted(set(outputs)))
    if not outputs:
        return frozenset()
    return call_inputs((a.name for a in producing(outputs)), outputs)


def call_inputs(names: Iterable[str], outputs: Iterable[str] = ()) -> frozenset[str]:
    """The ``.input`` relations one engine call of the analyses ``names`` (``compose``) reads
    to compute ``outputs`` (default: every output of that program), by the rule dependencies
    the engines prune with: facts of any other relation cannot change the call's rows."""
    from pylogic.engines.relevance import needed_relations
    names, outputs = tuple(sorted(set(names))), tuple(sorted(set(outputs)))

    def read() -> frozenset[str]:
        program = compose(get(n) for n in names)
        return frozenset(needed_relations(program, list(outputs or program.outputs))
                         & set(program.inputs))
    return _derived("call inputs", (names, outputs), read)


def compose(analyses: Iterable[Analysis]) -> CheckedProgram:
    """One program that includes every given analysis (include guards share common rules),
    so one engine call computes all of their outputs, each relation once. Reachability comes
    first, the others by name: lib/dominator_tree.dl tests the CFG's reached blocks by reachable
    where reachability.dl was included before it (``analyze``'s function analyses on a random
    CFG of 30,000 blocks, 751 reached: clingo's peak 124 -> 112 MB; mem50 in
    docs/measurements.md)."""
    analyses = sorted(set(analyses), key=lambda a: (a.name != "reachability", a.name))
    if len(analyses) == 1:
        return analyses[0].program()
    text = "".join(f'#include "{a.path.resolve()}"\n' for a in analyses)
    key = hashlib.sha256(text.encode()).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / f"pathlogic-{os.getuid()}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"composed-{key}.dl"
    if not path.is_file() or path.read_text() != text:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
    return _shipped(path, text)
