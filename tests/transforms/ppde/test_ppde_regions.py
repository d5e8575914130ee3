"""PPDE across blocks (predicated_pde.md §9: T4, T6-T10, T12, T13, T20, T22, T24, T25): cycle-free
SEME regions of basic blocks and hyperblocks, interface blocks on exits, copies moved into
successors and merged at joins. Every result is checked in the interpreter on every input in
{-1, 0, 1}^n (all valuations of the conditions behind the predicates and branches), and blocks
are compared as multisets of (instruction, guard) (§3.6 item 7)."""
from __future__ import annotations

from collections import Counter
from itertools import product
from pathlib import Path

import pytest

from pylogic.analysis.optimize import optimize
from pylogic.analysis.run import module_rows
from pylogic.interp.differential import compare_modules
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_instr
from pylogic.ir.verify import verify_module
from pylogic.predicates.partition_queries import BlockPredicates
from pylogic.predicates.ppg import PartitionGraph
from pylogic.transforms.ppde import ppde as ppde_pass
from pylogic.transforms.ppde.regions import INTERFACE

# The running example's region R2 (§4.3, Fig. 2(b)): block 1 branches to HB (p1) and to the loop
# region R3 (block 7, p2); HB is blocks 2-5 if-converted (p1 = p3 ∪ p4 = p5 ∪ p6) with its
# exits to block 6 (p5) and, by a side exit, to block 8 (p6); block 6 exits to block 8 (I3's
# `br BB8`). a, x, y are live at every exit (block 8 prints them).
R2 = (Path(__file__).parent / "running_example.pir").read_text()


def inputs(module):
    n = len(module.defined_functions()[0].params)
    return [(v, ()) for v in product((-1, 0, 1), repeat=n)]


def run(text: str, **options):
    module = parse_module(text)
    result = optimize(module, ["ppde"], "t.pir", engine="clingo", options={"ppde": options})
    new = result.module
    assert verify_module(new) == []
    check = compare_modules(module, new, inputs(module))
    assert check.verdict == "identical", [c.detail for c in check.comparisons if c.detail][:3]
    return module, new, check, result.passes[0].record


def blocks(module) -> dict:
    fn = module.defined_functions()[0]
    return {b.label: Counter(print_instr(i).strip() for i in b.instrs) for b in fn.blocks}


def interface_of(module, target: str, source: str) -> str:
    """The interface block on the edge from ``source`` (or a block that was deleted) to
    ``target``."""
    fn = module.defined_functions()[0]
    found = [b.label for b in fn.blocks if INTERFACE in b.annotations
             and b.instrs[-1].target == target and b.label.startswith(source + ".")]
    assert len(found) == 1, (source, target, [b.label for b in fn.blocks])
    return found[0]


def lines(text: str) -> Counter:
    return Counter(line.strip() for line in text.strip().splitlines())


@pytest.mark.slow
def test_t9_running_example_final_layout():
    """T6-T9 (§3.3 steps 1-5, §4.3) in the paper's setting (interface blocks kept, the main
    exit B6 -> B8): x = b + d moves into I3 (T4), a = c + e is split at (p3) y and merged at the
    p5/p6 compare, then leaves HB by both exits (T6); y = a + c narrows to p4 (T7, Case 2(a));
    x = b + c leaves block 1 for I1 and HB, where its p6 part leaves for I2 and its p5 part
    dies against x = b + d (T8); block 6 is emptied and deleted."""
    module, new, check, record = run(R2, interface="keep", main_exit="B6->B8")
    got = blocks(new)
    i1, i2, i3 = interface_of(new, "B7", "B1"), interface_of(new, "B8", "HB"), \
        interface_of(new, "B8", "B6")
    assert "B6" not in got                                                 # line 20
    assert got["B1"] == lines("c1 = cmp.gt k, 0\ncbr c1, HB, " + i1)
    assert got[i1] == lines("x = add b, c\nbr B7")
    assert got[i2] == lines("x = add b, c\na = add c, e\nbr B8")           # E-PRED p6
    assert got[i3] == lines("x = add b, d\na = add c, e\nbr B8")           # E-PRED p5
    assert got["HB"] == lines(f"""p3:ut, p4:uf = pcmp.gt g, 0
        (p3) y = add c, d
        (p3) print y
        (p4) print 0
        (p4) y = add a, c
        p5:ut, p6:uf = pcmp.gt h, 0
        (p6) br {i2}
        br {i3}""")
    # line 21: I3 (the main exit) takes block 6's place; I1 and I2 go to the parent region
    # (R2 is the root here: the function's end)
    layout = [b.label for b in new.defined_functions()[0].blocks]
    assert layout == ["B1", "HB", i3, "B7", "B8", i1, i2] or \
        layout == ["B1", "HB", i3, "B7", "B8", i2, i1]
    # each path runs the copies it ran before, plus the `br` of its interface block (I3
    # replaces block 6's `br`): never more than one instruction more, and the paths through
    # block 6 with y dead under p4 or x = b + c dead under p5 run fewer
    for c in check.comparisons:
        assert c.after.counts["instructions"] <= c.before.counts["instructions"] + 1
    assert any(c.after.counts["instructions"] < c.before.counts["instructions"]
               for c in check.comparisons)
    t = record.totals()
    assert t["interface"] == 3 and t["emptied"] == 1 and t["merged"] >= 1 and t["split"] >= 3


