"""Shared by the generated-program PRE tests (global roots, byte spans): the random terminator
of block i, and the evaluations a run counts."""
from __future__ import annotations

import random

from pylogic.analysis.evaluations import expression_evaluations
from pylogic.interp.machine import run_module


def block_end(rnd: random.Random, i: int, blocks: int) -> list[str]:
    """The last lines of block ``B{i}`` of ``blocks``: a return in the last one, else a loop
    back on a counter (k < n), a branch on ``a`` forward, or a jump to the next block."""
    if i == blocks - 1:
        return [" ret 0"]
    if rnd.random() < 0.3:
        return [" k = add k, 1", f" c{i} = cmp.lt k, n",
                f" cbr c{i}, B{rnd.randint(0, i)}, B{i + 1}"]
    if rnd.random() < 0.6:
        return [f" cbr a, B{i + 1}, B{rnd.randint(i + 1, blocks - 1)}"]
    return [f" br B{i + 1}"]


def evaluation_counts(module, args) -> dict:
    """``{"expressions", "loads"}`` evaluated running ``main(args)`` of ``module``."""
    return expression_evaluations(module, run_module(module, "main", args=list(args)))
