"""``pathlogic analyze`` as a library call: load a directory of programs, optionally if-convert
them (each result checked by the interpreter), extract facts once, run the catalogued analyses
once, write ``OUT/facts``, ``OUT/results`` and ``OUT/summary.json``, and summarise per function.

Example
-------
>>> result = analyze_directory("examples", "runs/examples", engine="clingo")   # doctest: +SKIP
>>> result.failed, len(result.functions)
(False, 8)
"""
from __future__ import annotations

import functools
import gc
import json
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional, Sequence

from facts_gen.extract import FAMILIES, RELATIONS, families_for, restrict_facts, write_facts
from facts_gen.naming import escape_field, function_id, names_function
from pylogic.analysis.budget import DEFAULT_FUNCTION_TIMEOUT, BudgetPool, call_with_budget
from pylogic.analysis.cache import NO_CACHE, Cache, c_dependencies, key, tool_versions
from pylogic.analysis.output import check_output_path, output_directory
from pylogic.analysis.passes import run_pass
from pylogic.analysis.predicate_matrix import predicate_matrices
from pylogic.analysis.report_data import (MATRIX_MAX_PREDICATES, REPORT_FACTS, block_code,
                                          derivations, write_report_data)
from pylogic.analysis.run import AnalysisRun, analyze_modules, extract, has_defines
from pylogic.collector import heap_frozen
from pylogic.engines.csv_io import write_rows
from pylogic.analysis.correlation_stats import correlation_rows, totals as correlation_totals
from pylogic.analysis.pre_stats import OUTPUTS as PRE_OUTPUTS, pre_rows, summary as pre_summary
from pylogic.errors import PathlogicError, printable_name
from pylogic.interp.differential import compare_modules
from pylogic.ir.load import LoadedDirectory, discover, load_directory, relative_name
from pylogic.ir.printer import print_function, print_module
from pylogic.predicates.pas import PAS_RELATIONS
from pylogic.predicates.summary import SUMMARY_RELATIONS, predicate_summary
from pylogic.transforms.registry import get_pass


@dataclass
class DirectoryAnalysis:
    """Everything one ``analyze`` run found; ``problems`` are located, printable messages."""
    input: str
    out: Path
    engine: str
    loaded: LoadedDirectory
    run: Optional[AnalysisRun] = None
    functions: list[dict] = field(default_factory=list)
    predicates: list[dict] = field(default_factory=list)
    if_conversion: Optional[dict] = None
    correlation: Optional[list] = None       # analyze --correlation (correlation_stats.py)
    pre: Optional[list] = None               # analyze --pre (pre_stats.py, Table 6.1)
    matrices: Optional[dict] = None          # function id -> relation matrix rows, or why none
    explanations: Optional[dict] = None      # function id -> derivation trees (report_data.py)
    problems: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    seconds: dict = field(default_factory=dict)
    cache: Cache = NO_CACHE

    @property
    def failed(self) -> bool:
        """A file was skipped, a function's analysis failed, or a check found a difference."""
        return bool(self.failures or any(p.skipped for p in self.loaded.problems))

    def summary(self) -> dict:
        """The contents of ``OUT/summary.json``."""
        tables = self.run.rows.sorted_tables() if self.run else {}
        return {
            "input": self.input,
            "input_path": str(Path(self.input).resolve()),
            "out": str(self.out),
            "engine": self.engine,
            "files": len(self.loaded.programs) + sum(1 for p in self.loaded.problems if p.skipped),
            "files_analyzed": len(self.loaded.programs),
            "files_failed": [p.relpath for p in self.loaded.problems if p.skipped],
            "problems": [p.message for p in self.loaded.problems],
            "failures": self.failures,
            "functions": self.functions,
            "coverage": coverage(self.loaded),
            "if_conversion": self.if_conversion,
            "predicates": self.predicates,
            **({"correlation": {"functions": self.correlation,
                                "totals": correlation_totals(self.correlation)}}
               if self.correlation is not None else {}),
            **({"pre": pre_summary(self.pre)} if self.pre is not None else {}),
            "engine_calls": [{"analyses": list(c.analyses), "functions": len(c.functions),
                              "seconds": round(c.seconds, 4), "error": c.error,
                              "engine": c.engine}
                             for c in (self.run.calls if self.run else [])],
            "seconds": {k: round(v, 4) for k, v in self.seconds.items()},
            "cache": self.cache.summary(),
            "relations": {name: len(tables[name]) for name in tables
                          if self.run and name not in self.run.facts},
        }


