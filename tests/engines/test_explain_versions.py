"""``explain``'s ranking runs each rule version compiled (``explain._Version``, issue #32's speed):
the same ranks in the same order, the same derivation chosen and the same errors as the interpreted
plan (``Explainer._solve``), on the corners where the two could part: a division by zero in a
looked-up expression, a negated atom (with and without ``_``), a comparison and a head; Soufflé's
other operators (``band``, ``^``, ...); an expression over a variable its own atom binds earlier; an
expression atom matched once its variable is bound; bindings by ``=``; aggregates."""
from __future__ import annotations

import json

import pytest

from pylogic.engines import explain, load_program, run_checked
from pylogic.errors import DatalogError

RELATIONS = ["p", "q1", "q2", "g", "r1", "r2", "r3", "r4", "r5", "r6", "c1", "c2", "c3", "c4",
             "c5", "s1", "s2", "h", "o", "d"]
#: One relation per corner (a corner's rows come from its rule alone).
PROGRAM = """\
.decl e(x:number, y:number)
.input e
.decl n(x:number, y:number)
.input n
""" + "".join(f".decl {r}(x:number, y:number)\n.output {r}\n" for r in RELATIONS if r not in ("q1", "q2", "g")) + \
    "".join(f".decl {r}(x:number)\n.output {r}\n" for r in ("q1", "q2", "g")) + """\
p(x, y) :- e(x, y).
p(x, z) :- p(x, y), e(y, z), x != z.
q1(y) :- p(x, y), x / (y - 2) = 1.
q2(k) :- e(k, k + 1).
g(k) :- e(k, 4 / (k - 2)).
r1(x, y) :- p(x, y), !n(x, _).
r2(x, y) :- p(x, y), !n(y / (x - 1), y).
r3(x, y) :- q2(x), q2(y), x < y, !n(x % (y - x - 1), _).
r4(x, y) :- e(x, y), y = x * 2.
r5(x, y) :- e(x, z), y = z * 2.
r6(x, y) :- e(x - 1, y), q2(x).
c1(x, k) :- q2(x), k = count : { p(x, _) }.
c2(x, k) :- q2(x), k = sum y : { p(x, y) }, k > 3.
c3(x, k) :- q2(x), k = min y : { n(x, y) }.
c4(x, k) :- r6(x, k), k = count : { e(x, _) }.
c5(x, k) :- q2(x), k = sum 10 / y : { p(x, y) }.
s1(x, y) :- p(x, y), p(y, x), y / x < 2.
s2(x, -y) :- c1(x, y), y % 2 = 0.
h(x, y / (x - 2)) :- p(x, y).
o(x, y) :- e(x, y), x band y = 0, x bor y > 2 ^ 2, (y bshl 1) bxor x != 7.
d(x, x) :- n(x, x).
.decl t(x:number, y:number)
.output t
t(x, y) :- q2(x), y = strlen("ab").
"""
FACTS = {"e": [(0, 1), (1, 2), (2, 3), (3, 4), (1, 3), (2, 4), (4, 0), (3, 5), (5, 10)],
         "n": [(1, 7), (9, 2), (2, 2)]}


class _Refusing:
    """Every rule version refused: the ranking interprets them all."""

    def __init__(self, *args):
        raise explain._Refused("interpreted for the comparison")


def _answers(tmp_path, model: dict, compiled: bool, monkeypatch) -> tuple:
    """The ranks (in ranking order) and every row's tree (JSON, key order kept) or error,
    with the rule versions compiled or interpreted (a fresh load: its rules are new keys of
    explain._VERSIONS)."""
    path = tmp_path / "edge.dl"
    path.write_text(PROGRAM)
    checked = load_program(path)
    with monkeypatch.context() as m:
        if not compiled:     # (and no template of the compiled run's equal rules)
            m.setattr(explain, "_Version", _Refusing)
            m.setattr(explain, "_TEMPLATES", {})
        ex = explain.Explainer(checked, model)
        trees = []
        for rel in RELATIONS + ["t"]:
            for row in ex.model.get(rel, ()):
                try:
                    trees.append(json.dumps(ex.explain(rel, row)))
                except DatalogError as exc:
                    trees.append(str(exc))
    versions = [explain._VERSIONS.get(rule) for rule in checked.rules]
    return list(ex.rank.items()), trees, versions


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> dict:
    path = tmp_path_factory.mktemp("edge") / "edge.dl"
    path.write_text(PROGRAM)
    return {**run_checked(load_program(path), None, "clingo", facts=FACTS), **FACTS}


def test_compiled_versions_rank_and_choose_as_the_interpreter(tmp_path, model, monkeypatch):
    ranks, trees, versions = _answers(tmp_path, model, True, monkeypatch)
    assert (ranks, trees) == _answers(tmp_path, model, False, monkeypatch)[:2]
    # a second load's equal rules run the first's versions (_TEMPLATES), bound to their own
    # literals: a tree reads its children through them
    assert (ranks, trees) == _answers(tmp_path, model, True, monkeypatch)[:2]
    # every rule's round-1 version compiled but t's (strlen: a functor, which the compiled
    # versions leave to the interpreter; it computes it as the engines do, functors.py)
    assert [v is not None for v in versions] == [True] * (len(versions) - 1) + [False]
    assert trees[-1].startswith("{") and "strlen" in trees[-1]   # interpreted: functors.py
    assert len(ranks) > 150 and sum(t.startswith("{") for t in trees) > 140


def test_compiled_versions_report_a_row_the_engine_lacks_as_the_interpreter(
        tmp_path, model, monkeypatch):
    """A model without p(0, 10) (which ``p(x, z) :- p(x, y), e(y, z)`` derives): both stop
    at the same instance with the same error."""
    short = dict(model, p=[row for row in model["p"] if row != (0, 10)])
    got = _answers(tmp_path, short, True, monkeypatch)[1]
    assert got == _answers(tmp_path, short, False, monkeypatch)[1]
    assert any("derives p(0, 10), which the engine's result does not hold" in t for t in got)


@pytest.mark.parametrize("compiled", [True, False])
def test_a_division_by_zero_in_a_negation_derives_nothing(tmp_path, model, monkeypatch, compiled):
    """``r3``'s ``!n(x % (y - x - 1), _)`` divides by zero for (0, 1), (1, 2) and (2, 3): the
    engines derive nothing there (docs/dialect.md), and neither does the ranking, compiled or
    interpreted, so every tree agrees with the engine's rows."""
    assert (0, 1) not in model["r3"] and model["r3"]
    ranks, trees, _ = _answers(tmp_path, model, compiled, monkeypatch)
    assert not any("which the engine's result does not hold" in t for t in trees)
    assert sorted(row for (rel, row), _ in ranks if rel == "r3") == sorted(model["r3"])


@pytest.mark.parametrize("compiled", [True, False])
def test_the_bit_and_power_operators_are_the_engines(tmp_path, model, monkeypatch, compiled):
    """``o``'s ``band``, ``bor``, ``^``, ``bshl`` and ``bxor`` are Soufflé's (``numbers.BINARY``):
    the ranking derives exactly the engine's rows. The differential fuzzer found both paths
    computing every operator but ``+ - * /`` as ``%`` (stop 43: 'no rule instance derives')."""
    assert sorted(model["o"]) == [(2, 4), (3, 4), (5, 10)]
    ranks, trees, _ = _answers(tmp_path, model, compiled, monkeypatch)
    assert sorted(row for (rel, row), _ in ranks if rel == "o") == sorted(model["o"])
    assert sum('"rel": "o"' in t[:40] for t in trees) == 3
