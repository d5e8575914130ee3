"""``pathlogic validate FILE.c|FILE.ll``: differential validation of the front end.

Runs the original natively (clang-14 build for ``.c``, ``lli`` for ``.ll``, with a timeout) and
the imported PIR in the reference interpreter, then compares stdout and exit status
(``pylogic.interp.differential.native_vs_pir``).
Exit code: 0 identical, 1 different, 2 could not be run (no clang/lli, timeout, fuel or another
interpreter limit, main not imported, or a difference explained by skipped functions).
"""
from __future__ import annotations

import json

from pylogic.commands import positive_float, positive_int
from pylogic.errors import PathlogicError
from pylogic.interp.differential import NATIVE_FUEL, NATIVE_TIMEOUT, Validation, native_vs_pir, \
    run_native

__all__ = ["Validation", "run_native", "validate_program"]

DEFAULT_FUEL = NATIVE_FUEL
DEFAULT_TIMEOUT = NATIVE_TIMEOUT
#: The library call under its earlier name (tests and scripts call it).
validate_program = native_vs_pir


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "validate", help="run a .c/.ll program natively and imported (PIR interpreter); compare",
        description="Differential validation of the LLVM/C front end: exit 0 identical, "
                    "1 different, 2 could not be run or import incomplete.")
    p.add_argument("file", help="a .c or .ll program")
    p.add_argument("--fuel", type=positive_int, default=DEFAULT_FUEL, help="interpreter instruction budget")
    p.add_argument("--timeout", type=positive_float, default=DEFAULT_TIMEOUT, help="native run timeout (s)")
    p.add_argument("--args", nargs="*", default=[], type=int, help="arguments of main")
    p.add_argument("--input", nargs="*", default=[], type=int, help="values for PIR 'input'")
    p.add_argument("--json", action="store_true", help="print the outcome as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    if not (args.file.endswith(".c") or args.file.endswith(".ll")):
        raise PathlogicError(f"{args.file}: validate takes a .c or .ll file")
    # run_native is looked up here, at call time, so that a stand-in can replace it
    v = native_vs_pir(args.file, args.fuel, args.args, args.input, args.timeout,
                      native=run_native)
    if args.json:
        print(json.dumps(v.to_dict(), indent=2))
        return v.exit_code
    if v.status == "identical":
        print(f"{v.path}: identical (exit {v.native_exit}, {len(v.native_stdout.splitlines())} "
              f"output lines, {v.pir_instructions_executed} PIR instructions executed)")
    else:
        print(f"{v.path}: {v.status}: {v.detail}")
    for reason, names in sorted(v.skipped.items()):
        print(f"  skipped ({reason}): {', '.join(names)}")
    return v.exit_code
