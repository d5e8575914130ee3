"""One analysis run: extract facts once per module, run each catalogued program once, and hand
the rows to the predicate layer and the passes (DESIGN.md "Inside the package").

Functions are grouped by scope (``catalog.SCOPES``): every function gets the ``"function"``
analyses, functions with predicate defines also the PPG. Each group is one engine call over all
of its functions (with ``jobs`` > 1, one call per worker's share), running one program that
``#include``s every analysis of the group, so shared relations (``idom``, ``dom``) are computed
once. When a batched call fails, its functions are retried one by one, so one bad function
costs only its own results.

Example
-------
>>> run = analyze_modules([(module, "a.pir")], engine="clingo")      # doctest: +SKIP
>>> run.rows.of("a.pir::@main")["idom"]                                # doctest: +SKIP
[('entry', 'b1'), ...]
"""
from __future__ import annotations

import gc
import os
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import chain, compress
from operator import itemgetter
from typing import Callable, Iterable, Optional, Sequence

from facts_gen.extract import (MODULE_RELATIONS, RELATIONS, empty_facts, extract_module,
                               families_for, restrict_facts)
from facts_gen.naming import escape_field, function_id
from pylogic.analysis import catalog
from pylogic.analysis.budget import BudgetPool
from pylogic.analysis.cache import NO_CACHE, Cache, function_facts_key
from pylogic.collector import collector_paused
from pylogic.engines import resolve_engine, run_checked
from pylogic.engines.run import engine_for
from pylogic.engines.rows import Rows
from pylogic.errors import PathlogicError, printable_name
from pylogic.ir.model import Function, Module, PredDefine


@dataclass
class EngineCall:
    """One engine invocation: which analyses, over which functions, how long, and its error;
    ``engine``: the engine it ran on ("auto" chooses per call: ``engines.run.engine_for``)."""
    analyses: tuple[str, ...]
    functions: tuple[str, ...]
    seconds: float
    error: Optional[str] = None
    engine: str = ""


@dataclass
class AnalysisRun:
    """Facts and analysis results of a set of modules.

    ``rows`` holds the extracted facts and every output relation (``rows.of(function_id)`` is one
    function's view); ``failures`` maps a function id to the error that cost it its results,
    ``module_failures`` a file (relpath) to the error that cost it its facts; ``timeouts`` the
    functions (also in ``failures``) whose analyses ran out of their time budget.
    """
    engine: str
    facts: dict[str, list[tuple]]
    rows: Rows
    calls: list[EngineCall] = field(default_factory=list)
    failures: dict[str, str] = field(default_factory=dict)
    scopes: dict[str, str] = field(default_factory=dict)
    module_failures: dict[str, str] = field(default_factory=dict)  # relpath -> error
    timeouts: dict[str, str] = field(default_factory=dict)  # function id -> budget message

    @property
    def seconds(self) -> float:
        return sum(c.seconds for c in self.calls)


def has_defines(fn: Function) -> bool:
    # the instructions' types as one set, in C (#32: a generator over every instruction, twice
    # per function, was 1% of analyze); PredDefine has no subclasses
    return PredDefine in set(map(type, chain.from_iterable(b.instrs for b in fn.blocks)))


def scope_of(fn: Function) -> str:
    """``"predicated"`` for functions with predicate defines, else ``"function"``."""
    return "predicated" if has_defines(fn) else "function"


def extract(modules: Iterable[tuple[Module, str]], profile: Optional[dict] = None,
            failures: Optional[dict[str, str]] = None,
            families: Optional[Sequence[str]] = None,
            freeze: bool = False,
            keep: Optional[Callable[[str], bool]] = None) -> dict[str, list[tuple]]:
    """The facts of every ``(module, relpath)``, extracted once each: every relation, or only
    those of ``families`` (``facts_gen.extract.FAMILIES``) when given. A module whose extraction
    fails contributes no rows; with ``failures`` given, its error is recorded there (by relpath)
    instead of raised, so one module never costs the others their facts.

    ``freeze``: the facts live as long as the caller's run (``load.load_directory``'s
    ``freeze``, the caller unfreezes): built with the collector off and then ``gc.freeze()``d.
    Its passes over the growing rows (tuples, no cycles) were 1.6 s of ``analyze`` on the #32
    corpus (1.5 M rows), and each engine call's child process went over them once more.
    ``keep``: only the functions whose id it accepts get their own facts (``extract_module``);
    the caller restricts the rest with ``restrict_facts``."""
    if freeze:
        with collector_paused():
            try:
                return extract(modules, profile, failures, families, keep=keep)
            finally:
                gc.freeze()
    facts = empty_facts(families)
    for module, relpath in modules:
        try:
            mine = extract_module(module, relpath, empty_facts(families), profile=profile,
                                  families=families, keep=keep)
        except Exception as exc:  # noqa: BLE001 -- isolate one module (a bug or a bad name)
            if failures is None:
                raise
            failures[relpath] = f"fact extraction failed ({type(exc).__name__}: {exc})"
            continue
        for name, rows in mine.items():
            facts[name].extend(rows)
    return facts


