"""The window (correlation_window, early termination inside a branch's own function, PathFinder
§7.5 / spec §12 item 23): a subset-safe approximation -- with any window a branch's TRUE/FALSE
answers are among the unbounded ones, and whatever it no longer finds becomes UNDEF -- that cuts
the node-query pairs where queries travel far inside one function."""
from __future__ import annotations

import random

import pytest

from facts_gen.extract import extract_module
from pylogic.analysis import catalog
from pylogic.engines import run_checked
from pylogic.ir.parser import parse_module
from tests.datalog.correlation_memory_oracle import random_memory_module
from tests.datalog.correlation_oracle import random_module
from tests.support import ENGINES


def run(module, window=None, engine="clingo"):
    facts = extract_module(module, "w.pir")
    if window is not None:
        facts["correlation_window"] = [(f, window) for f, _ in facts["correlation_window"]]
    rows = run_checked(catalog.get("correlation").program(), None, engine, facts,
                       only=["correlation", "correlation_cost"])
    answers: dict = {}
    for f, i, a in rows["correlation"]:
        answers.setdefault((f, i), set()).add(a)
    return answers, sum(int(r[2]) for r in rows["correlation_cost"])


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.slow
def test_a_window_never_invents_an_answer(seed):
    make = random_module if seed % 2 else random_memory_module
    module = make(random.Random(seed))
    full, full_pairs = run(module)
    for window in (0, 1, 2):
        cut, pairs = run(module, window)
        assert pairs <= full_pairs
        for key in cut.keys() | full.keys():       # a branch no path reaches may gain UNDEF
            answers, want = cut.get(key, set()), full.get(key, set())
            assert answers - {"UNDEF"} <= want, (seed, window, key)
            if answers != want:
                assert "UNDEF" in answers, (seed, window, key)


def diamonds(n: int) -> str:
    """n diamonds in one function, the k-th testing (p gt k): its query climbs every earlier
    diamond's true edge (p > k-1 does not decide p > k) back to the entry."""
    lines = ["func main(p) {", "entry:", "    br d0"]
    for k in range(n):
        lines += [f"d{k}:", f"    t = cmp.gt p, {k}", f"    cbr t, a{k}, b{k}",
                  f"a{k}:", "    print 1", f"    br d{k + 1}", f"b{k}:", "    print 0", f"    br d{k + 1}"]
    lines += [f"d{n}:", "    ret 0", "}"]
    return "\n".join(lines) + "\n"


def test_the_window_cuts_the_pairs_of_a_long_function():
    module = parse_module(diamonds(40))
    full, full_pairs = run(module)
    cut, pairs = run(module, window=6)
    assert pairs * 3 < full_pairs                  # 40 diamonds: quadratic vs linear
    # every branch keeps its FALSE answer (the false edge of the diamond before it); the deep
    # UNDEF from main's parameter is reached only without the window
    assert all("FALSE" in cut[k] for k in cut if not k[1].startswith("d0#"))
    assert all(cut[k] <= full[k] for k in cut)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_engines_agree_with_a_window(engine):
    module = parse_module(diamonds(12))
    assert run(module, 3, engine) == run(module, 3, "clingo")
