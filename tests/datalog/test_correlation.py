"""datalog/correlation.dl (issue #15 slice 2): demand-driven interprocedural branch correlation,
checked against a backward path-enumeration oracle on random modules, against the interpreter
(every executed branch outcome is among its answers), and equal on every available engine."""
from __future__ import annotations

import random

import pytest

from pylogic.analysis.run import module_rows
from pylogic.interp import run_module
from pylogic.ir.model import CondBr
from tests.datalog.correlation_oracle import Oracle, assert_answers_hold, random_module
from tests.support import ENGINES

OUTPUTS = ["correlation", "correlation_edge", "correlation_cost", "query_rewrite", "branch_compare"]


def answers(module, engine="clingo"):
    rows = module_rows(module, "r.pir", relations=OUTPUTS + ["correlation_through",
                       "correlation_start", "correlation_call"], engine=engine)
    out = {}
    for f, i, a in rows["correlation"]:
        out.setdefault((f.split("::")[1], i), set()).add(a)
    return out, rows


def branches(module):
    """(function, block, index, v, rel, c) of each cbr on ``t = cmp.REL v, C`` right before it."""
    for fn in module.defined_functions():
        for b in fn.blocks:
            term = b.instrs[-1]
            if isinstance(term, CondBr) and len(b.instrs) > 1:
                cmp = b.instrs[-2]
                if getattr(cmp, "dest", None) == term.cond.name and hasattr(cmp, "rel") \
                        and cmp.a.name != cmp.dest:
                    yield fn.name, b.label, len(b.instrs) - 1, cmp.a.name, cmp.rel, cmp.b.value


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.slow
def test_answers_equal_the_path_enumeration_oracle(seed):
    module = random_module(random.Random(seed))
    got, rows = answers(module)
    oracle = Oracle(module, budget=4, rewrites=rows["query_rewrite"])
    checked = 0
    for fname, label, k, v, rel, c in branches(module):
        want = oracle.branch(fname, label, k, v, rel, c)
        assert got.get((fname, f"{label}#{k}"), set()) == want, (seed, fname, label)
        checked += 1
    assert checked or not list(branches(module))


@pytest.mark.slow
def test_oracle_finds_correlation_on_the_random_modules():
    decided = 0
    for seed in range(40):
        module = random_module(random.Random(seed))
        oracle = Oracle(module, budget=4, rewrites=answers(module)[1]["query_rewrite"])
        for fname, label, k, v, rel, c in branches(module):
            decided += bool(oracle.branch(fname, label, k, v, rel, c) & {"TRUE", "FALSE"})
    assert decided >= 20


@pytest.mark.parametrize("seed", range(40, 70))
@pytest.mark.slow
def test_a_branch_decided_on_every_path_never_goes_the_other_way(seed):
    """The interpreter's edge profile: a branch whose only answer is TRUE (FALSE) never takes
    its false (true) edge, whatever the arguments."""
    module = random_module(random.Random(seed))
    got, _ = answers(module)
    taken = set()
    for x in (-2, -1, 0, 1, 2, 3):
        taken |= set(run_module(module, args=(x,), fuel=5_000).edge_profile)
    assert_answers_hold(module, got, taken)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_engines_agree(engine):
    for seed in range(5):
        module = random_module(random.Random(seed))
        _, base = answers(module, "clingo")
        _, other = answers(module, engine)
        for rel in OUTPUTS + ["correlation_through", "correlation_start", "correlation_call"]:
            assert sorted(base[rel]) == sorted(other[rel]), (seed, rel)
