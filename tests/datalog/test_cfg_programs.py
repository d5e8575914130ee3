"""datalog/cfg_analyses.dl on small fact sets beside their expected outputs (STYLE.md: Soufflé's
test layout): tests/datalog/cfg/<case>/*.facts, the program they come from (<case>.pir), and
<case>/expected/<relation>.csv, compared after sorting. The expected rows were checked by hand:
while_if is a loop around an if/else (DF(head) = {head}; the loop body is control dependent on
head->body); irreducible is the two-entry cycle b<->c with an unreachable block that still has
an ipdom row (DESIGN.md facts contract). expected/dom.csv is the opt-in dominance_closure.dl."""
from __future__ import annotations

import pytest

from pylogic.engines import load_program_cached, run_program
from tests.datalog.fact_cases import FactCases
from tests.support import ENGINES

FAMILY = FactCases("cfg", "cfg_analyses.dl", also=("dominance_closure.dl",))
PROGRAM = FAMILY.program
CLOSURE = FAMILY.also[0]
CASES_DIR = FAMILY.dir
CASES = FAMILY.names


def expected(case: str) -> dict:
    return FAMILY.expected(case)


def test_every_output_is_expected():
    outputs = set(load_program_cached(PROGRAM).outputs) | set(load_program_cached(CLOSURE).outputs)
    assert "dom" not in load_program_cached(PROGRAM).outputs
    for case in CASES:
        assert set(expected(case)) == outputs, case


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", CASES)
@pytest.mark.slow
def test_cfg_outputs(case, engine):
    got = run_program(PROGRAM, CASES_DIR / case, engine=engine)
    got.update(run_program(CLOSURE, CASES_DIR / case, engine=engine))
    for rel, rows in expected(case).items():
        assert got[rel] == rows, (case, rel)


@pytest.mark.parametrize("case", CASES)
def test_facts_are_what_facts_gen_writes(case):
    FAMILY.check_facts_current(case)


def test_hand_checked_rows():
    w = expected("while_if")
    assert ("while_if.pir::@f", "head", "head") in w["df"]
    assert ("while_if.pir::@f", "latch", "head", "body") in w["cdep"]
    assert ("while_if.pir::@f", "latch", "head") in w["back_edge"]
    irr = expected("irreducible")
    assert irr["irreducible"] == [("irreducible.pir::@g",)]
    assert ("irreducible.pir::@g", "d", "dead") in irr["ipdom"]
    assert not any(r[2] == "dead" for r in irr["idom"])
