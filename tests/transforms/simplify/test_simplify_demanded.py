"""simplify's demanded low bits (InstCombine's SimplifyDemandedBits for sign-extensions): when a
result is only ever read by ``shl r, k`` (the importer's ``shl; sar`` re-normalisation), an
operand re-normalised from y (``sar (shl y, j), j`` or ``and y, m``) keeping those bits is
replaced by y, so i8 arithmetic cancels as 64-bit arithmetic does; plus ``x - (x + c)`` = -c and
cancellation across a non-SSA register not written in between. Checked by the interpreter on
every pair of i8 operands (sign-extended) and on 64-bit ones."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from pylogic.analysis.optimize import optimize
from pylogic.interp.machine import run_module
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_instr
from pylogic.ir.verify import verify_module
from tests.transforms.simplify.pairs_program import pairs_program

# x, y: any 64-bit values; x8 = sext i8 of x. Each rN is an i8 result as the importer lowers it.
BODY = """
    xs = shl x, 56
    x8 = sar xs, 56
    t1 = add x8, 8
    u1 = shl t1, 56
    a1 = sar u1, 56           ; i8 x8 + 8
    s1 = sub a1, 8            ; demanded-bits: sub t1, 8, then sub-add: x8
    v1 = shl s1, 56
    r1 = sar v1, 56           ; sar-shl: x8
    t2 = add 5, x8
    u2 = shl t2, 56
    a2 = sar u2, 56
    s2 = sub x8, a2           ; demanded-bits, then sub-add-constant: -5
    v2 = shl s2, 56
    r2 = sar v2, 56
    m3 = and y, 255
    p3 = add m3, 3            ; demanded-bits: add y, 3
    q3 = shl p3, 56
    r3 = sar q3, 56
    t4 = add x8, 8
    u4 = shl t4, 56
    a4 = sar u4, 56
    s4 = sub a4, 8            ; (kept: s4 is printed whole below)
    v4 = shl s4, 56
    r4 = sar v4, 56
    t5 = add x8, 8
    u5 = shl t5, 48
    a5 = sar u5, 48           ; an i16 re-normalisation ...
    s5 = mul a5, y
    v5 = shl s5, 40           ; ... read through 24 low bits: more than it keeps (kept)
    r5 = sar v5, 40
    n6 = add x, 1
    d6 = sub n6, 1            ; sub-add: x, not written between
    x = add x, 0
    print r1
    print r2
    print r3
    print r4
    print s4
    print r5
    print d6
"""


@pytest.fixture(scope="module")
def simplified():
    """(before, after, simplify's record): built when a test asks, not at collection (every
    xdist worker collects every file)."""
    text = pairs_program(BODY, "x", "y")
    before = parse_module(text, "t.pir")
    result = optimize(before, ["simplify"], "t.pir", engine="clingo")
    assert verify_module(result.module) == []
    return before, result.module, result.passes[0].record


def _run(module, pairs):
    return run_module(module, inputs=[len(pairs)] + [v for p in pairs for v in p],
                      fuel=10 ** 9, capture_profile=False)


def test_the_rules_fire_where_they_should_and_only_there(simplified):
    _, after, record = simplified
    d = {i.defs()[0]: i for f in after.defined_functions() for b in f.blocks
         for i in b.instrs if i.defs()}
    rules = record.totals()["rules"]
    assert rules.get("demanded-bits", 0) >= 3 and rules.get("sub-add-constant") == 1
    assert print_instr(d["s1"]) == "s1 = mov x8" and print_instr(d["r1"]) == "r1 = mov s1"
    assert print_instr(d["r2"]) == "r2 = mov -5"
    assert print_instr(d["p3"]) == "p3 = add y, 3"
    assert print_instr(d["s4"]) == "s4 = sub a4, 8"
    assert print_instr(d["s5"]) == "s5 = mul a5, y"
    assert print_instr(d["d6"]) == "d6 = mov x"


@pytest.mark.slow
def test_every_i8_pair_agrees_with_the_interpreter(simplified):
    before, after, _ = simplified
    pairs = [(x, y) for x in range(-128, 128) for y in range(-128, 128)]
    a, b = _run(before, pairs), _run(after, pairs)
    assert a.error is None and b.error is None
    assert a.prints == b.prints and len(a.prints) == 7 * len(pairs)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-(1 << 63), (1 << 63) - 1),
                          st.integers(-(1 << 63), (1 << 63) - 1)), min_size=1, max_size=8))
def test_64_bit_operands(simplified, pairs):
    before, after, _ = simplified
    assert _run(before, pairs).prints == _run(after, pairs).prints
