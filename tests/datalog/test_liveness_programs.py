"""datalog/liveness.dl on small fact sets beside their expected outputs (STYLE.md: Soufflé's test
layout): tests/datalog/liveness/<case>/*.facts, the program they come from (<case>.pir, whose
header comment gives the hand-checked live-in sets and why), and <case>/expected/<relation>.csv,
compared after sorting. guarded: guard reads, old values read by non-ut/uf defines, guarded
writes that read their destination and kill nothing, a side exit, an unreachable block;
counted_loop: classic liveness around a loop."""
from __future__ import annotations

from pathlib import Path

import pytest

from facts_gen.extract import extract_module
from pylogic.engines import load_program_cached, run_program
from pylogic.engines.csv_io import read_output
from pylogic.ir.parser import parse_file
from tests.support import ENGINES

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "datalog" / "liveness.dl"
CASES_DIR = Path(__file__).parent / "liveness"
CASES = sorted(p.name for p in CASES_DIR.iterdir() if p.is_dir())


def expected(case: str) -> dict:
    checked = load_program_cached(PROGRAM)
    return {p.stem: sorted(read_output(p, checked.relations[p.stem]))
            for p in (CASES_DIR / case / "expected").glob("*.csv")}


def test_every_output_is_expected():
    outputs = set(load_program_cached(PROGRAM).outputs)
    for case in CASES:
        assert set(expected(case)) == outputs == {"live_in", "live_out"}, case


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", CASES)
def test_liveness_outputs(case, engine):
    got = run_program(PROGRAM, CASES_DIR / case, engine=engine)
    for rel, rows in expected(case).items():
        assert got[rel] == rows, (case, rel)


@pytest.mark.parametrize("case", CASES)
def test_facts_are_what_facts_gen_writes(case):
    """The committed .facts are the extraction of the committed .pir (no stale inputs)."""
    pir = CASES_DIR / case / f"{case}.pir"
    facts = extract_module(parse_file(pir), pir.name)
    for path in (CASES_DIR / case).glob("*.facts"):
        rows = [tuple(line.split("\t")) for line in path.read_text().splitlines()]
        assert rows == [tuple(str(v) for v in r) for r in facts[path.stem]], path.name


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
