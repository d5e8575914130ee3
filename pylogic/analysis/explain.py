"""The model an explanation is rebuilt from (issue #17 item 2): input facts plus the engine's rows
of every relation the explained one depends on, intermediate ``_`` relations included.

Example
-------
>>> ex = explainer(load_query("datalog/dominance.dl"), "idom", facts_dir="runs/examples/facts")  # doctest: +SKIP
>>> ex.explain("idom", ("loop_call.pir::main", "entry", "head"))["rule"]                      # doctest: +SKIP
'.../datalog/dominance.dl:14:1'
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from pylogic.analysis.query import run_query
from pylogic.engines import CheckedProgram, load_inputs, load_program, run_checked
from pylogic.engines.explain import Explainer
from pylogic.errors import DatalogError, SourceLoc


def explainer(checked: CheckedProgram, rel: str | list, facts_dir: str | Path | None = None,
              facts: dict | None = None, engine: str = "auto") -> Explainer:
    """An ``Explainer`` over the engine's result for ``rel`` (a relation or a list of them) and
    what it depends on.

    Raises
    ------
    DatalogError
        Bad facts; or the engine does not return an intermediate relation (it only shows
        ``.output`` ones), so no explanation can be rebuilt from its rows.
    """
    probe = Explainer(checked, {})
    wanted = [rel] if isinstance(rel, str) else list(rel)
    needed = sorted({r for w in wanted for r in probe._depends(w)} - set(checked.inputs))
    model = dict(load_inputs(checked, facts_dir, facts))
    extra = [r for r in needed if r not in checked.outputs]
    result = run_query(checked, facts_dir, facts=facts, engine=engine, extra=extra,
                       only=[r for r in needed if r in checked.outputs] + extra)
    unseen = [r for r in needed if r not in result]
    if unseen:   # an engine that shows only .output relations (Soufflé): ask for them too
        result.update(_with_outputs(checked, unseen, facts_dir, facts, engine))
        unseen = [r for r in needed if r not in result]
    if unseen:
        raise DatalogError(f"explain: the {engine} engine does not return the intermediate "
                           f"relations {', '.join(unseen[:5])}{' ...' if len(unseen) > 5 else ''}, "
                           "which the explanation is rebuilt from (use --engine clingo)",
                           SourceLoc(checked.main_file))
    model.update(result)
    return Explainer(checked, model)


def _with_outputs(checked: CheckedProgram, relations: list[str], facts_dir, facts,
                  engine: str) -> dict:
    """The rows of ``relations`` from a copy of the program that includes it and adds an
    ``.output`` directive for each (the same rules, so the same model)."""
    with tempfile.TemporaryDirectory(prefix="pathlogic-explain-") as tmp:
        main = Path(checked.main_file)
        text = getattr(checked, "source_text", None)
        if text is not None or not main.is_file():
            main = Path(tmp) / "query.dl"
            main.write_text(text or "")
        wrapper = Path(tmp) / "explain.dl"
        wrapper.write_text(f'#include "{main.resolve()}"\n'
                           + "".join(f".output {r}\n" for r in relations))
        dirs = [Path.cwd()] + [Path(d) for d in getattr(checked, "include_dirs", [])]
        copy = load_program(wrapper, include_dirs=dirs)
        return run_checked(copy, facts_dir, engine, facts, only=relations)
