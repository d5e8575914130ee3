"""Passes ``pcp-basic`` / ``pcp-full``: on the running example the full version writes z = 17,
w = 1 (G) and w = 4 (H) into the branchy code, where Wegman-Zadeck (``sccp``) finds nothing
(predicated_cp.md §4.2); the Table-3 hyperblock form runs identically; on random acyclic
programs both forms keep the behaviour (the interpreter is the oracle)."""
from __future__ import annotations

import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from pylogic.analysis.optimize import optimize
from pylogic.interp.differential import compare_modules
from pylogic.ir.load import load_module
from pylogic.ir.model import Imm, Mov
from pylogic.ir.parser import parse_module
from pylogic.ir.verify import verify_module

from tests.transforms.pcp.test_soundness import random_program

ROOT = Path(__file__).resolve().parents[3]
BRANCHY = ROOT / "examples" / "pcp_branchy.pir"
FEASIBLE = [((), (1, 0)), ((), (0, 1)), ((), (0, 0))]


def constants_written(before, after) -> dict:
    out = {}
    for b0, b1 in zip(before.function_map()["main"].blocks, after.function_map()["main"].blocks):
        for k, (i0, i1) in enumerate(zip(b0.instrs, b1.instrs)):
            if i0 != i1 and isinstance(i1, Mov) and isinstance(i1.src, Imm):
                out[(b1.label, i1.dest)] = i1.src.value
    return out


def test_full_finds_z_and_w_where_sccp_finds_nothing():
    m = load_module(BRANCHY)
    full = optimize(m, ["pcp-full"], "b.pir", engine="clingo")
    basic = optimize(m, ["pcp-basic"], "b.pir", engine="clingo")
    sccp = optimize(m, ["sccp"], "b.pir", engine="clingo")
    assert constants_written(m, full.module) == {("J", "z"): 17, ("G", "w"): 1, ("H", "w"): 4}
    assert constants_written(m, basic.module) == {("J", "z"): 17}
    assert sccp.passes[0].totals()["constants_found"] == 0
    # the three paths whose FPP is false: A B F H J, A C D F H J, A C E F G J
    assert full.passes[0].totals()["false_paths"] == 3
    assert basic.passes[0].totals()["false_paths"] == 0
    for result in (full, basic):
        assert compare_modules(m, result.module, FEASIBLE).verdict == "identical"


def test_after_if_conversion_full_finds_the_same_constants():
    """The paper's setting: the same constants on the if-converted hyperblock, where a
    predicate-blind CP (sccp) finds none; w = 1 and w = 4 keep their guards."""
    m = load_module(BRANCHY)
    converted = optimize(m, ["if-convert"], "b.pir", engine="clingo").module
    full = optimize(m, ["if-convert", "pcp-full"], "b.pir", engine="clingo")
    blind = optimize(m, ["if-convert", "sccp"], "b.pir", engine="clingo")
    written = {(ins.guard, ins.dest): ins.src.value
               for i0, ins in zip(converted.functions[0].blocks[0].instrs,
                                  full.module.functions[0].blocks[0].instrs)
               if i0 != ins and isinstance(ins, Mov) and isinstance(ins.src, Imm)}
    assert written == {(None, "z"): 17, ("%hp.G", "w"): 1, ("%hp.H", "w"): 4}
    assert blind.passes[-1].totals()["constants_found"] == 0
    assert full.passes[-1].totals()["constants_found"] == 4     # z in G, x in H, print/ret z
    assert compare_modules(m, full.module, FEASIBLE).verdict == "identical"


def test_table3_hyperblock_form_runs_identically():
    m = load_module(BRANCHY)
    result = optimize(m, ["pcp-full"], "b.pir", engine="clingo",
                      options={"pcp-full": {"emit": "hyperblock"}})
    new = result.module
    assert verify_module(new) == []
    (block,) = new.function_map()["main"].blocks
    assert block.hyperblock
    # the 12 of §4.4, plus 3 off duplicates of each print whose operand differs per path
    # (x, y, u, v, w; s, t and z are one name on every path)
    assert result.passes[0].totals()["off_predicated_removed"] == 12 + 5 * 3
    assert compare_modules(m, new, FEASIBLE).verdict == "identical"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 8),
       emit=st.sampled_from(["remap", "hyperblock"]))
def test_random_programs_keep_their_behaviour(seed, n, emit):
    rng = random.Random(seed)
    m = parse_module(random_program(rng, n), "g.pir")
    result = optimize(m, ["pcp-full"], "g.pir", engine="clingo",
                      options={"pcp-full": {"emit": emit}})
    assert verify_module(result.module) == []
    cases = [((), (rng.randint(-3, 3),)) for _ in range(6)]
    check = compare_modules(m, result.module, cases)
    assert check.verdict != "different", check.first_difference
