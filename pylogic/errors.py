"""User-facing errors: every one carries a location and is printed once, at the CLI edge."""
from __future__ import annotations

from dataclasses import dataclass


def printable_name(name: str) -> str:
    """A file name fit for one line of a message: control characters written C-style
    (``a\\tb.c``), as in the facts (``facts_gen.naming.escape_field``)."""
    if name.isprintable():
        return name
    return "".join(c if c.isprintable() else {"\t": "\\t", "\n": "\\n", "\r": "\\r"}.get(
        c, f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}") for c in name)


@dataclass(frozen=True)
class SourceLoc:
    """A position in an input file (1-based line and column; 0 = unknown)."""

    file: str = "<input>"
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        file = printable_name(self.file)
        if self.line and self.col:
            return f"{file}:{self.line}:{self.col}"
        if self.line:
            return f"{file}:{self.line}"
        return file


class PathlogicError(Exception):
    """An error a user can cause (bad input, bad option). Printed without a traceback."""

    kind = "error"

    def __init__(self, message: str, loc: SourceLoc | None = None):
        super().__init__(message)
        self.message = message
        self.loc = loc

    def __str__(self) -> str:
        prefix = f"{self.loc}: " if self.loc is not None else ""
        return f"{prefix}{self.kind}: {self.message}"


class ParseError(PathlogicError):
    kind = "parse error"


class ParseErrors(PathlogicError):
    """Several parse errors in one file. ``partial`` holds what did parse (functions intact)."""

    kind = "parse errors"

    def __init__(self, errors: list[ParseError], partial=None):
        self.errors = list(errors)
        self.partial = partial
        loc = self.errors[0].loc if self.errors else None
        super().__init__(f"{len(self.errors)} error(s)", loc)

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


class VerifyError(PathlogicError):
    kind = "verify error"


class RunError(PathlogicError):
    """A run-time error of the interpreted program (divide by zero, fuel, memory, unknown extern)."""

    kind = "run-time error"


class DatalogError(PathlogicError):
    kind = "datalog error"


class ImportError_(PathlogicError):
    """A front-end (LLVM / C) import failure."""

    kind = "import error"


def did_you_mean(word: str, known) -> str:
    """``"; did you mean 'idom'?"`` when a name in ``known`` is close to the misspelled ``word``
    (difflib's similarity), else "" (issue #30 item 11)."""
    import difflib
    close = difflib.get_close_matches(word, sorted(known), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""
