"""simplify on typed parameters (docs/pir.md "Extensions"): an ``sN``/``uN`` parameter nothing
writes again has its type's known bits and is one value wherever it is read. Checked by the
interpreter on every value of the types (x:s8 by b:u1, 512 calls), and a call outside the range
still faults after the pass."""
from __future__ import annotations

from pylogic.analysis.optimize import optimize
from pylogic.interp.machine import run_module
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_instr
from pylogic.ir.verify import verify_module
from tests.transforms.simplify.pairs_program import pairs_program

CALLEE = """
func f(x:s8, b:u1) {
entry:
    t = shl x, 56
    r1 = sar t, 56            ; sar-shl: x has 57 sign bits
    r2 = and b, 1             ; and-known-bits
    r3 = cmp.lt x, 128        ; constant (range)
    m = and x, 255
    n = shl m, 56             ; shl-and, then
    r4 = sar n, 56            ; sar-shl: x
    r5 = cmp.ne b, 0          ; cmp-bool
    e = mov x
    r6 = cmp.eq e, x          ; eq-same: an unwritten parameter is one value
    r7 = cmp.geu b, 2         ; constant (range)
    r8 = sub x, e             ; sub-same
    w = add x, 1              ; (kept)
    print r1
    print r2
    print r3
    print r4
    print r5
    print r6
    print r7
    print r8
    print w
    ret 0
}

func g(y:s8) {
entry:
    y = add y, 200
    r = cmp.lt y, 128         ; (kept: y is written again, so not in s8 any more)
    print r
    ret 0
}
"""
BODY = "    z = call f(x, b)\n    z = call g(x)"
FOLDED = ("r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8")


def test_typed_parameters_fold_and_agree_on_every_value_of_their_types():
    text = pairs_program(BODY, "x", "b") + CALLEE
    before = parse_module(text, "t.pir")
    result = optimize(before, ["simplify"], "t.pir", engine="clingo")
    after = result.module
    assert verify_module(after) == []
    f = {i.defs()[0]: i for b in after.function_map()["f"].blocks for i in b.instrs if i.defs()}
    g = {i.defs()[0]: i for b in after.function_map()["g"].blocks for i in b.instrs if i.defs()}
    assert all(print_instr(f[r]).startswith(f"{r} = mov") for r in FOLDED), \
        [print_instr(f[r]) for r in FOLDED]
    assert "cmp.lt" in print_instr(g["r"]) and "add" in print_instr(f["w"])
    pairs = [(x, b) for x in range(-128, 128) for b in (0, 1)]
    inputs = [len(pairs)] + [v for p in pairs for v in p]
    a = run_module(before, inputs=inputs, capture_profile=False)
    z = run_module(after, inputs=inputs, capture_profile=False)
    assert a.error is None and z.error is None
    assert a.prints == z.prints and len(a.prints) == 10 * len(pairs)
    # out of range: the same fault, before and after
    for bad in ([1, 128, 0], [1, 3, 2]):
        a = run_module(before, inputs=bad, capture_profile=False)
        z = run_module(after, inputs=bad, capture_profile=False)
        assert a.error is not None and z.error is not None and a.prints == z.prints == []
        assert a.error.fault == z.error.fault
