"""``pathlogic check FILE...``: parse and verify programs (``.pir``; ``.ll`` and ``.c`` are
imported first), report every located error.

Each file is reported on its own (``FILE: ok (N functions, M blocks, K instructions)`` on stdout,
or each error as ``file:line:col: kind: message`` on stderr; the functions the LLVM importer left
out as ``FILE: note: ...`` on stderr) and a bad file never stops the others. With ``--function
NAME`` only that function is verified and counted (errors outside any function still count); a
file without it is reported as skipped, and it is an error when no file has it. Exit status 0
only when every file is clean, 1 otherwise.
"""
from __future__ import annotations

from pylogic.report.words import count_of

import os
import sys
from typing import TYPE_CHECKING

from pylogic.commands import import_notes, positive_int
from pylogic.errors import ParseErrors, PathlogicError, printable_name
from pylogic.report.docs import doc_path

if TYPE_CHECKING:
    from pylogic.ir.model import Module


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "check", help="parse and verify programs (.pir, .ll, .c)",
        description=f"Parse and verify PIR files ({doc_path('pir.md')}; .ll and .c files are "
                    "imported first); print every error with file:line:col.")
    p.add_argument("files", nargs="+", metavar="FILE", help=".pir, .ll or .c files to check")
    p.add_argument("-r", "--recursive", action="store_true",
                   help="check the .pir/.ll/.c files found under each directory argument")
    p.add_argument("--function", metavar="NAME", help="verify only the function NAME")
    p.add_argument("--jobs", type=positive_int, default=1,
                   help="worker processes (files are checked in parallel, reported in order)")
    p.set_defaults(func=run)


def _expand(paths: list[str], recursive: bool) -> list[str]:
    from pylogic.ir.load import INPUT_SUFFIXES
    out = []
    for path in paths:
        if recursive and os.path.isdir(path):
            found = sorted(os.path.join(root, name)
                           for root, _, names in os.walk(path)
                           for name in names if name.endswith(INPUT_SUFFIXES))
            out.extend(found if found else [path])
        else:
            out.append(path)
    return out


def check_file(path: str) -> tuple[Module | None, list[PathlogicError], list[str]]:
    """Parse and verify one file: ``(module, errors, notes)``; errors are the parse errors
    (module None) or else the verification errors, [] when clean; notes name the functions
    the LLVM importer left out."""
    from pylogic.ir.load import load_program
    from pylogic.ir.verify import verify_module
    if os.path.isdir(path):
        return None, [PathlogicError(f"'{path}' is a directory (use -r to check the .pir, "
                                     f".ll and .c files under it)")], []
    try:
        module, report = load_program(path, verify=False)
    except ParseErrors as exc:
        return None, list(exc.errors), []
    except PathlogicError as exc:
        return None, [exc], []
    return module, list(verify_module(module)), import_notes(path, report)


def _summary(path: str, module: Module, function: str | None = None) -> str:
    from facts_gen.naming import same_function
    fns = [f for f in module.functions if function is None or same_function(f.name, function)]
    blocks = sum(len(f.blocks) for f in fns)
    instrs = sum(len(b.instrs) for f in fns for b in f.blocks)
    what = f"function {fns[0].name}" if function is not None else count_of(len(fns), "functions")
    return (f"{printable_name(path)}: ok ({what}, {count_of(blocks, 'blocks')}, "
            f"{count_of(instrs, 'instructions')})")


def _defines(module: Module | None, function: str) -> bool:
    from facts_gen.naming import same_function
    return module is not None and any(same_function(f.name, function)
                                      for f in module.defined_functions())


def run(args) -> int:
    """Check each file; return 0 when all are clean, else 1."""
    from facts_gen.naming import same_function
    status, found = 0, False
    paths = _expand(args.files, args.recursive)
    if args.jobs > 1 and len(paths) > 1:
        from concurrent.futures import ProcessPoolExecutor
        with ProcessPoolExecutor(max_workers=min(args.jobs, len(paths))) as pool:
            checked = list(pool.map(check_file, paths))
    else:
        checked = map(check_file, paths)
    for path, (module, errors, notes) in zip(paths, checked):
        for note in notes:
            print(note, file=sys.stderr)
        if args.function is not None and module is not None:
            if not _defines(module, args.function):
                print(f"{printable_name(path)}: skipped (no function {args.function})")
                continue
            found = True
            errors = [e for e in errors if getattr(e, "function", None) is None
                      or same_function(e.function, args.function)]
        if errors:
            status = 1
            for err in errors:
                text = str(err) if err.loc is not None else f"{printable_name(path)}: {err}"
                print(text, file=sys.stderr)
            print(f"{printable_name(path)}: {len(errors)} error(s)", file=sys.stderr)
        else:
            print(_summary(path, module, args.function))
    if args.function is not None and not found and status == 0:
        print(f"pathlogic: no function {args.function} in {', '.join(paths)}", file=sys.stderr)
        status = 1
    return status
