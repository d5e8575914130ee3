"""simplify across calls of defined functions: what a call returns is one of the callee's
``ret`` values, so the call's result has the known bits of their join (functions are simplified
callees first; in a cycle of calls the first one entered is unknown to its callers). Checked on
the interpreter for every argument the programs branch on."""
from __future__ import annotations

from pylogic.analysis.optimize import optimize
from pylogic.interp.differential import compare_modules
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_instr
from pylogic.ir.verify import verify_module

CALLS = """
global g[2] = {200, 7}
func byte(k) {
entry:
    c = cmp.gt k, 5
    cbr c, far, near
far:
    ret 100
near:
    a = add g, k
    v = load.1 a
    ret v
}
func rec(n) {
entry:
    c = cmp.le n, 0
    cbr c, base, more
base:
    ret 1
more:
    m = sub n, 1
    r = call rec(m)
    s = mul r, 1000
    ret s
}
func none(n) {
entry:
    c = cmp.lt n, 0
    cbr c, bad, ok
bad:
    ret
ok:
    ret 1
}
func main(k) {
entry:
    b = call byte(k)
    t = shl b, 56
    r1 = sar t, 56            ; sar-shl: b is a sign-extended byte
    r2 = cmp.gt b, 200        ; constant 0
    x = call rec(k)
    r3 = cmp.eq x, 1          ; kept: rec returns 1000**n
    y = call none(k)
    r4 = cmp.ltu y, 2         ; constant 1: 0 (ret without a value) or 1
    print r1
    print r2
    print r3
    print r4
    ret 0
}
"""


def test_a_call_has_the_known_bits_of_what_its_callee_returns():
    before = parse_module(CALLS, "t.pir")
    result = optimize(before, ["simplify"], "t.pir", engine="clingo")
    after = result.module
    assert verify_module(after) == []
    d = {i.defs()[0]: i for b in after.function_map()["main"].blocks for i in b.instrs
         if i.defs()}
    assert print_instr(d["r1"]) == "r1 = mov b"
    assert print_instr(d["r2"]) == "r2 = mov 0"
    assert "cmp.eq" in print_instr(d["r3"])
    assert print_instr(d["r4"]) == "r4 = mov 1"
    assert [a.function for a in result.passes[0].record.applied] == ["byte", "rec", "none",
                                                                     "main"]
    for k in (0, 1, 6, 9):
        assert compare_modules(before, after, [((k,), ())]).verdict == "identical"
