"""PAS (BDD) vs PPG on the if-converted csmith corpus: per function, the pairs of predicate
registers each proves disjoint / implied / covering (PAS's claim about partition-graph accuracy),
through the same library call as `pathlogic analyze --if-convert`
(``pylogic.analysis.directory.analyze_directory``: rows of the PAS and PPG relations from one
analysis run, handed to ``predicate_summary``). Writes runs/predicate-accuracy.json.

    python -m benchmarks.predicate_accuracy [--seeds 1-20] [--engine clingo]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import command_line, write_run  # noqa: E402
from benchmarks.corpus import csmith_program  # noqa: E402
from pylogic.analysis.directory import analyze_directory  # noqa: E402
from pylogic.report.table import format_table  # noqa: E402

KEYS = ("pairs", "ppg_modelled_pairs", "disjoint_bdd", "disjoint_ppg", "implied_bdd",
        "implied_ppg", "covers_bdd", "covers_ppg", "defines", "predicates")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="1-20")
    ap.add_argument("--engine", default="clingo")
    ap.add_argument("--workdir", default="/tmp/pathlogic-corpus")
    args = ap.parse_args()
    lo, hi = (int(x) for x in args.seeds.split("-"))
    corpus = Path(args.workdir) / "predicate-accuracy"
    corpus.mkdir(parents=True, exist_ok=True)
    for seed in range(lo, hi + 1):
        src = csmith_program(seed, args.workdir)
        if src:
            (corpus / Path(src).name).write_text(Path(src).read_text())
    t0 = time.perf_counter()
    result = analyze_directory(corpus, Path(args.workdir) / "predicate-accuracy-out",
                               engine=args.engine, if_convert_first=True)
    loaded, rows, failures = result.loaded, result.predicates, result.failures
    if_conv = result.if_conversion or {}
    totals = {k: sum(r.get(k, 0) for r in rows) for k in KEYS}
    ratio = {k: (totals[f"{k}_ppg"] / totals[f"{k}_bdd"]) if totals[f"{k}_bdd"] else None
             for k in ("disjoint", "implied", "covers")}
    regions = sum(t.get("regions_converted", 0) for t in if_conv.values())
    print(f"{len(loaded.programs)} programs, {len(rows)} functions with defines, "
          f"{regions} if-converted regions, {time.perf_counter() - t0:.1f} s")
    print(format_table(["relation", "BDD", "PPG", "PPG/BDD"], [
        [k, totals[k + "_bdd"], totals[k + "_ppg"], "-" if ratio[k] is None else f"{ratio[k]:.3f}"]
        for k in ("disjoint", "implied", "covers")], indent="  "))
    path = write_run("predicate-accuracy.json", {
        "command": command_line("benchmarks.predicate_accuracy"),
        "corpus": f"csmith seeds {lo}-{hi}, if-converted (default options)",
        "engine": args.engine, "programs": len(loaded.programs),
        "problems": [p.message for p in loaded.problems if p.skipped], "failures": failures,
        "totals": totals, "ppg_over_bdd": ratio, "if_conversion": if_conv, "functions": rows,
        "seconds": round(time.perf_counter() - t0, 2)})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