def _collected_after(run: Callable) -> Callable:
    """``run``, loading with ``freeze`` (``load_directory``) unless something else froze
    objects before (a host process's ``gc.freeze()`` is left as it is), and moving what it
    froze back under the garbage collector when it ends."""
    @functools.wraps(run)
    def collected(*args, **kwargs):
        kwargs.pop("freeze", None)
        with heap_frozen() as own:
            return run(*args, freeze=own, **kwargs)
    return collected


@_collected_after
def analyze_directory(target, out, *, engine: str = "auto", jobs: int = 1,
                      if_convert_first: bool = False, predicates: bool = True,
                      progress: Optional[Callable[[int, int], None]] = None,
                      timeout: Optional[float] = DEFAULT_FUNCTION_TIMEOUT,
                      function: Optional[str] = None,
                      cache: Cache = NO_CACHE,
                      executor: Optional[Callable[..., DirectoryAnalysis]] = None,
                      correlation: bool = False, pre: bool = False, matrices: bool = False,
                      explain: bool = False, all_facts: bool = False,
                      code: bool = False, freeze: bool = False) -> DirectoryAnalysis:
    """Analyze every ``.pir``/``.ll``/``.c`` under ``target`` into ``out`` (see module doc).

    ``timeout``: seconds each function's engine work and predicate statistics may take
    (None: unbounded); a function over it is reported as timed out and the run goes on.
    ``function``: only the functions of that name (in any file) are analysed and written.
    ``cache``: loaded files, engine rows and predicate statistics computed before for the same
    content are reused (``analysis/cache.py``); the outputs are the same as without it.
    ``executor``: None, this process and ``jobs`` workers; or a callable running the load and
    the analyses elsewhere and returning their ``DirectoryAnalysis`` (``distributed.
    dask_executor``: tasks of consecutive files on a Dask cluster), the outputs written here.
    ``correlation``: also branch-correlation statistics, one engine run per module
    (``correlation_stats.py``).
    ``pre``: also the PRE statistics of PathFinder Table 6.1 per function (``pre_stats.py``),
    on the facts extracted once.
    ``all_facts``: extract and write every default fact family (what ``pathlogic facts``
    writes); otherwise only those the analyses run read (``run.families_read``), so OUT/facts
    holds what the results were computed from.
    ``matrices``: also the BDD / SAT / PPG relation matrix of every function with predicate
    defines and at most ``MATRIX_MAX_PREDICATES`` predicates (``matrix_rows``; needs
    ``predicates``). ``explain``: also the derivation tree of every row the HTML report shows,
    for functions of at most ``EXPLAIN_MAX_BLOCKS`` blocks (``report_data.derivations``).
    ``code``: also each block's code and the decision on each edge (``analysis/decisions.py``).
    ``freeze``: set by ``_collected_after`` (the loaded programs and their facts are kept out
    of the garbage collector's passes for the run, ``load_directory``, ``run.extract``).
    They go to ``OUT/report/``, from where the report renders them.

    Raises PathlogicError only when there is nothing to analyze; every per-file or
    per-function failure is recorded (``failures``, ``loaded.problems``) and the rest goes on.
    """
    out = check_output_path(out)
    t0 = time.perf_counter()
    # what the analyses read, the report's facts, and the PRE statistics' inputs (#32)
    facts_for = None if all_facts else REPORT_FACTS + (PRE_OUTPUTS if pre else ())
    options = dict(engine=engine, if_convert_first=if_convert_first, predicates=predicates,
                   timeout=timeout, function=function, matrices=matrices, facts_for=facts_for)
    if executor is not None:
        _stage(progress, "tasks", unit="files")
        result = executor(Path(target), out, cache=cache, progress=progress, **options)
    else:
        _stage(progress, "load", unit="files")
        loaded = load_directory_cached(Path(target), jobs, cache, progress=progress,
                                       freeze=freeze)
        if freeze:                                   # programs from the cache too
            gc.freeze()
        if not loaded.programs and not loaded.problems:
            raise PathlogicError(f"{target}: no input files (.pir, .ll, .c) found")
        _note(progress, f"{len(loaded.programs)} loaded, "
                        f"{sum(1 for p in loaded.problems if p.skipped)} failed")
        result = DirectoryAnalysis(str(target), out, engine, loaded, cache=cache)
        result.seconds["load"] = time.perf_counter() - t0
        analyze_loaded(result, jobs=jobs, progress=progress, freeze=freeze, **options)
    run = result.run
    if correlation:
        _stage(progress, "branch correlation", unit="files")
        result.correlation, result.seconds["correlation"] = correlation_rows(
            [(p.module, p.relpath) for p in result.loaded.programs], result.engine,
            result.failures)
        if function is not None:
            result.correlation = [r for r in result.correlation
                                  if names_function(r["function"], function)]
    if pre:
        _stage(progress, "pre statistics", unit="engine calls")
        result.pre, result.seconds["pre"] = pre_rows(
            [(p.module, p.relpath) for p in result.loaded.programs], run, result.engine,
            result.failures, jobs=jobs, timeout=timeout, cache=cache,
            keep=None if function is None else (lambda fid: names_function(fid, function)))
    if explain:
        with _timed_stage(result, "explanations", progress, "explanations"):
            result.explanations = derivations(run)
    if function is not None and not run.facts["function"] and not run.module_failures \
            and not any(p.skipped for p in result.loaded.problems):
        raise PathlogicError(f"--function: no function '{function}' in {target}")
    _stage(progress, "write")
    with output_directory(out) as tmp:       # all of OUT replaced at once, or not at all
        write_outputs(run, tmp)
        write_report_data(tmp, result.matrices, result.explanations,
                          block_code(result.loaded.programs) if code else None)
        result.seconds["total"] = time.perf_counter() - t0
        (tmp / "summary.json").write_text(json.dumps(result.summary(), indent=2) + "\n")
    return result


