"""pre-m, after sccp, pre-mr and pre-mr-budget too, on the fixed corpus sample of the optimization harness (issue #14 acceptance: a fixed
sample of at least 20 programs in the suite): the .pir examples with their cases, the C fixtures
of the LLVM front end and five short csmith programs, prepared as benchmarks/optimize.py
prepares them. Every version must be identical in the interpreter, and never evaluate more
expressions or loads than the original."""
from __future__ import annotations

import pytest

from pylogic.analysis.evaluations import expression_evaluations
from pylogic.analysis.optimize import optimize
from pylogic.interp.differential import compare_modules
from pylogic.interp.machine import run_module
from pylogic.ir.verify import verify_module
from tests.transforms.test_corpus_pipelines import PROGRAMS, _load

#: each pipeline's last step is pre-m, compared against the program it starts from; pre-mr and
#: pre-mr-budget are written as their steps (registry.COMPOSITES) so that split holds
PIPELINES = (("pre-m",), ("sccp", "pre-m"), ("pre-mr-split", "pre-m"),
             ("pre-mr-budget-split", "pre-m"))


def test_the_sample_has_at_least_twenty_programs():
    assert len(PROGRAMS) >= 20


@pytest.mark.slow
@pytest.mark.parametrize("kind,where", PROGRAMS,
                         ids=[w.rsplit("/", 1)[-1] if k != "csmith" else f"csmith-{w}"
                              for k, w in PROGRAMS])
def test_pre_keeps_the_behaviour_and_never_evaluates_more(kind, where, tmp_path):
    module, cases = _load(kind, where, tmp_path)
    for pipeline in PIPELINES:
        base = optimize(module, list(pipeline[:-1]), "p", engine="clingo").module
        new = optimize(base, ["pre-m"], "p", engine="clingo").module
        assert verify_module(new) == [], pipeline
        check = compare_modules(module, new, cases)
        assert check.verdict == "identical", (pipeline, check.verdict, check.first_difference)
        for args, inputs in cases:
            before = expression_evaluations(base, run_module(base, args=args, inputs=inputs))
            after = expression_evaluations(new, run_module(new, args=args, inputs=inputs))
            if before is None:                      # side exits (an if-converted example)
                continue
            assert after["expressions"] <= before["expressions"], (pipeline, args)
            assert after["loads"] <= before["loads"], (pipeline, args)
