"""``pylogic.ir.ops``, the owner of PIR operator semantics, against the interpreter and by brute
force: every operator's ``fold`` (its ``compute``) against the interpreter running a
one-instruction program (registers and literals: the decoder specialises the ``python``
template for both), every relation's swap and negation, ``REFLEXIVE``, and ``intervals`` against
membership on edge values."""
from __future__ import annotations

from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pylogic.interp import run_module
from pylogic.interp.machine import Machine
from pylogic.ir.model import BINARY_OPS, MAX64, MIN64, RELATIONS, UNARY_OPS
from pylogic.ir.ops import (NEGATED, REFLEXIVE, SIGNED_RELS, SWAPPED, UNSIGNED_RELS, Fault,
                            eval_rel, fold, intervals)
from pylogic.ir.parser import parse_module

EDGES = sorted({0, 1, -1, 2, -2, 63, 64, 65, MIN64, MIN64 + 1, MAX64, MAX64 - 1} |
               {s * (1 << k) + d for k in (1, 7, 31, 32, 62) for s in (1, -1)
                for d in (-1, 0, 1)})
INT64 = st.one_of(st.sampled_from(EDGES), st.integers(MIN64, MAX64))
_PROGRAM = "func main({params}) {{\nentry:\n    r = {ins}\n    print r\n    ret\n}}\n"


@lru_cache(maxsize=None)
def _machine(op: str) -> Machine:
    """``main(a, b)`` printing ``op a, b`` (a relation through ``cmp``), decoded once."""
    ins = f"cmp.{op} a, b" if op in RELATIONS else f"{op} a" if op in UNARY_OPS else f"{op} a, b"
    return Machine(parse_module(_PROGRAM.format(params="a, b", ins=ins), "op.pir"))


def _interpreted(run) -> int | None:
    """The printed value, or None when the program faulted."""
    return None if run.error is not None else run.prints[0]


def _folded(op: str, *args: int) -> int | None:
    try:
        return fold(op, *args)
    except Fault:
        return None


@pytest.mark.parametrize("op", BINARY_OPS + UNARY_OPS + RELATIONS)
@settings(max_examples=60, deadline=None)
@given(a=INT64, b=INT64)
@pytest.mark.slow
def test_fold_is_what_the_interpreter_computes_on_registers(op, a, b):
    args = (a,) if op in UNARY_OPS else (a, b)
    assert _folded(op, *args) == _interpreted(_machine(op).run(args=(a, b))), (op, a, b)


@pytest.mark.parametrize("op", BINARY_OPS + UNARY_OPS + RELATIONS)
@settings(max_examples=15, deadline=None)
@given(a=st.sampled_from(EDGES), b=st.sampled_from(EDGES))
def test_fold_is_what_the_interpreter_computes_on_literals(op, a, b):
    args = (a,) if op in UNARY_OPS else (a, b)
    ins = f"cmp.{op} {a}, {b}" if op in RELATIONS else f"{op} {', '.join(map(str, args))}"
    module = parse_module(_PROGRAM.format(params="", ins=ins), "op.pir")
    assert _folded(op, *args) == _interpreted(run_module(module)), (op, a, b)


def test_fold_on_the_edges_ir_md_names():
    assert fold("div", MIN64, -1) == MIN64 and fold("rem", MIN64, -1) == 0      # C, wrapped
    assert fold("div", -7, 2) == -3 and fold("rem", -7, 2) == -1                # truncating
    assert fold("shl", 1, 64) == 1 and fold("shr", -1, 60) == 15 and fold("sar", -16, 2) == -4
    assert fold("add", MAX64, 1) == MIN64 and fold("neg", MIN64) == MIN64 and fold("not", 0) == -1
    assert fold("ltu", -1, 0) == 0 and fold("lt", -1, 0) == 1
    with pytest.raises(Fault):
        fold("rem", 1, 0)


def test_the_relation_lists_split_the_relations():
    assert sorted(SIGNED_RELS + UNSIGNED_RELS) == sorted(RELATIONS)
    assert set(SWAPPED) == set(NEGATED) == set(RELATIONS)
    assert REFLEXIVE == {"eq", "le", "ge", "leu", "geu"}


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(RELATIONS), INT64, INT64)
def test_swap_and_negation(rel, x, k):
    assert eval_rel(SWAPPED[rel], k, x) == eval_rel(rel, x, k)
    assert eval_rel(NEGATED[rel], x, k) != eval_rel(rel, x, k)
    assert SWAPPED[SWAPPED[rel]] == rel and NEGATED[NEGATED[rel]] == rel
    assert NEGATED[SWAPPED[rel]] == SWAPPED[NEGATED[rel]]
    assert eval_rel(rel, x, x) == (rel in REFLEXIVE)


def _well_formed(pieces: list) -> bool:
    """Sorted, disjoint and not adjacent (so two sets are equal iff their lists are)."""
    return all(MIN64 <= lo <= hi <= MAX64 for lo, hi in pieces) and \
        all(hi + 1 < lo for (_, hi), (lo, _) in zip(pieces, pieces[1:]))


@pytest.mark.parametrize("rel", RELATIONS)
def test_intervals_on_edge_values(rel):
    probes = EDGES + [MIN64 + 2, MAX64 - 2, 3, -3]
    for c in EDGES:
        pieces = intervals(rel, c)
        assert _well_formed(pieces), (rel, c, pieces)
        for x in {p + d for p in probes + [lo for lo, _ in pieces] + [hi for _, hi in pieces]
                  for d in (-1, 0, 1)}:
            if MIN64 <= x <= MAX64:
                inside = any(lo <= x <= hi for lo, hi in pieces)
                assert inside == eval_rel(rel, x, c), (rel, c, x, pieces)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(RELATIONS), INT64, INT64)
def test_intervals_match_concrete(rel, c, x):
    assert any(lo <= x <= hi for lo, hi in intervals(rel, c)) == eval_rel(rel, x, c)


def test_unsigned_intervals():
    # x <u 5 holds on [0, 4]; x >=u -1 (2**64-1) only on -1; x >=u 0 everywhere, in one piece
    assert intervals("ltu", 5) == [(0, 4)]
    assert intervals("geu", -1) == [(-1, -1)]
    assert intervals("ltu", 0) == []
    assert intervals("gtu", 3) == [(MIN64, -1), (4, MAX64)]
    assert intervals("geu", 0) == intervals("leu", -1) == [(MIN64, MAX64)]
    assert intervals("lt", MIN64) == [] and intervals("ne", MAX64) == [(MIN64, MAX64 - 1)]
