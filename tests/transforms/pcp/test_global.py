"""Algorithm 1, the global component (predicated_cp.md §3.8): T12 (a loop between hyperblocks,
unreached hyperblocks stay ⊤_F), T13 (a hyperblock with a side exit and a fall-through to the
same successor: the successor's information is the meet of both exits), and the IR.md start
state. The oracle for constants is the spec's expected values; behaviour is checked on the
interpreter."""
from __future__ import annotations

from pylogic.ir.parser import parse_module
from pylogic.flow.lattice import BOT
from pylogic.transforms.pcp.global_cp import global_constants
from pylogic.transforms.pcp.pssa import build_pssa  # noqa: F401  (the local component)

T12 = """
func main() {
HB1:
    x = mov 1
    br HB2
HB2:
    y = add x, 1
    x = mov {second}
    r = input
    cbr r, HB2, HB3
HB3:
    z = mul y, 2
    print z
    big = cmp.gt z, 100
    cbr big, DEAD, OUT
DEAD:
    w = input
    cbr w, DEAD, OUT
OUT:
    ret 0
}
"""


def solve(src: str, **kw):
    m = parse_module(src, "t.pir")
    fn = m.functions[0]
    order = {b.label: k for k, b in enumerate(fn.blocks)}
    return m, global_constants(fn, m, order, full=True, **kw)


def computed_at(gcp, label: str, k: int):
    return gcp.computed(gcp.block_states(label)[k], gcp.blocks[label].instrs[k])


def test_t12_loop_between_hyperblocks():
    _, gcp = solve(T12.replace("{second}", "1"), start={})          # σ⊥, as the spec
    inf = gcp.inf["HB2"]
    assert (inf["x"], inf["y"], inf["z"]) == (1, BOT, BOT)
    assert computed_at(gcp, "HB2", 0) == 2                           # y = 2 in HB2
    assert computed_at(gcp, "HB3", 0) == 4                           # z = 4 in HB3
    assert gcp.inf["DEAD"] is None and "DEAD" not in gcp.executable  # ⊤_F, never analysed
    # DEAD (a loop header: a hyperblock of its own) is reachable in the CFG, never reached
    assert {hb.head for hb in gcp.partition} == {"HB1", "HB2", "DEAD", "OUT"}   # HB3 in HB2's


def test_t12_variant_x_becomes_bottom():
    _, gcp = solve(T12.replace("{second}", "y"), start={})
    assert gcp.inf["HB2"]["x"] is BOT
    assert computed_at(gcp, "HB2", 0) is BOT and computed_at(gcp, "HB3", 0) is BOT
    assert gcp.analyses >= 3                     # HB2 analysed again after x dropped to ⊥


def test_ir_start_state_reads_zero_for_unwritten_registers():
    _, gcp = solve(T12.replace("{second}", "1"))
    assert gcp.inf["HB2"]["z"] == 0 and gcp.inf["HB2"]["y"] is BOT   # 0 then 2


T13 = """
func main() {
A:
    a = input
    x = mov 1
    y = mov 5
    p:ut, q:uf = pcmp.gt a, 0
    (p) br S
    x = mov {other}
    br S
S:
    print x
    print y
    ret 0
}
"""


def test_t13_side_exit_and_fall_through_meet():
    _, gcp = solve(T13.replace("{other}", "2"))
    assert gcp.inf["S"]["x"] is BOT and gcp.inf["S"]["y"] == 5
    _, gcp = solve(T13.replace("{other}", "1"))
    assert gcp.inf["S"]["x"] == 1
    # the predicate values leave the hyperblock too: p and q differ per exit (only A mentions
    # them, so what its exits carried is kept aside, global_cp._OwnRegisters, and S's
    # information holds c_s for them)
    assert gcp.own.out[("A", "S")]["p"] is BOT and gcp.own.out[("A", "S")]["q"] is BOT
    assert gcp.inf["S"]["p"] == 0


def test_t13_side_exit_known_taken():
    src = T13.replace("{other}", "2").replace("a = input", "a = mov 3")
    _, gcp = solve(src)
    assert gcp.inf["S"]["x"] == 1                # the fall-through path is infeasible


T9 = """
func main() {
A:
    a = input
    x = mov 1
    p:ut, q:uf = pcmp.gt a, 0
    (q) x = mov 2
    (p) y = add x, 1
    print y
    print x
    ret 0
}
"""


def test_t9_figure1_on_predicated_code():
    """§4.1 reconstruction: y = 2 under p (the second x = 2 runs only under q); the second
    x = 2 is not off-predicated (q unknown); predicate-blind sccp finds y ⊥."""
    from pylogic.analysis.optimize import optimize
    from pylogic.interp.differential import compare_modules
    from pylogic.ir.model import Imm, Mov
    m = parse_module(T9, "t9.pir")
    full = optimize(m, ["pcp-full"], "t9.pir", engine="clingo")
    blind = optimize(m, ["sccp"], "t9.pir", engine="clingo")
    (block,) = full.module.functions[0].blocks
    assert Mov(dest="y", src=Imm(2), guard="p") in block.instrs
    assert Mov(dest="x", src=Imm(2), guard="q") in block.instrs
    assert full.passes[0].totals()["off_predicated_removed"] == 0
    (bblock,) = blind.module.functions[0].blocks
    assert Mov(dest="y", src=Imm(2), guard="p") not in bblock.instrs
    cases = [((), (v,)) for v in (-1, 0, 5)]
    assert compare_modules(m, full.module, cases).verdict == "identical"


