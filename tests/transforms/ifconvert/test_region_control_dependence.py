"""Hyperblock predicates come from Datalog (``cdep_acyclic``); the region-local post-dominator
computation that if-conversion used before lives here as the oracle: both must give the same
control-dependence set for every block of every selected region.
References: predicated_cp.md §3.2; Ferrante, Ottenstein & Warren 1987."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from pylogic.analysis.run import module_rows
from pylogic.ir.parser import parse_module
from pylogic.transforms.ifconvert.if_convert import (_cdep_by_block, _final_edges,
                                                     region_control_dependence)
from pylogic.transforms.regions import RegionLimits, select_regions

from tests.transforms.ifconvert.test_if_conversion import BRANCHY, generated_program

_VEXIT = "<virtual exit>"


def region_cd_oracle(fn, region) -> dict:
    """Post-dominators of the region DAG towards a virtual exit that every exit edge and ``ret``
    reaches; B is control dependent on (X, d) iff B pdom the target and not X."""
    bm = fn.block_map()
    order, head = list(region.blocks), region.head
    inside = set(order)

    def internal(target) -> bool:
        return target in inside and target != head

    pdom: dict = {}
    for x in reversed(order):
        sets = [pdom[s] if s is not None and internal(s) else {_VEXIT}
                for _, s in _final_edges(bm[x])]
        if any(ins.is_terminator for ins in bm[x].instrs[:-1]):
            sets.append({_VEXIT})
        pdom[x] = {x} | set.intersection(*map(set, sets))
    cd: dict = {x: set() for x in order}
    for x in order:
        for d, s in _final_edges(bm[x]):
            if s is not None and internal(s):
                for b in pdom[s] - pdom[x]:
                    if b != _VEXIT:
                        cd[b].add((x, d))
    return cd


def check_module(module, max_blocks=16) -> int:
    rows = module_rows(module, "m.pir", relations=["cdep_acyclic"], engine="clingo")
    compared = 0
    for fn in module.defined_functions():
        regions, _ = select_regions(fn, RegionLimits(max_blocks=max_blocks, allow_calls=True))
        cdep = rows.function(fn.name)["cdep_acyclic"]
        bm, cdep_of = fn.block_map(), _cdep_by_block(cdep)     # as if_convert passes them
        for region in regions:
            if len(region.blocks) > 1:
                oracle = region_cd_oracle(fn, region)
                assert region_control_dependence(fn, region, cdep) == oracle
                assert region_control_dependence(fn, region, cdep, bm, cdep_of) == oracle
                compared += 1
    return compared


def test_branchy_example():
    assert check_module(parse_module(BRANCHY.read_text(), "b.pir")) == 1


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), shape=st.sampled_from(["dag", "structured", "random"]),
       max_blocks=st.sampled_from([2, 3, 6, 16]))
def test_datalog_matches_region_oracle(seed, shape, max_blocks):
    check_module(parse_module(generated_program(seed, shape), "g.pir"), max_blocks)


@pytest.mark.slow
def test_oracle_comparison_is_not_vacuous():
    compared = sum(check_module(parse_module(generated_program(seed, shape), "g.pir"))
                   for seed in range(15) for shape in ("dag", "structured", "random"))
    assert compared >= 30
