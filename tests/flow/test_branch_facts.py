"""Compares decided by a dominating branch on the same operands (``flow.branch_facts``,
GVN's propagateEquality of branch conditions): the truth table ``decide`` checked against the
interpreter's compares on every pair of i8 values (simplify's folds by it:
tests/transforms/simplify/test_branch_facts.py)."""
from __future__ import annotations

import itertools

import pytest

from pylogic.flow.branch_facts import decide
from pylogic.flow.lattice import apply
from pylogic.ir.model import RELATIONS as RELS
from pylogic.ir.ops import SWAPPED

I8 = range(-128, 128)


@pytest.mark.slow
def test_decide_agrees_with_the_interpreter_on_every_i8_pair():
    # what the interpreter's compares say of each pair of i8 values, once per distinct outcome
    outcomes = {tuple(apply(rel, a, b) for rel in RELS) for a in I8 for b in I8}
    index = {rel: k for k, rel in enumerate(RELS)}
    for fact_rel, value, swapped, rel in itertools.product(RELS, (0, 1), (False, True), RELS):
        got = decide(fact_rel, value, swapped, rel)
        seen = set()
        for row in outcomes:
            if row[index[fact_rel]] != value:
                continue
            # y REL x is the swapped relation of x, y: look it up by the mirrored row
            if swapped:
                seen.add(row[index[SWAPPED[rel]]])
            else:
                seen.add(row[index[rel]])
        if got is not None:
            assert seen == {got}, (fact_rel, value, swapped, rel)
        else:
            assert len(seen) == 2, (fact_rel, value, swapped, rel)   # as precise as can be
