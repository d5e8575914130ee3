"""Interprocedural and correlation facts (issue #15 slice 1): the call graph, call sites,
returns, copies and branch compares of a whole module, and the ``decides`` table checked against
brute-force evaluation of the relations on boundary values."""
from __future__ import annotations

import itertools
import random

from facts_gen.extract import extract_module
from facts_gen.interprocedural import decide
from facts_gen.value_sets import parse_condition
from pylogic.ir.model import RELATIONS as RELS
from pylogic.ir.ops import NEGATED
from pylogic.ir.parser import parse_module

MASK = (1 << 64) - 1


def holds(x: int, rel: str, c: int) -> bool:
    """``x REL c``, written apart from pylogic.ir.ops on purpose (an oracle)."""
    ux, uc = x & MASK, c & MASK
    return {"eq": x == c, "ne": x != c, "lt": x < c, "le": x <= c, "gt": x > c, "ge": x >= c,
            "ltu": ux < uc, "leu": ux <= uc, "gtu": ux > uc, "geu": ux >= uc}[rel]


def test_decides_agrees_with_brute_force_on_boundary_values():
    consts = [-(1 << 63), -(1 << 31), -256, -2, -1, 0, 1, 2, 5, 255, 256, (1 << 31) - 1,
              (1 << 63) - 1]
    probes = sorted({v + d for v in consts for d in (-1, 0, 1)
                     if -(1 << 63) <= v + d < (1 << 63)})
    rng = random.Random(15)
    conds = [f"{r} {c}" for r in RELS for c in consts] + ["range 0 1", "range 0 255",
                                                          "range -2147483648 2147483647"]
    decided = 0
    for cond in conds:
        allowed = [x for x in probes if any(lo <= x <= hi for lo, hi in parse_condition(cond))]
        for rel, c in itertools.product(RELS, rng.sample(consts, 6)):
            answer = decide(cond, rel, c)
            outcomes = {holds(x, rel, c) for x in allowed}
            if answer == "TRUE":
                assert outcomes <= {True}, (cond, rel, c)
            elif answer == "FALSE":
                assert outcomes <= {False}, (cond, rel, c)
            else:
                assert outcomes == {True, False} or not allowed, (cond, rel, c)
            decided += answer is not None
    assert decided > 500


def test_negation_is_the_complement():
    for rel, c in itertools.product(RELS, (-1, 0, 7)):
        for x in (-(1 << 63), -8, -1, 0, 6, 7, 8, (1 << 63) - 1):
            assert holds(x, rel, c) != holds(x, NEGATED[rel], c)


PROGRAM = """func is_empty(n) {
entry:
    t = cmp.eq n, 0
    cbr t, yes, no
yes:
    ret 1
no:
    ret 0
}
func main(a) {
entry:
    r = call is_empty(a)
    s = mov r
    q = cmp.ne s, 0
    cbr q, done, more
more:
    u = load.1u a
    print u
    br done
done:
    ret
}
"""


def test_call_graph_and_correlation_facts_of_a_module():
    facts = extract_module(parse_module(PROGRAM), "m.pir")
    main, callee = "m.pir::main", "m.pir::is_empty"
    assert facts["call_target"] == [(main, "entry#0", callee)]
    assert facts["call_arg"] == [(main, "entry#0", 0, "reg", "a")]
    assert facts["call_result"] == [(main, "entry#0", "r")]
    assert sorted(facts["return_value"]) == [(callee, "no#0", "const", "0"),
                                             (callee, "yes#0", "const", "1"),
                                             (main, "done#0", "const", "0")]
    assert facts["external_entry"] == [(main,)]          # is_empty has a call site
    assert facts["copy"] == [(main, "entry#1", "s", "r")]
    assert sorted(facts["branch_compare"]) == [(callee, "entry#1", "n", "eq", "0"),
                                               (main, "entry#3", "s", "ne", "0")]
    assert (main, "entry", "done", "s", "ne 0") in facts["assert_edge"]
    assert (main, "entry", "more", "s", "eq 0") in facts["assert_edge"]
    # u is never asked about (no branch, return, argument or cell reaches it): no assertion
    assert not [r for r in facts["assert_def"] if r[2] == "u"]
    queried = PROGRAM.replace("    print u\n    br done", "    w = cmp.eq u, 300\n    cbr w, done, done2\n"
                              "done2:\n    ret 2")
    assert (main, "more#0", "u", "range 0 255") in extract_module(parse_module(queried), "m.pir")["assert_def"]
    assert (callee, "eq 1", "ne", "0", "TRUE") in facts["decides"]
    assert (callee, "eq 0", "ne", "0", "FALSE") in facts["decides"]
    assert (main, "range 0 255", "eq", "0", "TRUE") not in facts["decides"]


def test_a_compare_of_two_constants_asserts_its_result():
    text = "func main() {\nentry:\n    t = cmp.ne 7, 0\n    cbr t, a, b\na:\n    ret 1\nb:\n    ret 0\n}\n"
    facts = extract_module(parse_module(text), "m.pir")
    assert facts["branch_compare"] == [("m.pir::main", "entry#1", "t", "ne", "0")]
    assert ("m.pir::main", "entry#0", "t", "eq 1") in facts["assert_def"]


def test_a_large_decides_table_keeps_the_neighbours_queries(monkeypatch):
    import facts_gen.interprocedural as ip
    module = parse_module(PROGRAM)
    full = set(extract_module(module, "m.pir")["decides"])
    monkeypatch.setattr(ip, "DECIDES_LIMIT", 0)
    cut = set(extract_module(module, "m.pir")["decides"])
    assert cut <= full
    # is_empty and main call each other's neighbours: both queries stay
    assert {(r[2], r[3]) for r in cut} == {(r[2], r[3]) for r in full}
