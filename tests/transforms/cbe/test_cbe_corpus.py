"""cbe and icbe keep the behaviour of the fixed corpus sample of the optimization harness (the
examples, the LLVM front end's C fixtures, short csmith programs: >= 20 programs, prepared as
``benchmarks/optimize.py`` prepares them), and never execute more conditional branches."""
from __future__ import annotations

import os

import pytest

from pylogic.analysis.optimize import optimize
from pylogic.interp import run_module
from pylogic.interp.conditionals import conditional_branches
from pylogic.interp.differential import compare_modules
from pylogic.ir.verify import verify_module
from tests.transforms.test_corpus_pipelines import PROGRAMS, _load

def test_the_sample_has_at_least_twenty_programs():
    assert len(PROGRAMS) >= 20


def _executed(module, cases) -> int:
    return sum(conditional_branches(module, run_module(module, args=a, inputs=i)) for a, i in cases)


@pytest.mark.slow
@pytest.mark.parametrize("kind,where", PROGRAMS,
                         ids=[os.path.basename(w) if k != "csmith" else f"csmith-{w}"
                              for k, w in PROGRAMS])
def test_cbe_and_icbe_keep_the_behaviour(kind, where, tmp_path):
    module, cases = _load(kind, where, tmp_path)
    before = _executed(module, cases)
    for pipeline in (["cbe"], ["icbe"]):
        result = optimize(module, pipeline, "p", engine="clingo")
        assert verify_module(result.module) == [], pipeline
        check = compare_modules(module, result.module, cases)
        assert check.verdict == "identical", (pipeline, check.verdict, check.first_difference)
        after = _executed(result.module, cases)
        assert after <= before, pipeline
