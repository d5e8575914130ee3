"""The checked program: a Soufflé-dialect file parsed (``dialect.py``, includes resolved), checked
and normalized (``semantics.py``, ``stratify.py``), ready for any engine.

Example
-------
>>> checked = load_program_cached("datalog/dominance.dl")   # doctest: +SKIP
>>> sorted(checked.outputs)                                  # doctest: +SKIP
['dom', 'idom']
"""
from __future__ import annotations

from pathlib import Path

from pylogic.engines.components import expand_components
from pylogic.engines.dialect import parse_program
from pylogic.engines.autoinc import autoinc_relations
from pylogic.engines.magic import magic_transform, pragma_targets
from pylogic.engines.semantics import CheckedProgram, Relation, Rule, check_program

__all__ = ["CheckedProgram", "Relation", "Rule", "load_program", "load_program_cached"]


def load_program(path: str | Path, text: str | None = None,
                 include_dirs: tuple = ()) -> CheckedProgram:
    """Parse (with includes) and check a Soufflé-dialect program.

    Parameters
    ----------
    path : str or Path
        The ``.dl`` file; ``#include`` paths are relative to the including file.
    text : str, optional
        The program text, when it is not to be read from ``path`` (``path`` still names it in
        messages and anchors its includes).
    include_dirs : tuple of paths
        Where an ``#include`` not found beside the including file is looked for, in order
        (Soufflé's ``-I``); kept as ``include_dirs`` on the result for engines that re-read the
        source.

    Returns
    -------
    CheckedProgram

    Raises
    ------
    DatalogError
        Located (file:line:col) at the first syntax, type, groundedness or stratification error,
        or at a construct outside the supported subset.
    """
    program = parse_program(path, text, include_dirs)
    expand_components(program)
    checked = check_program(program, str(path))
    wanted, excluded = pragma_targets(program.pragmas)
    if wanted:
        checked = magic_transform(checked, wanted, set(excluded) | autoinc_relations(
            checked.rules))
    checked.include_dirs = [str(d) for d in include_dirs]
    return checked


_LOADED: dict[str, tuple[tuple, CheckedProgram]] = {}


def load_program_cached(path: str | Path) -> CheckedProgram:
    """``load_program``, reused while the program and every file it includes are unchanged.

    Parsing and checking cost more than a small evaluation, and callers run one program often.

    Parameters
    ----------
    path : str or Path
        The ``.dl`` file.

    Returns
    -------
    CheckedProgram
        The same object as the previous call for ``path`` if no file changed (mtime and size).

    Raises
    ------
    DatalogError
        As ``load_program``.
    """
    key = str(Path(path).resolve())
    hit = _LOADED.get(key)
    if hit is not None:
        stamps, checked = hit
        if stamps == _stamps(checked.files):
            return checked
    checked = load_program(path)
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
