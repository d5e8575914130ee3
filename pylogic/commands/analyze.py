"""``pathlogic analyze DIR``: facts for every program under DIR, every catalogued analysis on
them, a per-function summary on the terminal and in OUT/summary.json; what the HTML report shows
beyond those (relation matrices, derivation trees) in OUT/report."""
from __future__ import annotations

import itertools
import json
import math
import sys
from pathlib import Path

from pylogic.analysis.budget import DEFAULT_FUNCTION_TIMEOUT
from pylogic.analysis.cache import NO_CACHE, Cache, default_root
from pylogic.commands import positive_float, positive_int
from pylogic.engines import engine_choices
from pylogic.errors import PathlogicError
from pylogic.report.progress import Progress


def add_parser(sub) -> None:
    p = sub.add_parser("analyze", help="extract facts and run every shipped analysis on a directory",
                       description="Extract facts from every .pir/.ll/.c file under DIR, run the "
                       "shipped Datalog analyses, write OUT/facts, OUT/results and OUT/summary.json.")
    p.add_argument("dir", help="directory (or single file) of programs")
    p.add_argument("--out", help="output directory (default runs/<DIR name>/)")
    p.add_argument("--engine", default="auto", choices=engine_choices())
    p.add_argument("--jobs", type=positive_int, default=1,
                   help="worker processes for reading inputs and for the analyses")
    p.add_argument("--quiet", action="store_true", help="no per-function table")
    p.add_argument("--if-convert", action="store_true",
                   help="if-convert every function into hyperblocks before the analyses "
                   "(each converted program is checked on the interpreter)")
    p.add_argument("--function-timeout", type=positive_float, default=DEFAULT_FUNCTION_TIMEOUT,
                   metavar="SECONDS",
                   help="budget of each function's analyses and predicate statistics "
                   f"(default {DEFAULT_FUNCTION_TIMEOUT:g}; 'inf': none); a function over it is "
                   "reported as timed out and the run goes on")
    p.add_argument("--function", metavar="NAME",
                   help="only the functions named NAME (in any file; main = @main)")
    p.add_argument("--no-predicates", action="store_true",
                   help="skip the predicate statistics (BDD vs PPG) of functions with defines")
    p.add_argument("--cache", metavar="DIR",
                   help="reuse what an earlier run computed for the same content (default "
                   "$PATHLOGIC_CACHE, else ~/.cache/pathlogic; PATHLOGIC_CACHE=off disables it)")
    p.add_argument("--no-cache", action="store_true", help="compute everything afresh")
    p.add_argument("--html", action="store_true",
                   help="also write the HTML report to OUT/html (as `pathlogic report OUT`)")
    p.add_argument("--report-data", action="store_true",
                   help="compute what the HTML report shows beyond facts and results (relation "
                   "matrices, derivation trees) into OUT/report without rendering it, for a later "
                   "`pathlogic report OUT` (implied by --html)")
    p.add_argument("--no-explain", action="store_true",
                   help="no derivation trees in OUT/report (the report then shows each row's "
                   "`pathlogic explain` command; faster on big runs)")
    p.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="local: this machine's processes (--jobs); dask: one task per file on a "
                   "Dask cluster (--scheduler, else a local cluster of --jobs workers)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="the Dask scheduler for --executor dask (e.g. tcp://10.0.0.5:8786)")
    p.add_argument("--correlation", action="store_true",
                   help="also branch correlation per function (PathFinder ch. 7): conditional "
                   "branches, analyzable, correlated intra/inter, node-query pairs; one engine "
                   "run per file")
    p.add_argument("--pre", action="store_true",
                   help="also PRE statistics per function (PathFinder Table 6.1): computations of "
                   "expressions and loads, partially redundant ones, those a CMP region keeps "
                   "code motion from optimizing, loop invariants, those not hoistable by motion")
    p.add_argument("--all-facts", action="store_true",
                   help="extract and write every fact family to OUT/facts (value flow and "
                   "interprocedural facts too, as `pathlogic facts` does), not only those the "
                   "analyses run read")
    p.set_defaults(func=run)


def default_out(target: str, runs: Path = Path("runs")) -> Path:
    """``runs/<name of DIR>`` (a file: its stem), unless that holds the output of another input
    (its summary.json names a different input path): then ``runs/<name>-2``, ``-3``, ... -- two
    inputs with the same base name never overwrite each other's results."""
    source = Path(target).resolve()
    name = (source.stem if source.is_file() else source.name) or "root"
    for k in itertools.count(1):
        out = runs / (name if k == 1 else f"{name}-{k}")
        if not out.exists() or owner(out) in (None, str(source)):
            return out


def owner(out: Path):
    """The resolved input path whose results ``out`` holds (None: not an analyze output, or
    one written before the path was recorded)."""
    try:
        summary = json.loads((out / "summary.json").read_text())
    except (OSError, ValueError):
        return None
    return summary.get("input_path") if isinstance(summary, dict) else None


def _executor(args):
    if args.executor != "dask":
        return None
    from pylogic.analysis.distributed import dask_executor
    return dask_executor(args.scheduler, workers=args.jobs)


def _cache(args) -> Cache:
    if args.no_cache:
        return NO_CACHE
    root = Path(args.cache) if args.cache else default_root()
    return NO_CACHE if root is None else Cache(root)


def run(args) -> int:
    from pylogic.analysis.directory import analyze_directory
    from pylogic.report.analysis import (closing_lines, correlation_table, function_table,
                                         pre_table, predicate_table)
    if args.scheduler and args.executor != "dask":
        raise PathlogicError("--scheduler needs --executor dask")
    bar = Progress("analyze")
    # the report's matrices and derivations cost more than the analyses themselves (csmith
    # 1-20: 144 s + 234 s against 109 s): computed only when a report is asked for
    report_data = args.html or args.report_data
    try:
        result = analyze_directory(args.dir, Path(args.out) if args.out else default_out(args.dir),
                                   engine=args.engine, jobs=args.jobs,
                                   if_convert_first=args.if_convert,
                                   predicates=not args.no_predicates, progress=bar,
                                   timeout=None if math.isinf(args.function_timeout)
                                   else args.function_timeout, function=args.function,
                                   cache=_cache(args), executor=_executor(args),
                                   correlation=args.correlation, pre=args.pre,
                                   matrices=report_data and not args.no_predicates,
                                   explain=report_data and not args.no_explain,
                                   code=report_data,
                                   all_facts=args.all_facts)
    finally:
        bar.close()
    for problem in result.loaded.problems:
        print(f"pathlogic: {problem.message}", file=sys.stderr)
    for failure in result.failures:
        print(f"pathlogic: {failure}", file=sys.stderr)
    if not args.quiet and result.functions:
        print(function_table(result))
    if not args.quiet and result.predicates:
        print()
        print(predicate_table(result))
    if result.correlation is not None:
        print()
        print(correlation_table(result))
    if result.pre is not None:
        print()
        print(pre_table(result))
    print("\n".join(closing_lines(result)))
    if args.html:
        from pylogic.commands.report import build
        build(result.out)
    return 1 if result.failed else 0
