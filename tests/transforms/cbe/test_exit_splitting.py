"""icbe's exit splitting (``transforms/cbe/exit_splitting.py``, PathFinder §7.3-§7.4) on PIR
programs: C's single return block is tail-duplicated per outcome, partly decided callees keep an
undecided exit 0, the growth cap is respected, and random modules through ``icbe,icbe`` behave
the same. Every result runs against its original on the interpreter."""
from __future__ import annotations

import random

import pytest

from pylogic.analysis.optimize import optimize
from pylogic.interp import run_module
from pylogic.interp.conditionals import conditional_branches
from pylogic.interp.differential import compare_modules
from pylogic.ir.model import CondBr, Ret
from pylogic.ir.parser import parse_module
from pylogic.ir.verify import verify_module
from pylogic.transforms.cbe.exit_splitting import ExitSplit
from tests.datalog.correlation_oracle import random_module

# What clang -O0 + mem2reg makes of `static int is_even(int x) { if (x % 2 == 0) return 1;
# return 0; }` and `if (is_even(i)) s += i; else s -= 1;`: one return block.
C_SHAPED = """func is_even(x) {
entry:
    r = rem x, 2
    c = cmp.eq r, 0
    cbr c, then, else
then:
    retval = mov 1
    br return
else:
    retval = mov 0
    br return
return:
    ret retval
}

func main(n) {
entry:
    i = mov 0
    s = mov 0
    br cond
cond:
    more = cmp.lt i, n
    cbr more, body, done
body:
    e = call is_even(i)
    t = cmp.ne e, 0
    cbr t, add, sub
add:
    s = add s, i
    br next
sub:
    s = sub s, 1
    br next
next:
    i = add i, 1
    br cond
done:
    print s
    ret 0
}
"""

# A search returning an address (unknown: recomputed, never dereferenced) or 0 (NULL): only the
# NULL exit decides `p == 0`.
PARTIAL = """global a[80]

func find(n, v) {
entry:
    i = mov 0
    br cond
cond:
    more = cmp.lt i, n
    cbr more, body, missing
body:
    o = mul i, 8
    p = add a, o
    x = load p
    hit = cmp.eq x, v
    cbr hit, found, next
next:
    i = add i, 1
    br cond
found:
    retval = add a, o
    br return
missing:
    retval = mov 0
    br return
return:
    ret retval
}

func main(v) {
entry:
    k = mov 0
    br fill
fill:
    f = cmp.lt k, 10
    cbr f, put, search
put:
    o = mul k, 8
    q = add a, o
    w = mul k, 3
    store q, w
    k = add k, 1
    br fill
search:
    p = call find(10, v)
    z = cmp.eq p, 0
    cbr z, none, some
none:
    print -1
    ret 0
some:
    x = load p
    print x
    ret 0
}
"""


def executed(module, cases, fuel=1_000_000):
    return sum(conditional_branches(module, run_module(module, args=a, inputs=i, fuel=fuel))
               for a, i in cases)


def test_the_single_return_block_is_tail_duplicated_per_outcome():
    module = parse_module(C_SHAPED, "c.pir")
    result = optimize(module, ["icbe"], "c.pir")
    out = result.module
    assert verify_module(out) == []
    clone = out.function_map()["is_even.exits"]
    rets = {b.label: b.instrs[-1].exit for b in clone.blocks if isinstance(b.instrs[-1], Ret)}
    assert rets == {"return.true": 0, "return.false": 1}
    assert "is_even" not in out.function_map()          # its only call now calls the clone
    cases = [((n,), ()) for n in (0, 1, 7, 10)]
    assert compare_modules(module, out, cases).verdict == "identical"
    without = optimize(module, ["icbe"], "c.pir", options={"icbe": {"exits": False}}).module
    calls = sum(c[0][0] for c in cases)
    assert executed(out, cases) == executed(without, cases) - calls  # main's test, every call


