"""Condition layer: intervals, segments, basic atoms (pas.md §2.5, §3.3)."""
from hypothesis import given, settings
from hypothesis import strategies as st

from pylogic.ir.model import RELATIONS
from pylogic.predicates.conditions import (
    INT_MAX, INT_MIN, NEGATED, SWAPPED, basic_atom, eval_rel, split_segments, true_intervals,
)

ints = st.one_of(st.integers(INT_MIN, INT_MAX), st.integers(-4, 4),
                 st.sampled_from([INT_MIN, INT_MIN + 1, INT_MAX, INT_MAX - 1]))
conds = st.tuples(st.sampled_from(RELATIONS), ints)


@settings(max_examples=300, deadline=None)
@given(st.lists(conds, min_size=1, max_size=5), st.lists(ints, min_size=1, max_size=10))
def test_segments_partition_and_are_homogeneous(cs, probes):
    segs = split_segments(cs)
    assert segs[0][0] == INT_MIN and segs[-1][1] == INT_MAX
    for (_, hi), (lo, _) in zip(segs, segs[1:]):
        assert hi + 1 == lo
    for lo, hi in segs:
        pts = [lo, hi] + [x for x in probes if lo <= x <= hi]
        for rel, k in cs:
            assert len({eval_rel(rel, x, k) for x in pts}) == 1, (rel, k, lo, hi)


@settings(max_examples=300, deadline=None)
@given(conds, ints)
def test_true_intervals_match_concrete(c, x):
    rel, k = c
    inside = any(lo <= x <= hi for lo, hi in true_intervals(rel, k))
    assert inside == eval_rel(rel, x, k)
    assert eval_rel(SWAPPED[rel], k, x) == eval_rel(rel, x, k)
    assert eval_rel(NEGATED[rel], x, k) != eval_rel(rel, x, k)


@settings(max_examples=300, deadline=None)
@given(conds, ints)
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


def test_unsigned_intervals():
    # x <u 5 holds on [0, 4]; x >=u -1 (2**64-1) only on -1
    assert true_intervals("ltu", 5) == [(0, 4)]
    assert true_intervals("geu", -1) == [(-1, -1)]
    assert true_intervals("ltu", 0) == []
    assert true_intervals("gtu", 3) == [(INT_MIN, -1), (4, INT_MAX)]
