"""Branch queries rewritten through add/sub of a constant and sign/zero extensions (issue #15 part
C, ``facts_gen/query_arithmetic.py``): each rewrite is the exact preimage (checked here value by
value with Python's own integers, wrap-around included), the answers through them equal the
path-enumeration oracle (``test_correlation.py``: the random modules' ``x = add y, 1``), and
``cbe`` removes the branches of gcc torture 20001130-1 and strlen-5 they decide."""
from __future__ import annotations

import random

import pytest

from facts_gen.query_arithmetic import _cut, _cut_is, _query_set, decide_query, rewrite
from facts_gen.value_sets import _merged
from pylogic.analysis.optimize import optimize
from pylogic.analysis.run import module_rows
from pylogic.interp import run_module
from pylogic.interp.conditionals import conditional_branches
from pylogic.interp.differential import compare_modules
from pylogic.ir.model import RELATIONS
from pylogic.ir.parser import parse_module
from tests.datalog.correlation_oracle import Oracle, random_module
from tests.support import ENGINES

M = 1 << 64


def signed(x: int, bits: int = 64) -> int:
    x %= 1 << bits
    return x - (1 << bits) if x >> (bits - 1) else x


def holds(rel: str, c, x: int) -> bool:
    """Does the 64-bit register value x satisfy the query? (independent of the module and,
    on purpose, of pylogic.ir.ops: an oracle)"""
    kind, _, base = rel.rpartition(".")
    if kind:
        w = int(kind[1:])
        x = signed(x, w) if kind[0] == "s" else x % (1 << w)
    if base == "in":
        return any(int(a) <= x <= int(b) for a, b in (p.split("..") for p in c.split(",")))
    c = int(c)
    u, cu = x % M, c % M
    return {"eq": x == c, "ne": x != c, "lt": x < c, "le": x <= c, "gt": x > c, "ge": x >= c,
            "ltu": u < cu, "leu": u <= cu, "gtu": u > cu, "geu": u >= cu}[base]


def samples(rng, *centres):
    out = {0, 1, -1, -(1 << 63), (1 << 63) - 1, 127, -128, 255, 1 << 31, -(1 << 31), (1 << 31) - 1,
           (1 << 32) - 1, 1 << 32}
    for c in centres:
        out.update(signed(c + d) for d in range(-3, 4))
        out.update(signed(c + d + e) for d in range(-2, 3) for e in (1 << 32, -(1 << 32), 1 << 8))
    out.update(signed(rng.getrandbits(64)) for _ in range(20))
    return sorted(out)


def apply(step, x: int) -> int:
    what, arg, _ = step
    if what == "add":
        return signed(x + arg)
    return signed(x, arg) if what == "sext" else x % (1 << arg)


@pytest.mark.parametrize("seed", range(6))
def test_each_rewrite_is_the_exact_preimage(seed):
    rng = random.Random(seed)
    checked = undecided = 0
    for _ in range(150):
        kind = rng.choice(["", "", "s32", "u32", "s8", "u16"])
        rel = (kind + "." if kind else "") + rng.choice(RELATIONS)
        c = rng.choice([0, 1, 3, -1, 127, -128, 255, (1 << 31) - 1, -(1 << 31), (1 << 63) - 1,
                        -(1 << 63), rng.randint(-50, 50)])
        step = rng.choice([("add", rng.choice([1, -1, 2, 5, 1 << 31, -(1 << 63)]), ()),
                           ("sext", rng.choice([8, 16, 32]), ()),
                           ("zext", rng.choice([8, 16, 32]), ())])
        new = rewrite(step, rel, c)
        if new is None:                 # the only refusal: a narrower query over a wider ext
            assert step[0] != "add"
            undecided += 1
            continue
        for x in samples(rng, c, -step[1] if step[0] == "add" else 0):
            assert holds(new[0], new[1], x) == holds(rel, c, apply(step, x)), (step, rel, c, new, x)
        checked += 1
    assert checked > 100


