"""The clingo translation drops a rule whose body names a constant that no rule puts in that
column of a derived relation (``to_clingo._fireable``): a generic rule read per graph, as
lib/dominates.dl's ``_dq_step`` is after ``_dt_single`` is unfolded per graph, while only one
graph is asked. Inputs may hold any value; a head variable carries the constants of the body
columns it comes from; the rows of every output are duckdb's."""
from __future__ import annotations

import random

import pytest

from pylogic.engines.program import load_program
from pylogic.engines.run import run_checked
from pylogic.engines.to_clingo import program_text

PROGRAM = """
.decl e(g: symbol, a: symbol, b: symbol)
.input e
.decl ask(g: symbol, a: symbol)
ask("cfg", a) :- e("cfg", a, _).
.decl copy(g: symbol, a: symbol)
copy(g, a) :- ask(g, a).
.decl step(g: symbol, a: symbol, b: symbol)
step(g, a, b) :- copy(g, a), e(g, a, b).
// never fires: no rule puts "rev" in ask's or copy's first column
step("rev", a, b) :- copy("rev", a), e("rev", b, a).
// fires: e is an input, "rev" may be in it
step("cfg", a, b) :- e("rev", a, b), copy("cfg", a).
.decl out(g: symbol, a: symbol, b: symbol)
.output out
out(g, a, b) :- step(g, a, b).
out("x", a, a) :- copy("x", a).
"""


def _checked(tmp_path):
    path = tmp_path / "fireable.dl"
    path.write_text(PROGRAM)
    return load_program(path)


def test_rules_naming_an_unproduced_constant_are_dropped(tmp_path):
    lines = [line for line in program_text(_checked(tmp_path)).splitlines() if ":-" in line]
    # (copy is unfolded into its readers: they read ask)
    assert not any('r_ask("rev"' in line or 'r_copy("rev"' in line for line in lines)
    assert not any(line.startswith('r_out("x"') for line in lines)
    assert any(line.startswith('r_step("cfg",') and 'r_e("rev"' in line for line in lines)
    assert sum(line.startswith("r_step(") for line in lines) == 2


@pytest.mark.parametrize("seed", range(8))
def test_rows_are_duckdbs(tmp_path, seed):
    rnd = random.Random(seed)
    nodes = ["a", "b", "c", "d"]
    facts = {"e": sorted({(rnd.choice(["cfg", "rev", "x"]), rnd.choice(nodes), rnd.choice(nodes))
                          for _ in range(rnd.randint(2, 12))})}
    checked = _checked(tmp_path)
    assert run_checked(checked, None, "clingo", facts=facts) == \
        run_checked(checked, None, "duckdb", facts=facts)
