"""``pathlogic optimize FILE|DIR --passes P1,P2,...``: run registered passes in order (like
``opt -passes=``), print what each changed, optionally write the optimized programs and check
them against the originals on the interpreter."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from pylogic.analysis.optimize import optimize_files, parse_passes
from pylogic.engines import engine_choices
from pylogic.ir.printer import print_module
from pylogic.report.optimize import check_table, pass_table, to_json
from pylogic.transforms.registry import PASSES
from pylogic.commands.run import parse_int_list


def add_parser(sub) -> None:
    p = sub.add_parser("optimize", help="run a pipeline of passes (like opt -passes=)",
                       description="Run the given passes in order on every .pir/.ll/.c input; "
                       f"known passes: {', '.join(sorted(PASSES))}.")
    p.add_argument("target", help="a program or a directory of programs")
    p.add_argument("--passes", required=True, help="comma-separated pass names, run in order")
    p.add_argument("--out", help="write the optimized program (FILE.pir for one input, else a "
                   "directory receiving <relpath>.pir)")
    p.add_argument("--validate", action="store_true",
                   help="run original and optimized programs on the interpreter and compare")
    p.add_argument("--function", default="main", help="entry function for --validate")
    p.add_argument("--args", default="", help="arguments of the entry function (1,2,...)")
    p.add_argument("--input", default="", help="values `input` reads (3,4,...)")
    p.add_argument("--engine", default="auto", choices=engine_choices())
    p.add_argument("--json", action="store_true", help="one JSON object instead of tables")
    p.set_defaults(func=run)


def write_outputs(items, target: str, out: str) -> None:
    single = Path(target).is_file()
    for item in items:
        if item.result is None:
            continue
        path = Path(out) if single and out.endswith(".pir") else \
            Path(out) / Path(item.relpath).with_suffix(".pir")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(print_module(item.result.module))


def run(args) -> int:
    passes = parse_passes(args.passes)
    cases = None
    if args.validate:
        cases = [(parse_int_list(args.args, "--args"), parse_int_list(args.input, "--input"))]
    loaded, items = optimize_files(args.target, passes, engine=args.engine, cases=cases,
                                   entry=args.function)
    if args.out:
        write_outputs(items, args.target, args.out)
    for problem in loaded.problems:
        print(f"pathlogic: {problem.message}", file=sys.stderr)
    for item in items:
        if item.error is not None:
            print(f"pathlogic: {item.relpath}: {item.error}", file=sys.stderr)
    if args.json:
        print(json.dumps(to_json(loaded, items, passes), indent=1))
    else:
        print(pass_table(items))
        if cases is not None:
            print()
            print(check_table(items))
    verdicts = {item.check.verdict for item in items if item.check is not None}
    failed = (any(p.skipped for p in loaded.problems) or any(i.error for i in items)
              or "different" in verdicts)
    for item in items:
        if item.check is not None and item.check.verdict == "different":
            print(f"pathlogic: {item.relpath}: the optimized program behaves differently: "
                  f"{item.check.first_difference}", file=sys.stderr)
    if failed:
        return 1
    return 2 if "not compared" in verdicts else 0