def test_define_before_a_folded_branch_keeps_the_branch_condition():
    """A predicate define earlier in the block must not replace the condition of the final
    cbr's folded compare (it did: the define's constant-false condition made B unreachable)."""
    from pylogic.analysis.optimize import optimize
    from pylogic.interp.differential import compare_modules
    src = """
func main() {
A:
    a = input
    p:ut, q:uf = pcmp.gt 0, 5
    c = cmp.lt a, 0
    cbr c, B, C
B:
    print 1
    ret 0
C:
    print 2
    ret 0
}
"""
    m = parse_module(src, "d.pir")
    for passes in (["pcp-full"], ["pcp-basic"]):
        result = optimize(m, passes, "d.pir", engine="clingo")
        check = compare_modules(m, result.module, [((), (-1,)), ((), (3,))])
        assert check.verdict == "identical", check.first_difference


GUARDED_DEFINE = """
func main() {
A:
    a = input
    b = input
    p:ut, q:uf = pcmp.gt a, 0
    (p) k = mov 5
    (p) r:{t}, s:uf = pcmp.lt b, k
    (r) print 1
    (s) print 2
    ret 0
}
"""


def test_guarded_define_reads_operands_only_where_it_executes():
    """A ut/uf define under guard p ignores its condition where p is 0 (IR.md), so k = 5 there
    (k is 0 where p is 0: the meet over every path would be ⊥). A disjt destination reads the
    condition under a false guard too, so there k stays a register. csmith seeds 12 and 24 had
    sccp constants that if-convert,pcp-full missed this way."""
    from pylogic.analysis.optimize import optimize
    from pylogic.interp.differential import compare_modules
    from pylogic.ir.model import Imm, PredDefine
    cases = [((), (a, b)) for a in (-1, 1) for b in (3, 7)]
    for dtype, folded in (("ut", True), ("disjt", False)):
        m = parse_module(GUARDED_DEFINE.replace("{t}", dtype), "g.pir")
        result = optimize(m, ["pcp-full"], "g.pir", engine="clingo")
        (block,) = result.module.functions[0].blocks
        define = [i for i in block.instrs if isinstance(i, PredDefine) and i.guard == "p"]
        assert len(define) == 1 and (define[0].b == Imm(5)) is folded
        check = compare_modules(m, result.module, cases)
        assert check.verdict == "identical", check.first_difference


def test_a_store_of_constants_is_not_folded():
    """gcc torture 930719-1: ``*(char *) 0 = 0`` is a store whose operands are both constant;
    its PVG node was folded as an operation ('store' has no fold: KeyError)."""
    from pylogic.analysis.optimize import optimize
    from pylogic.interp.differential import compare_modules
    src = """
func main() {
A:
    x = input
    cbr x, B, C
B:
    store 0, 0
    ret 1
C:
    print 2
    ret 0
}
"""
    m = parse_module(src, "s.pir")
    for passes in (["pcp-full"], ["pcp-basic"], ["if-convert", "pcp-full"]):
        result = optimize(m, passes, "s.pir", engine="clingo")
        assert compare_modules(m, result.module, [((), (0,))]).verdict == "identical"


def test_absorbing_operands_fold_whatever_the_other_operand():
    """``x and 0``, ``x mul 0``, ``x or -1`` are constants though x is not (csmith 33: LLVM's
    sccp stored 0 where ours stored ``and %x, 0``); a non-absorbing constant folds nothing."""
    from pylogic.analysis.optimize import optimize
    from pylogic.interp.differential import compare_modules
    from pylogic.ir.model import Imm, Print
    src = """
func main() {
A:
    x = input
    a = and x, 0
    m = mul x, 0
    o = or x, -1
    k = or x, 1
    print a
    print m
    print o
    print k
    ret 0
}
"""
    m = parse_module(src, "a.pir")
    for passes in (["sccp"], ["pcp-full"]):
        result = optimize(m, passes, "a.pir", engine="clingo")
        prints = [i.value for i in result.module.functions[0].blocks[0].instrs
                  if isinstance(i, Print)]
        assert prints[:3] == [Imm(0), Imm(0), Imm(-1)] and not isinstance(prints[3], Imm)
        check = compare_modules(m, result.module, [((), (v,)) for v in (-5, 0, 6)])
        assert check.verdict == "identical", check.first_difference


def test_a_hyperblock_is_reanalysed_only_when_a_register_it_mentions_changes(monkeypatch):
    """Algorithm 1 reuses a hyperblock's local analysis when only registers its region never
    mentions changed (``GlobalCP._reused``): same fixpoint as analysing every time, fewer PSSAs
    built, on generated functions whose loop counters flow through every later hyperblock."""
    from pylogic.ir.synthetic_values import random_module
    from pylogic.transforms.pcp import global_cp

    def run(module, reuse: bool):
        fn = module.functions[0]
        built = []
        real_local = global_cp.GlobalCP._local
        monkeypatch.setattr(global_cp.GlobalCP, "_local",
                            lambda self, *a: built.append(1) or real_local(self, *a))
        if not reuse:
            monkeypatch.setattr(global_cp.GlobalCP, "_reused", lambda self, hb, entry: None)
        gcp = global_constants(fn, module, {}, full=True)
        monkeypatch.undo()
        answers = {(label, k): (gcp.computed(st, ins), gcp.guard_value(st, ins))
                   for label in gcp.executable
                   for k, st in enumerate(gcp.block_states(label))
                   for ins in [gcp.blocks[label].instrs[k]]}
        return (gcp.executable, gcp.reached, answers, gcp.analyses,
                {h: None if s is None else dict(s.items()) for h, s in gcp.inf.items()}
                ), len(built)

    fewer = 0
    for seed in (1, 2, 3):
        module = random_module([seed], blocks=50, span=6)
        (with_reuse, built_reusing), (without, built_all) = run(module, True), run(module, False)
        assert with_reuse == without
        assert built_reusing <= built_all
        fewer += built_reusing < built_all
    assert fewer > 0