def analyze_loaded(result: DirectoryAnalysis, *, engine: str, jobs: int = 1,
                   if_convert_first: bool = False, predicates: bool = True,
                   progress: Optional[Callable[[int, int], None]] = None,
                   timeout: Optional[float] = DEFAULT_FUNCTION_TIMEOUT,
                   function: Optional[str] = None, matrices: bool = False,
                   facts_for: Optional[Sequence[str]] = None, freeze: bool = False) -> None:
    """The analyses of the programs ``result.loaded`` holds (if-conversion, facts, engine,
    predicate statistics and matrices), recorded in ``result``; what ``analyze_directory`` runs
    after the load, and what one Dask task runs for its one file. ``facts_for``: see
    ``run.analyze_modules`` (None: every default fact family). ``freeze``: the facts too are
    kept out of the garbage collector's passes (``run.extract``)."""
    loaded, cache = result.loaded, result.cache
    if if_convert_first:
        with _timed_stage(result, "if_convert", progress, "if-convert", len(loaded.programs),
                          "files"):
            result.if_conversion = if_convert_all(loaded, engine, result.failures, timeout, cache)
    modules = [(p.module, p.relpath) for p in loaded.programs]
    t2 = time.perf_counter()
    _stage(progress, "analyses", unit="engine calls")
    extra = PAS_RELATIONS if predicates else ()
    keep = None if function is None else (lambda fid: names_function(fid, function))
    run = analyze_modules(modules, engine=engine, jobs=jobs, progress=progress,
                          extra_predicated=extra, timeout=timeout, keep=keep, cache=cache,
                          facts_for=facts_for, freeze=freeze)
    result.run, result.engine = run, run.engine
    result.seconds["analyses"] = time.perf_counter() - t2
    _note(progress, f"{len(run.rows.functions())} functions")
    for relpath, message in sorted(run.module_failures.items()):
        result.failures.append(f"{printable_name(relpath)}: {message}")
    for f, message in sorted(run.failures.items()):
        result.failures.append(f"{f}: analysis failed: {message}")
    result.functions = function_rows(run)
    if predicates:
        with _timed_stage(result, "predicates", progress, "predicate statistics",
                          unit="functions with defines"):
            result.predicates = predicate_rows(loaded, run, result.failures, timeout, cache,
                                               jobs=jobs, progress=progress)
    if predicates and matrices:
        with _timed_stage(result, "matrices", progress, "predicate matrices", unit="functions"):
            result.matrices = matrix_rows(loaded, run, result.predicates, timeout, cache,
                                          jobs=jobs, progress=progress)


