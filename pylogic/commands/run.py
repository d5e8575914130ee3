"""``pathlogic run FILE``: run a program (``.pir``, or ``.ll``/``.c`` imported first, the functions
the importer left out noted on stderr) on the reference interpreter.

The program's output goes to stdout, the dynamic counts to stderr as one line (or everything as
one JSON object on stdout with ``--json``). Exit status: the program's return value & 0xFF; 70
after a run-time error (printed as ``file:line:col: run-time error: ...`` on stderr); 1 for bad
input (parse errors, unknown function, bad option values).
"""
from __future__ import annotations

import argparse
import json
import re
import sys

from pylogic.commands import check_output_file, load_input, positive_int, write_file
from pylogic.errors import PathlogicError
from pylogic.interp.defaults import (DEFAULT_FUEL, DEFAULT_MAX_DEPTH, DEFAULT_MEMORY_LIMIT,
                                     ERROR_STATUS)
from pylogic.interp.native import ENGINES
from pylogic.report.docs import doc_path

#: Option values that are integer lists may start with '-' (``--args -3,4``): let argparse take
#: them as values, like it does for a plain negative number.
_NEGATIVE_LIST = re.compile(r"^-\d[\dxXa-fA-F, -]*$")


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "run", help="run a program (.pir, .ll, .c) on the reference interpreter",
        description=f"Run a PIR program ({doc_path('pir.md')}; a .ll or .c file is imported "
                    "first) on the reference interpreter. Exit status: the program's return "
                    "value & 0xFF, 70 after a run-time error, 1 for bad input.")
    p.add_argument("file", metavar="FILE", help="the program (.pir, .ll or .c)")
    p.add_argument("--function", "-f", default="main",
                   help="function to run (default main or @main)")
    p.add_argument("--args", default="", metavar="A,B,...",
                   help="integer arguments for the function's parameters (missing ones are 0); "
                        "negative values work: --args -3,4")
    p.add_argument("--input", "--inputs", dest="input", default="", metavar="V,V,...",
                   help="integers read by the program's `input` instructions, in order "
                        "(--inputs, as in if-convert, is the same option)")
    p.add_argument("--fuel", type=positive_int, default=DEFAULT_FUEL,
                   help=f"maximum executed instructions (default {DEFAULT_FUEL})")
    p.add_argument("--memory-limit", type=positive_int, default=DEFAULT_MEMORY_LIMIT,
                   help=f"maximum live bytes of memory (default {DEFAULT_MEMORY_LIMIT})")
    p.add_argument("--max-depth", type=positive_int, default=DEFAULT_MAX_DEPTH,
                   help=f"maximum call depth (default {DEFAULT_MAX_DEPTH})")
    p.add_argument("--profile", metavar="OUT.json",
                   help="write the edge and block profile to this JSON file")
    p.add_argument("--json", action="store_true",
                   help="print everything (output, counts, error, profile) as one JSON object")
    p.add_argument("--verify", action="store_true",
                   help="verify the module (pathlogic check) before running it")
    p.add_argument("--engine", choices=ENGINES, default="auto",
                   help="interp: the reference interpreter; native: PIR compiled to machine "
                        "code (llvmlite), runs that do not end normally replayed in the "
                        "interpreter; auto (default): the interpreter for short runs, native "
                        "code past 1M instructions. Same output, status and counts on all")
    p.add_argument("--reuse", type=reuse_depth, metavar="H",
                   help="simulate the ideal limit of load reuse with access histories of the "
                        "last H addresses (1-4, PathFinder ch. 8) on the reference interpreter: "
                        "executed loads, redundant ones, reused from loads and from stores, per "
                        "aliasing scenario; with value prediction (on stderr, or in --json)")
    p.add_argument("--estimate", action="store_true",
                   help="bound the dynamic reuse PRE can remove from this run's edge profile with "
                        "PathFinder ch. 5's estimators (PRE, CMP1, CMPc, CMPr, CMPf), beside the "
                        "exact reuse of the run's block paths and what pre-mr removes on "
                        "the same input (on stderr, or in --json); the program runs on the "
                        "reference interpreter, once, for its output, profile and paths")
    p.add_argument("--html", metavar="DIR",
                   help="with --reuse H and/or --estimate: write DIR/run.json and DIR/index.html, "
                        "their tables beside charts of the reuse level against history depth "
                        "1..H, the share of the ideal reuse each PRE pipeline removes, and the "
                        "estimators' bounds against the exact reuse")
    if hasattr(p, "_negative_number_matcher"):
        p._negative_number_matcher = _NEGATIVE_LIST
    p.set_defaults(func=run)


