"""Running a program on an engine chosen by name: facts in, sorted tuples (and ``.csv`` files) out.

Example
-------
>>> rows = run_program("datalog/dominance.dl", "out/facts", engine="auto")   # doctest: +SKIP
>>> rows["idom"][:1]                                                         # doctest: +SKIP
[('a.pir::@f', 'entry', 'b1')]
"""
from __future__ import annotations

from pathlib import Path

from pylogic.engines.base import AUTO, engine as registered_engine, resolve_engine
from pylogic.engines.csv_io import check_rows, read_facts, write_rows
from pylogic.engines.program import CheckedProgram, load_program_cached
from pylogic.engines.relevance import needed_relations
from pylogic.errors import DatalogError, SourceLoc

__all__ = ["run_program", "run_checked", "write_outputs", "load_inputs", "input_path",
           "check_input_files", "engine_for"]


def input_path(checked: CheckedProgram, rel: str, facts_dir: str | Path) -> Path:
    """Where Soufflé's ``-F facts_dir`` would read relation ``rel`` from (its first ``.input``)."""
    params = checked.inputs.get(rel, {})
    return Path(facts_dir) / params.get("filename", f"{rel}.facts")


def check_input_files(checked: CheckedProgram, facts_dir: str | Path,
                      missing_ok: bool = False, skip=()) -> None:
    """Check, before a run, the file of every ``.input`` relation (those in ``skip`` aside).

    Raises
    ------
    DatalogError
        Located at the ``.input`` directive, naming the file: it is not a regular file (a
        directory or a device, which could never be read to its end); or, unless
        ``missing_ok``, it does not exist (by default a missing file reads as empty, as in
        Soufflé); the error's ``missing`` is then the relation.
    """
    for rel in checked.inputs:
        if rel in skip:
            continue
        for params in checked.input_directives(rel):
            path = Path(facts_dir) / params.get("filename", f"{rel}.facts")
            loc = params.get("loc") or SourceLoc(checked.main_file)
            if path.is_file():
                continue
            if path.exists():
                raise DatalogError(f".input {rel}: {path} is not a regular file", loc)
            if not missing_ok:
                error = DatalogError(f".input {rel}: facts file {path} does not exist", loc)
                error.missing = rel            # for a caller's advice on where the facts come from
                raise error


def load_inputs(checked: CheckedProgram, facts_dir: str | Path | None,
                facts: dict[str, list[tuple]] | None,
                needed: set[str] | None = None) -> dict[str, list[tuple]]:
    """The input tuples of a run, read and checked against the declarations.

    Parameters
    ----------
    checked : CheckedProgram
    facts_dir : path or None
        One file per ``.input`` relation; a missing file (or no directory) is an empty relation.
    facts : dict or None
        In-memory tuples per declared relation; they replace that relation's file.
    needed : set of str, optional
        If given, relations outside it are neither read nor checked (the outputs do not use them).

    Returns
    -------
    dict
        Relation -> tuples, for every ``.input`` relation and every relation of ``facts``.

    Raises
    ------
    DatalogError
        For facts of an undeclared relation, or a row of the wrong arity, type or range
        (located at the facts file's line).
    """
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
        rows: list = []
        for one in checked.input_directives(rel):    # every .input of the relation, as Soufflé
            rows += read_facts(Path(facts_dir) / one.get("filename", f"{rel}.facts"),
                               checked.relations[rel], one.get("delimiter", "\t"),
                               types=checked.types)
        out[rel] = list(dict.fromkeys(rows))
    for rel, rows in facts.items():
        if needed is not None and rel not in needed:
            continue
        out[rel] = check_rows(rows, checked.relations[rel], f"facts[{rel!r}]", checked.types)
    return out


