"""datalog/liveness.dl on small fact sets beside their expected outputs (STYLE.md: Soufflé's test
layout): tests/datalog/liveness/<case>/*.facts, the program they come from (<case>.pir, whose
header comment gives the hand-checked live-in sets and why), and <case>/expected/<relation>.csv,
compared after sorting. guarded: guard reads, old values read by non-ut/uf defines, guarded
writes that read their destination and kill nothing, a side exit, an unreachable block;
counted_loop: classic liveness around a loop. live_in_copied.csv: live_in.csv's rows of the registers
the case's movs write or read as operands or destinations, guards not (guarded: x, a, z, w, q;
counted_loop: i). live_gen.csv / live_first_kill.csv: each block's upward-exposed reads and
first overwrites (index), the summaries pylogic/flow/liveness.py solves live_in from (guarded:
entry reads a p y b r s, overwrites x at 0, q r at 2, s at 3; loop reads a r x z, overwrites t at
1; counted_loop: head reads i n, body i, exit i)."""
from __future__ import annotations

import pytest

from pylogic.engines import load_program_cached, run_program
from tests.datalog.fact_cases import FactCases
from tests.support import ENGINES

FAMILY = FactCases("liveness", "liveness.dl")
PROGRAM = FAMILY.program
CASES_DIR = FAMILY.dir
CASES = FAMILY.names


def expected(case: str) -> dict:
    return FAMILY.expected(case)


def test_every_output_is_expected():
    outputs = set(load_program_cached(PROGRAM).outputs)
    for case in CASES:
        assert set(expected(case)) == outputs == {"live_in", "live_out", "live_in_copied",
                                                    "live_gen", "live_first_kill"}, case


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", CASES)
def test_liveness_outputs(case, engine):
    got = run_program(PROGRAM, CASES_DIR / case, engine=engine)
    for rel, rows in expected(case).items():
        assert got[rel] == rows, (case, rel)


@pytest.mark.parametrize("case", CASES)
def test_facts_are_what_facts_gen_writes(case):
    FAMILY.check_facts_current(case)


def test_hand_checked_rows():
    g = {(b, r) for _, b, r in expected("guarded")["live_in"]}
    assert ("entry", "y") in g and ("entry", "p") in g      # guarded add reads p and old y
    assert ("entry", "r") in g and ("entry", "q") not in g  # ot reads the old r, ut not q
    assert ("entry", "x") not in g and ("loop", "x") in g   # written before read in entry
    assert ("loop", "t") not in g                           # uf define before the side exit
    assert ("dead", "q") in g                                # unreachable blocks are analysed
    k = {(b, r) for _, b, r in expected("counted_loop")["live_in"]}
    assert k == {("entry", "n"), ("head", "i"), ("head", "n"), ("body", "i"), ("body", "n"),
                 ("exit", "i")}