@contextmanager
def _timed_stage(result: DirectoryAnalysis, timing: str, progress, name: str, total: int = 0,
                 unit: str = "") -> Iterator[None]:
    """Stage ``name`` of ``progress``; its wall time in ``result.seconds[timing]``."""
    _stage(progress, name, total, unit)
    t0 = time.perf_counter()
    yield
    result.seconds[timing] = time.perf_counter() - t0


def _stage(progress, name: str, total: int = 0, unit: str = "") -> None:
    """A new stage of ``progress`` (report/progress.py), when it has stages."""
    if progress is not None and hasattr(progress, "stage"):
        progress.stage(name, total, unit)


def _note(progress, detail: str) -> None:
    if progress is not None and hasattr(progress, "note"):
        progress.note(detail)


def write_outputs(run: AnalysisRun, out: Path) -> None:
    """``out/facts/NAME.facts`` per input relation, ``out/results/NAME.tsv`` per output
    (tab-separated, no header line: columns in docs/relations.md)."""
    write_facts(run.facts, out / "facts")
    (out / "results").mkdir(parents=True, exist_ok=True)
    tables = run.rows.sorted_tables()
    for name in tables:
        if name not in run.facts:
            write_rows(out / "results" / f"{name}.tsv", tables[name])


def load_directory_cached(root: Path, jobs: int = 1, cache: Cache = NO_CACHE,
                          only=None, progress=None, freeze: bool = False) -> LoadedDirectory:
    """``load_directory`` with each file's outcome (program and problems) cached by the file's
    bytes, its names and, for .c/.ll, the clang/opt versions. ``only``: these ``(path,
    relpath)`` items instead of every file under ``root``."""
    if not cache.enabled:
        return load_directory(root, jobs=jobs, only=only, progress=progress, freeze=freeze)
    loaded = LoadedDirectory(Path(root))
    keys = {}
    items = [(path, relative_name(root, path)) for path in discover(root)] if only is None \
        else list(only)
    for path, relpath in items:
        try:
            data = path.read_bytes()
        except OSError:
            data = None                                  # load_one reports it
        tools = tool_versions() if path.suffix in (".c", ".ll") else ""
        if path.suffix == ".c":                          # its #include "..." files count too
            tools = (tools, c_dependencies(path))
        keys[(path, relpath)] = None if data is None else key("load", relpath, str(path), data, tools)
    outcomes = {item: cache.get("load", k) for item, k in keys.items() if k is not None}
    missing = [item for item in keys if outcomes.get(item) is None]
    if missing:
        fresh = load_directory(root, jobs=jobs, only=missing, progress=progress, freeze=freeze)
        by_relpath: dict = {}
        for program in fresh.programs:
            by_relpath.setdefault(program.relpath, [program, []])
        for problem in fresh.problems:
            by_relpath.setdefault(problem.relpath, [None, []])[1].append(problem)
        for item in missing:
            program, problems = by_relpath.get(item[1], [None, []])
            outcomes[item] = (program, problems)
            if keys[item] is not None and (program is not None or problems):
                cache.put("load", keys[item], (program, problems))
    for item in keys:                                    # file order, as load_directory
        program, problems = outcomes[item]
        if program is not None:
            loaded.programs.append(program)
        loaded.problems.extend(problems)
    return loaded


