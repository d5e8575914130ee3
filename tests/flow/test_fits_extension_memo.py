"""``fits_extension`` remembers its answers per ``defs`` (issue #28 item 1, prem46): against the
definition without memory (``_reference``, the function before the memo) on register graphs of
copies, bitwise operations, loads, compares, calls and shifts with cycles and several writes per
register, every register asked at every size, in a random order, of one ``defs`` object; the
answer of a register on a cycle depends on the path it is reached by, which the memo must not
fix."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from pylogic.flow.definitions import Definitions
from pylogic.flow.fits_extension import fits_extension
from pylogic.ir.model import BinOp, Call, Cmp, Imm, Load, Mov, Reg

REGS = [f"r{k}" for k in range(3)]


def _reference(v, size, signed, defs, seen=frozenset(), returns=None) -> bool:
    """``fits_extension`` as it was before its memo (pylogic 0efe797)."""
    if size >= 8:
        return True
    bits = 8 * size
    lo, hi = (-(1 << (bits - 1)), 1 << (bits - 1)) if signed else (0, 1 << bits)
    if isinstance(v, Imm):
        return lo <= v.value < hi
    if not isinstance(v, Reg) or v.name in seen or v.name not in defs:
        return False
    seen = seen | {v.name}
    for ins in defs[v.name]:
        if ins is None:
            rng = getattr(defs, "ranges", {}).get(v.name)
            if rng is None or not (lo <= rng[0] and rng[1] < hi):
                return False
            continue
        if len(ins.defs()) != 1:
            return False
        if isinstance(ins, Mov):
            ok = _reference(ins.src, size, signed, defs, seen, returns)
        elif isinstance(ins, Cmp):
            ok = True
        elif isinstance(ins, Call) and returns is not None:
            ok = returns(ins.callee, size, signed)
        elif isinstance(ins, Load):
            ok = (ins.size < size and (not ins.signed or signed)) or \
                (ins.size == size and ins.signed == signed)
        elif isinstance(ins, BinOp) and ins.op in ("and", "or", "xor"):
            ok = all(_reference(x, size, signed, defs, seen, returns) for x in (ins.a, ins.b)) \
                or (ins.op == "and" and any(isinstance(c, Imm) and 0 <= c.value < hi
                                            for c in (ins.a, ins.b)))
        elif isinstance(ins, BinOp) and ins.op in ("sar", "shr") and isinstance(ins.b, Imm):
            k = ins.b.value % 64
            ok = signed and k >= 64 - bits if ins.op == "sar" else \
                k > 0 and k >= 64 - bits + (1 if signed else 0)
        else:
            ok = False
        if not ok:
            return False
    return True


# registers twice as often as constants: cycles through copies and bitwise operations, the
# case where an answer depends on the path
operand = st.one_of(st.sampled_from(REGS).map(Reg), st.sampled_from(REGS).map(Reg),
                    st.sampled_from([0, 1, 100, 255, 300, 40000, 70000, -1, -200]).map(Imm))


def _write(dest: str):
    bitwise = st.tuples(st.sampled_from(["and", "or", "xor", "and", "add"]), operand,
                        operand).map(lambda t: BinOp(op=t[0], dest=dest, a=t[1], b=t[2]))
    return st.one_of(
        operand.map(lambda a: Mov(dest=dest, src=a)), bitwise, bitwise, bitwise, bitwise,
        st.tuples(st.sampled_from(["sar", "shr"]), st.sampled_from([0, 8, 40, 56, 60])).map(
            lambda t: BinOp(op=t[0], dest=dest, a=Reg("r0"), b=Imm(t[1]))),
        st.tuples(st.sampled_from([1, 2, 4, 8]), st.booleans()).map(
            lambda t: Load(dest=dest, addr=Reg("p"), size=t[0], signed=t[1])),
        st.just(Cmp(rel="lt", dest=dest, a=Reg("r1"), b=Imm(3))),
        st.sampled_from(["g", "h"]).map(lambda c: Call(dest=dest, callee=c)),
        st.just(None))


@st.composite
def register_graphs(draw):
    """``Definitions`` of ``REGS`` (some unwritten), each written 1-2 times; ``r2`` a typed
    parameter of a random range (``r2``)."""
    defs = Definitions(ranges={"r2": draw(st.sampled_from([(0, 256), (-128, 128), (0, 65536),
                                                           (-40000, 40000)]))})
    for r in REGS:
        if draw(st.integers(0, 5)) == 0:
            continue                                   # never written
        defs[r] = draw(st.lists(_write(r), min_size=1, max_size=2))
    return defs


@settings(max_examples=150, deadline=None)
@given(register_graphs(), st.randoms(use_true_random=False),
       st.sampled_from([None, "g"]))
def test_remembered_answers_equal_the_definition(defs, rnd, fits_callee):
    def returns(callee, size, signed):
        return callee == fits_callee
    questions = [(Reg(r), size, signed) for r in REGS for size in (1, 2, 4, 8)
                 for signed in (True, False)]
    rnd.shuffle(questions)
    for v, size, signed in questions + questions:       # asked again: from the memo
        assert fits_extension(v, size, signed, defs, frozenset(), returns) == \
            _reference(v, size, signed, defs, frozenset(), returns), (v, size, signed)


def test_a_register_on_a_cycle_is_answered_for_the_path_it_is_reached_by():
    # r0 = and r1, 255 fits a byte whatever r1 holds; r1 = xor r0, 1 fits when r0 does. Asked
    # through r0, r1 meets r0 on its path (no); asked itself, r1 fits: the memo must not keep
    # the first answer of r1.
    defs = Definitions({"r0": [BinOp(op="and", dest="r0", a=Reg("r1"), b=Imm(255))],
                        "r1": [BinOp(op="xor", dest="r1", a=Reg("r0"), b=Imm(1))]})
    got = [fits_extension(Reg(r), 1, False, defs) for r in ("r0", "r1", "r0", "r1")]
    assert got == [True, True, True, True]
    assert [_reference(Reg(r), 1, False, defs) for r in ("r0", "r1")] == [True, True]
