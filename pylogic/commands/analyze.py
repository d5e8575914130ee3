"""``pathlogic analyze DIR``: facts for every program under DIR, every CFG analysis on them,
a per-function summary on the terminal and in OUT/summary.json."""
from __future__ import annotations

import json
import sys
import time
from collections import Counter
from pathlib import Path

from pylogic.errors import PathlogicError
from pylogic.report.progress import ProgressBar
from pylogic.report.table import format_table


def add_parser(sub) -> None:
    p = sub.add_parser("analyze", help="extract facts and run every CFG analysis on a directory",
                       description="Extract facts from every .pir/.ll/.c file under DIR, run the "
                       "shipped Datalog analyses, write OUT/facts, OUT/results and OUT/summary.json.")
    p.add_argument("dir", help="directory (or single file) of programs")
    p.add_argument("--out", help="output directory (default runs/<DIR name>/)")
    p.add_argument("--engine", default="auto", choices=("auto", "clingo", "souffle"))
    p.add_argument("--jobs", type=int, default=1,
                   help="worker processes for reading inputs and for the analyses")
    p.add_argument("--quiet", action="store_true", help="no per-function table")
    p.add_argument("--if-convert", action="store_true",
                   help="if-convert every function into hyperblocks before the analyses")
    p.add_argument("--no-predicates", action="store_true",
                   help="skip the predicate statistics (BDD vs PPG) of functions with defines")
    p.set_defaults(func=run)


def default_out(target: str) -> Path:
    name = Path(target).resolve().name or "root"
    if Path(target).is_file():
        name = Path(target).stem
    return Path("runs") / name


