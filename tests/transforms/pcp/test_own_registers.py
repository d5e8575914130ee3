"""global_cp._OwnRegisters: Algorithm 1 with the registers one hyperblock only mentions kept
out of the carried states (their "loop φ" at that hyperblock) reaches the dense fixpoint
(``own_registers=False``, every register carried): the same executable blocks and reached
prefixes, the same entry information on every register a hyperblock mentions, the same paths
known false and the same rewrite, basic and full, on generated programs (irreducible CFGs with
guarded side exits, overlapping loops with counters) and their if-converted forms."""
from __future__ import annotations

import pytest

from pylogic.analysis.optimize import optimize
from pylogic.ir.cfg import reverse_postorder
from pylogic.ir.parser import parse_module
from pylogic.ir.synthetic_values import random_module
from pylogic.transforms.pcp.global_cp import global_constants
from pylogic.transforms.pcp.sccp import apply_constants
from tests.transforms.ifconvert.test_if_conversion import generated_program


def assert_same_fixpoint(module, full: bool):
    owned = 0
    for fn in module.defined_functions():
        order = {label: k for k, label in enumerate(reverse_postorder(fn))}
        own = global_constants(fn, module, order, full=full)
        dense = global_constants(fn, module, order, full=full, own_registers=False)
        owned += sum(len(regs) for regs in own.own.of.values())
        assert own.executable == dense.executable, fn.name
        assert own.reached == dense.reached, fn.name
        assert own.path_counts() == dense.path_counts(), fn.name
        for hb in dense.partition:
            if dense.inf[hb.head] is None:
                assert own.inf[hb.head] is None, (fn.name, hb.head)
                continue
            for r in dense._mentioned_in(hb) & set(dense.regs):
                assert own.inf[hb.head][r] == dense.inf[hb.head][r], (fn.name, hb.head, r)
        reachable = {b.label for b in fn.blocks}
        new_own, info_own = apply_constants(fn, own, own, reachable)
        new_dense, info_dense = apply_constants(fn, dense, dense, reachable)
        assert info_own == info_dense, fn.name
        assert new_own == new_dense, fn.name
    return owned


@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("shape", ["random", "structured"])
@pytest.mark.parametrize("seed", range(8))
def test_generated_programs_and_their_if_converted_forms(full, shape, seed):
    m = parse_module(generated_program(seed, shape), "g.pir")
    assert_same_fixpoint(m, full)
    assert_same_fixpoint(optimize(m, ["if-convert"], "g.pir", engine="clingo").module, full)


@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.slow
def test_overlapping_loops_with_counters(full, seed):
    """benchmarks.optimize_scale's generator: counters ``k<i>`` mentioned by one hyperblock,
    loops back to any earlier block (so most of them are owned)."""
    m = random_module([seed], blocks=80, span=6)
    assert assert_same_fixpoint(m, full) > 0
    assert_same_fixpoint(optimize(m, ["if-convert"], "r.pir", engine="clingo").module, full)


def test_a_counter_whose_back_edge_becomes_executable_late():
    """The loop at L exits only once ``k`` is ⊥, which takes the φ of ``k`` (owned by L's
    hyperblock) to include the back edge; M's loop then needs another round."""
    m = parse_module("""
func main() {
A:
    br L
L:
    k = add k, 1
    t = cmp.lt k, 3
    cbr t, L, M
M:
    j = add j, 1
    u = cmp.lt j, 3
    cbr u, L, E
E:
    print 7
    ret 0
}
""", "t.pir")
    assert assert_same_fixpoint(m, True) > 0
    fn = m.functions[0]
    gcp = global_constants(fn, m, {label: k for k, label in enumerate(reverse_postorder(fn))},
                           full=True)
    assert "E" in gcp.executable
