"""One thin module per subcommand; shared argument types below (a bad value is a usage error
naming the option, never a traceback or a silently odd run)."""
from __future__ import annotations

import argparse

from pylogic.errors import printable_name


def _integer(text: str, minimum: int, rule: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"{rule}, not {value}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1 (``--jobs``, ``--fuel``, limits)."""
    return _integer(text, 1, "must be at least 1")


def nonnegative_int(text: str) -> int:
    """An integer >= 0."""
    return _integer(text, 0, "must not be negative")


def positive_float(text: str) -> float:
    """A number > 0 (timeouts, in seconds)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {text}")
    return value


# ---- programs and functions named on the command line -----------------------------------------

def import_notes(path, report) -> list[str]:
    """One ``FILE: note: ...`` line per function (or global) the LLVM importer left out, as
    ``analyze`` prints them; [] for a ``.pir`` (``report`` None)."""
    if report is None:
        return []
    return ([f"{printable_name(path)}: note: function {fn['name']} not imported: {fn['reason']}"
             for fn in report.skipped]
            + [f"{printable_name(path)}: note: global {g['name']} not imported: {g['reason']}"
               for g in report.globals_skipped])


def load_input(path: str, verify: bool = False):
    """The program ``path`` (``.pir``, ``.ll`` or ``.c``) for a one-file command, its import
    notes printed on stderr. Raises a located PathlogicError (missing file, parse or import
    error)."""
    import sys
    from pathlib import Path

    from pylogic.errors import PathlogicError, SourceLoc
    from pylogic.ir.load import load_program
    if not Path(path).is_file():
        raise PathlogicError("no such file" if not Path(path).exists() else "not a file",
                             SourceLoc(path))
    module, report = load_program(path, verify=verify)
    for note in import_notes(path, report):
        print(f"pathlogic: {note}", file=sys.stderr)
    return module


def only_function(facts: dict, wanted: str) -> tuple[dict, int]:
    """The facts restricted to the functions named ``wanted`` (in any file); the per-file
    relations (globals, externs) are kept. Returns ``(facts, how many functions matched)``."""
    from facts_gen.extract import restrict_facts
    from facts_gen.naming import names_function
    out = restrict_facts(facts, lambda fid: names_function(fid, wanted))
    return out, len(out.get("function", ()))


# ---- output files -------------------------------------------------------------------------------

def check_output_file(path: str, option: str):
    """``path`` as a Path, or a one-line error naming ``option`` when it cannot be written as a
    file (it is a directory, its directory is missing or is a file, or is not writable):
    checked before any work starts."""
    import os
    from pathlib import Path

    from pylogic.analysis.output import unwritable
    from pylogic.errors import PathlogicError
    out = Path(path)
    if out.is_dir():
        raise PathlogicError(f"{option} {path}: is a directory")
    parent = out.absolute().parent
    if not parent.is_dir():
        raise PathlogicError(f"{option} {path}: {parent} is not a directory"
                             if parent.exists() else f"{option} {path}: no directory {parent}")
    reason = unwritable(parent)      # tried, not read off the permission bits (root, /sys)
    if reason:
        raise PathlogicError(f"{option} {path}: cannot write in {parent}: {reason}")
    if out.exists() and not os.access(out, os.W_OK):
        raise PathlogicError(f"{option} {path}: not writable")
    return out


def write_file(path, text: str) -> None:
    """Write ``text`` to ``path`` all at once: a temporary file beside it renamed into place (an
    interrupted write leaves the previous file as it was)."""
    import os
    from pathlib import Path

    from pylogic.errors import PathlogicError
    path = Path(path)
    tmp = path.absolute().parent / f".{path.name}.partial-{os.getpid()}"
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):   # e.g. the disk filled up after the early check
            raise PathlogicError(f"{path}: cannot write: {exc.strerror or exc}") from None
        raise
