"""The dominator and post-dominator trees (``datalog/dominance.dl`` and ``postdominance.dl``, both
``lib/dominator_tree.dl``) on the functions benchmarks/optimize_scale.py generates (issue #28
item 1, issue #32 items 3/4): CPU seconds per engine and size, the exponent fitted against the
instruction count, idom and ipdom checked against networkx, and clingo's rows of the library's
relations per graph and iteration at the largest size (what grows).

    python3 -m benchmarks.dominator_tree_scale [--sizes 1000,3000,10000,30000]
        [--engines clingo,duckdb,souffle] [--label after] [--datalog DIR] [--out dom29-scale.json]

``--datalog DIR``: the datalog/ of another checkout (``git archive <commit> datalog | tar -x``),
for the "before" figures; rows of an existing ``--out`` with another label are kept. Soufflé is
the ``souffle`` on PATH.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter
from pathlib import Path

from benchmarks.common import children_cpu, command_line, fitted_exponent, write_run

#: programs timed (their CPU seconds are summed per engine) and the oracle relation of each
PROGRAMS = {"dominance.dl": "idom", "postdominance.dl": "ipdom"}
#: library relations counted per graph and iteration (those without an iteration column: total)
COUNTED = ("_dt_iter", "_dt_acc", "_dt_walk", "_dt_idom_k", "_dt_lift", "_dt_skel", "_dt_loc",
           "_dt_up1")


def _cfg(fn):
    from pylogic.ir.cfg import block_successors
    succs = {b: list(dict.fromkeys(s)) for b, s in block_successors(fn).items()}
    return list(succs), succs


def measure(size: int, engines: list[str], datalog: Path, seed: int, span: int) -> dict:
    from benchmarks.dominance_scale import expected_rows
    from benchmarks.optimize_scale import function_of
    from facts_gen.extract import empty_facts, extract_module
    from pylogic.analysis.optimize import static_size
    from pylogic.engines import load_program, run_checked
    module = function_of(size, seed, span)
    labels, succs = _cfg(module.functions[0])
    facts = empty_facts()
    extract_module(module, "scale.pir", facts)
    want = expected_rows(labels, succs)
    row = {"size": size, "instructions": static_size(module), "blocks": len(labels)}
    for engine in engines:
        cpu, equal = 0.0, True
        for name, rel in PROGRAMS.items():
            program = load_program(datalog / name)
            t0 = time.process_time() + children_cpu()
            rows = run_checked(program, None, engine, facts)
            cpu += time.process_time() + children_cpu() - t0
            equal &= {tuple(r[1:]) for r in rows[rel]} == want[rel]
        row[f"{engine}_cpu_s"] = round(cpu, 3)
        row[f"{engine}_equal_to_networkx"] = equal
    return row


def counted_rows(size: int, datalog: Path, seed: int, span: int) -> dict:
    """clingo's rows of each COUNTED relation the library has, per graph and iteration."""
    from benchmarks.optimize_scale import function_of
    from facts_gen.extract import empty_facts, extract_module
    from pylogic.engines import load_program, run_checked
    facts = empty_facts()
    extract_module(function_of(size, seed, span), "scale.pir", facts)
    out: dict = {}
    for name in PROGRAMS:
        program = load_program(datalog / name)
        have = [r for r in COUNTED if r in program.relations]
        rows = run_checked(program, None, "clingo", facts, extra=have)
        for rel in have:
            by = Counter(":".join(map(str, r[1:3] if isinstance(r[2], int) else r[1:2]))
                         for r in rows.get(rel, []))
            out.setdefault(rel, {}).update(sorted(by.items()))
    return out


def main(argv=None) -> int:
    from pylogic.analysis import catalog
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,3000,10000,30000", help="instructions per function")
    ap.add_argument("--engines", default="clingo,duckdb,souffle")
    ap.add_argument("--label", default="after")
    ap.add_argument("--datalog", default=str(catalog.datalog_dir()),
                    help="the datalog/ directory whose programs run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--span", type=int, default=8)
    ap.add_argument("--out", default="dom29-scale.json", help="file name under runs/")
    a = ap.parse_args(argv)
    sizes = [int(s) for s in a.sizes.split(",") if s]
    engines = [e for e in a.engines.split(",") if e]
    datalog = Path(a.datalog).resolve()
    runs = []
    for n in sizes:
        runs.append(measure(n, engines, datalog, a.seed, a.span))
        print(json.dumps(runs[-1]), flush=True)
    result = {"label": a.label, "runs": runs, "exponents": {}, "n_log_n_exponent":
              fitted_exponent([(r["instructions"], r["instructions"] * math.log(r["instructions"]))
                               for r in runs]),
              "clingo_rows_at_largest": counted_rows(sizes[-1], datalog, a.seed, a.span)}
    for engine in engines:
        result["exponents"][engine] = fitted_exponent(
            [(r["instructions"], r[f"{engine}_cpu_s"]) for r in runs])
    print(json.dumps({k: result[k] for k in ("exponents", "n_log_n_exponent")}))
    path = Path(__file__).resolve().parent.parent / "runs" / a.out
    old = json.loads(path.read_text()) if path.exists() else {}
    labels = {k: v for k, v in old.get("labels", {}).items() if k != a.label}
    commands = {k: v for k, v in old.get("commands", {}).items() if k != a.label}
    labels[a.label] = result
    commands[a.label] = command_line("benchmarks.dominator_tree_scale", argv)
    write_run(a.out, {"command": "; ".join(commands.values()), "commands": commands,
                      "measured": "CPU seconds (process + children) of dominance.dl plus "
                                  "postdominance.dl on one optimize_scale function per size",
                      "labels": labels})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
