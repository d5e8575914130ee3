"""Ad hoc queries as researchers write them (issue #17 item 3): the shipped ``datalog/`` folder
is on the include path (Soufflé's ``-I``), so ``#include "schema.dl"`` or ``#include
"dominance.dl"`` works from any directory; a program may be a file or a text (``query -e``);
what a query shows by default is its own ``.output`` relations, not those of what it includes.

Example
-------
>>> rows = query('''
... #include "dominance.dl"
... .decl depth1(f: Function, b: Block)
... .output depth1
... depth1(f, b) :- idom(f, d, b), entry(f, d).
... ''', facts="runs/examples/facts")                           # doctest: +SKIP
>>> rows["depth1"][:1]                                          # doctest: +SKIP
[('examples/loop_calls.pir::@main', 'body')]
"""
from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

from pylogic.analysis.catalog import datalog_dir
from pylogic.engines import CheckedProgram, load_program, run_checked
from pylogic.engines.base import resolve_engine
from pylogic.engines.relevance import needed_relations
from pylogic.engines.run import check_input_files
from pylogic.errors import DatalogError, PathlogicError

#: How a program given as text is named in messages: ``pathlogic query -e`` (``<-e>:1:12: ...``)
#: and ``pylogic.query(text)`` (``<query>:1:12: ...``; it has no -e).
TEXT_NAME = "<-e>"
API_TEXT_NAME = "<query>"


def include_dirs() -> list[Path]:
    """Where an ``#include`` not found beside the including file is looked for: the shipped
    ``datalog/`` folder."""
    return [datalog_dir()]


def load_query(path: str | Path | None = None, text: str | None = None,
               name: str = TEXT_NAME) -> CheckedProgram:
    """A query program, read from ``path`` or given as ``text`` (its includes relative to the
    current directory), with the shipped ``datalog/`` on the include path.

    Raises
    ------
    DatalogError
        Located at the first error (``NAME:LINE:COL`` for a text, ``name``).
    """
    if (path is None) == (text is None):
        raise PathlogicError("a query is a program file or a program text (not both)")
    if text is not None:
        checked = load_program(name, text, include_dirs=include_dirs())
        checked.source_text = text   # what an engine that reads files is given (``run_query``)
        return checked
    return load_program(find_program(path), include_dirs=include_dirs())


def find_program(path: str | Path) -> str | Path:
    """``path`` itself when it names a file (or is absolute, or is not found anywhere), else
    the file of that relative name on the include path: ``explain dominance.dl ...`` finds the
    shipped program as ``#include "dominance.dl"`` does (issue #30 item 2)."""
    if Path(path).is_file() or Path(path).is_absolute():
        return path
    for directory in include_dirs():
        if (directory / path).is_file():
            return directory / path
    return path


def own_outputs(checked: CheckedProgram) -> list[str]:
    """The ``.output`` relations the query itself declares (in its main file or text), in
    source order; the outputs of included files are not the query's own."""
    own = []
    for rel in checked.outputs:
        if any(getattr(p.get("loc"), "file", None) == checked.main_file
               for p in checked.output_directives(rel)):
            own.append(rel)
    return own


def shown_outputs(checked: CheckedProgram, all_outputs: bool = False) -> list[str]:
    """What a query shows: its own outputs; every output with ``all_outputs`` or when it has
    none of its own (a query that only includes a shipped analysis shows that analysis)."""
    own = own_outputs(checked)
    return list(checked.outputs) if all_outputs or not own else own


def inputs_needed(checked: CheckedProgram, shown) -> set[str]:
    """The ``.input`` relations the ``shown`` relations depend on (``engines.relevance``): only
    their facts must exist, or be extracted, for the query to answer."""
    return needed_relations(checked, list(shown)) & set(checked.inputs)


def run_query(checked: CheckedProgram, facts_dir: str | Path | None = None,
              facts: dict | None = None, engine: str = "auto", only: list[str] | None = None,
              **options) -> dict[str, list[tuple]]:
    """``run_checked`` for a query; a program given as text is written to a file first for an
    engine that reads the source itself (Soufflé), its includes then found from the current
    directory and the shipped ``datalog/``."""
    text = getattr(checked, "source_text", None)
    if text is None or resolve_engine(engine) == "clingo":
        return run_checked(checked, facts_dir, engine, facts, only=only, **options)
    with tempfile.TemporaryDirectory(prefix="pathlogic-query-") as tmp:
        source = Path(tmp) / "query.dl"
        source.write_text(text)
        on_disk = dataclasses.replace(checked, main_file=str(source))
        on_disk.include_dirs = [str(Path.cwd())] + list(getattr(checked, "include_dirs", []))
        return run_checked(on_disk, facts_dir, engine, facts, only=only, **options)


def query(program: str | Path, facts: dict | str | Path | None = None, *, engine: str = "auto",
          all_outputs: bool = False, missing_as_empty: bool = False) -> dict[str, list[tuple]]:
    """Run a Soufflé-dialect query and return its rows (the Python face of ``pathlogic query``).

    Parameters
    ----------
    program : str or Path
        The program text (a ``str``), or a ``Path`` to a ``.dl`` file. ``#include`` finds the
        shipped analyses (``"schema.dl"``, ``"dominance.dl"``, ...) from anywhere.
    facts : dict, str or Path, optional
        ``{relation: [tuple, ...]}`` in memory (a relation not given is empty), or a facts
        directory (``analyze``'s ``OUT/facts``, ``pathlogic facts``'s OUT): one ``NAME.facts``
        per ``.input`` relation.
    engine : str
        "auto", "clingo" or "souffle" (``pylogic.engines.engine_names()``).
    all_outputs : bool
        Return every ``.output`` relation, also those of included programs (default: the
        query's own, or every output when it declares none).
    missing_as_empty : bool
        With a facts directory: read a missing ``NAME.facts`` as empty (default: an error).

    Returns
    -------
    dict
        Relation -> sorted tuples (``int`` for number columns, ``str`` for symbol columns).

    Raises
    ------
    DatalogError
        Located (file:line:col) at a program error, a missing facts file or a bad facts row.
    """
    checked = load_query(path=program) if isinstance(program, Path) else \
        load_query(text=program, name=API_TEXT_NAME)
    shown = shown_outputs(checked, all_outputs)
    if isinstance(facts, (str, Path)):
        if not Path(facts).is_dir():
            raise DatalogError(f"facts directory {facts} does not exist" if not
                               Path(facts).exists() else f"facts {facts}: not a directory")
        check_input_files(checked, facts, missing_ok=missing_as_empty,
                          skip=set(checked.inputs) - inputs_needed(checked, shown))
        return run_query(checked, facts_dir=facts, engine=engine, only=shown)
    return run_query(checked, facts=dict(facts or {}), engine=engine, only=shown)
