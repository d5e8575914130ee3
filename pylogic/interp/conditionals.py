"""Conditional branches executed in a run: the entries of blocks that end in an unguarded
``cbr``, from the run's block profile (``RunResult.block_profile``). The measure of branch
elimination (PathFinder §7.5: executed conditionals removed); runs that stop inside a block
count its ``cbr`` when the block was entered."""
from __future__ import annotations

from pylogic.ir.model import CondBr, Module
from pylogic.interp.result import RunResult


def conditional_blocks(module: Module) -> set[tuple[str, str]]:
    """``(function, label)`` of every block ending in an unguarded ``cbr``."""
    return {(fn.name, b.label) for fn in module.defined_functions() for b in fn.blocks
            if b.instrs and isinstance(b.instrs[-1], CondBr) and b.instrs[-1].guard is None}


def conditional_branches(module: Module, result: RunResult) -> int:
    """Conditional branches ``module`` executed in ``result`` (a run with a profile)."""
    wanted = conditional_blocks(module)
    return sum(n for key, n in result.block_profile.items() if key in wanted)
