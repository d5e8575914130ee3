"""PPDE test cases of predicated_pde.md §9 that live inside one hyperblock (this version's
regions are single blocks). Each compares the block's multiset of (instruction, guard) with the
expected result (§3.6 item 7: positions inside a block are not unique) and checks the result in
the interpreter on every valuation of the predicates' conditions (a, g, h in {-1, 0, 1}).
Predicates come from complementary defines: p1 = p3 ∪ p4 = p5 ∪ p6 under p0 = p1 ∪ p2 (Fig. 4)."""
from __future__ import annotations

from collections import Counter
from itertools import product

import pytest

from pylogic.analysis.optimize import optimize
from pylogic.interp.differential import compare_modules
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_instr

HEAD = """func main(a, g, h) {
entry: !hyperblock
    p1:ut, p2:uf = pcmp.gt a, 0
    (p1) p3:ut, p4:uf = pcmp.gt g, 0
    (p1) p5:ut, p6:uf = pcmp.gt h, 0
    k:ut, m:uf = pcmp.eq g, h
"""
CASES = [((a, g, h), ()) for a, g, h in product((-1, 0, 1), repeat=3)]


def ppde(body: str):
    module = parse_module(HEAD + body + "    ret 0\n}\n")
    result = optimize(module, ["ppde"], "t.pir", engine="clingo")
    check = compare_modules(module, result.module, CASES)
    assert check.verdict == "identical", [c.detail for c in check.comparisons if c.detail]
    for c in check.comparisons:
        assert c.after.counts["instructions"] <= c.before.counts["instructions"]
    instrs = result.module.defined_functions()[0].blocks[0].instrs[4:-1]
    return Counter(print_instr(i).strip() for i in instrs), result.passes[0].record.totals()


def lines(text: str) -> Counter:
    return Counter(line.strip() for line in text.strip().splitlines())


@pytest.mark.slow
def test_t3a_partially_dead_narrowed():
    """§1 (A): p1 = p3 ∪ p4: x = a + b (p1) is dead under p4, kept under p3 only."""
    got, t = ppde("""    (p1) x = add a, g
    (p3) y = sub x, 1
    (p4) x = add g, 7
    print y
    print x
""")
    assert got == lines("""(p3) x = add a, g
        (p3) y = sub x, 1
        (p4) x = add g, 7
        print y
        print x""")
    assert t["split"] == 1


def test_t3b_fully_dead_deleted():
    """§1 (B): p1 = p3 ∪ p4 with α under p3, the use under p4, the redefinition under p1."""
    got, _ = ppde("""    (p3) x = add a, g
    (p4) y = sub x, 1
    (p1) x = add g, 7
    print y
    print x
""")
    assert "(p3) x = add a, g" not in got and got["(p1) x = add g, 7"] == 1


def test_t3c_not_dead_unchanged():
    body = """    (p1) x = add a, g
    (p1) y = sub x, 1
    (p1) x = add g, 7
    print y
    print x
"""
    got, _ = ppde(body)
    assert got == lines(body)


def test_t5_flow_dependence_blocks():
    body = """    (p3) y = add g, h
    (p3) print y
"""
    got, _ = ppde(body)
    assert got == lines(body)


def test_t14_definition_under_q_keeps_only_the_compensation():
    """Fig. 10(a) if-converted: δ = (p3) x = ... defines x without using it; x = a + g (p1)
    survives only under LUB_Diff(p1, p3) = {p4}, next to δ."""
    got, t = ppde("""    (p1) x = add a, g
    (p3) x = mov 3
    print x
""")
    assert got == lines("""(p4) x = add a, g
        (p3) x = mov 3
        print x""")


def test_t14b_split_without_a_gain_is_not_kept():
    """Fig. 10(b) if-converted: δ neither defines nor uses x, so Case 2(b) makes copies under
    p3 and p4; both reach `print x` and stay, two issued instructions for one: the block would
    run longer on every path, so it is kept as it was (Definition 1's no-increase)."""
    body = """    (p1) x = add a, g
    (p3) y = mov 3
    print x
    print y
"""
    got, t = ppde(body)
    assert got == lines(body) and t["undone"] >= 1


def test_t15_redefinition_under_a_superset_kills():
    got, _ = ppde("""    (p3) x = add a, g
    (p1) x = mov 5
    print x
""")
    assert "(p3) x = add a, g" not in got


def test_t16_copies_merge_at_the_join_then_split_again():
    """Split at (p3) z, the p3 and p4 copies arrive at (p1) w (p1 = p3 ∪ p4, no DEP) and merge;
    the merged copy splits at (p5) print x and its p6 part is dead: x survives under p5."""
    got, t = ppde("""    (p1) x = add a, g
    (p3) z = mov 1
    (p1) w = add g, 1
    (p5) print x
    print z
    print w
""")
    assert t["merged"] >= 1
    assert got["(p5) x = add a, g"] == 1 and sum(n for s, n in got.items() if "x = add" in s) == 1


def test_t17_no_merge_when_one_copy_is_blocked():
    got, t = ppde("""    (p1) x = add a, g
    (p3) z = mov 1
    (p4) print x
    (p1) w = add g, 1
    print z
    print w
""")
    assert t["merged"] == 0
    assert got["(p4) x = add a, g"] == 1 and "(p1) x = add a, g" not in got


def test_t18_unrelated_predicate_is_passed_and_alpha_dies():
    got, _ = ppde("""    (p1) x = add a, g
    (k) y = add h, 1
    (p1) x = add h, 2
    print x
    print y
""")
    assert "(p1) x = add a, g" not in got


def test_t19_anti_dependence_under_an_overlapping_predicate_blocks():
    blocked = """    (p1) x = add a, g
    (k) a = mov 1
    (p3) print x
    print a
"""
    got, _ = ppde(blocked)
    assert got == lines(blocked)
    got, _ = ppde(blocked.replace("(k) a = mov 1", "(k) b = mov 1").replace("print a", "print b"))
    assert got["(p3) x = add a, g"] == 1 and "(p1) x = add a, g" not in got


def test_t21_deadness_decided_by_an_unrelated_predicate_stays():
    body = """    (p1) x = add a, g
    (k) print x
"""
    got, _ = ppde(body)
    assert got == lines(body)


def test_t23_no_use_anywhere_is_deleted_at_line_7():
    got, _ = ppde("""    (p3) x = add a, g
    x = mov 4
    print x
""")
    assert "(p3) x = add a, g" not in got


def test_no_compare_or_predicate_added():
    module = parse_module(HEAD + """    (p1) x = add a, g
    (p3) y = sub x, 1
    (p4) x = add g, 7
    print y
    print x
    ret 0
}
""")
    new = optimize(module, ["ppde"], "t.pir", engine="clingo").module

    def predicates(m):
        return Counter(print_instr(i).strip() for f in m.defined_functions() for b in f.blocks
                       for i in b.instrs if i.opcode == "pcmp"), \
            {i.guard for f in m.defined_functions() for b in f.blocks for i in b.instrs}
    assert predicates(new)[0] == predicates(module)[0]
    assert predicates(new)[1] <= predicates(module)[1]
