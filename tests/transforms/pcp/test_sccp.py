"""sccp: Wegman-Zadeck conditional constant propagation, predicate-blind (issue #10 item 4).

Hand-written cases with exact expectations, the branchy example of predicated_cp.md §4.2 (what
Wegman-Zadeck finds and misses there), generated programs checked on the interpreter (behaviour,
and every constant reported checked by instrumenting the original program), and C programs."""
from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from pylogic.analysis.optimize import optimize
from pylogic.analysis.passes import run_pass
from pylogic.interp import run_module
from pylogic.interp.differential import compare_modules
from pylogic.ir.llvm.clang import compile_c_to_ll
from pylogic.ir.llvm.importer import import_llvm
from pylogic.ir.model import Imm, Print, Reg
from pylogic.ir.parser import parse_file, parse_module
from pylogic.ir.printer import print_module
from pylogic.ir.verify import verify_module
from pylogic.transforms.pcp.sccp import BOTTOM, conditional_constants
from tests.support import needs_clang
from tests.transforms.ifconvert.test_if_conversion import generated_program

ROOT = Path(__file__).resolve().parents[3]
BRANCHY = ROOT / "examples" / "pcp_branchy.pir"
FEASIBLE = [(1, 0), (0, 1), (0, 0)]


def pir(text):
    m = parse_module(text, "t.pir")
    assert verify_module(m) == []
    return m


def sccp(module):
    return run_pass("sccp", module, "t.pir", engine="clingo")


def check_wellformed(module):
    assert verify_module(module) == []
    assert parse_module(print_module(module), "rt.pir") == module


def body(module, fn="main"):
    """The function's blocks as text, one ``label: instr; instr`` line per block."""
    f = module.function_map()[fn]
    text = print_module(dataclasses.replace(module, functions=(f,), globals=()))
    return [line.strip() for line in text.splitlines()[1:-1] if line.strip()]


def same(before, after, cases):
    """Identical, or the same run-time error on both sides (the pass must keep a fault)."""
    check = compare_modules(before, after, cases)
    assert check.agrees, check.first_difference or check.reason
    return check


# ---------------------------------------------------------------- hand-written cases

def test_constant_through_a_branch_that_folds():
    m = pir("""
func main() {
A:
    x = mov 2
    c = cmp.gt x, 1
    cbr c, B, C
B:
    y = add x, 1
    print y
    ret y
C:
    print 99
    ret 0
}
""")
    new, rec = sccp(m)
    check_wellformed(new)
    assert body(new) == ["A:", "br B", "B:", "print 3", "ret 3"]
    t = rec.totals()
    assert t["branches_folded"] == 1 and t["blocks_removed"] == 1
    assert t["constants_found"] == 5  # x in cmp, c in cbr, x in add, y in print, y in ret
    assert t["dead_removed"] == 3  # x, c, y (folded to mov 3, then unread)
    assert rec.applied[0].folded_branches == (("A", 2, "B"),)
    same(m, new, [((), ())])


def test_loop_induction_variable_varies_invariant_is_constant():
    m = pir("""
func main(n) {
A:
    i = mov 0
    k = mov 5
    br L
L:
    i = add i, 1
    t = mul k, 2
    c = cmp.lt i, n
    cbr c, L, X
X:
    print i
    print t
    ret k
}
""")
    new, rec = sccp(m)
    check_wellformed(new)
    assert body(new) == ["A:", "i = mov 0", "br L", "L:", "i = add i, 1", "c = cmp.lt i, n",
                         "cbr c, L, X", "X:", "print i", "print 10", "ret 5"]
    t = rec.totals()
    assert t["branches_folded"] == 0 and t["blocks_removed"] == 0
    assert t["definitions_folded"] == 1 and t["dead_removed"] == 2  # t = mov 10; k, t dead
    same(m, new, [((n,), ()) for n in (-1, 0, 1, 5)])


