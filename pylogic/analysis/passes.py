"""Running a registered pass: compute the rows it needs on its input module, then run it.

Example
-------
>>> new, record = run_pass("if-convert", module, "a.pir")            # doctest: +SKIP
"""
from __future__ import annotations

from typing import Optional

from pylogic.analysis.correlation_rounds import CorrelationRounds, supported
from pylogic.analysis.run import module_rows
from pylogic.collector import freeze_survivors
from pylogic.ir.model import Module
from pylogic.transforms.registry import COMPOSITES, MAX_ROUNDS, expand, get_pass


def run_pass(name: str, module: Module, relpath: Optional[str] = None, *, engine: str = "auto",
             rows=None, **options):
    """``(new module, record)`` of pass ``name`` on ``module`` (function ids ``relpath::name``);
    ``rows``: the rows of ``module`` when the caller has them (several modules in one engine
    run, ``analyze --if-convert``), else computed here. A composite (``pre-mr``) runs its steps
    in turn, each on its own input's rows; the record is its last step's."""
    if name in COMPOSITES:
        steps, per_step = expand([name], {name: options})
        for k, step in enumerate(steps):
            module, record = run_pass(step, module, relpath, engine=engine,
                                      rows=rows if k == 0 else None, **per_step.get(step, {}))
        return module, record
    spec = get_pass(name)
    asked = None
    if rows is None and spec.fixpoint and spec.whole_module and supported(spec.needs):
        # later rounds ask only the branches a change can have reached (correlation_rounds.py)
        asked = CorrelationRounds(relpath or module.path, spec.needs, engine, spec.narrowing)
        rows = asked.rows(module)
    elif rows is None:
        # a pass that works function by function needs the rows of the functions it is asked
        # to rewrite only (optimize's repeats, like the rounds below)
        only = options.get("functions") if spec.repeats_per_function else None
        if only is None and spec.rows_for is not None:
            only = spec.rows_for(module, **options)
        rows = module_rows(module, relpath, relations=spec.needs, engine=engine, functions=only)
    new, record = spec.run(module, rows, **options)
    rounds = 1
    before = module
    while spec.fixpoint and record.changed and rounds < MAX_ROUNDS:    # fresh rows each round
        freeze_survivors()          # the last round's module and rows (collector.py)
        if spec.whole_module:       # interprocedural rows: a change anywhere may decide more
            rows = asked.rows(new) if asked is not None else \
                module_rows(new, relpath, relations=spec.needs, engine=engine)
            new, later = spec.run(new, rows, **{**options, **record.next_options()})
            record.absorb(later)
            rounds += 1
            continue
        # only the functions the last round changed can change again: their rows alone are
        # recomputed (csmith-7: 17 s of Datalog per whole-module round)
        changed = changed_functions(before, new, options.get("functions"))
        if not changed:
            break
        before = new
        rows = module_rows(new, relpath, relations=spec.needs, engine=engine, functions=changed)
        new, later = spec.run(new, rows, **{**options, "functions": changed})
        record.absorb(later)
        rounds += 1
    return new, record


def changed_functions(before: Module, after: Module, wanted=None) -> list[str]:
    """Names of the defined functions of ``after`` that differ from ``before`` (among
    ``wanted`` when given)."""
    old = before.function_map()
    return [f.name for f in after.functions if not f.extern and f.blocks
            and (wanted is None or f.name in wanted) and old.get(f.name) != f]