def test_a_partly_decided_callee_keeps_an_undecided_exit():
    module = parse_module(PARTIAL, "p.pir")
    result = optimize(module, ["icbe"], "p.pir")
    out = result.module
    splits = [a for a in result.passes[0].record.applied if isinstance(a, ExitSplit)]
    assert [(s.callee, s.exits) for s in splits] == [("find", ("UNDEF", "TRUE"))]
    main = out.function_map()["main"].block_map()
    assert isinstance(main["search.x0"].instrs[-1], CondBr)     # the address: still tested
    assert main["search.x1"].instrs[-1].target == "none"       # NULL: decided
    cases = [((v,), ()) for v in (0, 3, 4, 27, 28)]
    assert compare_modules(module, out, cases).verdict == "identical"
    without = optimize(module, ["icbe"], "p.pir", options={"icbe": {"exits": False}}).module
    misses = 2                                                   # v = 4 and v = 28
    assert executed(out, cases) == executed(without, cases) - misses


def test_a_dereferenced_address_decides_the_other_exit_too():
    """The found exit returns the register just loaded through: non-null (the dereference
    source, PathFinder §12 item 22), so both exits decide `p == 0` and main's test goes."""
    module = parse_module(PARTIAL.replace("retval = add a, o", "retval = mov p"), "p.pir")
    result = optimize(module, ["icbe"], "p.pir")
    splits = [a for a in result.passes[0].record.applied if isinstance(a, ExitSplit)]
    assert [(s.callee, s.exits) for s in splits] == [("find", ("TRUE", "FALSE"))]
    cases = [((v,), ()) for v in (0, 3, 4, 27, 28)]
    assert compare_modules(module, result.module, cases).verdict == "identical"
    without = optimize(module, ["icbe"], "p.pir", options={"icbe": {"exits": False}}).module
    assert executed(result.module, cases) == executed(without, cases) - len(cases)


def test_the_growth_cap_holds_exit_splitting_back():
    module = parse_module(PARTIAL, "p.pir")
    result = optimize(module, ["icbe"], "p.pir", options={"icbe": {"growth": 0.0}})
    record = result.passes[0].record
    assert not any(isinstance(a, ExitSplit) for a in record.applied)
    assert any(r.reason == "duplication limit" and "exit split" in r.detail
               for r in record.rejected)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_random_modules_through_two_rounds_behave_the_same(seed):
    module = random_module(random.Random(500 + seed), functions=4)
    result = optimize(module, ["icbe", "icbe"], "t.pir")
    assert verify_module(result.module) == []
    cases = [((a,), ()) for a in (-2, -1, 0, 1, 2, 3)]
    check = compare_modules(module, result.module, cases, fuel=20_000)
    assert check.verdict != "different", check.first_difference
    assert executed(result.module, cases, 20_000) <= executed(module, cases, 20_000)


# `pick` returns 1, its argument x (TRANS: the caller's value) or 0; the return in `out`
# mixes a decided path with the transparent one, so its own answers ({TRUE}) do not cover it.
TRANSPARENT = """func pick(x, f) {
entry:
    z = cmp.eq f, 0
    cbr z, zero, some
zero:
    ret 0
some:
    o = cmp.eq f, 1
    cbr o, one, pass
one:
    r = mov 1
    br out
pass:
    r = mov x
    br out
out:
    ret r
}
func main(a, f) {
entry:
    v = call pick(a, f)
    t = cmp.eq v, 1
    cbr t, yes, no
yes:
    print 1
    ret 0
no:
    print 0
    ret 0
}
"""


def test_a_transparent_summary_is_not_split():
    module = parse_module(TRANSPARENT, "t.pir")
    result = optimize(module, ["icbe"], "t.pir", options={"icbe": {"growth": 5.0}})
    assert not any(isinstance(a, ExitSplit) for a in result.passes[0].record.applied)
    cases = [((a, f), ()) for a in (0, 1, 5) for f in (0, 1, 2)]
    assert compare_modules(module, result.module, cases).verdict == "identical"