def if_convert_all(loaded: LoadedDirectory, engine: str, failures: list[str],
                   timeout: Optional[float] = None, cache: Cache = NO_CACHE) -> dict:
    """If-convert every module in place (rows for all modules in one run); each converted
    module is run before and after on the interpreter (``main``, no inputs), and a difference
    is a failure. Per file: the pass's totals and the check's verdict. With ``timeout``, the
    pass on a file has that budget per function. A file whose module, engine and pathlogic are
    those of a cached conversion (its result and check) is not converted or run again."""
    keys = {p.relpath: key("if-convert", engine, print_module(p.module)) for p in loaded.programs} \
        if cache.enabled else {}
    totals = {}
    todo = []
    for program in loaded.programs:
        hit = cache.get("if-convert", keys[program.relpath]) if cache.enabled else None
        if hit is None:
            todo.append(program)
        else:
            program.module, totals[program.relpath] = hit
    modules = [(p.module, p.relpath) for p in todo]
    run = analyze_modules(modules, engine=engine, relations=get_pass("if-convert").needs,
                          timeout=timeout, cache=cache)
    for program in todo:
        rows = run.rows.for_module(escape_field(program.relpath))
        if program.relpath in run.module_failures:
            failures.append(f"{program.relpath}: not if-converted: "
                            f"{run.module_failures[program.relpath]}")
            continue
        functions = max(1, len(program.module.defined_functions()))
        outcome = call_with_budget(partial(run_pass, rows=rows),       # a pass bug or a slow
                                   "if-convert", program.module, program.relpath,
                                   seconds=None if timeout is None else timeout * functions)
        if not outcome.ok:                                             # pass: only this file
            failures.append(f"{program.relpath}: if-conversion failed: {outcome.error}")
            continue
        new, record = outcome.value
        entry = record.totals()
        if new != program.module:
            check = compare_modules(program.module, new)
            entry["check"] = check.verdict
            case = check.comparisons[0] if check.comparisons else None
            if case is not None and case.verdict != "not compared":
                entry["instructions"] = [case.before.counts["instructions"],
                                         case.after.counts["instructions"]]
            elif case is not None:
                entry["check_note"] = case.detail
            if check.verdict == "different":
                failures.append(f"{program.relpath}: if-conversion changed behaviour: "
                                f"{check.first_difference}")
                continue
        if cache.enabled:
            cache.put("if-convert", keys[program.relpath], (new, entry))
        program.module = new
        totals[program.relpath] = entry
    return {p.relpath: totals[p.relpath] for p in loaded.programs if p.relpath in totals}