def test_wegman_zadeck_conditional_constant_missed_by_simple_cp():
    """WZ91 §1: i = 1 around a loop whose else branch (i != 1) never runs; simple constant
    propagation (every edge executable) meets j = 1 and j = i + 5 and loses i."""
    m = pir("""
func main(n) {
A:
    i = mov 1
    k = mov 0
    br L
L:
    c = cmp.eq i, 1
    cbr c, B, C
B:
    j = mov 1
    br D
C:
    j = add i, 5
    br D
D:
    i = mov j
    k = add k, 1
    d = cmp.lt k, n
    cbr d, L, X
X:
    print i
    ret i
}
""")
    point = conditional_constants(m.function_map()["main"], m)
    assert "C" not in point.executable
    assert point.before[("X", 0)]["i"] == 1
    new, rec = sccp(m)
    check_wellformed(new)
    # L and B are left holding a jump each: bypassed (step 6), so the loop is D alone
    assert body(new) == ["A:", "k = mov 0", "br D", "D:", "k = add k, 1", "d = cmp.lt k, n",
                         "cbr d, D, X", "X:", "print 1", "ret 1"]
    t = rec.totals()
    assert t["branches_folded"] == 1 and t["blocks_removed"] == 1
    assert t["jumps_forwarded"] == 2
    assert rec.applied[0].removed_blocks == ("C",)
    same(m, new, [((n,), ()) for n in (0, 1, 3)])


def test_unreachable_code_removed():
    m = pir("""
func main() {
A:
    print 1
    ret 0
Z:
    print 5
    br A
}
""")
    new, rec = sccp(m)
    check_wellformed(new)
    assert body(new) == ["A:", "print 1", "ret 0"]
    f = rec.applied[0]
    assert f.blocks_removed == 1 and f.unreachable_blocks == 1


def test_infeasible_blocks_are_not_counted_unreachable():
    """A dropped block the CFG reaches (over a folded branch) is infeasible, not unreachable;
    one only a dead block reaches is unreachable (the record's ``unreachable_blocks``)."""
    m = pir("""
func main() {
A:
    cbr 1, B, C
B:
    print 1
    ret 0
C:
    print 2
    ret 0
Z:
    br C
}
""")
    new, rec = sccp(m)
    check_wellformed(new)
    f = rec.applied[0]
    assert f.removed_blocks == ("C", "Z")
    assert f.blocks_removed == 2 and f.unreachable_blocks == 1


def test_reachable_blocks_are_reachability_dl_s():
    """``sccp`` counts unreachable blocks with ``ir.cfg``'s DFS instead of asking the engine:
    on the examples and generated CFGs (irreducible, side exits) the two give the same blocks."""
    from pylogic.analysis.run import module_rows
    from pylogic.transforms.pcp.sccp import _Reachable
    modules = [parse_file(str(p)) for p in sorted((ROOT / "examples").glob("*.pir"))]
    modules += [parse_module(generated_program(seed, "random"), "g.pir") for seed in range(40)]
    unreachable = 0
    for m in modules:
        rows = module_rows(m, "e.pir", relations=("reachable",), engine="clingo")
        for fn in m.defined_functions():
            ours = _Reachable(fn)
            labels = [b.label for b in fn.blocks]
            want = rows.function(fn.name).set("reachable")
            assert {b for b in labels if b in ours} == {b for b in labels if b in want}
            unreachable += sum(1 for b in labels if b not in want)
    assert unreachable > 0


def test_division_by_zero_is_not_folded():
    m = pir("""
func main() {
A:
    x = mov 0
    y = div 7, x
    z = rem 7, x
    w = rem -7, 2
    print w
    print y
    ret z
}
""")
    new, rec = sccp(m)
    check_wellformed(new)
    assert body(new) == ["A:", "y = div 7, 0", "z = rem 7, 0", "print -1", "print y", "ret z"]
    check = same(m, new, [((), ())])
    assert check.comparisons[0].after.error is not None  # the run-time error is kept


