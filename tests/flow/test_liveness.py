"""pylogic/flow/liveness.py (issue #28 item 1): the bit-set fixpoint over liveness.dl's block
summaries equals liveness.dl's own live_in, row for row, on branchy random programs, generated
functions with loops, unreachable blocks and side exits, and the same functions if-converted
(guarded writes, predicate defines, side exits in hyperblocks)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pylogic.analysis.optimize import optimize
from pylogic.analysis.run import module_rows
from pylogic.flow.liveness import LIVENESS, Liveness
from pylogic.ir.parser import parse_file, parse_module
from pylogic.ir.synthetic_values import random_module
from tests.datalog.random_programs import random_program

CASES = Path(__file__).resolve().parents[1] / "datalog" / "liveness"


def _compare(module) -> int:
    """Assert equality on every function of ``module``; the live_in rows compared."""
    rows = module_rows(module, "t.pir", relations=["live_in", *LIVENESS], engine="clingo")
    compared = 0
    for fn in module.defined_functions():
        fr = rows.function(fn.name)
        want = {tuple(r) for r in fr["live_in"]}
        live = Liveness.from_rows(fn, fr)
        assert live.pairs() == want, fn.name
        labels = {b.label for b in fn.blocks}
        regs = {r for _, r in want} | {"never_written"}
        assert all(((b, r) in live) == ((b, r) in want) for b in labels for r in regs)
        compared += len(want)
    return compared


@pytest.mark.parametrize("case", ["guarded", "counted_loop"])
def test_hand_checked_cases(case):
    assert _compare(parse_file(CASES / case / f"{case}.pir")) > 0


def test_branchy_random_programs():
    module = parse_module("".join(random_program(s).replace("func main", f"func main{s}")
                                  for s in range(30)))
    assert _compare(module) > 100


def test_generated_functions_and_their_if_conversion():
    module = random_module(list(range(1, 9)), blocks=40, span=6)
    assert _compare(module) > 1000
    converted = optimize(module, ["if-convert"], "gen.pir", engine="clingo").module
    assert any(ins.guard not in (None, "p0", "true") for fn in converted.defined_functions()
               for b in fn.blocks for ins in b.instrs)          # guarded code to check
    assert _compare(converted) > 1000


def test_added_pairs_stay_in_their_copy():
    fn = parse_file(CASES / "counted_loop" / "counted_loop.pir").defined_functions()[0]
    live = Liveness.of(fn, [("head", "i")], [])
    assert ("entry", "i") in live and ("body", "i") in live     # i flows back through body
    copy = live.copy()
    copy |= {("exit", "z")}
    assert ("exit", "z") in copy and ("exit", "z") not in live
    assert ("entry", "i") in copy
