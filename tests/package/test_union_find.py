"""pylogic.union_find: the partition against a naive one on random unions, and the caller's
choice of representative (``union(x, into)`` keeps ``into``'s)."""
from __future__ import annotations

import random

import pytest

from pylogic.union_find import UnionFind


@pytest.mark.parametrize("seed", range(10))
def test_partition_and_representatives(seed):
    rng = random.Random(seed)
    sets = UnionFind(range(5))
    naive = {x: {x} for x in range(40)}
    for _ in range(60):
        x, into = rng.randrange(40), rng.randrange(40)
        expected = sets.find(into)
        assert sets.union(x, into) == expected == sets.find(x)
        merged = naive[x] | naive[into]
        for y in merged:
            naive[y] = merged
        for y in range(40):
            assert (sets.find(y) == sets.find(x)) == (y in naive[x])


def test_elements_join_when_first_named():
    sets = UnionFind(["a"])
    assert sets.find("b") == "b" and set(sets.parent) == {"a", "b"}
    assert sets.union("a", "b") == "b" and sets.union("c", "a") == "b"
    assert {x: sets.find(x) for x in "abc"} == {"a": "b", "b": "b", "c": "b"}