@pytest.mark.slow
def test_t9_definition_1_copies():
    """Each original's copies: a = c + e in I2 (p6) and I3 (p5), x = b + c in I1 (p2) and I2
    (p6): disjoint (no block of one reaches the other's) and within the original (reached
    from the original's block), and no compare added."""
    module, new, _, _ = run(R2, interface="keep", main_exit="B6->B8")
    fn = new.defined_functions()[0]
    succ = {b.label: set(b.successors()) for b in fn.blocks}

    def reach(a):
        seen, work = set(), [a]
        while work:
            for s in succ[work.pop()]:
                if s not in seen:
                    seen.add(s)
                    work.append(s)
        return seen

    where = {}
    for b in fn.blocks:
        for i in b.instrs:
            where.setdefault(print_instr(i).strip(), []).append(b.label)
    for text in ("a = add c, e", "x = add b, c"):
        places = where[text]
        assert len(places) == 2
        p, q = places
        assert q not in reach(p) and p not in reach(q)
        assert all(x in reach("B1") for x in places)

    def pcmps(m):
        return sorted(print_instr(i).strip() for f in m.defined_functions() for b in f.blocks
                      for i in b.instrs if i.opcode == "pcmp")
    assert pcmps(new) == pcmps(module)


@pytest.mark.slow
def test_t9_paid_setting_never_lengthens_a_path():
    """The default setting keeps an interface block only where it replaces an emptied block:
    block 6's x = b + d moves into I3 (T4), the rest stays; no run executes more."""
    module, new, check, record = run(R2)
    got = blocks(new)
    i3 = interface_of(new, "B8", "B6")
    assert got[i3] == lines("x = add b, d\nbr B8") and "B6" not in got
    assert got["B1"]["x = add b, c"] == 1
    for c in check.comparisons:
        assert c.after.counts["instructions"] <= c.before.counts["instructions"]


@pytest.mark.slow
def test_t10_order_matters_second_order_effect():
    """T10: when a = c + e cannot move (here: a load, no candidate), y = a + c is blocked by
    the anti dependence on a and keeps E-PRED p1 (unguarded in HB); with a = c + e sunk first
    (T9) it narrows to p4."""
    blocked = R2.replace("a = add c, e", "a = load.1 @G").replace(
        "func main", "global @G[8]\nfunc main")
    _, new, _, _ = run(blocked, interface="keep")
    got = blocks(new)
    assert got["HB"]["y = add a, c"] == 1 and got["HB"]["(p4) y = add a, c"] == 0


def test_t4_t20_alone_before_the_exit_moves_into_the_interface_block():
    """T4 / Fig. 9: x = b + d alone in block 6 moves into I3 before `br BB8`; T24: block 6 is
    left empty and deleted, the CFG well-formed."""
    _, new, check, record = run("""func main(b, d, h, k) {
A:
    c = cmp.gt h, 0
    cbr c, B6, B7
B6:
    x = add b, d
    br B8
B7:
    k = sub k, 1
    t = cmp.gt k, -2
    cbr t, B7, B8
B8:
    print x
    ret 0
}
""")
    # B7 heads the loop region R3 and B8 joins R2 and R3: B6 -> B8 is an exit of R2
    got = blocks(new)
    i3 = interface_of(new, "B8", "B6")
    assert "B6" not in got and got[i3] == lines("x = add b, d\nbr B8")
    assert got["A"] == lines(f"c = cmp.gt h, 0\ncbr c, {i3}, B7")
    for c in check.comparisons:
        assert c.after.counts["instructions"] == c.before.counts["instructions"]


