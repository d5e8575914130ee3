"""The cbe pass (issue #15 slice 3): branches decided on some paths (datalog/correlation.dl) are
removed there by duplicating the path. Every result is run against its original on the
interpreter (same output and exit status) and must not execute more conditional branches."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from pylogic.analysis.optimize import optimize
from pylogic.interp import run_module
from pylogic.interp.conditionals import conditional_branches
from pylogic.interp.differential import compare_modules
from pylogic.ir.load import load_program
from pylogic.ir.parser import parse_module
from pylogic.ir.verify import verify_module
from tests.datalog.correlation_oracle import random_module

ROOT = Path(__file__).resolve().parents[3]
ARGS = (-2, -1, 0, 1, 2, 3)

LOOP = """func main(n) {
entry:
    i = mov 0
    s = mov 0
    br cond
cond:
    t = cmp.lt i, 10
    cbr t, body, done
body:
    s = add s, i
    i = add i, 1
    br cond
done:
    print s
    ret 0
}
"""

# Linked-list removal (PathFinder §7.1.1, spec §12 item 25): the callee returns nil (0) when
# the list is empty; the caller tests the result again. The caller's own emptiness test decides
# the callee's, and its flag decides the second test.
CORRELATED = """func main(n) {
entry:
    empty = cmp.eq n, 0
    cbr empty, none, some
none:
    r = mov 0
    br test
some:
    r = mov n
    br test
test:
    z = cmp.eq r, 0
    cbr z, out0, out1
out0:
    print 0
    ret 0
out1:
    print r
    ret 1
}
"""


def cbe_on(module, **options):
    return optimize(module, ["cbe"], "t.pir", options={"cbe": options} if options else None)


def executed(module, args):
    return sum(conditional_branches(module, run_module(module, args=(a,), fuel=20_000))
               for a in args)


def test_the_first_loop_test_is_decided_from_the_entry():
    module = parse_module(LOOP)
    result = cbe_on(module)
    record = result.passes[0].record
    assert [(a.source, a.path, a.outcome) for a in record.applied] == [("entry", ("cond",), "TRUE")]
    check = compare_modules(module, result.module, [((0,), ())])
    assert check.verdict == "identical"
    assert executed(result.module, (0,)) == executed(module, (0,)) - 1


def test_a_test_decided_on_every_path_is_removed_on_every_path():
    module = parse_module(CORRELATED)
    result = cbe_on(module)
    record = result.passes[0].record
    assert {(a.source, a.outcome) for a in record.applied} == {("none", "TRUE"), ("some", "FALSE")}
    assert compare_modules(module, result.module, [((a,), ()) for a in ARGS]).verdict == "identical"
    before, after = executed(module, ARGS), executed(result.module, ARGS)
    assert (before, after) == (2 * len(ARGS), len(ARGS))


EVERYWHERE = """func main(n) {
entry:
    x = mov 4
    c = cmp.gt n, 0
    cbr c, a, b
a:
    y = mov x
    br j
b:
    y = mov 9
    br j
j:
    t = cmp.gt y, 3
    cbr t, p, q
p:
    print y
    ret 0
q:
    print 0
    ret 1
}
"""


def test_a_branch_decided_on_every_path_becomes_a_jump_in_place():
    module = parse_module(EVERYWHERE)
    result = cbe_on(module)
    record = result.passes[0].record
    assert [(type(a).__name__, a.block, a.outcome) for a in record.applied] == [("Decided", "j", "TRUE")]
    assert result.passes[0].size_after == result.passes[0].size_before
    assert compare_modules(module, result.module, [((a,), ()) for a in ARGS]).verdict == "identical"
    assert executed(result.module, ARGS) == executed(module, ARGS) - len(ARGS)


def test_a_branch_on_a_constant_becomes_a_jump():
    module = parse_module("func main() {\nentry:\n    cbr 0, a, b\na:\n    ret 1\nb:\n"
                          "    print 2\n    ret 0\n}\n")
    result = cbe_on(module)
    assert [(a.block, a.outcome) for a in result.passes[0].record.applied] == [("entry", "FALSE")]
    assert compare_modules(module, result.module, [((), ())]).verdict == "identical"
    assert (executed(module, (0,)), executed(result.module, (0,))) == (1, 0)


def test_duplication_limit_keeps_the_branch():
    module = parse_module(CORRELATED)
    record = cbe_on(module, limit=1).passes[0].record
    assert not record.applied and {r.reason for r in record.rejected} == {"duplication limit"}


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.slow
def test_random_modules_behave_the_same(seed):
    module = random_module(random.Random(100 + seed))
    result = cbe_on(module)
    verify_module(result.module)
    check = compare_modules(module, result.module, [((a,), ()) for a in ARGS], fuel=20_000)
    assert check.verdict != "different", check.first_difference
    assert executed(result.module, ARGS) <= executed(module, ARGS)


@pytest.mark.slow
def test_random_modules_lose_executed_conditionals():
    before = after = threaded = 0
    for seed in range(30):
        module = random_module(random.Random(100 + seed))
        result = cbe_on(module)
        threaded += len(result.passes[0].record.applied)
        before += executed(module, ARGS)
        after += executed(result.module, ARGS)
    assert threaded >= 10 and after < before


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "examples").glob("*.pir")))
def test_examples_behave_the_same(name):
    module, _ = load_program(ROOT / "examples" / name)
    result = cbe_on(module)
    check = compare_modules(module, result.module, [((), (1, 0, 3, 2, 5))])
    assert check.verdict != "different", check.first_difference
    assert check.agrees or check.verdict == "not compared"


# ---- icbe: cbe + entry splitting
CALLEE_CHECK = """func get(p, k) {
entry:
    t = cmp.eq p, 0
    cbr t, none, some
none:
    ret -1
some:
    v = add p, k
    ret v
}
func main(n) {
entry:
    p = mov 8
    i = mov 0
    s = mov 0
    br loop
loop:
    v = call get(p, i)
    s = add s, v
    w = call get(n, i)
    s = add s, w
    i = add i, 1
    d = cmp.lt i, 4
    cbr d, loop, done
done:
    print s
    ret 0
}
"""


def test_icbe_clones_the_callee_for_the_call_site_that_decides_its_entry_branch():
    module = parse_module(CALLEE_CHECK)
    result = optimize(module, ["icbe"], "t.pir")
    record = result.passes[0].record
    splits = [a for a in record.applied if hasattr(a, "clone")]
    assert [(s.function, s.outcome, s.calls) for s in splits] == [("get", "FALSE", (("main", "loop#0"),))]
    assert "get.icbe" in result.module.function_map()
    cases = [((a,), ()) for a in (0, 5)]
    assert compare_modules(module, result.module, cases).verdict == "identical"
    # the call with p = 8 no longer tests p == 0; the call with n still does
    assert executed(result.module, (0, 5)) == executed(module, (0, 5)) - 8


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.slow
def test_icbe_random_modules_behave_the_same(seed):
    module = random_module(random.Random(100 + seed))
    result = optimize(module, ["icbe"], "t.pir")
    verify_module(result.module)
    check = compare_modules(module, result.module, [((a,), ()) for a in ARGS], fuel=20_000)
    assert check.verdict != "different", check.first_difference
    assert executed(result.module, ARGS) <= executed(module, ARGS)


# gcc.dg/tree-ssa 20030807-2.c (imported): the null tests of an alloca's address are decided.
ALLOCA_NULL_TESTS = """func oof() {
entry:
    live = alloca 4
    t = cmp.ne live, 0
    cbr t, then, end
then:
    print 1
    br end
end:
    ret 0
}