def predicate_rows(loaded: LoadedDirectory, run: AnalysisRun, failures: list[str],
                   timeout: Optional[float] = None, cache: Cache = NO_CACHE, jobs: int = 1,
                   progress: Optional[Callable[[int, int], None]] = None) -> list[dict]:
    """PAS (BDD) vs PPG statistics for every function that has predicate defines, in file and
    function order. With a ``timeout``, each function's statistics are computed in a child
    process under that budget (BDDs can grow exponentially: no unbounded phase), ``jobs`` at a
    time; ``progress(done, total)`` after each function."""
    todo = []                                   # (position, fid, cache key, call arguments)
    done: dict[int, list[dict]] = {}
    functions = list(predicated_functions(loaded, run))
    rows = run.rows.only((fid for _, _, fid in functions), SUMMARY_RELATIONS)  # what they read
    for program, fn, fid in functions:
        ids = escape_field(program.relpath)              # the file part of the function ids
        position = len(todo) + len(done)
        k = key("predicates", run.engine, fid, print_function(fn)) if cache.enabled else ""
        cached = cache.get("predicates", k) if cache.enabled else None
        if cached is not None:
            done[position] = cached
            continue
        todo.append((position, fid, k, (predicate_summary, (program.module, ids,
                                                            rows.for_module(ids),
                                                            [fn.name]))))
    total = len(todo) + len(done)
    counter = len(done)
    problems: dict[int, list[str]] = {}          # by position: the same order with any jobs

    def record(position: int, fid: str, k: str, outcome) -> None:
        nonlocal counter
        counter += 1
        if progress:
            progress(counter, total)
        if not outcome.ok:
            problems[position] = [f"{fid}: predicate analysis failed: {outcome.error}"]
            return
        relpath = fid.rpartition("::")[0]
        mine = [{**row, "function": f"{relpath}::{row['function']}"} for row in outcome.value]
        problems[position] = [f"{row['function']}: {row['error']}" for row in mine if "error" in row]
        if not any("error" in row for row in mine):
            cache.put("predicates", k, mine)
        done[position] = mine

    if timeout is None:
        for position, fid, k, (fn, args) in todo:
            record(position, fid, k, call_with_budget(fn, *args, seconds=None))
    else:
        with BudgetPool(jobs) as pool:
            for item in todo:
                pool.submit(_apply_call, item, timeout)
            for (position, fid, k, _), outcome in pool.outcomes():
                record(position, fid, k, outcome)
    failures.extend(line for position in sorted(problems) for line in problems[position])
    return [row for position in sorted(done) for row in done[position]]


def predicated_functions(loaded: LoadedDirectory, run: AnalysisRun):
    """``(program, function, function id)`` of every function with predicate defines whose
    analyses succeeded, in file and function order."""
    for program in loaded.programs:
        if program.relpath in run.module_failures:
            continue
        for fn in program.module.defined_functions():
            fid = function_id(program.relpath, fn.name)
            if has_defines(fn) and fid not in run.failures and fid in run.scopes:
                yield program, fn, fid


def matrix_rows(loaded: LoadedDirectory, run: AnalysisRun, predicates: list[dict],
                timeout: Optional[float] = None, cache: Cache = NO_CACHE, jobs: int = 1,
                progress: Optional[Callable[[int, int], None]] = None) -> dict:
    """The BDD / SAT / PPG relation matrix (``predicate_matrix.py``, every pair also asked of
    SAT) of every function ``predicate_rows`` summarised, unless its summary counts more than
    ``MATRIX_MAX_PREDICATES`` predicates: ``{function id: rows, or why there are none}``. Each
    function under its own ``timeout`` (as ``predicate_rows``); a cached matrix of the same
    function text and engine is reused."""
    counts = {p["function"]: p.get("predicates") for p in predicates}
    todo, out = [], {}
    for program, fn, fid in predicated_functions(loaded, run):
        if (counts.get(fid) or 0) > MATRIX_MAX_PREDICATES:
            continue
        k = key("matrix", run.engine, fid, print_function(fn)) if cache.enabled else ""
        cached = cache.get("matrix", k) if cache.enabled else None
        if cached is not None:
            out[fid] = cached
            continue
        ids = escape_field(program.relpath)
        todo.append((fid, fid, k, (function_matrix, (program.module, program.relpath, fn.name,
                                                     run.rows.for_module(ids)))))

    total = len(out) + len(todo)

    def record(fid: str, k: str, outcome) -> None:
        if progress:
            progress(len(out) + 1, total)
        if outcome.ok:
            cache.put("matrix", k, outcome.value)
        out[fid] = outcome.value if outcome.ok else f"no matrix: {outcome.error}"

    if timeout is None:
        for _, fid, k, (fn, args) in todo:
            record(fid, k, call_with_budget(fn, *args, seconds=None))
    else:
        with BudgetPool(jobs) as pool:
            for item in todo:
                pool.submit(_apply_call, item, timeout)
            for (_, fid, k, _), outcome in pool.outcomes():
                record(fid, k, outcome)
    return {fid: out[fid] for _, _, fid in predicated_functions(loaded, run) if fid in out}