def test_unused_division_by_a_possible_zero_is_not_dead():
    m = pir("""
func main(a) {
A:
    y = div 7, a
    z = div a, 4
    ret 0
}
""")
    new, rec = sccp(m)
    assert body(new) == ["A:", "y = div 7, a", "ret 0"]
    assert rec.totals()["dead_removed"] == 1
    same(m, new, [((0,), ()), ((3,), ())])


def test_wrapping_arithmetic_matches_the_interpreter():
    m = pir("""
func main() {
A:
    x = mov 0x7fffffffffffffff
    a = add x, 1
    b = shl 1, 63
    c = shr -1, 60
    d = sar -16, 2
    e = shl 1, 65
    f = cmp.ltu -1, 1
    g = cmp.lt -1, 1
    h = div -7, 2
    i = div b, -1
    j = mul x, x
    k = neg b
    l = not 0
    m = select f, 10, 20
    print a
    print b
    print c
    print d
    print e
    print f
    print g
    print h
    print i
    print j
    print k
    print l
    print m
    ret 0
}
""")
    new, rec = sccp(m)
    check_wellformed(new)
    prints = [i for i in new.function_map()["main"].blocks[0].instrs if isinstance(i, Print)]
    assert all(isinstance(p.value, Imm) for p in prints)
    assert [p.value.value for p in prints] == run_module(m).prints == [
        -2**63, -2**63, 15, -4, 2, 0, 1, -3, -2**63, 1, -2**63, -1, 20]
    assert rec.totals()["dead_removed"] == 14


def test_predicated_guards_constant_one_zero_and_unknown():
    m = pir("""
func main() {
A:
    a = input
    p:ut, q:uf = pcmp.eq 1, 1
    r:ut = pcmp.gt a, 0
    x = mov 1
    (p) x = mov 2
    y = mov 3
    (q) y = mov 4
    z = mov 5
    (r) z = mov 6
    w = mov 7
    (r) w = mov 7
    print x
    print y
    print z
    print w
    (q) br Z
    (p) br B
    ret 0
B:
    ret 1
Z:
    ret 2
}
""")
    new, rec = sccp(m)
    check_wellformed(new)
    assert body(new) == ["A:", "a = input", "r:ut = pcmp.gt a, 0", "z = mov 5", "(r) z = mov 6",
                         "print 2", "print 3", "print z", "print 7", "br B", "B:", "ret 1"]
    f = rec.applied[0]
    assert (f.guards_dropped, f.side_exits_folded, f.guarded_off_removed) == (2, 1, 2)
    assert (f.unreached_removed, f.blocks_removed) == (1, 1)
    same(m, new, [((), (1,)), ((), (-1,))])


def test_defines_under_a_zero_guard_follow_their_deposit_types():
    m = pir("""
func main() {
A:
    a = input
    q:uf = pcmp.eq 0, 0
    t:ut = pcmp.ne 0, 0
    (q) s:ut, t:disjt = pcmp.gt a, 0
    (q) u:ot = pcmp.gt a, 0
    (s) print 1
    (t) print 2
    (u) print 3
    ret 0
}
""")
    new, rec = sccp(m)
    check_wellformed(new)
    assert body(new) == ["A:", "a = input", "t:ut = pcmp.ne 0, 0", "t:ot = pcmp.gt a, 0",
                         "(t) print 2", "ret 0"]
    f = rec.applied[0]
    assert f.guarded_off_rewritten == 1 and f.guarded_off_removed == 3
    same(m, new, [((), (1,)), ((), (0,))])


def test_select_with_unknown_condition_meets_its_operands():
    m = pir("""
func main(a) {
A:
    x = select a, 4, 4
    y = select a, 4, 5
    print x
    ret y
}
""")
    new, _ = sccp(m)
    assert body(new) == ["A:", "y = select a, 4, 5", "print 4", "ret y"]


