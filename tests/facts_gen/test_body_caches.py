"""The facts of a module are the same whether the per-body caches (``identity_cache.BodyCache``:
body facts, interprocedural parts, memory-cell accesses, block copies, decisions) are warm from
earlier modules or cold: the rounds of an iterated pass, edited at random (cloned callees among
the edits, so the module's defined functions change under an unchanged body), extracted in turn
with the caches kept, against an extraction with every cache emptied first (issue #28 item 1).
Last, a called function is dropped: its callers' bodies are unchanged, their call sites are no
longer the call graph's."""
from __future__ import annotations

import dataclasses
import random

import pytest

import facts_gen.extract as extract
import facts_gen.interprocedural as interprocedural
import facts_gen.memory_cells as memory_cells
from facts_gen.extract import DEFAULT_FAMILIES, extract_module
from pylogic.ir.model import Call
from tests.analysis.test_correlation_rounds import _edited
from tests.datalog.correlation_memory_oracle import random_memory_module
from tests.datalog.correlation_oracle import random_module


def _cold(module) -> dict:
    """The facts with every cache emptied first."""
    for cache in (extract._BODY_ROWS, interprocedural._PARTS,
                  interprocedural._STEPS, interprocedural._FOLDED, memory_cells._ACCESSES,
                  memory_cells._COPIES, memory_cells._PARTS, memory_cells._NAMED,
                  interprocedural._DECIDED):
        cache.clear()
    return extract_module(module, "t.pir", families=DEFAULT_FAMILIES)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.slow
def test_warm_caches_give_the_facts_of_cold_ones(seed):
    rng = random.Random(seed)
    module = (random_memory_module(rng, functions=4) if seed % 2 else
              random_module(rng, functions=5))
    modules = [module]
    for _ in range(20):
        edited = _edited(modules[-1], rng)
        if edited is not None:
            modules.append(edited)
    assert len(modules) > 4
    last = modules[-1]
    called = {ins.callee for fn in last.defined_functions() for b in fn.blocks
              for ins in b.instrs if isinstance(ins, Call)} - {"main", "@main"}
    if called:
        gone = sorted(called)[0]
        modules.append(dataclasses.replace(last, functions=tuple(
            f for f in last.functions if f.name != gone)))
    warm = []
    for m in modules:
        warm.append(extract_module(m, "t.pir", families=DEFAULT_FAMILIES))
    for m, got in zip(modules, warm):
        assert got == _cold(m)        # every relation, row for row, in the same order