func main(n) {
entry:
    s = alloca n
    p = mov s
    call oof()
    c = cmp.eq p, 0
    cbr c, null, ok
null:
    print 0
    ret 1
ok:
    store p, 7
    ret 0
}
"""


def test_the_null_tests_of_an_alloca_are_removed():
    module = parse_module(ALLOCA_NULL_TESTS)
    result = optimize(module, ["icbe"], "t.pir")
    applied = {(a.block, a.outcome) for p in result.passes for a in p.record.applied}
    assert applied == {("entry", "TRUE"), ("entry", "FALSE")}, applied
    cases = [((n,), ()) for n in (8, 16)]
    assert compare_modules(module, result.module, cases).verdict == "identical"
    assert (executed(module, (8, 16)), executed(result.module, (8, 16))) == (4, 0)


# gcc.dg/tree-ssa 20030730-1.c (imported): a store through a copy of the tested pointer.
STORE_THROUGH_A_COPY = """func main(n) {
entry:
    call = alloca 8
    p = mov call
    a = mov p
    store.4 a, n
    c = cmp.ne p, 0
    cbr c, then, end
then:
    print 1
    ret 0
end:
    ret 1
}
"""


def test_a_store_through_a_copy_decides_the_null_test():
    module = parse_module(STORE_THROUGH_A_COPY.replace("alloca 8", "input"))
    result = optimize(module, ["icbe"], "t.pir")
    assert [(a.block, a.outcome) for p in result.passes for a in p.record.applied] == \
        [("entry", "TRUE")]
    buf = parse_module("global buf[8]\n" + STORE_THROUGH_A_COPY.replace("alloca 8", "mov buf"))
    result = optimize(buf, ["icbe"], "t.pir")
    assert compare_modules(buf, result.module, [((n,), ()) for n in (0, 5)]).verdict == "identical"
    assert (executed(buf, (0, 5)), executed(result.module, (0, 5))) == (2, 0)


#: the rows cbe reads -> the whole relations they are taken from
_WHOLE = {"correlation_edge_near": "correlation_edge",
          "correlation_through_near": "correlation_through"}


class _WholeEdges:
    """A function's rows with ``correlation_edge`` and ``correlation_through`` read in place of
    their near rows."""

    def __init__(self, view):
        self.view = view

    def __getitem__(self, relation):
        return self.view[_WHOLE.get(relation, relation)]


def test_the_near_edges_give_the_candidates_of_every_edge():
    """``correlation_edge_near`` and ``correlation_through_near`` (the rows cbe's walk reads,
    datalog/correlation.dl) give ``_candidates`` the paths all of ``correlation_edge`` and
    ``correlation_through`` give, for every ``max_path`` up to its window, on random modules and
    the examples, with fewer rows."""
    from pylogic.analysis.run import module_rows
    from pylogic.transforms.cbe.cbe import DEFAULT_MAX_PATH, NEEDS, _candidates
    modules = [random_module(random.Random(300 + seed), functions=4) for seed in range(40)]
    modules += [load_program(p)[0] for p in sorted((ROOT / "examples").glob("*.pir"))]
    found = 0
    near = dict.fromkeys(_WHOLE, 0)
    whole = dict.fromkeys(_WHOLE, 0)
    for module in modules:
        rows = module_rows(module, relations=NEEDS + tuple(_WHOLE.values()))
        for fn in module.defined_functions():
            view = rows.function(fn.name)
            for r, w in _WHOLE.items():
                assert set(view[r]) <= set(view[w])
                near[r] += len(view[r])
                whole[r] += len(view[w])
            for max_path in range(1, DEFAULT_MAX_PATH + 1):
                got = _candidates(fn, view, max_path)
                assert got == _candidates(fn, _WholeEdges(view), max_path), (fn.name, max_path)
                found += len(got)
    # (edges 215 of 329 rows here, csmith 6%; through 29 of 143, csmith 2%)
    assert found >= 100 and all(near[r] < whole[r] for r in _WHOLE), (near, whole)


def test_cbe_refuses_paths_longer_than_the_near_edges():
    from pylogic.analysis.run import module_rows
    from pylogic.transforms.cbe.cbe import DEFAULT_MAX_PATH, NEEDS, cbe
    module = parse_module(LOOP)
    with pytest.raises(ValueError, match="max_path"):
        cbe(module, module_rows(module, relations=NEEDS), max_path=DEFAULT_MAX_PATH + 1)
