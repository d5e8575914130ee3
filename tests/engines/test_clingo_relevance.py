"""The clingo engine grounds and feeds only what can change an output (engines/relevance.py):
a rule with a positive atom of a relation that has no rows on the inputs given (an empty input,
or a relation only such rules derive) is dropped (``live_relations``), while a negation or an
aggregate over such a relation still holds; an input read only through atoms with constants
is fed only its rows matching one of them (``input_selections``). The rows of every output are
duckdb's (an engine that evaluates each relation as written), with and without empty inputs."""
from __future__ import annotations

import random

import pytest

from pylogic.engines.program import load_program
from pylogic.engines.relevance import input_selections, live_relations, needed_relations
from pylogic.engines.run import run_checked
from pylogic.engines.to_clingo import program_text

PROGRAM = """
.decl e(a: symbol, b: symbol)
.decl guard(a: symbol)
.decl op(a: symbol, k: number, kind: symbol, v: symbol)
.input e
.input guard
.input op
// fires only when guard has rows
.decl guarded(a: symbol)
guarded(a) :- e(a, _), guard(a).
.decl guarded_pair(a: symbol, b: symbol)
guarded_pair(a, b) :- guarded(a), guarded(b), e(a, b).
.decl out_guarded(a: symbol, b: symbol)
.output out_guarded
out_guarded(a, b) :- guarded_pair(a, b).
out_guarded(a, b) :- e(a, b), a = "x".
// negation and aggregates over a relation that may be empty still hold
.decl unguarded(a: symbol)
.output unguarded
unguarded(a) :- e(a, _), !guarded(a).
.decl guards(n: number)
.output guards
guards(n) :- n = count : { guarded(_) }.
// op read only with constants: rows with other constants are never matched
.decl divisor(a: symbol, v: symbol)
.output divisor
divisor(a, v) :- op(a, 1, "const", v), e(a, _).
divisor(a, v) :- op(a, 0, "reg", v), !guard(a).
"""


def _checked(tmp_path):
    path = tmp_path / "relevance.dl"
    path.write_text(PROGRAM)
    return load_program(path)


def _facts(seed: int, guards: bool) -> dict:
    rnd = random.Random(seed)
    nodes = ["x", "y", "z", "u", "v"]
    edges = {(rnd.choice(nodes), rnd.choice(nodes)) for _ in range(rnd.randint(3, 14))}
    ops = {(rnd.choice(nodes), rnd.randint(0, 2), rnd.choice(["const", "reg"]), rnd.choice("01"))
           for _ in range(rnd.randint(0, 12))}
    return {"e": sorted(edges), "op": sorted(ops),
            "guard": [(n,) for n in nodes if guards and rnd.random() < 0.4]}


def test_rules_that_cannot_fire_are_not_grounded(tmp_path):
    checked = _checked(tmp_path)
    shown = ["out_guarded", "unguarded", "guards", "divisor"]
    live = live_relations(checked, ["e", "op"])
    assert "guarded" not in live and "guarded_pair" not in live and "guards" in live
    needed = needed_relations(checked, shown, live)
    assert "guarded_pair" not in needed and "guarded" in needed     # read negated, counted
    text = program_text(checked, needed, set(shown), live)
    heads = {line.split("(")[0] for line in text.splitlines() if ":-" in line}
    assert not {"r_guarded", "r_guarded_pair"} & heads
    assert {"r_out_guarded", "r_unguarded", "r_guards", "r_divisor"} <= heads
    # with guard rows, everything is live again
    assert "guarded_pair" in live_relations(checked, ["e", "op", "guard"])


def test_inputs_read_with_constants_are_selected(tmp_path):
    checked = _checked(tmp_path)
    needed = needed_relations(checked, ["divisor"])
    assert input_selections(checked, needed) == \
        {"op": (((1, 0), (2, "reg")), ((1, 1), (2, "const")))}
    # an atom without a constant, or a shown input, keeps every row
    assert "e" not in input_selections(checked, needed)
    assert input_selections(checked, needed, shown=["op"]) == {}


@pytest.mark.parametrize("guards", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_rows_are_duckdbs(tmp_path, seed, guards):
    checked = _checked(tmp_path)
    facts = _facts(seed, guards)
    assert run_checked(checked, None, "clingo", facts=facts) == \
        run_checked(checked, None, "duckdb", facts=facts)


@pytest.mark.parametrize("patterns", [
    (((1, "a"),),),                                 # one column
    (((1, "a"), (2, 3)),),                          # one pattern, two columns (dce.dl's operand)
    (((1, "a"), (2, 3)), ((0, "x"),)),              # two patterns
])
def test_selected_rows_are_the_rows_matching_a_pattern(patterns):
    from pylogic.engines.clingo_engine import _selected
    rng = random.Random(7)
    rows = [(rng.choice("xy"), rng.choice("ab"), rng.choice([3, 4, "3"])) for _ in range(200)]
    want = [r for r in rows if any(all(r[k] == v for k, v in p) for p in patterns)]
    assert 0 < len(want) < len(rows)
    assert _selected(rows, patterns) == want
