"""``pathlogic if-convert FILE``: hyperblock formation (pylogic.transforms.if_conversion).

Writes the if-converted module to ``--out`` (or stdout) and prints the record (regions converted,
instructions predicated, defines inserted, blocks not merged and why). With ``--validate`` it runs
the original and the converted program on each ``--inputs`` list and compares their observable
behaviour (output, return value, run-time error): exit 0 identical, 1 different.
"""
from __future__ import annotations

import json
import sys

from pylogic.errors import PathlogicError

DEFAULT_FUEL = 10_000_000


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "if-convert", help="if-convert a program into hyperblocks (IMPACT-style)",
        description="Form hyperblocks by if-conversion (predicated_cp.md §3.2). The record goes "
                    "to stdout when --out is given, else to stderr (the module to stdout). "
                    "With --validate: exit 0 if both programs behave identically, 1 if not.")
    p.add_argument("file", metavar="FILE", help="a .pir program (or .ll/.c through the importer)")
    p.add_argument("--out", "-o", metavar="OUT.pir", help="write the converted module here")
    p.add_argument("--max-blocks", type=int, default=16, metavar="N",
                   help="largest region in blocks (default 16)")
    p.add_argument("--max-instrs", type=int, default=128, metavar="N",
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
    p.add_argument("--validate", action="store_true",
                   help="run original and converted programs and compare their behaviour")
    p.add_argument("--inputs", action="append", metavar="V,V,...",
                   help="input values for one validation run (repeatable: one run each)")
    p.add_argument("--args", default="", metavar="A,B,...",
                   help="arguments of the entry function in validation runs")
    p.add_argument("--entry", default="main", help="function validation runs start at")
    p.add_argument("--fuel", type=int, default=DEFAULT_FUEL,
                   help=f"instruction budget of each validation run (default {DEFAULT_FUEL})")
    p.add_argument("--json", action="store_true", help="print the record (and validation) as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    from pylogic.commands.run import parse_int_list
    from pylogic.interp import run_module
    from pylogic.ir.load import load_program
    from pylogic.ir.printer import print_module
    from pylogic.ir.verify import check_module
    from pylogic.transforms.if_conversion import if_convert

    module, _report = load_program(args.file)
    new, record = if_convert(module, max_blocks=args.max_blocks, max_instrs=args.max_instrs,
                             allow_calls=args.allow_calls, allow_memory=args.allow_memory,
                             functions=args.function)
    check_module(new)  # a transform bug, if any, shows as a located verify error
    text = print_module(new)
    if args.out:
        try:
            with open(args.out, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise PathlogicError(f"{args.out}: cannot write: {exc.strerror}") from None
        report = sys.stdout
    else:
        sys.stdout.write(text)
        report = sys.stderr
    runs, status = [], 0
    if args.validate:
        argv = parse_int_list(args.args, "--args")
        for spec in args.inputs or [""]:
            inputs = parse_int_list(spec, "--inputs")
            before = run_module(module, entry=args.entry, args=argv, inputs=inputs, fuel=args.fuel)
            after = run_module(new, entry=args.entry, args=argv, inputs=inputs, fuel=args.fuel)
            same = before.observable() == after.observable()
            status = status or (0 if same else 1)
            runs.append({"inputs": inputs, "identical": same,
                         "before": _counts(before), "after": _counts(after),
                         "stdout_before": before.stdout, "stdout_after": after.stdout,
                         "return_before": before.return_value, "return_after": after.return_value,
                         "error_before": None if before.error is None else str(before.error),
                         "error_after": None if after.error is None else str(after.error)})
    if args.json:
        data = record.to_json()
        if args.validate:
            data["validation"] = runs
        print(json.dumps(data, indent=1), file=report)
        return status
    print(record.summary(), file=report)
    for r in runs:
        b, a = r["before"], r["after"]
        verdict = "identical" if r["identical"] else "DIFFERENT"
        print(f"validate --inputs {','.join(map(str, r['inputs']))}: {verdict} "
              f"(branches {b['branches_taken']} -> {a['branches_taken']}, instructions "
              f"{b['instructions']} -> {a['instructions']}, nullified {a['nullified']})",
              file=report)
        if not r["identical"]:
            print(f"  before: return {r['return_before']}, error {r['error_before']}, "
                  f"output {r['stdout_before']!r}", file=report)
            print(f"  after:  return {r['return_after']}, error {r['error_after']}, "
                  f"output {r['stdout_after']!r}", file=report)
    return status


def _counts(res) -> dict:
    return {k: res.counts.get(k, 0) for k in ("instructions", "executed", "nullified",
                                              "branches_taken", "calls")}
