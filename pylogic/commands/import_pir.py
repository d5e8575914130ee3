"""``pathlogic import FILE.c|FILE.ll [-o OUT.pir]``: the PIR a ``.c`` or ``.ll`` file imports to,
the module every other command works on (``.c`` is compiled by clang-14 first).

The PIR goes to stdout (or, all at once, to ``OUT.pir``); on stderr, one ``FILE: note: ...``
line per function or global the importer left out, with the reason, and a count. A ``.pir`` is
parsed and printed back. Exit status 0 when the module was imported (notes do not count), 1 for
a file that cannot be read, compiled or imported (located message).
"""
from __future__ import annotations

import sys
from pathlib import Path

from pylogic.commands import check_output_file, import_notes, write_file
from pylogic.errors import PathlogicError, SourceLoc


def add_parser(sub) -> None:
    p = sub.add_parser("import", help="print the PIR a .c or .ll file imports to",
                       description=__doc__)
    p.add_argument("file", metavar="FILE", help="a .c or .ll file (or .pir)")
    p.add_argument("-o", "--out", metavar="OUT.pir", help="write the PIR here instead of stdout")
    p.set_defaults(func=run)


def run(args) -> int:
    from pylogic.ir.load import load_program
    from pylogic.ir.printer import print_module
    out = check_output_file(args.out, "--out") if args.out else None   # before any work
    if not Path(args.file).is_file():
        raise PathlogicError("no such file" if not Path(args.file).exists() else "not a file",
                             SourceLoc(args.file))
    module, report = load_program(args.file)
    text = print_module(module)
    notes = import_notes(args.file, report)
    for note in notes:
        print(f"pathlogic: {note}", file=sys.stderr)
    if report is not None:
        t = report.totals()
        print(f"{args.file}: imported {t['functions_imported']} of {t['functions']} functions "
              f"({t['functions_skipped']} skipped"
              + (f", {len(report.globals_skipped)} globals skipped" if report.globals_skipped
                 else "") + ")", file=sys.stderr)
    if out is not None:
        write_file(out, text)
    else:
        sys.stdout.write(text)
    return 0
