"""pcp/sparse.py: Wegman–Zadeck SC (the sparse form ``sccp`` runs) reaches the fixpoint of the
dense CC (``CCAnalysis.run_dense``, the reference): the same executable blocks, reached prefixes
and the same value of every register before every reached instruction, on generated programs
(irreducible CFGs with guarded side exits, loops with counters, their if-converted forms) and on
hand-written cases for what the sparse form models separately (segments after side exits, loop
φs of registers read and written in one block)."""
from __future__ import annotations

import pytest

from pylogic.analysis.optimize import optimize
from pylogic.ir.parser import parse_module
from pylogic.ir.synthetic_values import random_module
from pylogic.ir.verify import verify_module
from pylogic.transforms.pcp.sccp import BOTTOM, CCAnalysis
from tests.transforms.ifconvert.test_if_conversion import generated_program


def pir(text):
    m = parse_module(text, "t.pir")
    assert verify_module(m) == []
    return m


def assert_same_fixpoint(module):
    for fn in module.defined_functions():
        an = CCAnalysis(fn, module, {})
        dense, sparse = an.run_dense(), an.run()
        assert sparse.executable == dense.executable, fn.name
        assert sparse.reached == dense.reached, fn.name
        for label in dense.executable:
            assert dict(sparse.incoming[label].items()) == dict(dense.incoming[label].items())
        assert sparse.before.keys() == dense.before.keys()
        for key, state in dense.before.items():
            assert dict(sparse.before[key].items()) == dict(state.items()), (fn.name, key)


@pytest.mark.parametrize("shape", ["random", "structured", "dag"])
@pytest.mark.parametrize("seed", range(12))
def test_generated_programs_and_their_if_converted_forms(shape, seed):
    m = parse_module(generated_program(seed, shape), "g.pir")
    assert_same_fixpoint(m)
    assert_same_fixpoint(optimize(m, ["if-convert"], "g.pir", engine="clingo").module)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.slow
def test_overlapping_loops_with_counters(seed):
    """benchmarks.optimize_scale's generator: counters ``k<i>`` read and written in one block
    (loop φs), loops back to any earlier block."""
    m = random_module([seed], blocks=60, span=6)
    assert_same_fixpoint(m)
    assert_same_fixpoint(optimize(m, ["if-convert"], "r.pir", engine="clingo").module)


def test_a_loop_phi_without_an_executable_back_edge_keeps_the_entry_value():
    m = pir("""
func main() {
A:
    br L
L:
    k = add k, 1
    c = cmp.gt k, 5
    cbr c, L, X
X:
    print k
    ret k
}
""")
    point = CCAnalysis(m.functions[0], m, {}).run()
    assert point.before[("L", 0)]["k"] == 0 and point.before[("X", 0)]["k"] == 1
    assert_same_fixpoint(m)


def test_a_loop_phi_whose_back_edge_runs_is_not_constant():
    m = pir("""
func main() {
A:
    br L
L:
    k = add k, 1
    c = cmp.lt k, 3
    cbr c, L, X
X:
    print k
    ret k
}
""")
    point = CCAnalysis(m.functions[0], m, {}).run()
    assert point.before[("L", 0)]["k"] is BOTTOM and point.before[("X", 0)]["k"] is BOTTOM
    assert_same_fixpoint(m)


def test_a_side_exit_carries_the_value_before_a_later_write():
    """``x`` is 1 where the side exit leaves and 2 at the block's end: B meets both."""
    m = pir("""
func main() {
A:
    a = input
    p:ut = pcmp.gt a, 0
    x = mov 1
    (p) br B
    x = mov 2
    k = add k, 1
    (p) br A
    br B
B:
    print x
    ret x
}
""")
    point = CCAnalysis(m.functions[0], m, {}).run()
    assert point.before[("B", 0)]["x"] is BOTTOM
    assert_same_fixpoint(m)


def test_an_exit_always_taken_ends_the_reached_prefix():
    m = pir("""
func main() {
A:
    p:ut = pcmp.eq 1, 1
    x = mov 1
    (p) br B
    x = mov 2
    br B
B:
    print x
    ret x
}
""")
    point = CCAnalysis(m.functions[0], m, {}).run()
    assert point.reached["A"] == 3 and point.before[("B", 0)]["x"] == 1
    assert_same_fixpoint(m)
