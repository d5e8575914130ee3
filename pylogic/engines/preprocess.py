"""The part of the C preprocessor that Soufflé programs use for include guards:
``#ifndef NAME``, ``#ifdef NAME``, ``#else``, ``#endif`` and ``#define NAME`` (no value).

Soufflé runs its input through a C preprocessor, so a file included twice needs a guard; the
clingo engine evaluates the same guards here. Inactive and directive lines are blanked, so line
numbers in later error messages stay true. ``#include`` and anything else is left to the parser.
"""
from __future__ import annotations

import re

from pylogic.errors import DatalogError, SourceLoc

_DIRECTIVE = re.compile(r"^\s*#\s*(ifndef|ifdef|else|endif|define)\b\s*(.*?)\s*$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def apply_conditionals(text: str, macros: set[str], filename: str) -> str:
    """Evaluate guards against ``macros`` (updated by ``#define``) and blank what is inactive."""
    out = []
    stack: list[tuple[bool, bool, int]] = []  # (this branch active, enclosing active, line)
    active = True
    for lineno, line in enumerate(text.split("\n"), start=1):
        m = _DIRECTIVE.match(line)
        if not m:
            out.append(line if active else "")
            continue
        kind, arg = m.group(1), m.group(2)
        loc = SourceLoc(filename, lineno, line.index("#") + 1)
        if kind in ("ifndef", "ifdef", "define"):
            if not _NAME.match(arg or ""):
                what = "a macro value" if kind == "define" and arg else "a macro name"
                raise DatalogError(f"#{kind} needs exactly one macro name (got {arg!r}); "
                                   f"{what} is outside the supported subset", loc)
        if kind in ("ifndef", "ifdef"):
            cond = (arg not in macros) if kind == "ifndef" else (arg in macros)
            stack.append((cond, active, lineno))
            active = active and cond
        elif kind == "else":
            if not stack:
                raise DatalogError("#else without #ifdef/#ifndef", loc)
            cond, outer, start = stack.pop()
            stack.append((not cond, outer, start))
            active = outer and not cond
        elif kind == "endif":
            if not stack:
                raise DatalogError("#endif without #ifdef/#ifndef", loc)
            _, active, _ = stack.pop()
        elif active:  # define
            macros.add(arg)
        out.append("")
    if stack:
        raise DatalogError("unterminated #ifdef/#ifndef (missing #endif)",
                           SourceLoc(filename, stack[-1][2], 1))
    return "\n".join(out)
