"""Queries on a compare's 0/1 result rewritten into the compare's own question (issue #15 part B:
``query_rewrite``; the && / || merges C compilers produce): random modules whose branches test
registers merged from compares, checked against the path-enumeration oracle (which rewrites the
query itself, ``correlation_oracle.compare_rewrite``) and the interpreter, on every engine."""
from __future__ import annotations

import random

import pytest

from facts_gen.extract import extract_module
from pylogic.analysis.optimize import optimize
from pylogic.analysis.run import module_rows
from pylogic.interp import run_module
from pylogic.interp.conditionals import conditional_branches
from pylogic.interp.differential import compare_modules
from pylogic.ir.parser import parse_module
from tests.datalog.correlation_oracle import Oracle
from tests.support import ENGINES

RELS = ("eq", "ne", "lt", "le", "gt", "ge", "ltu", "geu")


def random_merge_module(rng: random.Random):
    labels = [f"b{j}" for j in range(rng.randint(3, 6))]
    text = ["func main(x, y) {", "entry:"]
    for label in ["entry"] + labels:
        if label != "entry":
            text.append(f"{label}:")
        for _ in range(rng.randint(1, 3)):
            d, kind = rng.choice("rst"), rng.random()
            s = rng.choice("xyrst")
            if kind < 0.5:
                text.append(f"    {d} = cmp.{rng.choice(RELS)} {s}, {rng.randint(-1, 2)}")
            elif kind < 0.8:
                text.append(f"    {d} = mov {s}")
            elif kind < 0.9:
                text.append(f"    {d} = mov {rng.randint(0, 1)}")
            else:
                text.append(f"    {d} = input")
        later = labels[labels.index(label) + 1:] if label != "entry" else labels
        if not later or rng.random() < 0.1:
            text.append(f"    ret {rng.choice('rst')}")
        elif rng.random() < 0.25:
            text.append(f"    br {rng.choice(later)}")
        else:
            text.append(f"    cbr {rng.choice('rst')}, {rng.choice(later)}, {rng.choice(labels)}")
    text.append("}")
    return parse_module("\n".join(text) + "\n")


def answers(module, engine="clingo"):
    rows = module_rows(module, "r.pir", relations=["correlation", "correlation_edge"], engine=engine)
    out = {}
    for f, i, a in rows["correlation"]:
        out.setdefault(i, set()).add(a)
    return out, rows


@pytest.mark.parametrize("seed", range(60))
def test_answers_equal_the_path_enumeration_oracle(seed):
    module = random_merge_module(random.Random(seed))
    got, _ = answers(module)
    oracle = Oracle(module, budget=4)
    for f, i, v, rel, c in extract_module(module, "r.pir")["branch_compare"]:
        label, k = i.split("#")
        want = oracle.branch("main", label, int(k), v, rel, int(c))
        assert got.get(i, set()) == want, (seed, i)


@pytest.mark.slow
def test_the_random_modules_need_the_rewrite():
    """Some branch of these modules is decided only through a compare's own question."""
    decided_through_compare = 0
    for seed in range(60):
        module = random_merge_module(random.Random(seed))
        facts = extract_module(module, "r.pir")
        if not facts["query_rewrite"]:
            continue
        got, _ = answers(module)
        decided_through_compare += sum(1 for a in got.values() if a & {"TRUE", "FALSE"})
    assert decided_through_compare >= 20


@pytest.mark.parametrize("seed", range(60, 80))
def test_cbe_on_the_random_modules_is_identical_on_the_interpreter(seed):
    module = random_merge_module(random.Random(seed))
    new = optimize(module, ["cbe"], "r.pir").module
    cases = [((x, y), (0, 1, 2)) for x in (-1, 0, 1, 2) for y in (-1, 0, 2)]
    assert compare_modules(module, new, cases, fuel=2_000).verdict in ("identical", "not compared")


# the && merge of pr61673.c (gcc torture): c >= 0 && c <= 127 on a signed char is c >= 0
AND_MERGE = """func main() {
entry:
    c0 = input
    c1 = shl c0, 56
    c = sar c1, 56
    t = cmp.ge c, 0
    cbr t, rhs, merge
rhs:
    u = cmp.le c, 127
    r = mov u
    br merge2
merge:
    r = mov 0
    br merge2
merge2:
    cbr r, small, big
small:
    print 1
    ret 0
big:
    print 0
    ret 0
}
"""


def test_a_query_through_the_and_merge_becomes_the_compare_s_own():
    module = parse_module(AND_MERGE)
    got, rows = answers(module)
    # from rhs: (r ne 0) -> (u ne 0) -> (c le 127): a signed byte (sar 56), TRUE; from merge:
    # r = 0, FALSE -- full correlation, threaded on both edges
    assert got["merge2#0"] == {"TRUE", "FALSE"}
    new = optimize(module, ["cbe"], "m.pir").module
    cases = [((), (x,)) for x in (135, 5, -1, 127, 128)]
    assert compare_modules(module, new, cases).verdict == "identical"
    for _, inputs in cases:
        before = conditional_branches(module, run_module(module, inputs=inputs))
        assert conditional_branches(new, run_module(new, inputs=inputs)) == before - 1 == 1


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_engines_agree(engine):
    for seed in range(5):
        module = random_merge_module(random.Random(seed))
        _, base = answers(module, "clingo")
        _, other = answers(module, engine)
        for rel in base:
            assert sorted(base[rel]) == sorted(other[rel]), (seed, rel)


# gcc torture 960402-1: f returns `x > 0xFFFFFFFF || x < -0x80000000` and is called with 0. The
# summary of f's return (ret != 0) meets the compare `cmp1 = cmp.lt x, C`: rewriting it inside
# the summary would ask (x lt C) at f's entry, a question the call site's (ne 0) summary never
# collects, losing the FALSE path (cbe then decided main's test TRUE and called abort).
TORTURE_960402 = """
func f(x) {
entry:
    cmp = cmp.gt x, 4294967295
    cbr cmp, t, rhs
t:
    r = mov 1
    br end
rhs:
    cmp1 = cmp.lt x, -2147483648
    r = mov cmp1
    br end
end:
    ret r
}

func main() {
entry:
    call0 = call f(0)
    c = cmp.ne call0, 0
    cbr c, bad, good
bad:
    ret 134
good:
    ret 0
}
"""


def test_a_compare_inside_a_summary_keeps_every_path_answered():
    from pylogic.analysis.optimize import optimize
    from pylogic.interp.differential import compare_modules
    from pylogic.ir.parser import parse_module
    module = parse_module(TORTURE_960402, "t.pir")
    for passes in (["cbe"], ["icbe"], ["icbe", "icbe"]):
        out = optimize(module, passes, "t.pir", engine="clingo").module
        assert compare_modules(module, out, [((), ())]).verdict == "identical", passes