def facts_of(facts: dict[str, list[tuple]], functions: Sequence[str],
             relations: Optional[Iterable[str]] = None) -> dict[str, list[tuple]]:
    """The per-function input relations restricted to ``functions`` (and to ``relations`` when
    given)."""
    keep = set(functions).__contains__
    wanted = None if relations is None else set(relations)
    # the filter in C (#32: a comprehension over every row, per engine call, was 1% of analyze)
    return {name: list(compress(rows, map(keep, map(itemgetter(0), rows))))
            for name, rows in facts.items()
            if name not in MODULE_RELATIONS and (wanted is None or name in wanted)}


def _call(item) -> tuple[dict, EngineCall]:
    names, functions, facts, engine, outputs = item
    program = catalog.compose(catalog.get(n) for n in names)
    t0 = time.perf_counter()
    only = list(outputs) if outputs else None
    try:
        engine = engine_for(program, engine, None, facts, only or list(program.outputs))
        rows = run_checked(program, None, engine, facts, only=only)
    except PathlogicError as exc:
        return {}, EngineCall(names, functions, time.perf_counter() - t0, str(exc), engine)
    except Exception as exc:  # noqa: BLE001 -- an engine bug costs only these functions
        return {}, EngineCall(names, functions, time.perf_counter() - t0,
                              f"internal error ({type(exc).__name__}: {exc})", engine)
    return rows, EngineCall(names, functions, time.perf_counter() - t0, engine=engine)


def _chunks(items: list, n: int) -> list[list]:
    n = max(1, min(n, len(items)))
    return [items[k::n] for k in range(n)]


#: Functions with more blocks than this get an engine call of their own: their cost is not
#: shared with a batch, and their budget is theirs alone.
LARGE_FUNCTION_BLOCKS = 2000
#: A batch of n functions may take the per-function budget plus this much per further function.
BATCH_ALLOWANCE = 0.5


def run_analyses(facts: dict[str, list[tuple]], groups: dict[tuple[str, ...], list[str]],
                 engine: str = "auto", jobs: int = 1, outputs: Optional[Sequence[str]] = None,
                 progress: Optional[Callable[[int, int], None]] = None,
                 timeout: Optional[float] = None, cache: Cache = NO_CACHE) -> AnalysisRun:
    """Run each group's analyses (names from the catalog) once over the group's functions.

    Parameters
    ----------
    facts : extracted input relations of all functions (``extract``).
    groups : ``{analysis names: [function ids]}``.
    outputs : restrict every call to these output relations (default: all outputs).
    progress : called as ``progress(done, total)`` after each engine call.
    timeout : the per-function budget in seconds (``--function-timeout``). With a budget, every
        call runs in a worker process: a batch over its budget is split in halves and retried,
        a single function over it is recorded as timed out (``AnalysisRun.timeouts``). None:
        calls run here, unbounded (``jobs`` > 1 still uses worker processes).
    cache : a function whose facts, analyses and engine are those of a cached entry gets the
        cached rows and no engine call (``analysis/cache.py``); fresh results are stored.
    """
    # each call runs on ``engine``: "auto" chooses per call (``engines.run.auto_engine``: a small
    # one in process); the rows are every engine's, so the cache and the report name "auto"'s
    # first available engine
    called, engine = engine, resolve_engine(engine)
    every = sorted({row[0] for row in facts.get("function", ())}
                   | {f for fs in groups.values() for f in fs})
    rows = Rows()
    rows.add_run(facts, every)
    result = AnalysisRun(engine, facts, rows)
    size = Counter(row[0] for row in facts.get("block", ()))
    fresh = _from_cache(result, groups, facts, engine, outputs, cache)
    work = []
    for names, functions in sorted(groups.items()):
        if not functions:
            continue
        for f in functions:
            result.scopes[f] = ",".join(names)
        functions = [f for f in functions if f in fresh]
        small = sorted(f for f in functions if size[f] <= LARGE_FUNCTION_BLOCKS)
        large = sorted(f for f in functions if size[f] > LARGE_FUNCTION_BLOCKS)
        shares = [sorted(functions)] if whole_module(names) else \
            _chunks(small, jobs) + [[f] for f in large]
        for share in shares:
            if share:
                work.append(_item(facts, names, share, called, outputs))
    counter = {"done": 0, "total": len(work)}

    def tick() -> None:
        counter["done"] += 1
        if progress:
            progress(counter["done"], counter["total"])

    if timeout is not None:
        _run_budgeted(work, result, facts, jobs, timeout, tick, counter)
        _to_cache(result, fresh, cache)
        return result

    if jobs > 1 and len(work) > 1:
        with ProcessPoolExecutor(max_workers=min(jobs, os.cpu_count() or 1, len(work))) as pool:
            for item, (out, call) in zip(work, pool.map(_call, work)):
                _record_located(result, item, out, call, facts, called)
                tick()
    else:
        for item in work:
            _record_located(result, item, *_call(item), facts, called)
            tick()
    _to_cache(result, fresh, cache)
    return result


