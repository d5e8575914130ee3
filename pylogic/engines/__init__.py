"""Datalog engines for the Soufflé dialect (DESIGN.md "Datalog: one dialect, two engines").

    rows = run_program("datalog/dominance.dl", "out/facts", engine="auto")
    rows["idom"]  # sorted list of tuples: int for number columns, str for symbol columns

``engine`` is "clingo" (embedded, always available), "souffle" (the binary on PATH) or "auto"
(souffle if on PATH, else clingo). Every error a user can cause is a located DatalogError.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from pylogic.engines.csv_io import check_rows, read_facts, write_rows
from pylogic.engines.semantics import CheckedProgram, load_program
from pylogic.errors import DatalogError, SourceLoc

#: The engines' error type (an alias: every engine error is a DatalogError).
EngineError = DatalogError

ENGINES = ("clingo", "souffle")

__all__ = ["run_program", "run_checked", "load_program_cached", "available_engines", "resolve_engine", "EngineError",
           "load_program", "CheckedProgram", "load_inputs"]


def available_engines() -> list[str]:
    """The engines usable on this machine, in preference order for "auto"."""
    found = ["clingo"]
    if shutil.which("souffle"):
        found.insert(0, "souffle")
    return found


def resolve_engine(engine: str = "auto") -> str:
    """Map "auto" to a concrete engine; reject unknown or unavailable engines."""
    if engine == "auto":
        return available_engines()[0]
    if engine not in ENGINES:
        raise DatalogError(f"unknown engine '{engine}' (choose from auto, {', '.join(ENGINES)})")
    if engine not in available_engines():
        raise DatalogError(f"engine '{engine}' is not available: the `souffle` binary is not on "
                           "PATH (Soufflé is in no package registry this machine reaches)")
    return engine


def input_path(checked: CheckedProgram, rel: str, facts_dir: str | Path) -> Path:
    """Where Soufflé's ``-F facts_dir`` would read relation ``rel`` from."""
    params = checked.inputs.get(rel, {})
    return Path(facts_dir) / params.get("filename", f"{rel}.facts")


def load_inputs(checked: CheckedProgram, facts_dir, facts: dict | None,
                needed: set[str] | None = None) -> dict[str, list[tuple]]:
    """Every ``.input`` relation's tuples (from ``facts`` if given there, else from its file in
    ``facts_dir``; missing file = empty), plus ``facts`` for other declared relations. With
    ``needed``, relations outside it are neither read nor checked (the outputs do not use them)."""
    facts = dict(facts or {})
    for rel in facts:
        if rel not in checked.relations:
            raise DatalogError(f"in-memory facts for undeclared relation '{rel}'",
                               SourceLoc(checked.main_file))
    out = {}
    for rel, params in checked.inputs.items():
        if rel in facts or (needed is not None and rel not in needed):
            continue
        if facts_dir is None:
            out[rel] = []
            continue
        out[rel] = read_facts(input_path(checked, rel, facts_dir), checked.relations[rel],
                              params.get("delimiter", "\t"))
    for rel, rows in facts.items():
        if needed is not None and rel not in needed:
            continue
        out[rel] = check_rows(rows, checked.relations[rel], f"facts[{rel!r}]")
    return out


def run_checked(checked: CheckedProgram, facts_dir=None, engine: str = "auto",
                facts: dict | None = None, output_dir=None, *, compiled: bool = False,
                jobs: int | None = None, extra: list[str] | None = None,
                only: list[str] | None = None) -> dict[str, list[tuple]]:
    """``run_program`` for an already loaded program. ``extra`` names non-output relations to
    return as well (e.g. ``.printsize`` ones); ``only`` restricts the result to these output
    relations (on clingo, what they do not depend on is not evaluated)."""
    engine = resolve_engine(engine)
    shown = list(checked.outputs) + [r for r in (extra or []) if r not in checked.outputs]
    if only is not None:
        unknown = [r for r in only if r not in shown]
        if unknown:
            raise DatalogError(f"not an output relation of the program: {', '.join(unknown)}",
                               SourceLoc(checked.main_file))
        shown = [r for r in shown if r in only]
    if engine == "clingo":
        from pylogic.engines.clingo_engine import run_clingo

        from pylogic.engines.relevance import needed_relations

        needed = needed_relations(checked, shown)
        result = run_clingo(checked, load_inputs(checked, facts_dir, facts, needed), shown)
    else:
        from pylogic.engines.souffle_engine import run_souffle

        result = run_souffle(checked, facts_dir, facts, shown, compiled=compiled, jobs=jobs)
    if output_dir is not None:
        write_outputs(checked, result, output_dir)
    return result


def write_outputs(checked: CheckedProgram, result: dict, output_dir) -> None:
    """Write ``NAME.csv`` (or the ``filename=`` of its ``.output``) per output relation."""
    for rel, params in checked.outputs.items():
        if params.get("IO", "file") != "file":
            continue
        write_rows(Path(output_dir) / params.get("filename", f"{rel}.csv"), result[rel],
                   params.get("delimiter", "\t"))


def run_program(program_path: str | Path, facts_dir: str | Path | None = None,
                engine: str = "auto", facts: dict[str, list[tuple]] | None = None,
                output_dir=None, **options) -> dict[str, list[tuple]]:
    """Run a Soufflé-dialect program and return ``{output relation: sorted tuples}``.

    Parameters: ``facts_dir`` holds ``NAME.facts`` per ``.input`` relation (missing = empty);
    ``facts`` gives in-memory tuples that override or add relations; ``output_dir`` receives one
    Soufflé-format ``NAME.csv`` per ``.output`` relation. Options for souffle: ``compiled``,
    ``jobs``. Raises DatalogError (located) for bad programs and bad facts files.
    """
    checked = load_program_cached(program_path)
    return run_checked(checked, facts_dir, engine, facts, output_dir, **options)


_LOADED: dict[str, tuple[tuple, CheckedProgram]] = {}


def load_program_cached(program_path) -> CheckedProgram:
    """``load_program``, reused while the program and every file it includes are unchanged
    (parsing and checking cost more than a small evaluation; callers run one program often)."""
    key = str(Path(program_path).resolve())
    hit = _LOADED.get(key)
    if hit is not None:
        stamps, checked = hit
        if stamps == _stamps(checked.files):
            return checked
    checked = load_program(program_path)
    _LOADED[key] = (_stamps(checked.files), checked)
    return checked


def _stamps(files) -> tuple:
    out = []
    for f in files:
        try:
            st = Path(f).stat()
            out.append((f, st.st_mtime_ns, st.st_size))
        except OSError:
            out.append((f, None, None))
    return tuple(out)
