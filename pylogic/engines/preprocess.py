"""The part of the C preprocessor that Soufflé programs use: include guards (``#ifndef NAME``,
``#ifdef NAME``, ``#else``, ``#endif``, ``#define NAME``) and object-like macros
(``#define NAME replacement``: later occurrences of the word NAME outside strings and comments
are replaced within their line, so line numbers stay true). Function-like macros are refused.

Soufflé runs its input through a C preprocessor, so a file included twice needs a guard; the
clingo engine evaluates the same guards here. Inactive and directive lines are blanked, so line
numbers in later error messages stay true. ``#include`` and anything else is left to the parser.
"""
from __future__ import annotations

import re

from pylogic.errors import DatalogError, SourceLoc

_DIRECTIVE = re.compile(r"^\s*#\s*(ifndef|ifdef|else|endif|define)\b\s*(.*?)\s*$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_DEFINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\s+(.*))?$")
_WORD_OR_SKIPPED = re.compile(r'"(?:\\.|[^"\\\n])*"|//[^\n]*|/\*.*?\*/|[A-Za-z_][A-Za-z0-9_]*',
                              re.S)


def _expand(line: str, macros: dict) -> str:
    """``line`` with object-like macros replaced (strings and comments left alone), rescanned
    as cpp does, a macro never expanding inside its own replacement."""
    def one(text: str, active: frozenset) -> str:
        def sub(m):
            word = m.group(0)
            if word in macros and macros[word] and word not in active:
                return one(macros[word], active | {word})
            return word
        return _WORD_OR_SKIPPED.sub(sub, text)
    return one(line, frozenset())


def apply_conditionals(text: str, macros: dict, filename: str) -> str:
    """Evaluate guards against ``macros`` (name -> replacement, updated by ``#define``), blank
    what is inactive and expand object-like macros in what is active."""
    out = []
    stack: list[tuple[bool, bool, int]] = []  # (this branch active, enclosing active, line)
    active = True
    for lineno, line in enumerate(text.split("\n"), start=1):
        m = _DIRECTIVE.match(line)
        if not m:
            if active and any(v for v in macros.values()):
                line = _expand(line, macros)
            out.append(line if active else "")
            continue
        kind, arg = m.group(1), m.group(2)
        loc = SourceLoc(filename, lineno, line.index("#") + 1)
        define = _DEFINE.match(arg or "") if kind == "define" else None
        if kind == "define" and define:
            if active:
                macros[define.group(1)] = (define.group(2) or "").strip()
            out.append("")
            continue
        if kind in ("ifndef", "ifdef", "define"):
            if not _NAME.match(arg or ""):
                what = "a function-like macro" if kind == "define" and arg else "a macro name"
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
        out.append("")
    if stack:
        raise DatalogError("unterminated #ifdef/#ifndef (missing #endif)",
                           SourceLoc(filename, stack[-1][2], 1))
    return "\n".join(out)
