"""flow.value_names and flow.candidates, shared work (issue #28 item 1): the expressions
``_value_names`` keeps for ``expression_of`` (its definitions' expressions, composed while naming
them) equal what ``expression_of`` composes itself, and ``candidates_and_occurrences``' table
equals ``block_occurrences`` under its candidates, on generated functions and on one with loads,
stores, a select, commutative operands and identical copies of a definition."""
from __future__ import annotations

import pytest

from pylogic.flow.candidates import block_occurrences, candidates_and_occurrences
from pylogic.flow.value_names import _EXPRESSIONS, _expression_of, _value_names
from pylogic.ir.parser import parse_module
from pylogic.ir.synthetic_values import random_module

HAND = """global g[16]
func f(a, b) {
e:
  x = add a, b
  p = add x, 4
  v = load.4u p
  w = load.4 @g
  y = mul w, v
  c = cmp.lt y, a
  cbr c, l, r
l:
  z = add b, a
  store.4 p, z
  k = add 1, a
  br m
r:
  k = add 1, a
  br m
m:
  u = load.4u p
  s = select c, u, y
  t = add s, k
  ret t
}
"""


def _check(fn) -> int:
    names = _value_names(fn)
    kept = _EXPRESSIONS.get(names) if names else None
    checked = 0
    for b in fn.blocks:
        for ins in b.instrs:
            if kept is not None and id(ins) in kept:
                assert kept[id(ins)] == (ins, _expression_of(ins, names))
                checked += 1
    exprs, occurrences = candidates_and_occurrences(fn, names)
    assert occurrences == {b.label: block_occurrences(b, names, exprs) for b in fn.blocks}
    return checked


def test_hand_written_function():
    fn = parse_module(HAND).functions[0]
    assert _check(fn) >= 8          # every named definition (k has two identical copies)


@pytest.mark.parametrize("seed", range(12))
def test_generated_functions(seed):
    assert sum(_check(fn) for fn in random_module([seed, seed + 100]).functions) > 0