def test_a_width_query_on_a_register_in_range_is_its_own_query():
    # v = sext32(a) with a a sign-extended 32-bit load: (v lt 10) is (a lt 10), no width
    assert rewrite(("sext", 32, ("s32",)), "lt", 10) == ("lt", 10)
    assert rewrite(("sext", 32, ()), "lt", 10) == ("s32.lt", 10)
    # (x + 1 eq 1) is (x eq 0); (x + 1 lt 10) wraps at MAX: a set, not a relation
    assert rewrite(("add", 1, ()), "eq", 1) == ("eq", 0)
    rel, c = rewrite(("add", 1, ()), "lt", 10)
    assert rel == "in" and c == f"{-(1 << 63)}..8,{(1 << 63) - 1}..{(1 << 63) - 1}"


def test_decisions_against_brute_force():
    rng = random.Random(7)
    for _ in range(300):
        lo = rng.choice([-(1 << 63), -5, 0, 1, 250, (1 << 32) - 2])
        hi = lo + rng.choice([0, 1, 3, 300])
        rel = rng.choice(["", "s8.", "u8.", "s32."]) + rng.choice(RELATIONS)
        c = rng.choice([0, 1, 3, -1, 127, 255, -128])
        values = range(lo, min(hi, (1 << 63) - 1) + 1)
        truth = {holds(rel, c, x) for x in values}
        got = decide_query([(lo, min(hi, (1 << 63) - 1))], rel, c)
        assert got == ("TRUE" if truth == {True} else "FALSE" if truth == {False} else None)


def test_a_query_set_cut_is_compared_as_merged():
    """``canonical``'s piecewise test (``_cut_is``) answers as merging the cut set and comparing
    would: a query set stays merged when cut (random cuts, against the cut itself and a
    neighbour of it)."""
    rng = random.Random(11)
    ends = [-(1 << 63), -(1 << 31), -129, -1, 0, 1, 127, 255, 256, 1 << 31, (1 << 63) - 1]
    for _ in range(3000):
        rel = rng.choice(["", "s8.", "u16.", "s32."]) + rng.choice(RELATIONS)
        q = _query_set(rel, rng.choice([0, 1, -1, 100, 255, -300, 1 << 40]))
        lo, hi = sorted(rng.sample(ends, 2))
        cut = _merged(_cut(q, lo, hi))
        near = [(a, b + 1) for a, b in cut] if cut and rng.random() < 0.5 else cut[1:]
        assert _cut_is(q, lo, hi, cut)
        assert _cut_is(q, lo, hi, near) == (near == cut)


def test_the_random_modules_need_the_add_rewriting():
    """The oracle equality of test_correlation.py covers rewriting: without the rows, answers
    the oracle (and the Datalog) find through ``x = add y, 1`` would be UNDEF."""
    gained = 0
    for seed in range(40):
        module = random_module(random.Random(seed))
        rows = module_rows(module, "r.pir", relations=["query_rewrite", "branch_compare"])
        with_rows = Oracle(module, budget=4, rewrites=rows["query_rewrite"])
        without = Oracle(module, budget=4)
        for fn in module.defined_functions():
            for b in fn.blocks:
                term, cmp = b.instrs[-1], b.instrs[-2] if len(b.instrs) > 1 else None
                if getattr(term, "cond", None) is None or getattr(cmp, "dest", None) != term.cond.name \
                        or not hasattr(cmp, "rel") or cmp.a.name == cmp.dest:
                    continue
                args = (fn.name, b.label, len(b.instrs) - 1, cmp.a.name, cmp.rel, cmp.b.value)
                gained += len(with_rows.branch(*args) - without.branch(*args) - {"UNDEF"})
    assert gained >= 5


# gcc torture 20001130-1 (as imported): on the false edge of x != 0, inc = sext32(x + 1) is 1
TORTURE_20001130 = """
func foo(x) {
entry:
    cmp = cmp.ne x, 0
    cbr cmp, then, end
then:
    r = mov x
    br ret
end:
    t = add x, 1
    t2 = shl t, 32
    inc = sar t2, 32
    cmp2 = cmp.ne inc, 1
    cbr cmp2, bad, ok
bad:
    ret 134
ok:
    r = mov 0
    br ret
ret:
    ret r
}

func main(n) {
entry:
    a = call foo(n)
    ret a
}
"""