def _record_located(result: AnalysisRun, item: tuple, out: dict, call: EngineCall, facts: dict,
                    engine: str) -> None:
    """``call``'s rows into ``result``; a failed batch is run again one function at a time, so
    the failure is recorded on the functions that fail (a whole-module group's on all of them).
    (A module-level function: the closure it was, calling itself, held ``result`` and every
    row in a reference cycle until the collector's next full pass; issue #28 item 1.)"""
    if call.error is not None and len(call.functions) > 1 and whole_module(item[0]):
        _record_all(result, call)
        return
    if call.error is not None and len(call.functions) > 1:
        for f in call.functions:                 # locate the failure: one call per function
            one = _item(facts, item[0], [f], engine, item[4])
            _record_located(result, one, *_call(one), facts, engine)
        return
    _record(result, out, call)


def whole_module(names: Sequence[str]) -> bool:
    """Whether one of the catalogued analyses ``names`` is interprocedural
    (``Analysis.whole_module``): its functions share one engine call, and a failure of that call
    is every function's (alone, a function's branch queries would find no callers and no callee
    summaries: other rows, silently; csmith-46 after PRE, whose batch ran out of memory before the
    clingo join fix, gave icbe another output than a run that fit in memory)."""
    return any(catalog.get(n).whole_module for n in names)


def _record_all(result: AnalysisRun, call: EngineCall) -> None:
    """A failed call of a whole-module group: its error is every function's."""
    result.calls.append(call)
    for f in call.functions:
        result.failures[f] = call.error


def _facts_by_function(facts: dict[str, list[tuple]]) -> dict[str, dict[str, list]]:
    """Each function's input rows (function column dropped), in one pass over the facts."""
    out: dict[str, dict[str, list]] = {}
    for name, rows in facts.items():
        if name in MODULE_RELATIONS:
            continue
        for row in rows:
            out.setdefault(row[0], {}).setdefault(name, []).append(row[1:])
    return out


def _from_cache(result: AnalysisRun, groups, facts, engine: str, outputs,
                cache: Cache) -> dict[str, str]:
    """Add the cached rows of every function that has them; returns ``{function id: key}`` of
    the others (every function when the cache is off)."""
    fresh: dict[str, str] = {}
    if not cache.enabled:
        return {f: "" for fs in groups.values() for f in fs}
    by_function = _facts_by_function(facts)
    for names, functions in groups.items():
        for f in functions:
            k = function_facts_key(engine, (names, tuple(outputs or ()), f), by_function.get(f, {}))
            tables = cache.get("analyses", k)
            if tables is None:
                fresh[f] = k
            else:
                result.rows.add_run({rel: [(f,) + r for r in rows] for rel, rows in tables.items()},
                                    [f])
    return fresh