def reuse_depth(text: str) -> int:
    """``--reuse H``: a history depth of the reuse simulator (``interp.reuse.check_depth``)."""
    from pylogic.interp.reuse import check_depth
    try:
        return check_depth(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def parse_int_list(text: str, option: str) -> list[int]:
    """``"-3,4 5"`` -> ``[-3, 4, 5]`` (decimal or hex, separated by commas or spaces)."""
    from pylogic.ir.parser import parse_int
    values = []
    for item in re.split(r"[,\s]+", text.strip()):
        if not item:
            continue
        try:
            values.append(parse_int(item))
        except (PathlogicError, ValueError):  # parse_int documents ValueError
            raise PathlogicError(f"{option}: '{item}' is not an integer") from None
    return values


def run(args) -> int:
    from pylogic.interp.decode import resolve_function
    from pylogic.interp.native import run_with
    argv = parse_int_list(args.args, "--args")
    if args.profile:
        check_output_file(args.profile, "--profile")
    inputs = parse_int_list(args.input, "--input")
    if args.html:
        if not (args.reuse or args.estimate):
            raise PathlogicError("--html draws what --reuse H and --estimate measure: give one "
                                 "or both")
        from pylogic.analysis.output import check_output_path
        check_output_path(args.html)
    module = load_input(args.file)
    if args.verify:
        from pylogic.ir.verify import check_module
        check_module(module)
    if resolve_function(module.function_map(), args.function) is None:
        defined = ", ".join(f.name for f in module.defined_functions()) or "none"
        raise PathlogicError(f"no function '{args.function}' to run (defined: {defined})")
    observer = paths = None
    limits = {"fuel": args.fuel, "memory_limit": args.memory_limit, "max_depth": args.max_depth}
    if args.reuse:  # the simulator observes the reference interpreter's run
        from pylogic.interp.reuse import ReuseObserver
        observer = ReuseObserver()
        result = run_with("interp", module, entry=args.function, args=argv, inputs=inputs,
                          observer=observer, **limits)
    elif args.estimate:  # one run gives the output, the edge profile and the exact paths
        from pylogic.interp.paths import run_with_paths
        result, paths = run_with_paths(module, args.function, argv, inputs, **limits)
        result.engine = "interp"
    else:
        result = run_with(args.engine, module, entry=args.function, args=argv, inputs=inputs,
                          **limits)
    estimates = None
    if args.estimate and result.error is None:
        from pylogic.analysis.estimation import program_estimates
        estimates = program_estimates(module, entry=args.function, args=argv, inputs=inputs,
                                      fuel=args.fuel,
                                      run=None if paths is None else (result, paths))
    if args.html:
        html_report(args, module, result, observer, estimates, argv, inputs)
    if args.profile:
        data = result.to_json()
        write_file(args.profile, json.dumps({"file": args.file, "function": args.function,
                                             "edges": data["edge_profile"],
                                             "blocks": data["block_profile"]}, indent=1) + "\n")
    if args.json:
        data = {"file": args.file, "function": args.function, **result.to_json(),
                "engine": getattr(result, "engine", "interp")}
        if observer is not None:
            data["reuse"] = observer.report([args.reuse])
        if estimates is not None:
            data["estimates"] = estimates
        sys.stdout.write(json.dumps(data) + "\n")
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(result.stdout_bytes)
        sys.stdout.buffer.flush()
        c = result.counts
        if c:  # empty when the run stopped before the first instruction (globals over the limit)
            print(f"instructions={c['instructions']} executed={c['executed']} "
                  f"nullified={c['nullified']} branches={c['branches_taken']} "
                  f"calls={c['calls']}", file=sys.stderr)
        if observer is not None:
            print(reuse_text(observer.report([args.reuse]), args.reuse), file=sys.stderr)
        if estimates is not None:
            print(estimate_text(estimates), file=sys.stderr)
    if result.error is not None:
        print(str(result.error), file=sys.stderr)
        return ERROR_STATUS
    return result.exit_status


def html_report(args, module, result, observer, estimates, argv, inputs) -> None:
    """``--html DIR``: the reuse report at every depth up to H and what each PRE pipeline
    captures of it (``analysis.reuse_capture``), the estimates, as DIR/run.json and its page."""
    from pylogic.report.html_run import write_run_report
    data = {"file": args.file, "function": args.function, "args": argv, "inputs": inputs,
            "command": " ".join(["pathlogic", "run", args.file]
                                + (["--function", args.function] if args.function != "main"
                                   else [])
                                + ([f"--args={args.args}"] if argv else [])
                                + ([f"--input={args.input}"] if inputs else [])
                                + ([f"--reuse {args.reuse}"] if args.reuse else [])
                                + (["--estimate"] if args.estimate else [])
                                + ["--html", args.html]),
            "counts": result.counts, "error": None if result.error is None else str(result.error)}
    if observer is not None:
        data["reuse"] = observer.report(range(1, args.reuse + 1))
        if result.error is None:
            from pylogic.analysis.reuse_capture import captured
            data["captured"] = captured(module, data["reuse"], entry=args.function, args=argv,
                                        inputs=inputs, fuel=args.fuel, base=result)
    if estimates is not None:
        data["estimates"] = estimates
    stats = write_run_report(data, args.html)
    print(f"html: {stats['charts']} charts -> {args.html}/index.html", file=sys.stderr)


def reuse_text(report: dict, h: int) -> str:
    """The ``--reuse`` report of one depth as text: a table of the scenarios, then the values."""
    from pylogic.report.table import format_table
    loads = report["loads"]

    def pct(n):
        return f"{n} ({100 * n / loads:.1f}%)" if loads else str(n)
    rows = [[scenario, variant, pct(r["redundant"]), r["from_loads"], r["from_stores"]]
            for scenario, by_variant in report["reuse"][str(h)].items()
            for variant, r in by_variant.items()]
    lines = [f"reuse h={h}: loads={loads} register_pressure="
             f"{report['register_pressure'][str(h)]}",
             format_table(["scenario", "variant", "redundant", "from_loads", "from_stores"], rows,
                          align="llrrr")]
    predicted = report.get("predicted_reuse", {}).get(str(h))
    if predicted:
        lines.append("redundant loads predicted: " + " ".join(
            f"{k}={v}" for k, v in predicted.items()))
        lines.append("loads predicted: " + " ".join(
            f"{k}={v}" for k, v in report["loads_predicted"].items()))
        lines.append("values same as previous: " + " ".join(
            f"{kind}={r['same_as_previous']}/{r['executed']}"
            for kind, r in report["values"].items()))
    return "\n".join(lines)


def estimate_text(report: dict) -> str:
    """The ``--estimate`` report as text: the exact reuse, then each estimator's bounds."""
    from pylogic.report.table import format_table
    removed = report.get("pre_removed")
    head = (f"estimate: exact reuse {report['exact']} (inside blocks {report['local']}); "
            + ("pre-mr removes " + str(sum(removed.values())) if removed is not None
               else "pre-mr not measured (its output cannot be counted or ran differently)"))
    rows = [[name, b["lower"], b["upper"],
             "-" if b["error"] is None else f"{100 * b['error']:.1f}%"]
            for name, b in report["estimators"].items()]
    loads = report["loads"]["CMPr"]     # PathFinder §8.3: what the analysis captures of loads
    return (head + "\n" + format_table(["estimator", "lower", "upper", "(U-L)/L"], rows,
                                       align="lrrr")
            + f"\nreusable loads (CMPr): {loads['lower']}..{loads['upper']}")
