"""A pass pipeline, like ``opt -passes=``: run registered passes in order, each on the rows of
its own input module, and account for what each one changed.

Every pass reports its own totals (``record.totals()``: constants found, regions converted, ...);
the driver adds a uniform account from the modules themselves, so passes are compared on the
same terms: static size before/after and, per function, instructions removed, added and moved
(an instruction's text, guard included, counted as a multiset per block).

Example
-------
>>> result = optimize(module, ["if-convert"], "a.pir")               # doctest: +SKIP
>>> result.passes[0].size_before, result.passes[0].size_after
(39, 32)
"""
from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from collections import Counter
from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

from pylogic.analysis.passes import changed_functions, run_pass
from facts_gen.naming import same_function
from pylogic.collector import freeze_survivors, heap_frozen, young_threshold
from pylogic.errors import PathlogicError
from pylogic.interp.differential import compare_modules
from pylogic.ir.load import load_directory
from pylogic.ir.model import Module
from pylogic.ir.printer import print_instr
from pylogic.transforms.registry import COMPOSITES, expand, get_pass


@dataclass
class PassResult:
    """One pass of a pipeline: its record and the driver's account of the change. The
    instructions removed, added and moved (``change_counts``) are counted when first asked
    (``totals()``), not while the pipeline runs: the account prints every instruction of both
    modules, a tenth of ``sccp,dce``'s time on csmith programs, and is no part of the pass."""
    name: str
    record: object
    seconds: float
    size_before: int
    size_after: int
    module: Optional[Module] = field(default=None, repr=False, compare=False)  # the pass's output
    input: Optional[Module] = field(default=None, repr=False, compare=False)   # and its input
    _changes: Optional[tuple] = field(default=None, repr=False, compare=False)

    @property
    def changes(self) -> tuple[int, int, int]:
        """``(removed, added, moved)`` from ``input`` to ``module`` (``change_counts``)."""
        if self._changes is None:
            self._changes = change_counts(self.input, self.module)
        return self._changes

    @property
    def removed(self) -> int:
        return self.changes[0]

    @property
    def added(self) -> int:
        return self.changes[1]

    @property
    def moved(self) -> int:
        return self.changes[2]

    def totals(self) -> dict:
        """The driver's account (whole-program sizes, so a pipeline's sizes chain: one pass's
        ``size_after`` is the next one's ``size_before``), then the pass's own totals; a pass
        total of the same name (pre-mr's sizes of the functions it changed) is ``changed_``."""
        own = self.record.totals() if hasattr(self.record, "totals") else {}
        account = {"size_before": self.size_before, "size_after": self.size_after,
                   "removed": self.removed, "added": self.added, "moved": self.moved}
        return {**account, **{(f"changed_{k}" if k in account else k): v
                              for k, v in own.items()}}

    def to_json(self) -> dict:
        record = self.record.to_json() if hasattr(self.record, "to_json") else None
        return {"pass": self.name, "seconds": round(self.seconds, 4), "totals": self.totals(),
                "record": record}


@dataclass
class Optimization:
    """The pipeline's input and output modules and one ``PassResult`` per pass."""
    original: Module
    module: Module
    passes: list[PassResult] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"size_before": static_size(self.original), "size_after": static_size(self.module),
                "passes": [p.to_json() for p in self.passes]}


def static_size(module: Module) -> int:
    """Instructions in the defined functions (terminators included)."""
    return sum(len(b.instrs) for fn in module.defined_functions() for b in fn.blocks)


def _placed(module: Module) -> dict[str, Counter]:
    """function -> Counter of (block, instruction text)."""
    return {fn.name: Counter((b.label, print_instr(i)) for b in fn.blocks for i in b.instrs)
            for fn in module.defined_functions()}


def change_counts(before: Module, after: Module) -> tuple[int, int, int]:
    """``(removed, added, moved)`` instructions from ``before`` to ``after``: an instruction text
    present in both functions but in other blocks counts as moved, the rest of the multiset
    difference as removed or added."""
    a, b = _placed(before), _placed(after)
    removed = added = moved = 0
    for name in set(a) | set(b):
        old, new = a.get(name, Counter()), b.get(name, Counter())
        gone, came = old - new, new - old
        gone_text = Counter(t for (_, t), n in gone.items() for _ in range(n))
        came_text = Counter(t for (_, t), n in came.items() for _ in range(n))
        both = gone_text & came_text
        moved += sum(both.values())
        removed += sum((gone_text - both).values())
        added += sum((came_text - both).values())
    return removed, added, moved


def parse_passes(text: str) -> list[str]:
    """``"if-convert,sccp"`` -> names, each checked against the registry (a composite such as
    ``pre-mr`` stays one name; ``optimize`` runs its steps)."""
    names = [p.strip() for p in text.split(",") if p.strip()]
    if not names:
        raise PathlogicError("--passes needs at least one pass name")
    for name in names:
        if name not in COMPOSITES:
            get_pass(name)
    return names


#: the young generation's threshold while ``optimize`` runs (Python's default is 700): above
#: the survivors of each pass of the PRE pipeline on csmith's median programs (issue #28 item 1)
YOUNG_THRESHOLD = 50_000