def _to_cache(result: AnalysisRun, fresh: dict[str, str], cache: Cache) -> None:
    """Store the output rows of every function computed here without failure."""
    if not cache.enabled:
        return
    for f, k in fresh.items():
        if f in result.failures or f not in result.rows.functions():
            continue
        view = result.rows.of(f)
        cache.put("analyses", k, {rel: list(view[rel]) for rel in view if rel not in result.facts})


def _item(facts, names, functions, engine, outputs) -> tuple:
    # only the inputs the call's outputs depend on (#32: the analyses read 6 of the relations
    # analyze extracts; the instruction families, 1.3 M rows of the corpus, were filtered too),
    # and ``function``, one row per function: which functions the call covers
    reads = catalog.call_inputs(names, outputs or ()) | {"function"}
    return (tuple(names), tuple(functions), facts_of(facts, functions, reads), engine,
            tuple(outputs or ()))


def _record(result: AnalysisRun, out: dict, call: EngineCall) -> None:
    result.calls.append(call)
    if call.error is not None:
        result.failures[call.functions[0]] = call.error
    else:
        result.rows.add_run(out, call.functions)


def _budget(item: tuple, timeout: float) -> float:
    return timeout + BATCH_ALLOWANCE * (len(item[1]) - 1)


def _run_budgeted(work: list, result: AnalysisRun, facts: dict, jobs: int, timeout: float,
                  tick: Callable[[], None], counter: dict) -> None:
    """``run_analyses`` under budgets (see there): every call in a worker process."""
    with BudgetPool(jobs) as pool:
        for item in work:
            pool.submit(_call, item, _budget(item, timeout))
        for item, outcome in pool.outcomes():
            names, functions, _, engine, outputs = item
            if outcome.ok:
                out, call = outcome.value
            else:
                out, call = {}, EngineCall(names, functions, _budget(item, timeout),
                                           outcome.error)
            if call.error is not None and len(functions) > 1 and whole_module(names):
                for f in functions if outcome.timed_out else ():
                    result.timeouts[f] = call.error
                _record_all(result, call)
            elif call.error is not None and len(functions) > 1:
                # locate what failed: halves after a timeout (a bisection), else one by one
                parts = ([functions[:len(functions) // 2], functions[len(functions) // 2:]]
                         if outcome.timed_out else [[f] for f in functions])
                for part in parts:
                    one = _item(facts, names, part, engine, outputs)
                    pool.submit(_call, one, _budget(one, timeout))
                counter["total"] += len(parts)
            else:
                if outcome.timed_out:
                    result.timeouts[functions[0]] = call.error
                _record(result, out, call)
            tick()


def scope_analyses(extra_predicated: Sequence[str] = (),
                   scope: Optional[str] = None) -> tuple[str, ...]:
    """The catalogued analyses a function of ``scope`` gets by default (None: of any scope):
    its scope's, and for ``"predicated"`` what produces ``extra_predicated`` too."""
    extra = [r for r in extra_predicated if r not in RELATIONS]
    names = set()
    for s in ((scope,) if scope else ("function", "predicated")):
        names |= {a.name for a in catalog.in_scope(s)}
        if s == "predicated" and extra:
            names |= {a.name for a in catalog.producing(extra)}
    return tuple(sorted(names))


def analysis_groups(modules: Iterable[tuple[Module, str]],
                    relations: Optional[Sequence[str]] = None,
                    extra_predicated: Sequence[str] = ()) -> dict[tuple[str, ...], list[str]]:
    """Which catalogued analyses each function gets: with ``relations``, the analyses producing
    them for every function; otherwise by scope (what ``pathlogic analyze`` runs), functions
    with predicate defines also getting what produces ``extra_predicated``."""
    groups: dict[tuple[str, ...], list[str]] = {}
    if relations is not None:
        names = tuple(a.name for a in catalog.producing(relations)) if relations else ()
        for module, relpath in modules:
            for fn in module.defined_functions():
                groups.setdefault(names, []).append(function_id(relpath, fn.name))
        return {k: v for k, v in groups.items() if k}
    by_scope = {scope: scope_analyses(extra_predicated, scope) for scope in ("function", "predicated")}
    for module, relpath in modules:
        for fn in module.defined_functions():
            groups.setdefault(by_scope[scope_of(fn)], []).append(function_id(relpath, fn.name))
    return groups


def analyze_modules(modules: Sequence[tuple[Module, str]], *, engine: str = "auto",
                    jobs: int = 1, relations: Optional[Sequence[str]] = None,
                    profile: Optional[dict] = None, extra_predicated: Sequence[str] = (),
                    progress: Optional[Callable[[int, int], None]] = None,
                    timeout: Optional[float] = None,
                    keep: Optional[Callable[[str], bool]] = None,
                    cache: Cache = NO_CACHE,
                    facts_for: Optional[Sequence[str]] = None,
                    freeze: bool = False) -> AnalysisRun:
    """Extract facts of ``(module, relpath)`` pairs once and run the catalogued analyses.

    ``relations``: compute only these relations (for every function): the facts among them and
    those the catalogued programs computing the others read are extracted, no other fact family
    (``catalog.inputs_read``), and only what produces the others runs. Default: every fact
    family but the Value Name Graph, and each function's scope (``"function"`` analyses, plus
    the PPG where there are defines, and whatever produces ``extra_predicated`` there, e.g. the
    relations PAS reads).
    ``facts_for`` (default mode): extract only the fact families the analyses this run runs
    read, plus what these relations need (input relations themselves; for output relations,
    the inputs of the programs computing them: a consumer of ``run.facts`` such as the PRE
    statistics or the report); None: every default family (what ``pathlogic facts`` writes).
    ``timeout``: the per-function budget of ``run_analyses``. ``keep``: only the functions whose
    id it accepts get facts and analyses (``--function``). ``cache``: see ``run_analyses``.
    ``freeze``: see ``extract``.
    Input facts are part of ``run.rows`` too, so a consumer reads ``rpo`` and ``idom`` alike.
    """
    modules = list(modules)
    module_failures: dict[str, str] = {}
    outputs = families = None
    if relations is not None:                   # facts on demand (issue #27 item 4)
        outputs = [r for r in relations if r not in RELATIONS]
        families = families_for({r for r in relations if r in RELATIONS}
                                | catalog.inputs_read(outputs))
    if relations is None and facts_for is not None:     # analyze: facts on demand (#32)
        # what any function could get, so the facts of a file do not depend on its neighbours
        families = families_read(scope_analyses(extra_predicated), facts_for)
    facts = extract(modules, profile, module_failures, families, freeze, keep)
    if keep is not None:
        facts = restrict_facts(facts, keep)
    modules = [(m, rel) for m, rel in modules if rel not in module_failures]
    groups = analysis_groups(modules, outputs, extra_predicated)
    if keep is not None:
        groups = {names: [f for f in fs if keep(f)] for names, fs in groups.items()}
    run = run_analyses(facts, groups, engine, jobs, outputs, progress, timeout, cache)
    run.module_failures = module_failures
    return run


def families_read(analyses: Iterable[str], relations: Iterable[str] = ()) -> tuple[str, ...]:
    """The fact families (``facts_gen.extract.FAMILIES``) the catalogued ``analyses`` read
    (``catalog.inputs_read`` of their outputs, so a family left out cannot change a result),
    and those ``relations`` need (an input relation: its family; an output: what its programs
    read)."""
    relations = set(relations)
    outputs = {o for name in analyses for o in catalog.get(name).outputs}
    outputs |= relations - set(RELATIONS)
    return families_for(catalog.inputs_read(outputs) | (relations & set(RELATIONS)))


def module_rows(module: Module, relpath: Optional[str] = None, *,
                relations: Optional[Sequence[str]] = None, engine: str = "auto",
                functions: Optional[Sequence[str]] = None) -> Rows:
    """Facts and analysis rows of one module (function ids ``relpath::name``, default relpath:
    the module's path), of the functions named ``functions`` only when given; raises the first
    engine error instead of recording it."""
    relpath = relpath or module.path
    keep = None
    if functions is not None:
        wanted = {function_id(relpath, name) for name in functions}
        keep = wanted.__contains__
    run = analyze_modules([(module, relpath)], engine=engine, relations=relations, keep=keep)
    if run.module_failures:
        raise PathlogicError(f"{printable_name(relpath)}: {run.module_failures[relpath]}")
    if run.failures:
        f, message = sorted(run.failures.items())[0]
        raise PathlogicError(f"{f}: analysis failed: {message}")
    run.rows.relpath = escape_field(relpath)       # the file part of the function ids
    return run.rows
