"""``pathlogic check FILE...``: parse and verify PIR files, report every located error.

Each file is reported on its own (``FILE: ok (N functions, M blocks, K instructions)`` on stdout,
or each error as ``file:line:col: kind: message`` on stderr) and a bad file never stops the
others. Exit status 0 only when every file is clean, 1 otherwise.
"""
from __future__ import annotations

import os
import sys

from pylogic.errors import ParseErrors, PathlogicError
from pylogic.ir.model import Module
from pylogic.ir.parser import parse_file
from pylogic.ir.verify import verify_module


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "check", help="parse and verify .pir files",
        description="Parse and verify PIR files (IR.md); print every error with file:line:col.")
    p.add_argument("files", nargs="+", metavar="FILE", help=".pir files to check")
    p.add_argument("-r", "--recursive", action="store_true",
                   help="check the .pir files found under each directory argument")
    p.set_defaults(func=run)


def _expand(paths: list[str], recursive: bool) -> list[str]:
    out = []
    for path in paths:
        if recursive and os.path.isdir(path):
            found = sorted(os.path.join(root, name)
                           for root, _, names in os.walk(path)
                           for name in names if name.endswith(".pir"))
            out.extend(found if found else [path])
        else:
            out.append(path)
    return out


def check_file(path: str) -> tuple[Module | None, list[PathlogicError]]:
    """Parse and verify one file: ``(module, errors)``; errors are the parse errors (module
    None) or else the verification errors, [] when clean."""
    if os.path.isdir(path):
        return None, [PathlogicError(f"'{path}' is a directory (use -r to check the .pir "
                                     f"files under it)")]
    try:
        module = parse_file(path)
    except ParseErrors as exc:
        return None, list(exc.errors)
    except PathlogicError as exc:
        return None, [exc]
    return module, list(verify_module(module))


def _summary(path: str, module: Module) -> str:
    blocks = sum(len(f.blocks) for f in module.functions)
    instrs = sum(len(b.instrs) for f in module.functions for b in f.blocks)
    return (f"{path}: ok ({len(module.functions)} functions, {blocks} blocks, "
            f"{instrs} instructions)")


def run(args) -> int:
    """Check each file; return 0 when all are clean, else 1."""
    status = 0
    for path in _expand(args.files, args.recursive):
        module, errors = check_file(path)
        if errors:
            status = 1
            for err in errors:
                text = str(err) if err.loc is not None else f"{path}: {err}"
                print(text, file=sys.stderr)
            print(f"{path}: {len(errors)} error(s)", file=sys.stderr)
        else:
            print(_summary(path, module))
    return status
