"""What one row costs each engine in memory (issue #32 item 4: clingo within 3x Soufflé's).

Four programs in the Soufflé dialect over one input relation ``e(f, g, a, b)`` of N rows (a chain:
``a -> a + 1``, as the dominator walk's relations look): ``input`` (read it, derive nothing),
``copy`` (derive N rows, by two rules), ``join`` (derive N - 1 rows by a two-atom join: an index on ``e``) and
``join2`` (two such relations, joined in opposite orders: two indices); each derives one output
row (``done``) from what it derived, so the figures are the engine's own, not those of Python
rows of an answer (which Soufflé's own process would not count). Each runs through
``pylogic.engines.run_checked`` in a forked worker, its peak memory measured as
``benchmarks/scale.py`` measures the shipped analyses (``engine_with_peak``: the growth of an
embedded engine's peak resident set over the call, Soufflé's own process). Per engine, bytes per
input row (``input`` over N) and per derived row (each program's peak over ``input``'s, divided
by the rows it derives): the part of an engine's memory that no rewrite of a program can remove,
only fewer rows can.

    python -m benchmarks.engine_row_cost --rows 300000 --engines clingo,duckdb,souffle

Writes ``runs/engine-row-cost.json``.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import command_line, write_run  # noqa: E402
from benchmarks.scale import engine_with_peak, run_with_timeout  # noqa: E402

#: The derived relations are internal, the one output a single row: the figures are the engine's
#: own, not the Python rows of an answer (which Soufflé's figure would not count).
DECLS = """.decl e(f: symbol, g: symbol, a: number, b: number)
.input e
.decl c(f: symbol, g: symbol, a: number, b: number)
.decl d(f: symbol, g: symbol, a: number, b: number)
.decl done(x: number)
.output done
"""
#: program -> (rules, rows derived as a function of N)
PROGRAMS = {
    "input": ("done(1) :- e(_, _, 0, _).\n", lambda n: 0),
    # two rules: a one-rule copy is unfolded by clingo's translation and Soufflé alike
    "copy": ("c(f, g, a, b) :- e(f, g, a, b), a % 2 = 0.\n"
             "c(f, g, a, b) :- e(f, g, a, b), a % 2 = 1.\ndone(1) :- c(_, _, 0, _).\n",
             lambda n: n),
    "join": ("c(f, g, a, c) :- e(f, g, a, b), e(f, g, b, c).\ndone(1) :- c(_, _, 0, _).\n",
             lambda n: n - 1),
    "join2": ("c(f, g, a, c) :- e(f, g, a, b), e(f, g, b, c).\n"
              "d(f, g, a, c) :- e(f, g, b, c), e(f, g, a, b).\n"
              "done(1) :- c(_, _, 0, _), d(_, _, 0, _).\n", lambda n: 2 * (n - 1)),
}


def _measure(text: str, engine: str, n: int) -> tuple[float | None, dict]:
    from pylogic.engines.program import load_program
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rows.dl"
        path.write_text(text)
        checked = load_program(path)
        facts = {"e": [("f", "cfg", i, i + 1) for i in range(n)]}
        rows, peak = engine_with_peak(checked, engine, facts)
    return peak, {rel: len(r) for rel, r in rows.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=300000, help="N, the input rows")
    ap.add_argument("--engines", default="clingo,duckdb,souffle")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--out", default=None, help="a path; default runs/engine-row-cost.json")
    args = ap.parse_args(argv)
    n = args.rows
    engines = [e for e in args.engines.split(",")
               if e != "souffle" or shutil.which("souffle")]
    peaks: dict[str, dict[str, float | None]] = {}
    for engine in engines:
        peaks[engine] = {}
        for name, (rules, _) in PROGRAMS.items():
            peak, counts = run_with_timeout(_measure, args.timeout, DECLS + rules, engine, n)
            peaks[engine][name] = peak
            print(f"{engine:8} {name:6} peak {peak} MB rows {counts}", flush=True)
    per_row = {}
    for engine, p in peaks.items():
        base = p["input"]
        if base is None:
            continue
        per_row[engine] = {"input_bytes_per_row": round(base * 2**20 / n)}
        for name, (_, derived) in PROGRAMS.items():
            if derived(n) and p[name] is not None:
                per_row[engine][f"{name}_bytes_per_derived_row"] = round(
                    (p[name] - base) * 2**20 / derived(n))
    ratios = {}
    if "souffle" in per_row:
        for engine, figures in per_row.items():
            if engine != "souffle":
                ratios[engine] = {k: round(v / per_row["souffle"][k], 1)
                                  for k, v in figures.items() if per_row["souffle"].get(k)}
    payload = {"command": command_line("benchmarks.engine_row_cost", argv),
               "rows": n, "peak_mb": peaks,
               "per_row": per_row, "x_souffle": ratios,
               "note": "MB: an embedded engine's peak growth over the call in a forked worker, "
                       "Souffle's own process (benchmarks/scale.py engine_with_peak); bytes per "
                       "derived row = (program's peak - input's) / rows derived"}
    out = write_run(args.out or "engine-row-cost.json", payload)     # runs/ or the path given
    print(f"per row: {per_row}\nx Souffle: {ratios}\nwrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
