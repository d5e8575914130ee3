"""``pathlogic export FILE --llvm -o OUT.ll``: a PIR program (``.pir``, ``.ll``/``.c`` imported
first; e.g. the output of ``pathlogic optimize --out``) as a standalone LLVM IR program that
clang compiles: ``clang-14 -mllvm -opaque-pointers -O2 OUT.ll -o prog``.

The code is the native engine's lowering of PIR (``pylogic/interp/native/compile.py``) linked
with a small run-time (``pylogic/interp/native/runtime.c``: the interpreter's segmented memory
and C library); ``prog ARGS...`` runs the entry with those integer arguments, ``input`` reads
integers from stdin, and the output and exit status are ``pathlogic run``'s (docs/commands/
export.md says what is kept exactly). Exit status 0 when written, 1 for a file that cannot be
read, imported or exported, or an unwritable ``-o`` (one ``pathlogic:`` line).
"""
from __future__ import annotations

from pylogic.commands import check_output_file, load_input, positive_int, write_file


def add_parser(sub) -> None:
    p = sub.add_parser("export", help="write a PIR program as LLVM IR that clang compiles",
                       description=__doc__)
    p.add_argument("file", metavar="FILE", help="the program (.pir, .ll or .c)")
    p.add_argument("--llvm", action="store_true", required=True,
                   help="LLVM IR (the one format there is)")
    p.add_argument("-o", "--out", metavar="OUT.ll", required=True, help="the LLVM IR file")
    p.add_argument("-f", "--function", default="main", help="the entry (default main or @main)")
    p.add_argument("--fuel", type=positive_int, default=None,
                   help="stop after this many PIR instructions, exactly where `pathlogic run "
                        "--fuel` stops (status 70; every instruction is counted, which is "
                        "slower); default: no limit")
    p.add_argument("--max-depth", type=positive_int, default=None,
                   help="maximum call depth (default: the interpreter's, 10000)")
    p.add_argument("--memory-limit", type=positive_int, default=None,
                   help="maximum live bytes (default: the interpreter's, 67108864)")
    p.set_defaults(func=run)


def run(args) -> int:
    from pylogic.interp.native.export import export_llvm
    out = check_output_file(args.out, "--out")     # before any work
    module = load_input(args.file, verify=True)
    text = export_llvm(module, entry=args.function, fuel=args.fuel, max_depth=args.max_depth,
                       memory_limit=args.memory_limit)
    write_file(out, text)
    return 0
