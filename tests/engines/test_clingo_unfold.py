"""The clingo translation unfolds a relation that only renames one atom (a copy) or keeps the
rows of one atom that pass its tests (a filter: negated atoms and comparisons over the atom's
variables, ``_dt_single`` of lib/dominator_tree.dl) into the rules that read it
(``to_clingo._unfold_relations``): its readers test what it tested, its variables renamed apart
in each use. Not unfolded: a relation with a projection (a column dropped untested), one read
negated, inside an aggregate or by a rule with an aggregate, and outputs. The rows of every
output are duckdb's (an engine that evaluates each relation as written)."""
from __future__ import annotations

import random

import pytest

from pylogic.engines.program import load_program
from pylogic.engines.run import run_checked
from pylogic.engines.to_clingo import program_text

PROGRAM = """
.decl e(a: symbol, b: symbol, w: number)
.decl bad(a: symbol)
.input e
.input bad
// a filter: drops w, which its comparison reads
.decl keep(a: symbol, b: symbol)
keep(a, b) :- e(a, b, w), !bad(a), w > 0.
// a filter with a constant in its head
.decl keep_x(c: symbol, b: symbol)
keep_x("x", b) :- e("x", b, w), !bad(b), w < 3.
// a projection: drops w untested
.decl linked(a: symbol, b: symbol)
linked(a, b) :- e(a, b, w), !bad(b).
// read negated: stays a relation
.decl light(a: symbol, b: symbol)
light(a, b) :- e(a, b, w), w < 2.
// read by a rule with an aggregate: stays a relation
.decl heavy(a: symbol)
heavy(a) :- e(a, a, w), w > 1.

.decl pairs(a: symbol, b: symbol)
.output pairs
pairs(a, b) :- keep(a, b).
.decl loops(a: symbol)
.output loops
loops(a) :- keep(a, a).
.decl from_x(b: symbol)
.output from_x
from_x(b) :- keep("x", b).
from_x(b) :- keep_x(c, b), c = "x".
.decl two(a: symbol, c: symbol)
.output two
two(a, c) :- keep(a, b), keep(b, c).
.decl reach(a: symbol, b: symbol)
.output reach
reach(a, b) :- keep(a, b).
reach(a, c) :- reach(a, b), keep(b, c).
.decl some(a: symbol)
.output some
some(a) :- linked(a, _).
.decl heavy_only(a: symbol, b: symbol)
.output heavy_only
heavy_only(a, b) :- e(a, b, _), !light(a, b).
.decl fan(a: symbol, n: number)
.output fan
fan(a, n) :- heavy(a), n = count : { e(a, _, _) }.
"""


def _checked(tmp_path):
    path = tmp_path / "unfold.dl"
    path.write_text(PROGRAM)
    return load_program(path)


def _facts(seed: int) -> dict:
    rnd = random.Random(seed)
    nodes = ["x", "y", "z", "u", "v"]
    edges = {(rnd.choice(nodes), rnd.choice(nodes)) for _ in range(rnd.randint(3, 14))}
    return {"e": [(a, b, rnd.randint(-1, 4)) for a, b in sorted(edges)],
            "bad": [(n,) for n in nodes if rnd.random() < 0.25]}


def test_filters_are_unfolded_and_the_others_stay_relations(tmp_path):
    text = program_text(_checked(tmp_path))
    heads = {line.split("(")[0] for line in text.splitlines() if ":-" in line}
    assert not {"r_keep", "r_keep_x"} & heads
    assert {"r_linked", "r_light", "r_heavy"} <= heads
    # each use of keep tests what keep tested, on variables of its own
    two = next(line for line in text.splitlines() if line.startswith("r_two("))
    assert two.count("r_e(") == 2 and two.count("not r_bad(") == 2 and "r_keep" not in two
    # keep_x("x", b) read with c = "x": the constant bound into the reader
    assert any(line.startswith("r_from_x(Vb) :- r_e(\"x\",Vb,") for line in text.splitlines())


@pytest.mark.parametrize("seed", range(12))
def test_unfolded_rows_are_duckdbs(tmp_path, seed):
    checked = _checked(tmp_path)
    facts = _facts(seed)
    assert run_checked(checked, None, "clingo", facts=facts) == \
        run_checked(checked, None, "duckdb", facts=facts)
