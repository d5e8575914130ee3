"""Running a registered pass: compute the rows it needs on its input module, then run it.

Example
-------
>>> new, record = run_pass("if-convert", module, "a.pir")            # doctest: +SKIP
"""
from __future__ import annotations

from typing import Optional

from pylogic.analysis.run import module_rows
from pylogic.ir.model import Module
from pylogic.transforms.registry import MAX_ROUNDS, get_pass


def run_pass(name: str, module: Module, relpath: Optional[str] = None, *, engine: str = "auto",
             **options):
    """``(new module, record)`` of pass ``name`` on ``module`` (function ids ``relpath::name``)."""
    spec = get_pass(name)
    rows = module_rows(module, relpath, relations=spec.needs, engine=engine)
    new, record = spec.run(module, rows, **options)
    rounds = 1
    while spec.fixpoint and record.changed and rounds < MAX_ROUNDS:    # fresh rows each round
        rows = module_rows(new, relpath, relations=spec.needs, engine=engine)
        new, later = spec.run(new, rows, **options)
        record.absorb(later)
        rounds += 1
    return new, record
