"""Edge/block profiles and counts of examples/loop_call.pir against analytic expectations."""
import pathlib

import pytest

from pylogic.interp import run_module
from pylogic.ir.parser import parse_file

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "loop_call.pir"


def fib_calls(n):
    """(calls of fib, leaf calls) for the naive recursion, computed independently."""
    if n < 2:
        return 1, 1
    a, la = fib_calls(n - 1)
    b, lb = fib_calls(n - 2)
    return 1 + a + b, la + lb


@pytest.mark.parametrize("n", [1, 4, 10])
def test_loop_call_profile_matches_analysis(n):
    res = run_module(parse_file(EXAMPLE), args=(n,))
    calls, leaves = fib_calls(n)
    fibs = [0, 1]
    while len(fibs) <= n:
        fibs.append(fibs[-1] + fibs[-2])
    assert res.prints == [sum(i * i for i in range(1, n + 1)), fibs[n]]
    edges = {
        ("main", "entry", "head"): 1, ("main", "head", "body"): n,
        ("main", "body", "head"): n, ("main", "head", "exit"): 1,
        ("fib", "entry", "base"): leaves, ("fib", "entry", "rec"): calls - leaves,
    }
    assert res.edge_profile == {k: v for k, v in edges.items() if v}
    assert res.block_profile == {k: v for k, v in {
        ("main", "entry"): 1, ("main", "head"): n + 1, ("main", "body"): n,
        ("main", "exit"): 1, ("square", "entry"): n, ("fib", "entry"): calls,
        ("fib", "base"): leaves, ("fib", "rec"): calls - leaves}.items() if v}
    # instructions per block: main entry 5, head 2, body 4, exit 4; square 2; fib entry 2,
    # base 1, rec 6
    instructions = 5 + 2 * (n + 1) + 4 * n + 4 + 2 * n + 2 * calls + leaves + 6 * (calls - leaves)
    assert res.counts == {"instructions": instructions, "nullified": 0,
                          "executed": instructions, "branches_taken": sum(edges.values()),
                          "calls": n + calls}


def test_profile_can_be_switched_off_but_counts_remain():
    res = run_module(parse_file(EXAMPLE), args=(3,), capture_profile=False)
    assert res.edge_profile == {} and res.block_profile == {}
    assert res.counts["calls"] == 3 + 5


def test_repeated_runs_of_one_module_are_independent():
    module = parse_file(EXAMPLE)
    first = run_module(module, args=(6,))
    run_module(module, args=(9,))
    again = run_module(module, args=(6,))
    assert (first.prints, first.counts, first.edge_profile) == \
        (again.prints, again.counts, again.edge_profile)
