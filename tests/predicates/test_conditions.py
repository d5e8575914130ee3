"""Condition layer: segments, basic atoms (pas.md §2.5, §3.3). The intervals a relation holds on
are tested with their owner, tests/ir/test_ops.py."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pylogic.ir.model import MAX64, MIN64, RELATIONS
from pylogic.ir.ops import NEGATED, eval_rel
from pylogic.predicates.conditions import basic_atom, split_segments

ints = st.one_of(st.integers(MIN64, MAX64), st.integers(-4, 4),
                 st.sampled_from([MIN64, MIN64 + 1, MAX64, MAX64 - 1]))
conds = st.tuples(st.sampled_from(RELATIONS), ints)


@settings(max_examples=300, deadline=None)
@given(st.lists(conds, min_size=1, max_size=5), st.lists(ints, min_size=1, max_size=10))
@pytest.mark.slow
def test_segments_partition_and_are_homogeneous(cs, probes):
    segs = split_segments(cs)
    assert segs[0][0] == MIN64 and segs[-1][1] == MAX64
    for (_, hi), (lo, _) in zip(segs, segs[1:]):
        assert hi + 1 == lo
    for lo, hi in segs:
        pts = [lo, hi] + [x for x in probes if lo <= x <= hi]
        for rel, k in cs:
            assert len({eval_rel(rel, x, k) for x in pts}) == 1, (rel, k, lo, hi)


@settings(max_examples=300, deadline=None)
@given(conds, ints)
@pytest.mark.slow
def test_basic_atoms_recognise_opposites(c, x):
    rel, k = c
    atom = basic_atom(rel, k)
    neg = basic_atom(NEGATED[rel], k)
    if isinstance(atom, bool):
        assert neg is (not atom)
        assert eval_rel(rel, x, k) == atom
        return
    (arel, ak), negated = atom
    assert neg == ((arel, ak), not negated)
    assert eval_rel(rel, x, k) == (eval_rel(arel, x, ak) != negated)
