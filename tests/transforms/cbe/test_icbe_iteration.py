"""``icbe`` iterates itself (PathFinder §7.5: ICBE repeats until no conditional is left to remove)
within one growth budget for the whole iteration: the driver runs it again on the whole module's
fresh rows while a round removed a branch."""
from __future__ import annotations

import random

import pytest

from pylogic.analysis.optimize import optimize, static_size
from pylogic.analysis.run import module_rows
from pylogic.interp.differential import compare_modules
from pylogic.ir.verify import verify_module
from pylogic.transforms.cbe.icbe import NEEDS, icbe
from tests.datalog.correlation_oracle import random_module
from tests.transforms.cbe.test_cbe import ARGS, executed

SEEDS = range(100, 120)


def one_round(module, **options):
    return icbe(module, module_rows(module, "t.pir", relations=NEEDS), **options)[0]


@pytest.mark.slow
@pytest.mark.parametrize("growth", [0.05, 0.5])
def test_the_iteration_stays_within_one_budget_and_keeps_the_behaviour(growth):
    cases = [((a,), ()) for a in ARGS]
    iterated = single = before = rounds = 0
    for seed in SEEDS:
        module = random_module(random.Random(seed))
        result = optimize(module, ["icbe"], "t.pir", options={"icbe": {"growth": growth}})
        record = result.passes[0].record
        assert verify_module(result.module) == []
        check = compare_modules(module, result.module, cases, fuel=20_000)
        assert check.verdict != "different", check.first_difference
        # the whole iteration's growth, not each round's, is bounded
        assert static_size(result.module) - static_size(module) <= int(growth * static_size(module))
        assert record.rounds == len(record.round_log) and not record.changed
        assert [r["size_before"] for r in record.round_log[1:]] == \
            [r["size_after"] for r in record.round_log[:-1]]
        rounds += record.rounds
        before += executed(module, ARGS)
        iterated += executed(result.module, ARGS)
        single += executed(one_round(module, growth=growth), ARGS)
    assert iterated <= single < before
    assert rounds > len(SEEDS)          # some module took more than one round


@pytest.mark.slow
def test_more_rounds_remove_more_than_one():
    gained = 0
    for seed in SEEDS:
        module = random_module(random.Random(seed))
        once = executed(one_round(module), ARGS)
        gained += once - executed(optimize(module, ["icbe"], "t.pir").module, ARGS)
    assert gained > 0
