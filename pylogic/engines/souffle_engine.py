"""The Soufflé engine: the ``souffle`` binary on PATH, interpreted (``souffle -F facts -D out
prog.dl``) or compiled once per program text and cached under
``~/.cache/pathlogic/souffle/<sha256>/`` (DESIGN.md). The program has already been checked by our
front end, so Soufflé sees only the supported subset; its own errors are still mapped to located
DatalogErrors. Registered as "souffle"."""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from pylogic.engines.base import register
from pylogic.engines.csv_io import check_rows, read_facts, read_output, write_rows
from pylogic.engines.program import CheckedProgram
from pylogic.errors import DatalogError, SourceLoc

UNAVAILABLE = ("the souffle binary is not on PATH (Soufflé is in no package registry this "
               "machine reaches; build it from source)")
_LOCATED = re.compile(r"Error: (.*?) in file (\S+) at line (\d+)(?::(\d+))?")


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pathlogic" / "souffle"


def program_hash(checked: CheckedProgram) -> str:
    """sha256 of the main program text and every included file (in inclusion order)."""
    h = hashlib.sha256()
    for f in checked.files:
        h.update(f.encode() + b"\0" + Path(f).read_bytes() + b"\0")
    return h.hexdigest()


def souffle_error(stderr: str, checked: CheckedProgram) -> DatalogError:
    """The first located message of Soufflé's stderr as a DatalogError."""
    m = _LOCATED.search(stderr)
    if m:
        loc = SourceLoc(m.group(2), int(m.group(3)), int(m.group(4) or 0))
        return DatalogError(f"souffle: {m.group(1)}", loc)
    # not located: the first line that is not part of a warning (warnings come with the
    # offending source line and a caret line, which are skipped too)
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    useful = [ln for k, ln in enumerate(lines)
              if not ln.startswith("Warning:") and not (k and lines[k - 1].startswith("Warning:"))
              and not set(ln.strip()) <= set("-^")]
    first = (useful or lines or ["souffle failed"])[0]
    return DatalogError(f"souffle: {first.strip()}", SourceLoc(checked.main_file))


def include_flags(checked: CheckedProgram) -> list[str]:
    """Soufflé's ``--include-dir`` for each include directory the program was loaded with."""
    return [f"--include-dir={d}" for d in getattr(checked, "include_dirs", ())]


def _run(cmd: list[str], checked: CheckedProgram) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0 or "Error" in proc.stderr:
        raise souffle_error(proc.stderr or proc.stdout, checked)
    return proc


def compiled_binary(checked: CheckedProgram, souffle: str) -> Path:
    """Compile ``checked``'s program with ``souffle -o`` once; reuse the cached binary after."""
    target = cache_dir() / program_hash(checked)
    binary = target / "program"
    if binary.exists():
        return binary
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target) as tmp:
        tmp_binary = Path(tmp) / "program"
        _run([souffle, "-o", str(tmp_binary)] + include_flags(checked) + [checked.main_file],
             checked)
        os.replace(tmp_binary, binary)
    return binary


def _stage_facts(checked: CheckedProgram, facts_dir, facts: dict | None, staging: Path) -> None:
    """A facts directory for Soufflé: in-memory facts written out, existing files linked (after
    our own encoding/column/int32 check, so Soufflé never wraps a value, drops extra columns or
    reads bytes the embedded engine rejects: both engines refuse the same files, at the same
    line), missing files made empty."""
    facts = facts or {}
    for rel in facts:
        if rel not in checked.inputs:
            raise DatalogError(f"souffle engine: in-memory facts for '{rel}', which is not an "
                               ".input relation", SourceLoc(checked.main_file))
    for rel in checked.inputs:
        relation = checked.relations[rel]
        for k, params in enumerate(checked.input_directives(rel)):   # Soufflé reads each one
            name = params.get("filename", f"{rel}.facts")
            delim = params.get("delimiter", "\t")
            dest = staging / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            if dest.exists() or dest.is_symlink():              # two directives, one file
                continue
            if rel in facts:                # in memory: the whole relation, in the first file
                rows = check_rows(facts[rel], relation, f"facts[{rel!r}]") if k == 0 else []
                write_rows(dest, sorted(rows), delim)
                continue
            src = Path(facts_dir) / name if facts_dir is not None else None
            if src is not None and src.exists():
                read_facts(src, relation, delim)  # raises on a bad row
                os.symlink(src.resolve(), dest)
            else:
                dest.write_text("")


def run_souffle(checked: CheckedProgram, facts_dir, facts: dict | None, shown: list[str], *,
                compiled: bool = False, jobs: int | None = None) -> dict[str, list[tuple]]:
    """Evaluate with the ``souffle`` binary; return the sorted tuples of every ``.output``
    relation (``shown`` relations that are not outputs are not observable through Soufflé)."""
    souffle = shutil.which("souffle")
    if souffle is None:
        raise DatalogError(f"engine 'souffle' is not available: {UNAVAILABLE}")
    with tempfile.TemporaryDirectory(prefix="pathlogic-souffle-") as tmp:
        staging, out = Path(tmp) / "facts", Path(tmp) / "out"
        staging.mkdir()
        out.mkdir()
        _stage_facts(checked, facts_dir, facts, staging)
        opts = ["-F", str(staging), "-D", str(out)] + (["-j", str(jobs)] if jobs else [])
        if compiled:
            _run([str(compiled_binary(checked, souffle))] + opts, checked)
        else:
            _run([souffle] + opts + include_flags(checked) + [checked.main_file], checked)
        result = {}
        for rel in shown:
            params = checked.outputs.get(rel)
            if params is None or params.get("IO", "file") != "file":
                continue
            path = out / params.get("filename", f"{rel}.csv")
            result[rel] = sorted(read_output(path, checked.relations[rel],
                                             params.get("delimiter", "\t")))
    return result


class SouffleEngine:
    """The ``souffle`` binary on PATH (looked up once per value of PATH: "auto" asks at every
    engine call, each pass of a pipeline)."""

    name = "souffle"

    def __init__(self):
        self._found: dict = {}      # PATH -> whether souffle is on it

    def available(self) -> bool:
        path = os.environ.get("PATH")
        got = self._found.get(path)
        if got is None:
            got = self._found[path] = shutil.which("souffle") is not None
        return got

    def unavailable_reason(self) -> str:
        return "" if self.available() else UNAVAILABLE

    def run(self, program: CheckedProgram, facts_dir: str | Path | None,
            facts: dict[str, list[tuple]] | None, outputs: list[str], *,
            jobs: int | None = None, compiled: bool = False) -> dict[str, list[tuple]]:
        """The ``.output`` relations among ``outputs`` (others are not observable through
        Soufflé); ``jobs`` is ``-j``, ``compiled`` runs a cached ``souffle -o`` binary."""
        return run_souffle(program, facts_dir, facts, outputs, compiled=compiled, jobs=jobs)


register(SouffleEngine())
