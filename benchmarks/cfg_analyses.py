"""Time the whole CFG analysis set (datalog/cfg_analyses.dl) per engine on generated functions of
growing size; write runs/bench-cfg.json.

    python benchmarks/cfg_analyses.py [--sizes 100,300,1000,3000,10000] [--engines clingo,souffle]

Structured CFGs (nested sequences, if/else, while loops with breaks) and random CFGs (irreducible
regions, unreachable blocks) are both measured. Output-relation sizes are recorded with the time;
the "trees" set (reachable, idom, ipdom, df, cdep) is timed separately from "all" (which adds the
natural loops). The full dominance relation dom (N x dominator-tree depth rows) is no longer in
the bundle: it is the opt-in dominance_closure.dl; `pathlogic analyze` as a whole on chains and
random CFGs of up to 30,000 blocks is benchmarks/dominance_scale.py.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import command_line, growth_exponent, write_run  # noqa: E402
from facts_gen.extract import empty_facts, extract_module  # noqa: E402
from pylogic.analysis import catalog  # noqa: E402
from pylogic.engines import available_engines, load_program, run_checked  # noqa: E402
from pylogic.ir.model import Module  # noqa: E402
from pylogic.ir.synthetic import function_from_cfg, random_cfg, structured_cfg  # noqa: E402
from pylogic.report.table import StreamTable  # noqa: E402

PROGRAM = catalog.datalog_dir() / catalog.BUNDLES["cfg_analyses"]
#: Analysis sets: None = every output of cfg_analyses.dl.
SETS = {"all": None, "trees": ["reachable", "unreachable", "idom", "ipdom", "df", "cdep"]}


def make_facts(kind: str, size: int) -> tuple[dict, int]:
    rng = random.Random(size)
    if kind == "structured":
        # the generator lands below its budget; grow the budget until the size is reached
        budget = size
        labels, succs = structured_cfg(random.Random(size), budget)
        while len(labels) < size:
            budget = int(budget * size / max(len(labels), 1)) + 1
            labels, succs = structured_cfg(random.Random(size), budget)
    else:
        labels, succs = random_cfg(rng, size, edge_factor=1.4, exit_prob=0.05)
    fn = function_from_cfg("@f", labels, succs)
    facts = empty_facts()
    extract_module(Module(functions=(fn,)), "bench.pir", facts)
    return facts, len(labels)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100,300,1000,3000,10000")
    ap.add_argument("--engines", default=",".join(available_engines()))
    ap.add_argument("--kinds", default="structured,random")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    program = load_program(PROGRAM)
    rows = []
    table = StreamTable(["engine", "kind", "set", "blocks", "edges", "seconds", "rows"],
                        [8, 10, 5, 6, 6, 8, 0], "lllrrrr")
    print(table.header(), flush=True)
    for engine in args.engines.split(","):
        for kind in args.kinds.split(","):
            for size in sizes:
                facts, blocks = make_facts(kind, size)
                for set_name, only in SETS.items():
                    best = None
                    for _ in range(args.repeat):
                        t = time.perf_counter()
                        out = run_checked(program, None, engine, facts, only=only)
                        dt = time.perf_counter() - t
                        best = dt if best is None else min(best, dt)
                    row = {"engine": engine, "kind": kind, "set": set_name, "blocks": blocks,
                           "edges": len(facts["edge"]), "seconds": round(best, 4),
                           "output_rows": {k: len(v) for k, v in out.items()}}
                    rows.append(row)
                    print(table.row([engine, kind, set_name, blocks, row["edges"], f"{best:.3f}",
                                     sum(row["output_rows"].values())]), flush=True)
    growth = {}
    for engine in args.engines.split(","):
        for kind in args.kinds.split(","):
            for set_name in SETS:
                sel = [r for r in rows if r["engine"] == engine and r["kind"] == kind
                       and r["set"] == set_name]
                growth[f"{engine}/{kind}/{set_name}"] = growth_exponent(
                    [r["blocks"] for r in sel], [r["seconds"] for r in sel])
    path = write_run("bench-cfg.json", {"command": command_line("benchmarks.cfg_analyses"),
                                        "program": "datalog/cfg_analyses.dl", "results": rows,
                                        "growth_exponent": growth})
    print("growth exponents (cost ~ blocks^x):", growth)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