def test_t20_side_exit_under_the_candidates_predicate():
    """Fig. 9 in a hyperblock: (p) x = ... before the side exit (p) br S, whose target has
    C-PRED p (S's only predecessor): x leaves the hyperblock into S."""
    _, new, check, _ = run("""func main(a, g) {
H: !hyperblock
    p:ut, q:uf = pcmp.gt a, 0
    (p) x = add a, g
    (p) br S
    print g
    ret 0
S:
    print x
    ret 1
}
""")
    got = blocks(new)
    assert got["S"]["x = add a, g"] == 1 and "(p) x = add a, g" not in got["H"]
    for c in check.comparisons:
        assert c.after.counts["instructions"] <= c.before.counts["instructions"]


DIAMOND = """func main(a, b, k) {
B1:
    x = add a, b
    c = cmp.gt k, 0
    cbr c, B2, B3
B2:
    {left}
    br B4
B3:
    print 6
    br B4
B4:
    print x
    ret 0
}
"""


def test_t12_redefined_on_one_side_only_the_other_gets_it():
    """T12 / Fig. 10(a): block 2 (q) starts by redefining x without using it; x = a + b leaves
    block 1 for block 3 (p - q) only."""
    _, new, check, _ = run(DIAMOND.replace("{left}", "x = mov 5"))
    got = blocks(new)
    assert got["B1"]["x = add a, b"] == 0 and got["B2"]["x = add a, b"] == 0
    assert got["B3"]["x = add a, b"] == 1
    assert any(c.after.counts["instructions"] < c.before.counts["instructions"]
               for c in check.comparisons)
    for c in check.comparisons:
        assert c.after.counts["instructions"] <= c.before.counts["instructions"]


def test_t13_copies_on_both_sides_merge_at_the_join():
    """T13 / Fig. 10(b) then Fig. 11(b): block 2 neither defines nor uses x: copies go to
    blocks 2 (q) and 3 (p - q), sink on, and merge at the join (p) before `print x`."""
    _, new, check, record = run(DIAMOND.replace("{left}", "print 5"))
    got = blocks(new)
    assert got["B4"]["x = add a, b"] == 1
    assert sum(n for b in got.values() for s, n in b.items() if s == "x = add a, b") == 1
    assert record.totals()["merged_out"] >= 1
    for c in check.comparisons:
        assert c.after.counts["instructions"] == c.before.counts["instructions"]


def test_t22_identical_candidates_are_not_sunk_together():
    """T22 / Fig. 5(c): the same x = a + b in both arms, used after the join on one side:
    KRS would sink the two together; PPDE treats them as distinct, each waits at its arm's
    end for a copy of its own on the other edge, and nothing changes."""
    text = """func main(a, b, k, h) {
B1:
    c = cmp.gt k, 0
    cbr c, L, R
L:
    x = add a, b
    br J
R:
    x = add a, b
    br J
J:
    d = cmp.gt h, 0
    cbr d, U, V
U:
    print x
    ret 0
V:
    ret 1
}
"""
    module, new, _, record = run(text)
    assert blocks(new) == blocks(module)


def test_t24_no_motion_leaves_no_interface_block():
    """T24 / line 20: interface blocks that would stay empty are never left in the function:
    with nothing to sink (x is used where it is defined) the function is unchanged."""
    text = """func main(a, k) {
B1:
    x = add a, 1
    print x
    c = cmp.gt k, 0
    cbr c, B2, B3
B2:
    ret 1
B3:
    ret 2
}
"""
    module, new, _, _ = run(text, interface="keep")
    assert new == module


def test_t25_fig6_cgir_snippet():
    """T25 / Fig. 6 transcribed to PIR (TN713 = y, TN715 = x, TN717 = z, TN720 = z2): the
    compare's two predicates partition p0, the two `z = x + y` adds are distinct candidates,
    and with every register live at the exit PPDE changes nothing."""
    text = """func main(x, y) {
B: !hyperblock
    z = add y, x
    tn718:ut, tn719:uf = pcmp.le z, y
    (tn719) x = add z, x
    (tn718) x = add z, y
    z2 = add y, x
    print x
    print y
    print z
    print z2
    ret 0
}
"""
    module = parse_module(text)
    fn = module.defined_functions()[0]
    rows = module_rows(module, "t.pir", relations=ppde_pass.NEEDS, engine="clingo")
    fr = rows.function("main")
    preds = BlockPredicates(PartitionGraph(fr, fn), "B", {"tn718", "tn719"})
    assert preds.is_disjoint("tn718", "tn719")
    assert preds.lub_diff("p0", "tn718") == {"tn719"}
    assert {"B#0", "B#4"} <= {r[0] for r in fr["pd_candidate"]}
    _, new, _, _ = run(text)
    assert new == module