def test_globals_are_addresses_not_zero():
    m = pir("""
global g[8]
func main() {
A:
    store g, 5
    x = load g
    y = add x, 1
    print y
    ret 0
}
""")
    new, rec = sccp(m)
    assert rec.totals()["constants_found"] == 0
    same(m, new, [((), ())])


# ---------------------------------------------------------------- predicated_cp.md §4.2

def test_branchy_example_wegman_zadeck_finds_no_conditional_constant():
    """Neither branch at F is dead (odd(z) varies), so z (3 or 2) is not constant in F, w is not
    constant at the end of G or H, and z = s + t = 17 in J is beyond WZ (s and t vary)."""
    m = parse_file(BRANCHY)
    fn = m.function_map()["main"]
    point = conditional_constants(fn, m)
    assert point.executable == {b.label for b in fn.blocks}
    assert point.before[("F", 0)]["z"] is BOTTOM
    assert point.before[("G", 3)]["w"] is BOTTOM and point.before[("H", 3)]["w"] is BOTTOM
    j_end = point.before[("J", len(fn.block_map()["J"].instrs) - 1)]
    assert all(j_end[r] is BOTTOM for r in ("z", "w", "s", "t", "x", "y", "u", "v"))
    assert point.before[("G", 3)]["u"] == 5 and point.before[("H", 3)]["u"] == 7
    for pipeline in (["sccp"], ["if-convert", "sccp"]):
        result = optimize(m, pipeline, "branchy.pir", engine="clingo")
        totals = result.passes[-1].totals()
        assert totals["constants_found"] == 0 and totals["branches_folded"] == 0
        assert totals["removed"] == totals["added"] == 0
        check_wellformed(result.module)
        same(m, result.module, [((), i) for i in FEASIBLE])


def test_branchy_if_converted_predicate_blind_finds_no_more():
    m = parse_file(BRANCHY)
    hb = optimize(m, ["if-convert"], "branchy.pir", engine="clingo").module
    fn = hb.function_map()["main"]
    point = conditional_constants(fn, hb)
    instrs = fn.blocks[0].instrs
    last = point.before[("A", len(instrs) - 1)]
    assert all(last[r] is BOTTOM for r in ("z", "w", "s", "t", "x", "y", "u", "v"))


# ---------------------------------------------------------------- generated programs

MARK = -0x5CC95CC95CC95CC9


def instrumented(module, constants):
    """``module`` with ``print MARK; print k; print reg`` before each use claimed constant."""
    at: dict = {}
    for k, c in enumerate(constants):
        at.setdefault((c.function, c.block, c.index), []).append((k, c.register))
    functions = []
    for fn in module.functions:
        blocks = []
        for b in fn.blocks:
            instrs = []
            for i, ins in enumerate(b.instrs):
                for k, reg in at.get((fn.name, b.label, i), ()):
                    instrs += [Print(value=Imm(MARK)), Print(value=Imm(k)),
                               Print(value=Reg(reg))]
                instrs.append(ins)
            blocks.append(dataclasses.replace(b, instrs=tuple(instrs)))
        functions.append(dataclasses.replace(fn, blocks=tuple(blocks)))
    return dataclasses.replace(module, functions=tuple(functions))


def check_constants(module, record, cases):
    """Every constant the record claims holds on every run (soundness oracle)."""
    constants = [c for f in record.applied for c in f.constants]
    if not constants:
        return 0
    probe = instrumented(module, constants)
    seen = 0
    for args, inputs in cases:
        prints = run_module(probe, args=args, inputs=inputs, fuel=400_000).prints
        for i, v in enumerate(prints[:-2]):
            if v == MARK:
                k, value = prints[i + 1], prints[i + 2]
                assert value == constants[k].value, (constants[k], value)
                seen += 1
    return seen


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), shape=st.sampled_from(["dag", "structured", "random"]))
def test_generated_programs_keep_their_behaviour(seed, shape):
    text = generated_program(seed, shape)
    m = parse_module(text, "g.pir")
    rng = random.Random(seed ^ 0x5CC9)
    cases = [((), tuple(rng.randint(-3, 3) for _ in range(40))) for _ in range(4)]
    plain = optimize(m, ["sccp"], "g.pir", engine="clingo")
    check_wellformed(plain.module)
    check = compare_modules(m, plain.module, cases)
    assert check.agrees, (text, print_module(plain.module), check.reason)
    check_constants(m, plain.passes[0].record, cases)
    both = optimize(m, ["if-convert", "sccp"], "g.pir", engine="clingo")
    check_wellformed(both.module)
    check = compare_modules(m, both.module, cases)
    assert check.agrees, (text, print_module(both.module), check.reason)


