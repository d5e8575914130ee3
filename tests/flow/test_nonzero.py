"""Non-zero facts (``flow.nonzero``): the and-mask rule checked on every value it covers
(simplify's folds by the facts: tests/transforms/simplify/test_simplify_nonzero.py)."""
from __future__ import annotations

from pylogic.flow.nonzero import keeps_value


def test_an_and_keeps_a_non_zero_value_when_its_mask_keeps_the_bits_that_fix_it():
    """x with s sign bits and x != 0 has x & m != 0 when ``keeps_value(s, m)``: every such x
    for s >= 55, masks of every low width and a few others."""
    masks = [(1 << j) - 1 for j in range(1, 65)] + [0xff00, -256, 0x5555, -1]
    for s in range(55, 65):
        xs = [x for x in range(-(1 << (64 - s)), 1 << (64 - s)) if x]
        for m in masks:
            if keeps_value(s, m):
                assert all(x & m for x in xs), (s, m)
