"""The constant lattice's shortcuts against the operators themselves: an absorbing operand or a
compare decided by one operand gives the same value for every value of the other operand."""
from __future__ import annotations

from hypothesis import given, strategies as st

from pylogic.flow.lattice import ABSORBING, BOT, DECIDED, TOP, apply
from pylogic.ir.ops import eval_rel

INT64 = st.integers(min_value=-(1 << 63), max_value=(1 << 63) - 1)


@given(INT64)
def test_decided_compares_hold_for_every_other_operand(x):
    for (rel, k, v), result in DECIDED.items():
        args = (x, v) if k == 1 else (v, x)
        assert int(eval_rel(rel, *args)) == result
        assert apply(rel, *((BOT, v) if k == 1 else (v, BOT))) == result


@given(INT64)
def test_absorbing_operands_hold_for_every_other_operand(x):
    for op, v in ABSORBING.items():
        assert apply(op, x, v) == v and apply(op, v, x) == v
        assert apply(op, BOT, v) == v and apply(op, v, TOP) == v


def test_without_a_shortcut_bottom_and_top_are_strict():
    assert apply("add", BOT, 0) is BOT and apply("geu", BOT, 1) is BOT
    assert apply("lt", TOP, 3) is TOP and apply("and", BOT, 1) is BOT
