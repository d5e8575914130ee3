"""BDD, SAT and brute force agree on every query over generated define networks (pas.md §7)."""
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysed import pas_batch, pas_of
from network_gen import functions

from pylogic.predicates.brute_force import BruteForce, TooLarge
from pylogic.predicates.sat_check import SatChecker

QUERIES = ("disjoint", "implies", "equivalent", "complementary", "exhaustive")


def bdd_answer(pa, q, ua, ub):
    return getattr(pa, q)(ua, ub)


def check_function(pa, mode):
    f = pa.function
    sat = SatChecker(pa.engine.nets, mode, layer=pa.engine.layer)
    brute = BruteForce(pa.engine.nets, mode, layer=pa.engine.layer, limit=1 << 14)
    refs = {}
    for p in pa.predicates:
        for b in f.blocks:
            nid, _ = pa._node_id((p, b.label))
            refs.setdefault(nid, (p, b.label))
    nids = sorted(refs)[:6]
    checked = 0
    for a, b in itertools.product(nids, repeat=2):
        ua, ub = pa.engine.node(0, a), pa.engine.node(0, b)
        ops = [(0, a), (0, b)]
        for q in QUERIES:
            expect = bdd_answer(pa, q, ua, ub)
            assert sat.ask(q, ops) == expect, (q, refs[a], refs[b])
            try:
                assert brute.ask(q, ops) == expect, (q, refs[a], refs[b])
                checked += 1
            except TooLarge:
                pass
        assert sat.ask("covers", [(0, 1), (0, a), (0, b)]) == pa.covers([ua, ub])
        assert sat.ask("covers", [(0, a), (0, b)]) == pa.covers([ub], ua)
    for a in nids:
        ua = pa.engine.node(0, a)
        assert sat.ask("always_true", [(0, a)]) == pa.always_true(ua)
        assert sat.ask("always_false", [(0, a)]) == pa.always_false(ua)
    sat.close()
    return checked


# 50 batches of 5 functions: 250 functions per test, rows from one engine call per batch
SETTINGS = settings(max_examples=50, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
BATCH = st.lists(functions(), min_size=5, max_size=5)


@pytest.mark.slow
@SETTINGS
@given(BATCH, st.integers(0, 1))
def test_family_mode_agrees(fns, k):
    for pa in pas_batch(fns, mode="family", lookback=k):
        check_function(pa, "family")


@pytest.mark.slow
@SETTINGS
@given(BATCH, st.integers(0, 2))
def test_basic_mode_agrees(fns, k):
    for pa in pas_batch(fns, mode="basic", lookback=k):
        check_function(pa, "basic")


LOOP = """
func loop(r1, r2) {
pre:
    p1:ut, p2:uf = pcmp.lt r1, 2
    br head
head:
    (p1) p3:ot = pcmp.eq r2, 1
    r3 = input
    (p2) p4:ct, p1:af = pcmp.geu r3, -1
    cbr r3, a, b
a:
    p2:disjf = pcmp.gt r3, 0
    br head
b:
    (p4) p2:conjt = pcmp.le r1, r2
    ret
}
"""


def test_brute_force_is_exercised():
    # the oracle must actually run on loops and merges, not always bail out as too large
    from pylogic.ir.parser import parse_module
    f = parse_module(LOOP, "loop.pir").functions[0]
    for mode in ("family", "basic"):
        for k in (0, 1, 2):
            assert check_function(pas_of(f, mode=mode, lookback=k), mode) > 20