def optimize(module: Module, passes: Sequence[str], relpath: Optional[str] = None, *,
             engine: str = "auto", options: Optional[Mapping[str, dict]] = None) -> Optimization:
    """Run ``passes`` (registered names) in order on ``module``.

    Parameters
    ----------
    relpath : the file name in function ids (default: the module's path).
    options : per pass name, keyword options for that pass.

    Each pass gets the rows its ``needs`` names, computed on its own input module (so a pass
    after if-conversion sees the hyperblocks); a composite pass (``registry.COMPOSITES``, e.g.
    ``pre-mr`` = ``pre-mr-split,pre-m``) runs as its steps, each with its ``PassResult``.
    Raises PathlogicError for an unknown pass.
    """
    passes, options = expand(passes, options)
    relpath = relpath or module.path
    result = Optimization(module, module)
    current = module
    # each module lives until the pipeline ends (``result.passes``): kept out of the collector's
    # passes over the later passes' garbage (#28: the collector 1.4-1.8 -> 0.5-0.8 s CPU of
    # csmith-2's PRE pipeline, with simplify's and pre-m's pauses)
    # and a pass's young objects not collected before the next pass freezes them
    # (``young_threshold``; docs/measurements.md, pre51b)
    with heap_frozen(), young_threshold(YOUNG_THRESHOLD):
        for k, name in enumerate(passes):
            freeze_survivors()
            t0 = time.perf_counter()
            step = dict((options or {}).get(name, {}))
            if k and passes[k - 1] == name and get_pass(name).repeats_per_function:
                # the same pass again on its own output: only what its last run changed can
                # change (registry.Pass.repeats_per_function; csmith-2's pre-m: 52 functions,
                # 12 changed by the first run, 2 by the second)
                last = result.passes[-1]
                step["functions"] = changed_functions(last.input, last.module,
                                                      step.get("functions"))
            new, record = run_pass(name, current, relpath, engine=engine, **step)
            seconds = time.perf_counter() - t0
            result.passes.append(PassResult(name, record, seconds, static_size(current),
                                            static_size(new), new, current))
            current = new
        # the last pass's survivors too: not walked by the young collection that the threshold
        # back at 700 would start at the next allocation
        freeze_survivors()
    result.module = current
    return result


@dataclass
class ProgramOptimization:
    """One input file through the pipeline: the result, the behaviour check, or the failure."""
    relpath: str
    result: Optional[Optimization] = None
    check: object = None          # interp.differential.TransformCheck when validated
    error: Optional[str] = None


def optimize_files(target, passes: Sequence[str], *, engine: str = "auto",
                   cases: Optional[Sequence[tuple]] = None, entry: Optional[str] = None,
                   jobs: int = 1, function: Optional[str] = None, progress=None,
                   fuel: Optional[int] = None):
    """Load every program under ``target`` (a file or directory of .pir/.ll/.c) and run the
    pipeline on each; with ``cases`` (``(args, inputs)`` pairs), run the original and the
    optimized module on each case and compare (``compare_modules``).

    Returns ``(loaded, [ProgramOptimization])``: a file that fails to load is in
    ``loaded.problems``; a pass that raises a user-facing error is that program's ``error`` (and
    it has no ``check``: not checked). A check is ``identical`` only when every case completed
    normally on both sides and agreed (``interp.differential.compare_runs``). ``function``: the
    passes change only the functions of that name (main = @main); none anywhere is an error.
    ``progress``: ``progress(done, total)`` per file, and ``progress.stage`` when it has stages.
    ``fuel``: the instruction budget of each checked run (None: the interpreter's default).
    """
    if hasattr(progress, "stage"):
        progress.stage("load", unit="files")
    loaded = load_directory(Path(target), jobs=jobs, progress=progress)
    if not loaded.programs and not loaded.problems:
        raise PathlogicError(f"{target}: no input files (.pir, .ll, .c) found")
    out = []
    if function is not None and loaded.programs and not any(
            same_function(fn.name, function) for p in loaded.programs
            for fn in p.module.defined_functions()):
        raise PathlogicError(f"--function: no function '{function}' in {target}")
    if hasattr(progress, "stage"):
        progress.stage("optimize" + (" and check" if cases is not None else ""),
                       len(loaded.programs), "programs")
    work = [(program.module, program.relpath, tuple(passes), engine,
             None if cases is None else list(cases), entry, function, fuel)
            for program in loaded.programs]
    if jobs > 1 and len(work) > 1:              # programs are independent: one task each
        with ProcessPoolExecutor(max_workers=min(jobs, len(work))) as pool:
            for done, item in enumerate(pool.map(_optimize_one, work), 1):
                out.append(item)
                if progress is not None:
                    progress(done, len(work))
    else:
        for done, one in enumerate(work, 1):
            out.append(_optimize_one(one))
            if progress is not None:
                progress(done, len(work))
    return loaded, out


def _optimize_one(work: tuple) -> ProgramOptimization:
    """One program of ``optimize_files``: the pipeline, then the check (a worker's task)."""
    module, relpath, passes, engine, cases, entry, function, fuel = work
    item = ProgramOptimization(relpath)
    options = None
    passes, _ = expand(passes)                # composites as their steps: options per step
    if function is not None:
        wanted = [fn.name for fn in module.defined_functions() if same_function(fn.name, function)]
        options = {name: {"functions": wanted} for name in passes}
    if cases and "pre-ms-speculate" in passes:   # PRE(MS) profiles on the first validation case
        options = options or {}
        options.setdefault("pre-ms-speculate", {}).update(entry=entry or "main", args=tuple(cases[0][0]),
                                                inputs=tuple(cases[0][1]))
    try:
        item.result = optimize(module, passes, relpath, engine=engine, options=options)
    except PathlogicError as exc:
        item.error = str(exc)
    if item.result is not None and cases is not None:
        kwargs = {"entry": entry} if entry else {}
        if fuel is not None:
            kwargs["fuel"] = fuel
        item.check = compare_modules(module, item.result.module, list(cases), **kwargs)
    return item
