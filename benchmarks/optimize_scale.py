"""Each registered pass's CPU time against the size of the function it optimizes (issue #28
item 1: at most N log N on generated functions of 1,000 to 30,000 instructions).

The functions are ``pylogic.ir.synthetic_values.random_program`` (the PRE generator: lexical
expressions over a few registers, kills, loads and stores of a global, diamonds, critical edges,
counted loops), one function per size, forward branches at most ``--span`` blocks ahead, blocks
chosen so that the function has about N instructions (the exact count is recorded). Each pass
runs alone on it in a forked child (``engines.budget.Child``) under a CPU limit
(``--cpu-limit``, RLIMIT_CPU), timed as process CPU plus children's. Per pass: the seconds per
size, the exponent fitted to log(seconds) against log(N) over the sizes that finished (least
squares) and the exponent N log N has over the same sizes, for comparison.

    python -m benchmarks.optimize_scale --sizes 1000,2000,4000,8000,16000,30000 --engine clingo

Writes runs/optimize-scale.json (``--out``).
"""
from __future__ import annotations

import argparse
import math
import resource
import sys
import time

from benchmarks.common import children_cpu, command_line, fitted_exponent, write_run
from pylogic.errors import PathlogicError

#: instructions per block of random_program, measured (used to choose the block count)
PER_BLOCK = 3.9


def function_of(size: int, seed: int, span: int):
    """A module of one generated function of about ``size`` instructions."""
    from pylogic.ir.synthetic_values import random_module
    return random_module([seed], blocks=max(3, round(size / PER_BLOCK)), span=span)


def _timed(module, name: str, engine: str, limit: int) -> float:
    """In the child: the CPU seconds of pass ``name`` on ``module``."""
    from pylogic.analysis.optimize import optimize
    resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 5))
    t0 = time.process_time() + children_cpu()
    optimize(module, [name], "scale.pir", engine=engine)
    return time.process_time() + children_cpu() - t0


def main(argv=None) -> int:
    from pylogic.analysis.optimize import static_size
    from pylogic.engines.budget import Child
    from pylogic.transforms.registry import PASSES
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,2000,4000,8000,16000,30000")
    ap.add_argument("--passes", default="", help="comma-separated (default: every registered)")
    ap.add_argument("--engine", default="clingo")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--span", type=int, default=8)
    ap.add_argument("--cpu-limit", type=int, default=300, help="CPU seconds per pass and size")
    ap.add_argument("--out", default="optimize-scale.json", help="file name under runs/")
    a = ap.parse_args(argv)
    sizes = [int(s) for s in a.sizes.split(",") if s.strip()]
    names = [p for p in a.passes.split(",") if p] or list(PASSES)
    modules = {n: function_of(n, a.seed, a.span) for n in sizes}
    actual = {n: static_size(m) for n, m in modules.items()}
    rows = {}
    for name in names:
        seconds, stopped = {}, None
        for n in sizes:
            if stopped is not None:       # a larger function after one over the limit: skipped
                break
            child = Child(_timed, (modules[n], name, a.engine, a.cpu_limit))
            try:
                seconds[actual[n]] = round(child.result(f"{name} on {actual[n]}"), 3)
            except PathlogicError as exc:
                stopped = {"instructions": actual[n], "why": str(exc)[:160]}
        points = sorted(seconds.items())
        fit = fitted_exponent(points)
        nlogn = fitted_exponent([(n, n * math.log(n)) for n, _ in points])
        rows[name] = {"seconds": {str(n): s for n, s in points}, "exponent": fit,
                      "n_log_n_exponent": nlogn, "stopped": stopped}
        print(f"{name:14} " + " ".join(f"{n}:{s}" for n, s in points)
              + f"  exponent {fit} (N log N: {nlogn})" + (f"  stopped at {stopped['instructions']}"
                                                           if stopped else ""), flush=True)
        path = write_run(a.out, {      # after every pass: a long run keeps what it measured
            "command": command_line("benchmarks.optimize_scale", argv),
            "generator": f"pylogic.ir.synthetic_values.random_module([{a.seed}], "
                         f"blocks=N/{PER_BLOCK}, span={a.span})",
            "engine": a.engine, "cpu_limit": a.cpu_limit,
            "instructions": {str(n): actual[n] for n in sizes}, "passes": rows,
            "passes_not_run": names[len(rows):]})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