def run_checked(checked: CheckedProgram, facts_dir: str | Path | None = None,
                engine: str = AUTO, facts: dict[str, list[tuple]] | None = None,
                output_dir: str | Path | None = None, *, compiled: bool = False,
                jobs: int | None = None, extra: list[str] | None = None,
                only: list[str] | None = None) -> dict[str, list[tuple]]:
    """``run_program`` for an already loaded program.

    Parameters
    ----------
    checked : CheckedProgram
    facts_dir, engine, facts, output_dir, compiled, jobs
        As in ``run_program``.
    extra : list of str, optional
        Non-output relations to return as well (e.g. ``.printsize`` ones), where the engine can
        observe them.
    only : list of str, optional
        Restrict the result to these output relations (an engine may then skip what they do
        not depend on).

    Returns
    -------
    dict
        Relation -> sorted tuples.

    Raises
    ------
    DatalogError
        Unknown or unavailable engine, a name in ``only`` that is not an output, bad facts.
    """
    shown = list(checked.outputs) + [r for r in (extra or []) if r not in checked.outputs]
    if only is not None:
        unknown = [r for r in only if r not in shown]
        if unknown:
            raise DatalogError(f"not an output relation of the program: {', '.join(unknown)}",
                               SourceLoc(checked.main_file))
        shown = [r for r in shown if r in only]
    runner = registered_engine(engine_for(checked, engine, facts_dir, facts, shown))
    result = runner.run(checked, facts_dir, facts, shown, jobs=jobs, compiled=compiled)
    if output_dir is not None:
        write_outputs(checked, result, output_dir)
    return result


#: "auto" runs a call of in-memory facts with at most this many rows (of the relations its
#: outputs depend on) in process, on the "python" engine, when that engine evaluates the
#: program: clingo's fixed cost of a call (its rules prepared for grounding, about 57 us a rule,
#: and the Control) is most of a small call's (python_engine.py; docs/measurements.md, stop 53)
SMALL_CALL_ROWS = 20_000


def engine_for(checked: CheckedProgram, engine: str, facts_dir, facts, shown: list[str]) -> str:
    """The engine a call runs on: ``engine``, "auto" resolved per call (``auto_engine`` for
    in-memory facts, else the first available engine)."""
    if engine == AUTO and facts_dir is None and facts is not None:
        engine = auto_engine(checked, facts, shown)
    return resolve_engine(engine)


def auto_engine(checked: CheckedProgram, facts: dict[str, list[tuple]], shown: list[str]) -> str:
    """The engine "auto" runs a call on: "python" for a small one it evaluates, else "auto"'s
    first available engine (``resolve_engine``)."""
    needed = needed_relations(checked, shown)
    if sum(len(rows) for rel, rows in facts.items() if rel in needed) <= SMALL_CALL_ROWS:
        if registered_engine("python").refused(checked, shown, facts) is None:
            return "python"
    return AUTO


def write_outputs(checked: CheckedProgram, result: dict[str, list[tuple]],
                  output_dir: str | Path) -> None:
    """Write ``NAME.csv`` (or the ``filename=`` of its ``.output``) per computed output relation,
    in Soufflé's format (tab-separated unless ``delimiter=``)."""
    for rel in checked.outputs:
        for params in checked.output_directives(rel):
            if params.get("IO", "file") != "file" or rel not in result:
                continue
            write_rows(Path(output_dir) / params.get("filename", f"{rel}.csv"), result[rel],
                       params.get("delimiter", "\t"))


def run_program(program_path: str | Path, facts_dir: str | Path | None = None,
                engine: str = AUTO, facts: dict[str, list[tuple]] | None = None,
                output_dir: str | Path | None = None, **options) -> dict[str, list[tuple]]:
    """Run a Soufflé-dialect program and return ``{output relation: sorted tuples}``.

    Parameters
    ----------
    program_path : str or Path
        The ``.dl`` file (loaded once while unchanged: ``load_program_cached``).
    facts_dir : path, optional
        ``NAME.facts`` per ``.input`` relation (missing = empty).
    engine : str
        "auto" (the first available engine: souffle if its binary is on PATH, else clingo) or
        an engine name (``engine_names()``).
    facts : dict, optional
        In-memory tuples that override or add relations.
    output_dir : path, optional
        Receives one Soufflé-format ``NAME.csv`` per ``.output`` relation.
    **options
        ``compiled``, ``jobs``, ``extra``, ``only`` of ``run_checked``.

    Returns
    -------
    dict
        Relation -> sorted tuples (``int`` for number columns, ``str`` for symbol columns).

    Raises
    ------
    DatalogError
        Located, for bad programs and bad facts files; unknown or unavailable engines.
    """
    checked = load_program_cached(program_path)
    return run_checked(checked, facts_dir, engine, facts, output_dir, **options)