@pytest.mark.slow
def test_generated_programs_do_get_constants():
    """Guard against a vacuous property: the generator's programs give sccp something to do."""
    found = folded = 0
    for seed in range(30):
        m = parse_module(generated_program(seed, "structured"), "g.pir")
        new, rec = sccp(m)
        t = rec.totals()
        found += t["constants_found"] > 0
        folded += t["guarded_off_removed"] + t["guards_dropped"] + t["branches_folded"] > 0
        cases = [((), tuple(random.Random(seed).randint(-3, 3) for _ in range(40)))]
        check_constants(m, rec, cases)
    assert found >= 10 and folded >= 3


# ---------------------------------------------------------------- C programs

C_PROGRAMS = {
    "consts.c": r"""
#include <stdio.h>
static int scale(int x) { return x * 4 + 1; }
int main(void) {
    int debug = 0, n = 10, s = 0;
    for (int i = 0; i < n; i++) {
        if (debug) printf("i=%d\n", i);
        s += scale(3) + i;
    }
    int k = n > 5 ? 7 : 9;
    printf("%d %d\n", s, k * 2);
    return s & 0x7f;
}
""",
    "mode.c": r"""
#include <stdio.h>
#define MODE 2
int f(int a) {
    int r;
    if (MODE == 1) r = a + 1; else if (MODE == 2) r = a * 3; else r = -a;
    return r;
}
int main(void) {
    unsigned u = 0xffffffffu;
    long long big = 0x7fffffffffffffffLL;
    int t = 0;
    for (int i = 0; i < 5; i++) t += f(i);
    printf("%d %u %lld\n", t, u + 2u, big / 3);
    return 0;
}
""",
    "table.c": r"""
#include <stdio.h>
int tab[4] = {1, 2, 3, 4};
int main(void) {
    int w = 8, sum = 0;
    int h = w / 2;
    for (int i = 0; i < 4; i++) sum += tab[i] * h;
    if (h != 4) sum = -1;
    printf("%d\n", sum);
    return 0;
}
""",
}


@needs_clang
def test_imported_c_programs_keep_their_behaviour(tmp_path):
    found = 0
    for name, text in C_PROGRAMS.items():
        src = tmp_path / name
        src.write_text(text)
        module, _ = import_llvm(compile_c_to_ll(str(src)), str(src))
        result = optimize(module, ["sccp"], name, engine="clingo")
        check_wellformed(result.module)
        check = compare_modules(module, result.module, [((), ())])
        assert check.verdict == "identical", (name, check.first_difference)
        c = check.comparisons[0]
        assert c.after.stdout.strip()
        assert c.counts("after")["instructions"] <= c.counts("before")["instructions"]
        found += result.passes[0].totals()["constants_found"]
        check_constants(module, result.passes[0].record, [((), ())])
    assert found > 0


def test_a_cycle_of_jumps_is_kept():
    """Step 6 bypasses blocks holding only ``br L``, but never a cycle of them (an endless
    loop would lose its blocks)."""
    m = pir("""
func main() {
A:
    x = input
    cbr x, P, Q
P:
    br R
R:
    br P
Q:
    print 1
    ret 0
}
""")
    new, rec = sccp(m)
    check_wellformed(new)
    assert {"P:", "R:"} <= set(body(new)) and rec.totals()["jumps_forwarded"] == 0
    same(m, new, [((), (0,))])
