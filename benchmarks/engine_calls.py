"""The engine calls of our passes, each timed on clingo and on the in-process python engine
(issue #28 item 1, stop 53): where each is cheaper, by the call's input rows, which is what
``engines/run.py``'s ``SMALL_CALL_ROWS`` ("auto"'s choice) rests on.

The calls are those ``run_checked`` receives (in-memory facts) while the pipelines run on csmith
programs (``--csmith``) and on generated functions of ``--sizes`` instructions
(``benchmarks.optimize_scale.function_of``, the PRE generator), captured once on clingo; each is
then run ``--repeat`` times on each engine in this process (least CPU kept, a warm-up run first:
the python engine's compiled plan and clingo's translation are built outside the window, as in a
pipeline's later calls) and its rows compared: a difference is a failure of the run.

    python -m benchmarks.engine_calls --csmith 1-10 --sizes 1000,4000,16000

Per call: program, rows fed, CPU on each engine; per bucket of rows: calls, summed CPU, the ratio.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time

from benchmarks.common import command_line, write_run

PIPELINES = ("simplify,pre-mr,pre-m,simplify", "icbe", "sccp,dce", "pde")
BUCKETS = (1_000, 3_000, 10_000, 30_000, 100_000, 10 ** 9)


def capture(modules, pipelines) -> list:
    """``(program, facts, only, origin)`` of every call ``run_checked`` gets with in-memory facts
    while each pipeline runs on each ``(name, module)`` on clingo."""
    from pylogic.analysis.optimize import optimize
    from pylogic.engines import run as engines_run
    calls, real = [], engines_run.run_checked

    def spy(checked, facts_dir=None, engine="auto", facts=None, output_dir=None, **kw):
        if facts_dir is None and facts is not None:
            calls.append((checked, {k: list(v) for k, v in facts.items()}, kw.get("only"),
                          origin))
        return real(checked, facts_dir, engine, facts, output_dir, **kw)
    import pylogic.analysis.run as analysis_run
    engines_run.run_checked = analysis_run.run_checked = spy
    try:
        for name, module in modules:
            for pipeline in pipelines:
                origin = f"{name} {pipeline}"
                try:
                    optimize(module, pipeline.split(","), name, engine="clingo")
                except Exception as exc:  # noqa: BLE001 -- a failing pass costs its calls only
                    print(f"{origin}: {type(exc).__name__}: {exc}", file=sys.stderr)
    finally:
        engines_run.run_checked = analysis_run.run_checked = real
    return calls


def timed(call, engine: str, repeat: int) -> tuple[float, dict]:
    from pylogic.engines import run_checked
    checked, facts, only, _ = call
    rows = run_checked(checked, None, engine, facts, only=only)
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        t = time.process_time()
        run_checked(checked, None, engine, facts, only=only)
        best = min(best, time.process_time() - t)
    return best, rows


def main(argv=None) -> int:
    from benchmarks.corpus import csmith_program
    from benchmarks.optimize import DEFAULT_WORKDIR, parse_range, prepare_program, tag_origins
    from benchmarks.optimize_scale import function_of
    from pylogic.engines.run import SMALL_CALL_ROWS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csmith", default="1-10")
    ap.add_argument("--sizes", default="1000,4000,16000")
    ap.add_argument("--pipeline", action="append", default=[])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default="engine-calls.json", help="under runs/, or a path")
    a = ap.parse_args(argv)
    modules = []
    for s in parse_range(a.csmith):
        path = csmith_program(s, DEFAULT_WORKDIR)
        prepared = prepare_program("csmith", path) if path else None
        if prepared is not None:
            modules.append((f"csmith-{s}.c", tag_origins(prepared[0])))
    for n in [int(x) for x in a.sizes.split(",") if x]:
        modules.append((f"generated-{n}", function_of(n, 1, 8)))
    calls = capture(modules, a.pipeline or PIPELINES)
    rows_out, different = [], 0
    for k, call in enumerate(calls):
        fed = sum(len(v) for v in call[1].values())
        c, got_c = timed(call, "clingo", a.repeat)
        p, got_p = timed(call, "python", a.repeat)
        different += got_c != got_p
        rows_out.append([call[3], os.path.basename(str(call[0].main_file)), fed, round(c, 5),
                         round(p, 5), got_c == got_p])
        print(f"{k + 1}/{len(calls)} {call[3]:44s} {rows_out[-1][1]:22s} rows {fed:7d} "
              f"clingo {c * 1e3:8.1f} ms python {p * 1e3:8.1f} ms", file=sys.stderr)
    buckets = []
    low = 0
    for high in BUCKETS:
        inside = [r for r in rows_out if low < r[2] <= high]
        if inside:
            c, p = sum(r[3] for r in inside), sum(r[4] for r in inside)
            buckets.append({"rows": f"{low + 1}-{high}", "calls": len(inside),
                            "clingo_cpu": round(c, 3), "python_cpu": round(p, 3),
                            "python_over_clingo": round(p / c, 3) if c else None})
        low = high
    write_run(a.out, {"command": command_line("benchmarks.engine_calls", argv),
                      "small_call_rows": SMALL_CALL_ROWS, "calls": len(rows_out),
                      "different": different, "buckets": buckets,
                      "call_fields": ["origin", "program", "rows", "clingo_cpu", "python_cpu",
                                      "same_rows"],
                      "per_call": rows_out})
    for b in buckets:
        print(b)
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
