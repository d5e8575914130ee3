"""scope="across" queries (pas.md §2.9): BDD, SAT and brute force agree, and check= re-checks them.

The second operand of an across query is read in another iteration of the innermost loop common
to both points: the leaves that vary per iteration (loop-variant families, ω, p*, atoms) get
independent copies. The BDD renames its variables; the oracles copy the leaves.
"""
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from analysed import pas_batch, pas_of
from network_gen import functions

from pylogic.ir.parser import parse_module
from pylogic.predicates.brute_force import BruteForce, TooLarge
from pylogic.predicates.pas import CrossCheckError
from pylogic.predicates.sat_check import SatChecker

QUERIES = ("disjoint", "implies", "equivalent", "complementary", "exhaustive")


def fn(text):
    return parse_module(text, "t.pir").functions[0]


def loop_refs(pa, f, limit=6):
    """Predicate references at the end of loop blocks, distinct by (node, innermost loop)."""
    refs = {}
    for p in pa.predicates:
        for b in f.blocks:
            if pa.net.loop_of.get(b.label) is None:
                continue
            nid, _ = pa._node_id((p, b.label))
            refs.setdefault((nid, pa.net.loop_of[b.label]), (p, b.label))
    return list(refs.values())[:limit]


def check_across(pa, mode):
    """Every pair of loop references, every binary query, scope="across": the three agree.

    Returns (pairs whose across answer differs from the per-iteration one, brute checks)."""
    f = pa.function
    sat = SatChecker(pa.engine.nets, mode, layer=pa.engine.layer)
    brute = BruteForce(pa.engine.nets, mode, layer=pa.engine.layer, limit=1 << 14)
    differs = brute_checked = 0
    for ra, rb in itertools.product(loop_refs(pa, f), repeat=2):
        (na, la), (nb, lb) = pa._node_id(ra), pa._node_id(rb)
        body = pa._common_loop_body(la, lb)
        assert body is not None                # both points are inside loops of one nest here
        ops = [(0, na), (0, nb)]
        for q in QUERIES:
            expect = getattr(pa, q)(ra, rb, scope="across")
            differs += expect != getattr(pa, q)(ra, rb)
            assert sat.ask(q, ops, across=body) == expect, (q, ra, rb)
            try:
                assert brute.ask(q, ops, across=body) == expect, (q, ra, rb)
                brute_checked += 1
            except TooLarge:
                pass
    sat.close()
    return differs, brute_checked


# 20 batches of 3 functions (60 per test), rows from one engine call per batch
SETTINGS = settings(max_examples=20, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])
LOOPS = functions().filter(lambda f: f.blocks[0].label == "pre")   # "loop" and "nested" shapes
BATCH = st.lists(LOOPS, min_size=3, max_size=3)


@pytest.mark.slow
@SETTINGS
@given(BATCH, st.integers(0, 1), st.sampled_from(["family", "basic"]))
def test_generated_loops_agree_across(fns, k, mode):
    for pa in pas_batch(fns, mode=mode, lookback=k):
        check_across(pa, mode)


@pytest.mark.slow
@SETTINGS
@given(BATCH, st.integers(0, 1))
def test_check_option_rechecks_across_without_error(fns, k):
    # check="sat" / "brute" re-ask the oracle on every across query and must not disagree
    for check in ("sat", "brute"):
        for pa in pas_batch(fns, lookback=k, check=check):
            f = pa.function
            for ra, rb in itertools.product(loop_refs(pa, f, limit=3), repeat=2):
                try:
                    pa.disjoint(ra, rb, scope="across")
                    pa.implies(ra, rb, scope="across")
                except TooLarge:
                    pass


NESTED = """
func nested(n, m) {
pre:
    p1:ut, p2:uf = pcmp.lt n, 0
    br outer
outer:
    r1 = input
    p3:ut, p4:uf = pcmp.gt r1, 5
    br inner
inner:
    r2 = input
    (p3) p5:ut, p6:uf = pcmp.eq r2, 1
    p7:ut, p8:uf = pcmp.lt m, r2
    cbr r2, inner, latch
latch:
    cbr r1, outer, exit
exit:
    ret
}
"""


def test_nested_loops_exercise_every_oracle():
    # outer/inner points, loop-invariant and per-iteration leaves, register-vs-register atoms
    for mode in ("family", "basic"):
        for k in (0, 1, 2):
            differs, brute_checked = check_across(pas_of(fn(NESTED), mode=mode, lookback=k), mode)
            assert differs > 0 and brute_checked > 50


# pas.md §2.9 / §7 item 9: complementary p1/p2 recomputed each iteration from a varying condition
SCOPE = """
func scope(n) {
entry:
    br loop
loop:
    r1 = input
    p1:ut, p2:uf = pcmp.lt r1, 0
    (p1) print 1
    (p2) print 2
    p3:ut, p4:uf = pcmp.lt n, 0
    cbr r1, loop, exit
exit:
    ret
}
"""


@pytest.mark.parametrize("check", ["sat", "brute"])
def test_relational_scope_example(check):
    pa = pas_of(fn(SCOPE), check=check)
    assert pa.disjoint("p1", "p2") and pa.complementary("p1", "p2")          # per iteration
    assert not pa.disjoint("p1", "p2", scope="across")                       # across iterations
    assert not pa.complementary("p1", "p2", scope="across")
    assert not pa.exhaustive("p1", "p2", scope="across")
    assert not pa.equivalent("p1", "p1", scope="across")                     # r1 changes
    # p3/p4 come from the loop-invariant parameter n: the same in every iteration
    assert pa.complementary("p3", "p4", scope="across")
    assert pa.equivalent("p3", "p3", scope="across")


def test_relational_scope_oracles_directly():
    pa = pas_of(fn(SCOPE))
    (n1, l1), (n2, l2) = pa._node_id("p1"), pa._node_id("p2")
    body = pa._common_loop_body(l1, l2)
    assert body == {"loop"}
    for oracle in (SatChecker(pa.engine.nets), BruteForce(pa.engine.nets)):
        assert oracle.ask("disjoint", [(0, n1), (0, n2)])
        assert not oracle.ask("disjoint", [(0, n1), (0, n2)], across=body)
        assert not oracle.ask("equivalent", [(0, n1), (0, n1)], across=body)
    sat = SatChecker(pa.engine.nets)
    assert sat.satisfiable([sat.lit(0, n1), sat.lit(0, n2, across=body)])
    w = sat.last_witness        # witness: r1 of this iteration < 0, r1 of the other one >= 0
    _, dtype, _, c, _ = pa.net.nodes[n1]                  # p1:ut = deposit(ut, 1, r1 < 0, old)
    assert dtype == "ut" and pa.net.nodes[c][0] == "cond"
    fam = ("family", pa.engine.layer.fkey(0, pa.net.nodes[c][1]))
    assert w[fam] < 0 and w[fam + ("other",)] >= 0


@pytest.mark.parametrize("check", ["sat", "brute"])
def test_across_disagreement_raises(check, monkeypatch):
    # a BDD that forgot the renaming answers "disjoint" across iterations: the oracle objects
    pa = pas_of(fn(SCOPE), check=check)
    monkeypatch.setattr(pa, "_across", lambda u, body: u)
    try:
        pa.disjoint("p1", "p2", scope="across")
    except CrossCheckError as e:   # plain except: no traceback (BDD nodes) kept past the manager
        got = (e.bdd_answer, e.other_answer, e.oracle, e.query)
    else:
        pytest.fail("across-iteration disagreement not detected")
    assert got[:3] == (True, False, check) and "scope=across" in got[3]
