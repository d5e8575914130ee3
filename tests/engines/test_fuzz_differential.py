"""The differential fuzzer's fixed-seed budget (issue #29): random stratified programs of every
construct of the dialect table (``benchmarks/datalog_programs.py``) on clingo and duckdb, and on
Soufflé's interpreter when ``souffle`` is on PATH. A located refusal by one engine is counted,
not a failure; different rows, an unlocated error or an exception fail, and hypothesis prints
the shrunk program. Long runs: ``python -m benchmarks.datalog_fuzz``."""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from benchmarks.datalog_fuzz import EMBEDDED, run_all, souffle_binary, verdict
from benchmarks.datalog_programs import CONSTRUCTS, hypothesis_programs
from tests.support import engine_available

ENGINES = [e for e in EMBEDDED if engine_available(e)]


def _check(prog, souffle=None):
    with tempfile.TemporaryDirectory(prefix="fuzz-") as tmp:
        outcomes = run_all(prog, ENGINES, Path(tmp), souffle)
    problems = verdict(outcomes)
    assert not problems, ("engines disagree on this program (a reproducer):\n"
                          + prog.reproducer() + "\n".join(problems))


#: programs per construct and test (a fixed seed: derandomize)
BUDGET = 8
FIXED = settings(max_examples=BUDGET, deadline=None, derandomize=True, database=None,
                 suppress_health_check=list(HealthCheck))


@pytest.mark.slow
@pytest.mark.parametrize("construct", CONSTRUCTS)
def test_embedded_engines_agree_on_random_programs(construct):
    @FIXED
    @given(hypothesis_programs([construct]))
    def check(prog):
        _check(prog)
    check()


@pytest.mark.skipif(souffle_binary() is None, reason="souffle not on PATH: the embedded engines "
                    "are compared with each other only")
@pytest.mark.parametrize("construct", CONSTRUCTS)
def test_embedded_engines_agree_with_souffle(construct):
    @FIXED
    @given(hypothesis_programs([construct]))
    def check(prog):
        _check(prog, souffle_binary())
    check()


def test_a_disagreement_is_reported_with_its_program():
    """The check itself can fail: an engine giving other rows is a problem named with the
    relation and the rows."""
    outcomes = {"clingo": {"kind": "rows", "rows": {"r": [("1",)]}},
                "duckdb": {"kind": "rows", "rows": {"r": [("2",)]}},
                "other": {"kind": "refused", "message": "1:1: unsupported"}}
    problems = verdict(outcomes)
    assert problems == ["duckdb differs from clingo on r: extra [('2',)], missing [('1',)]"]
    outcomes["clingo"] = {"kind": "error", "message": "ZeroDivisionError: boom"}
    assert verdict(outcomes) == ["clingo: ZeroDivisionError: boom"]
