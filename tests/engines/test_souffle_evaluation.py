"""Soufflé's own ``tests/evaluation`` suite on the embedded engines (issue #16; duckdb: #29): every
positive test is either refused with a located reason or gives exactly Soufflé's rows; none is a silent
wrong answer. The sources are Soufflé's (not shipped): set ``PATHLOGIC_SOUFFLE_TESTS`` to its
``tests/evaluation`` directory (docs/measurements.md, "Soufflé's own evaluation suite", says how
to get it); without it, skipped."""
from __future__ import annotations

import re

import pytest

from benchmarks.souffle_evaluation import ENV, positive_tests, run_test, suite_dir

ROOT = suite_dir()
pytestmark = pytest.mark.skipif(ROOT is None, reason=f"Soufflé's tests/evaluation not found: set "
                                f"${ENV} (docs/measurements.md: Soufflé's own evaluation suite)")
NAMES = positive_tests(ROOT) if ROOT is not None else []

#: Measured on Soufflé 2.5's suite (runs/souffle-evaluation.json,
#: runs/souffle-evaluation-duckdb.json); may only go up.
IDENTICAL_AT_LEAST = {"clingo": 141, "duckdb": 141}

#: Accepted programs the embedded engine cannot finish in the budget, and why.
TOO_SLOW: dict[str, str] = {}   # (magic_samegen was, until magic sets: engines/magic.py)


@pytest.fixture(scope="module", params=sorted(IDENTICAL_AT_LEAST))
def engine(request):
    return request.param


@pytest.fixture(scope="module")
def verdicts(engine):
    return {name: run_test(ROOT, name, engine,
                           seconds=5 if name in TOO_SLOW else 60) for name in NAMES}


def test_the_suite_has_its_147_positive_tests():
    assert len(NAMES) == 147 and "access1" in NAMES and "math" not in NAMES


@pytest.mark.parametrize("name", NAMES)
def test_refused_with_a_location_or_identical(verdicts, name):
    v = verdicts[name]
    if name in TOO_SLOW:
        assert v["verdict"] in ("identical", "timeout"), v
        return
    assert v["verdict"] in ("identical", "refused"), v
    if v["verdict"] == "refused":      # file:line:col, then what is outside the dialect
        assert re.match(rf"\S+\.dl:\d+:\d+: ", v["reason"]), v


def test_identical_count_does_not_regress(verdicts, engine):
    identical = sum(v["verdict"] == "identical" for v in verdicts.values())
    assert identical >= IDENTICAL_AT_LEAST[engine]