# strlen-5's j: 0, then ++j in three later blocks (each after a branch), then j != 3
STRLEN_5 = """
func main(n) {
entry:
    j = mov 0
    c = cmp.eq n, 1
    cbr c, a1, b1
a1:
    print 1
    br b1
b1:
    t1 = add j, 1
    j1 = shl t1, 32
    j = sar j1, 32
    c1 = cmp.eq n, 2
    cbr c1, a2, b2
a2:
    print 2
    br b2
b2:
    t2 = add j, 1
    j2 = shl t2, 32
    j = sar j2, 32
    c2 = cmp.eq n, 3
    cbr c2, a3, b3
a3:
    print 3
    br b3
b3:
    j = add j, 1
    t = cmp.ne j, 3
    cbr t, bad, good
bad:
    ret 1
good:
    ret 0
}
"""


@pytest.mark.parametrize("text, branch", [(TORTURE_20001130, ("foo", "end#4")),
                                          (STRLEN_5, ("main", "b3#2"))])
def test_a_branch_decided_through_adds_and_extensions_is_removed(text, branch):
    module = parse_module(text)
    rows = module_rows(module, "m.pir", relations=["correlation"])
    got = {a for f, i, a in rows["correlation"] if (f.split("::")[1], i) == branch}
    assert got == {"FALSE"}
    new = optimize(module, ["cbe"], "m.pir").module
    cases = [((n,), ()) for n in (0, 1, 2, 3, 5)]
    assert compare_modules(module, new, cases).verdict == "identical"
    fn, block = branch[0], branch[1].partition("#")[0]
    ran = 0
    for (args, _) in cases:
        run = run_module(module, args=args)
        here = run.block_profile.get((fn, block), 0)        # the branch's executions
        ran += here
        before = conditional_branches(module, run)
        assert conditional_branches(new, run_module(new, args=args)) <= before - here
    assert ran > 0


def test_a_sign_extension_of_unknown_high_bits_is_not_assumed_away():
    # x + 1 where x is a parameter with unknown high bits: (sext32(x + 1) eq 1) is low32(x) == 0,
    # so x = 1 << 32 makes it TRUE: only the 32-bit question may be asked of x
    text = TORTURE_20001130.replace("cmp = cmp.ne x, 0", "cmp = cmp.ne x, 4294967296")
    module = parse_module(text)
    rows = module_rows(module, "m.pir", relations=["correlation"])
    got = {a for f, i, a in rows["correlation"] if (f.split("::")[1], i) == ("foo", "end#4")}
    assert got == {"FALSE"}                  # low 32 bits of 2^32 are 0: inc is 1
    text = TORTURE_20001130.replace("cmp = cmp.ne x, 0", "cmp = cmp.ne x, 4294967297")
    rows = module_rows(parse_module(text), "m.pir", relations=["correlation"])
    got = {a for f, i, a in rows["correlation"] if (f.split("::")[1], i) == ("foo", "end#4")}
    assert got == {"TRUE"}                   # low 32 bits 1: inc is 2


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_engines_agree(engine):
    for text in (TORTURE_20001130, STRLEN_5):
        module = parse_module(text)
        rels = ["correlation", "correlation_edge", "correlation_through"]
        base = module_rows(module, "m.pir", relations=rels, engine="clingo")
        other = module_rows(module, "m.pir", relations=rels, engine=engine)
        for rel in rels:
            assert sorted(base[rel]) == sorted(other[rel]), rel
    for seed in range(5):
        module = random_module(random.Random(seed))
        base = module_rows(module, "r.pir", relations=["correlation"], engine="clingo")
        other = module_rows(module, "r.pir", relations=["correlation"], engine=engine)
        assert sorted(base["correlation"]) == sorted(other["correlation"]), seed
