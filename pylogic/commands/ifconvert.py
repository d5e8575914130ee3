"""``pathlogic if-convert FILE``: hyperblock formation, the registry's ``if-convert`` pass
(``pylogic.transforms.ifconvert``) run by ``analysis.passes.run_pass``.

Writes the if-converted module to ``--out`` (or stdout) and prints the record (regions converted,
instructions predicated, defines inserted, blocks not merged and why). With ``--validate`` it runs
the original and the converted program on each ``--inputs`` list and compares their observable
behaviour (output, return value, run-time error; ``pylogic.interp.differential``): exit 0
identical (every run completed normally on both sides and agreed), 1 different, 2 could not be
checked (a run ran out of fuel or hit another interpreter limit, both runs stopped on the same
run-time error -- a division by zero, input exhausted because ``--inputs`` is missing or short --,
or FILE could not be read or converted). Never ``identical`` for a run that did not complete.
"""
from __future__ import annotations

import json
import sys

from pylogic.commands import check_output_file, positive_int, write_file
from pylogic.commands.run import parse_int_list
from pylogic.engines import engine_choices
from pylogic.errors import PathlogicError
from pylogic.interp.differential import (DIFFERENT, EXIT_HELP, EXIT_NOT_CHECKED, IDENTICAL,
                                         compare_modules)

DEFAULT_FUEL = 10_000_000


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "if-convert", help="if-convert a program into hyperblocks (IMPACT-style)",
        description="Form hyperblocks by if-conversion (predicated_cp.md §3.2). The record goes "
                    "to stdout when --out is given, else to stderr (the module to stdout). "
                    "With --validate (one run per --inputs list): " + EXIT_HELP + ".")
    p.add_argument("file", metavar="FILE", help="a .pir program (or .ll/.c through the importer)")
    p.add_argument("--out", "-o", metavar="OUT.pir", help="write the converted module here")
    p.add_argument("--max-blocks", type=positive_int, default=16, metavar="N",
                   help="largest region in blocks (default 16)")
    p.add_argument("--max-instrs", type=positive_int, default=128, metavar="N",
                   help="largest region in original instructions (default 128)")
    calls = p.add_mutually_exclusive_group()
    calls.add_argument("--allow-calls", dest="allow_calls", action="store_true", default=False,
                       help="merge blocks containing calls (they run under a predicate)")
    calls.add_argument("--no-calls", dest="allow_calls", action="store_false",
                       help="never merge blocks containing calls (the default)")
    memory = p.add_mutually_exclusive_group()
    memory.add_argument("--allow-memory", dest="allow_memory", action="store_true", default=True,
                        help="merge blocks with load/store/alloca (the default)")
    memory.add_argument("--no-memory", dest="allow_memory", action="store_false",
                        help="never merge blocks with load/store/alloca")
    p.add_argument("--function", "-f", action="append", metavar="F",
                   help="convert only this function (repeatable; default all)")
    p.add_argument("--engine", default="auto", choices=engine_choices(),
                   help="Datalog engine computing the rows the pass reads (default auto)")
    p.add_argument("--validate", action="store_true",
                   help="run original and converted programs and compare their behaviour")
    p.add_argument("--inputs", action="append", metavar="V,V,...",
                   help="input values for one validation run (repeatable: one run each)")
    p.add_argument("--args", default="", metavar="A,B,...",
                   help="arguments of the entry function in validation runs")
    p.add_argument("--entry", default="main", help="function validation runs start at")
    p.add_argument("--fuel", type=positive_int, default=DEFAULT_FUEL,
                   help=f"instruction budget of each validation run (default {DEFAULT_FUEL})")
    p.add_argument("--json", action="store_true", help="print the record (and validation) as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    from pylogic.analysis.passes import run_pass
    from pylogic.ir.load import load_program
    from pylogic.ir.printer import print_module
    from pylogic.ir.verify import check_module
    out = check_output_file(args.out, "--out") if args.out else None   # before any work
    try:
        module, _report = load_program(args.file)
        new, record = run_pass("if-convert", module, engine=args.engine,
                               max_blocks=args.max_blocks, max_instrs=args.max_instrs,
                               allow_calls=args.allow_calls, allow_memory=args.allow_memory,
                               functions=args.function)
        check_module(new)  # a transform bug, if any, shows as a located verify error
    except PathlogicError as exc:
        if args.validate:
            exc.exit_status = EXIT_NOT_CHECKED  # nothing was run: could not be checked
        raise
    text = print_module(new)
    if out is not None:
        try:
            write_file(out, text)                  # all at once: never a truncated module
        except OSError as exc:
            raise PathlogicError(f"{args.out}: cannot write: {exc.strerror}") from None
        report = sys.stdout
    else:
        sys.stdout.write(text)
        report = sys.stderr
    check = None
    if args.validate:
        argv = parse_int_list(args.args, "--args")
        cases = [(argv, parse_int_list(spec, "--inputs")) for spec in args.inputs or [""]]
        check = compare_modules(module, new, cases, entry=args.entry, fuel=args.fuel)
    status = 0 if check is None else check.exit_code
    if args.json:
        data = record.to_json()
        if check is not None:
            data["validation"] = check.to_json()
            data["validation_verdict"] = {"verdict": check.verdict, "reason": check.reason,
                                          "exit_status": check.exit_code}
        print(json.dumps(data, indent=1), file=report)
        return status
    print(record.summary(), file=report)
    for c in check.comparisons if check is not None else ():
        b, a = c.counts("before"), c.counts("after")
        verdict = {IDENTICAL: "identical", DIFFERENT: "DIFFERENT"}.get(
            c.verdict, f"{c.verdict}: {c.detail}")
        print(f"validate --inputs {','.join(map(str, c.inputs))}: {verdict} "
              f"(branches {b['branches_taken']} -> {a['branches_taken']}, instructions "
              f"{b['instructions']} -> {a['instructions']}, nullified {a['nullified']})",
              file=report)
        if c.verdict == DIFFERENT:
            print(f"  first difference: {c.detail}", file=report)
            for side in ("before", "after"):
                res = getattr(c, side)
                error = None if res.error is None else str(res.error)
                print(f"  {side + ':':7} return {res.return_value}, error {error}, "
                      f"output {res.stdout!r}", file=report)
    if check is not None and check.verdict != IDENTICAL:  # why the exit status is not 0
        word = "DIFFERENT" if check.verdict == DIFFERENT else "could not be checked"
        print(f"validation: {word}: {check.reason} (exit {check.exit_code})", file=report)
    return status
