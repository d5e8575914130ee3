"""``pathlogic validate FILE.c|FILE.ll``: differential validation of the front end.

Runs the original natively (clang-14 build for ``.c``, ``lli`` for ``.ll``, with a timeout, empty
standard input) and the imported PIR in the reference interpreter, then compares stdout and exit
status (``pylogic.interp.differential.native_vs_pir``). Both runs get the same ``argc``/``argv``
(``--args`` are ``argv[1:]``; ``argv[0]`` is FILE as given).
Exit status (the same for ``if-convert --validate`` and ``optimize --validate``): 0 identical,
1 different, 2 could not be checked (no clang/lli, the program does not build or import, no
``main``, an external the interpreter does not have such as ``scanf`` or ``setjmp``, a timeout,
fuel or another interpreter limit, both runs stopped on an error, or a difference explained by
functions skipped at import).
"""
from __future__ import annotations

import json
import shlex

from pylogic.commands import positive_float, positive_int
from pylogic.errors import PathlogicError
from pylogic.interp.native import ENGINES
from pylogic.interp.differential import EXIT_HELP, EXIT_NOT_CHECKED, IDENTICAL, NATIVE_FUEL, \
    NATIVE_TIMEOUT, Validation, native_vs_pir, run_native

__all__ = ["Validation", "run_native", "validate_program"]

DEFAULT_FUEL = NATIVE_FUEL
DEFAULT_TIMEOUT = NATIVE_TIMEOUT
#: The library call under its earlier name (tests and scripts call it).
validate_program = native_vs_pir


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "validate", help="run a .c/.ll program natively and imported (PIR interpreter); compare",
        description="Differential validation of the LLVM/C front end: the program built by "
                    "clang-14 (or run by lli) against its imported PIR in the interpreter, with "
                    "the same argc/argv; " + EXIT_HELP + ".")
    p.add_argument("file", help="a .c or .ll program")
    p.add_argument("--fuel", type=positive_int, default=DEFAULT_FUEL, help="interpreter instruction budget")
    p.add_argument("--timeout", type=positive_float, default=DEFAULT_TIMEOUT, help="native run timeout (s)")
    p.add_argument("--args", nargs="*", default=[], metavar="ARG",
                   help="command-line arguments of the program (argv[1:]; argv[0] is FILE)")
    p.add_argument("--input", nargs="*", default=[], type=int, help="values for PIR 'input'")
    p.add_argument("--ldflags", action="append", default=[], metavar="FLAGS",
                   help="link flags of the native build, e.g. --ldflags='-lz -lm' (repeatable; "
                        "a single flag starting with '-' needs the '=' form: --ldflags=-lz)")
    p.add_argument("--json", action="store_true", help="print the outcome as JSON")
    p.add_argument("--engine", choices=ENGINES, default="auto",
                   help="how the imported PIR runs: interp, native (llvmlite) or auto (the "
                        "interpreter for short runs, native code past 1M instructions; "
                        "default); the same result on all")
    p.set_defaults(func=run)


def link_flags(values) -> tuple[str, ...]:
    """``["-lz -lm", "-L/opt/lib"]`` -> ``("-lz", "-lm", "-L/opt/lib")`` (shell-like split)."""
    flags = []
    for value in values:
        try:
            flags.extend(shlex.split(value))
        except ValueError as exc:
            raise PathlogicError(f"--ldflags {value!r}: {exc}") from None
    return tuple(flags)


def run(args) -> int:
    try:
        if not (args.file.endswith(".c") or args.file.endswith(".ll")):
            raise PathlogicError(f"{args.file}: validate takes a .c or .ll file")
        ldflags = link_flags(args.ldflags)
    except PathlogicError as exc:
        exc.exit_status = EXIT_NOT_CHECKED   # nothing was run: could not be checked
        raise
    # run_native is looked up here, at call time, so that a stand-in can replace it
    v = native_vs_pir(args.file, args.fuel, args.args, args.input, args.timeout,
                      native=run_native, ldflags=ldflags, engine=args.engine)
    if args.json:
        print(json.dumps(v.to_dict(), indent=2))
        return v.exit_code
    if v.status == IDENTICAL:
        print(f"{v.path}: identical (exit {v.native_exit}, {len(v.native_stdout.splitlines())} "
              f"output lines, {v.pir_instructions_executed} PIR instructions executed)")
    elif v.status == "different":
        print(f"{v.path}: different: {v.detail}")
    else:
        print(f"{v.path}: could not be checked ({v.status}): {v.detail}")
    for reason, names in sorted(v.skipped.items()):
        print(f"  skipped ({reason}): {', '.join(names)}")
    return v.exit_code
