"""``icbe``'s iteration converges (issue #28: on csmith-2 after PRE every round peeled one more
loop iteration and cloned ``@transparent_crc`` twice more, up to the 64-round limit): the
per-conditional duplication limit holds per *original* conditional over all rounds (PathFinder
§7.5), and a callee is cloned at most once for the same decided entry branches."""
from __future__ import annotations

import pytest

from pylogic.analysis.optimize import optimize
from pylogic.interp.differential import compare_modules
from pylogic.ir.parser import parse_module
from pylogic.ir.verify import verify_module
from pylogic.transforms.cbe.cbe import Threaded
from pylogic.transforms.cbe.icbe import EntrySplit
from tests.support import needs_clang
from tests.transforms.cbe.test_cbe import ARGS, executed

# csmith-2's pattern: a flag decided before the loop, tested (and passed to a callee that tests
# it at its entry) in the loop body. Round 1 threads the body's test from the blocks that set the
# flag; each later round threads it again from the previous round's copy (one more iteration
# peeled), whose call site decides the callee's entry branch again.
PEELED = """func main(n) {
entry:
    c = cmp.eq n, 2
    cbr c, one, zero
one:
    f = mov 1
    br head
zero:
    f = mov 0
    br head
head:
    i = mov 0
    br cond
cond:
    t = cmp.lt i, 5
    cbr t, body, done
body:
    call show(i, f)
    cbr f, loud, inc
loud:
    print 100
    br inc
inc:
    i = add i, 1
    br cond
done:
    ret 0
}
func show(x, flag) {
entry:
    cbr flag, yes, no
yes:
    print x
    ret 0
no:
    ret 0
}
"""


def _icbe(limit: int):
    module = parse_module(PEELED)
    result = optimize(module, ["icbe"], "t.pir",
                      options={"icbe": {"growth": 10.0, "limit": limit}})
    assert verify_module(result.module) == []
    check = compare_modules(module, result.module, [((a,), ()) for a in ARGS], fuel=20_000)
    assert check.verdict == "identical", check.first_difference
    assert executed(result.module, ARGS) < executed(module, ARGS)
    return result.passes[0].record


def test_duplication_per_original_conditional_stays_within_the_limit_over_all_rounds():
    # before: the limit held per round, so the body's test duplicated 20 instructions (limit 8)
    record = _icbe(limit=8)
    spent: dict = {}
    for a in record.applied:
        if isinstance(a, Threaded):
            spent[a.branch] = spent.get(a.branch, 0) + a.duplicated
    assert spent and max(spent.values()) <= 8, spent


def test_a_callee_is_cloned_once_for_the_same_decisions():
    # before: show.icbe, show.icbe3 (flag FALSE) and show.icbe2, show.icbe4 (TRUE)
    record = _icbe(limit=64)
    clones: dict = {}
    for a in record.applied:
        if isinstance(a, EntrySplit):
            clones.setdefault((a.function, a.branch, a.outcome), set()).add(a.clone)
    assert clones and all(len(c) == 1 for c in clones.values()), clones


@needs_clang
@pytest.mark.slow
def test_a_copy_is_never_entered_from_its_own_last_block():
    """Shootout lists.c (benchmarks/real): `while (n) result = f(...)` as clang lowers it. icbe
    threaded the loop test from a copy of the test (``while.cond.cbe.2``), and entering the copy
    made earlier for the same path and outcome from that block bent the copy's exit back into
    it: the loop lost its test and never ended (fuel exhausted; the original runs 752,264
    instructions). A copy is reused only from a block outside it."""
    from pathlib import Path
    from benchmarks.optimize import prepare_program
    path = Path(__file__).resolve().parents[3] / "benchmarks/real/Shootout/lists.c"
    module = prepare_program("real", str(path))[0]
    new = optimize(module, ["icbe"], "lists.c", engine="clingo").module
    verify_module(new)
    check = compare_modules(module, new, [((), ())])
    assert check.verdict == "identical", check.first_difference