def run(args) -> int:
    from pylogic.ir.load import load_directory
    from facts_gen.extract import empty_facts, extract_module, write_facts
    from pylogic.engines import resolve_engine
    from pylogic.engines.csv_io import write_rows
    from pylogic.pipeline import merge_results, run_per_function

    out = Path(args.out) if args.out else default_out(args.dir)
    engine = resolve_engine(args.engine)
    t0 = time.perf_counter()
    loaded = load_directory(Path(args.dir), jobs=args.jobs)
    if not loaded.programs and not loaded.problems:
        raise PathlogicError(f"{args.dir}: no input files (.pir, .ll, .c) found")
    if_conversion = if_convert_all(loaded) if args.if_convert else None
    facts = empty_facts()
    for program in loaded.programs:
        extract_module(program.module, program.relpath, facts)
    write_facts(facts, out / "facts")
    t_facts = time.perf_counter() - t0

    bar = ProgressBar("analyze")
    t1 = time.perf_counter()
    results = run_per_function(facts, engine=engine, jobs=args.jobs, progress=bar)
    t_analyses = time.perf_counter() - t1
    bar.close()
    merged = merge_results(results)
    (out / "results").mkdir(parents=True, exist_ok=True)
    for name, rel_rows in merged.items():
        write_rows(out / "results" / f"{name}.csv", rel_rows)

    for problem in loaded.problems:
        print(f"pathlogic: {problem.message}", file=sys.stderr)
    failed = [r for r in results if r.error]
    for r in failed:
        print(f"pathlogic: {r.function}: analysis failed: {r.error}", file=sys.stderr)

    rows = function_rows(facts, merged, results)
    t_pred = time.perf_counter()
    predicates, pred_failures = ([], []) if args.no_predicates else predicate_rows(loaded, engine)
    for message in pred_failures:
        print(f"pathlogic: {message}", file=sys.stderr)
    summary = {
        "input": str(args.dir),
        "out": str(out),
        "engine": engine,
        "files": len(loaded.programs) + sum(1 for p in loaded.problems if p.skipped),
        "files_analyzed": len(loaded.programs),
        "files_failed": [p.relpath for p in loaded.problems if p.skipped],
        "problems": [p.message for p in loaded.problems],
        "functions": rows,
        "coverage": coverage(loaded),
        "if_conversion": if_conversion,
        "predicates": predicates,
        "seconds": {"facts": round(t_facts, 4),
                    "analyses": round(t_analyses, 4),
                    "predicates": round(time.perf_counter() - t_pred, 4),
                    "total": round(time.perf_counter() - t0, 4)},
        "relations": {name: len(rs) for name, rs in sorted(merged.items())},
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    if not args.quiet and rows:
        headers = ["function", "blocks", "edges", "unreach", "loops", "irred", "cdep", "ms"]
        print(format_table(headers, [[r["function"], r["blocks"], r["edges"], r["unreachable"],
                                      r["loops"], "yes" if r["irreducible"] else "",
                                      r["cdep"], "-" if r["seconds"] is None
                                      else f"{1000 * r['seconds']:.1f}"] for r in rows]))
    if not args.quiet and predicates:
        print()
        print(format_table(
            ["function", "defines", "preds", "bdd nodes", "pairs", "disj bdd", "disj ppg",
             "impl bdd", "impl ppg", "ppg pairs", "queries bdd", "queries ppg"],
            [[r["function"], r.get("defines", "-"), r.get("predicates", "-"),
              r.get("bdd_nodes", "-"), r.get("pairs", "-"), r.get("disjoint_bdd", "-"),
              r.get("disjoint_ppg", "-"), r.get("implied_bdd", "-"), r.get("implied_ppg", "-"),
              r.get("ppg_modelled_pairs", "-"), r.get("queries_bdd", "-"),
              r.get("queries_ppg", "-")] for r in predicates]))
    print(f"{len(rows)} functions in {summary['files_analyzed']} files "
          f"({len(summary['files_failed'])} failed) -> {out} "
          f"[{engine}, {summary['seconds']['total']:.2f} s]")
    return 1 if (summary["files_failed"] or failed or pred_failures) else 0


def if_convert_all(loaded) -> dict:
    """Replace every loaded module by its if-converted form; totals per file."""
    from pylogic.transforms.if_conversion import if_convert
    totals = {}
    for program in loaded.programs:
        program.module, record = if_convert(program.module)
        totals[program.relpath] = record.totals()
    return totals


def predicate_rows(loaded, engine: str) -> tuple[list[dict], list[str]]:
    """PAS (BDD) vs PPG statistics for every function that has predicate defines."""
    from pylogic.errors import PathlogicError
    from pylogic.ir.model import PredDefine
    from pylogic.predicates.summary import predicate_summary
    rows, failures = [], []
    for program in loaded.programs:
        has_defines = {fn.name for fn in program.module.defined_functions()
                       if any(isinstance(i, PredDefine) for b in fn.blocks for i in b.instrs)}
        if not has_defines:
            continue
        try:
            summary = predicate_summary(program.module, program.relpath, engine=engine)
        except PathlogicError as exc:
            failures.append(f"{program.relpath}: predicate analysis failed: {exc}")
            continue
        for row in summary:
            if row["function"] in has_defines:
                rows.append({**row, "function": f"{program.relpath}::{row['function']}"})
                if "error" in row:
                    failures.append(f"{program.relpath}::{row['function']}: {row['error']}")
    return rows, failures


def function_rows(facts, merged, results) -> list[dict]:
    def count(rel: str) -> Counter:
        return Counter(row[0] for row in list(facts.get(rel, ())) + list(merged.get(rel, ())))
    blocks, edges = count("block"), count("edge")
    unreachable, loops, cdep = count("unreachable"), count("loop_header"), count("cdep")
    irreducible = {row[0] for row in merged.get("irreducible", [])}
    return [{"function": r.function, "blocks": blocks[r.function], "edges": edges[r.function],
             "unreachable": unreachable[r.function], "loops": loops[r.function],
             "irreducible": r.function in irreducible, "cdep": cdep[r.function],
             "seconds": None if r.seconds is None else round(r.seconds, 6),
             "error": r.error} for r in results]


def coverage(loaded) -> dict:
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