def function_matrix(module, relpath: str, name: str, rows) -> list[dict]:
    """A ``matrix_rows`` task: one function's matrix from the run's ``rows``."""
    return predicate_matrices(module, relpath, [name], rows=rows, check="sat")[name]


def _apply_call(item: tuple):
    """A BudgetPool task of ``predicate_rows`` and ``matrix_rows``: ``fn(*args)``."""
    fn, args = item[3]
    return fn(*args)


def function_rows(run: AnalysisRun) -> list[dict]:
    """Per function: blocks, edges, unreachable blocks, loops, irreducible, cdep rows."""
    def count(rel: str) -> Counter:
        return Counter(row[0] for row in run.rows.get(rel, ()))
    blocks, edges = count("block"), count("edge")
    unreachable, loops, cdep = count("unreachable"), count("loop_header"), count("cdep")
    irreducible = {row[0] for row in run.rows.get("irreducible", [])}
    return [{"function": f, "blocks": blocks[f], "edges": edges[f],
             "unreachable": unreachable[f], "loops": loops[f], "irreducible": f in irreducible,
             "cdep": cdep[f], "analyses": run.scopes.get(f, ""), "error": run.failures.get(f)}
            for f in run.rows.functions()]


def coverage(loaded: LoadedDirectory) -> dict:
    """Import coverage of .ll/.c inputs (functions imported vs skipped, by reason)."""
    imported = skipped = 0
    reasons: Counter = Counter()
    for program in loaded.programs:
        report = program.import_report
        if report is None or not hasattr(report, "to_dict"):
            continue
        for fn in report.to_dict().get("functions", []):
            if fn.get("status") == "imported":
                imported += 1
            else:
                skipped += 1
                reasons[fn.get("reason", "?")] += 1
    return {"functions_imported": imported, "functions_skipped": skipped,
            "skipped_by_reason": dict(reasons)}


def facts_directory(target, out, *, jobs: int = 1, function: Optional[str] = None,
                    progress=None, vng: bool = False,
                    relations: Optional[Iterable[str]] = None) -> tuple[dict, LoadedDirectory, dict]:
    """``pathlogic facts``: extract the facts of every program under ``target`` into ``out``
    (replaced all at once; with ``function``, only the functions of that name). ``relations``:
    only the fact families writing these (a query's ``.input`` relations; names facts_gen does
    not write are ignored); ``vng``: every family, the Value Name Graph too. Returns
    ``(facts, loaded, failures)``; ``failures`` maps a file whose extraction failed to the
    error (its facts are left out, the others kept)."""
    out = check_output_path(out)
    _stage(progress, "load", unit="files")
    loaded = load_directory(Path(target), jobs=jobs, progress=progress)
    if not loaded.programs and not loaded.problems:
        raise PathlogicError(f"{target}: no input files (.pir, .ll, .c) found")
    _stage(progress, "extract", len(loaded.programs), "files")
    failures: dict[str, str] = {}
    families = tuple(FAMILIES) if vng else None
    if relations is not None and not vng:
        families = families_for(set(relations) & set(RELATIONS))
    facts = extract([(p.module, p.relpath) for p in loaded.programs], failures=failures,
                    families=families)
    if function is not None:
        facts = restrict_facts(facts, lambda fid: names_function(fid, function))
        if not facts["function"]:
            raise PathlogicError(f"--function: no function '{function}' in {target}")
    with output_directory(out) as tmp:
        write_facts(facts, tmp)
    return facts, loaded, failures
