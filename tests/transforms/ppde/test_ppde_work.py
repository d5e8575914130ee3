"""T27 (predicated_pde.md §9, §3.5): PPDE's work, measured by its V counter (δ's examined, Table
IV) on generated hyperblocks of growing size (``benchmarks/ppde_scaling.py``'s generator): each
candidate examines at most the n instructions of its block (O(n) per candidate, O(nm) in all), so
V <= n * C at every size, and V per candidate does not grow with n the way a rescan would."""
from __future__ import annotations

from benchmarks.ppde_scaling import hyperblock
from pylogic.analysis.run import module_rows
from pylogic.ir.parser import parse_module
from pylogic.interp.differential import compare_modules
from pylogic.transforms.ppde import ppde


def test_t27_work_per_candidate_is_bounded_by_the_block():
    per_candidate = {}
    for n in (25, 50, 100):
        module = parse_module(hyperblock(n))
        rows = module_rows(module, "b.pir", relations=ppde.NEEDS, engine="clingo")
        out, record = ppde.ppde(module, rows)
        t = record.totals()
        assert t["candidates"] > 0
        size = len(module.functions[0].blocks[0].instrs)
        assert t["encountered"] <= size * t["candidates"], (n, t)          # O(n) per candidate
        per_candidate[n] = t["encountered"] / t["candidates"]
        cases = [((a, g, h), ()) for a in (-1, 1) for g in (-1, 0, 1) for h in (-1, 0, 1)]
        assert compare_modules(module, out, cases).verdict == "identical"
    # 4x the instructions: V/C far from 4x (the paper: V/C about 2-4 on SPEC)
    assert per_candidate[100] < 2 * per_candidate[25], per_candidate
