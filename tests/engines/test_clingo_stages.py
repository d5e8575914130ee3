"""Staged grounding in the clingo engine (``stages.plan_stages``, ``clingo_engine.run_clingo``): a
call whose program falls apart into independent parts, one per key of a key column, grounds each
part in a Control of its own. The rows are those of one Control: checked here on CFGs of every
shape through ``cfg_analyses.dl`` (whose dominator trees split by graph) and on small programs
that exercise what a split must keep (negation and aggregates across a key, inputs asked for,
rules reading another key)."""
from __future__ import annotations

import random

import pytest

from facts_gen.extract import empty_facts, extract_module
from pylogic import query
from pylogic.analysis import catalog
from pylogic.analysis.query import API_TEXT_NAME, load_query
from pylogic.engines import clingo_engine, load_program
from pylogic.engines.relevance import needed_relations
from pylogic.engines.run import run_checked
from pylogic.engines.stages import key_columns, plan_stages
from pylogic.engines.to_clingo import translated_rules
from pylogic.ir.model import Module
from pylogic.ir.synthetic import function_from_cfg, irreducible_cfg, random_cfg, structured_cfg


def _plan(program):
    shown = sorted(program.outputs)
    rules = translated_rules(program, needed_relations(program, shown), set(shown), None)
    return plan_stages(rules, set(program.inputs) | set(shown))


def test_cfg_analyses_falls_apart_by_graph():
    stages = _plan(load_program(catalog.datalog_dir() / catalog.BUNDLES["cfg_analyses"]))
    assert stages is not None and len(stages) == 2
    heads = [{r.head.rel for r in stage} for stage in stages]
    assert {"idom", "df", "loop_block", "reachable"} <= heads[0]        # the largest first
    assert not {"ipdom", "cdep"} & heads[0]
    assert {"ipdom", "cdep"} <= heads[1] and not {"idom", "df"} & heads[1]
    assert "_dt_loc" in heads[0] and "_dt_loc" in heads[1]            # a rule in both


@pytest.mark.parametrize("name", ["dominance.dl", "postdominance.dl", "pre.dl", "ppg.dl"])
def test_one_graph_does_not_fall_apart(name):
    assert _plan(load_program(catalog.datalog_dir() / name)) is None


def _cfg_facts(kind: str, seed: int, n: int) -> dict:
    rng = random.Random(seed)
    if kind == "irreducible":
        labels, succs = irreducible_cfg(rng, n)
    elif kind == "structured":
        labels, succs = structured_cfg(rng, n)
    else:
        labels, succs = random_cfg(rng, n, edge_factor=1.4, exit_prob=0.05)
        succs = {b: list(dict.fromkeys(s))[:2] for b, s in succs.items()}
    facts = empty_facts()
    extract_module(Module(functions=(function_from_cfg("@f", labels, succs),
                                     function_from_cfg("@g", labels[: n // 2 + 1],
                                                       {b: [s for s in succs[b]
                                                            if s in labels[: n // 2 + 1]]
                                                        for b in labels[: n // 2 + 1]}))),
                   "t.pir", facts)
    return facts


@pytest.mark.parametrize("kind,seed", [(k, s) for k in ("random", "irreducible", "structured")
                                       for s in (1, 2, 3)])
def test_staged_rows_equal_one_control(monkeypatch, kind, seed):
    program = load_program(catalog.datalog_dir() / catalog.BUNDLES["cfg_analyses"])
    facts = _cfg_facts(kind, seed, 300)
    monkeypatch.setattr(clingo_engine, "STAGE_ROWS", 10**9)
    once = run_checked(program, None, "clingo", facts)
    controls = []
    real = clingo_engine.clingo.Control
    monkeypatch.setattr(clingo_engine.clingo, "Control", lambda *a: controls.append(1) or real(*a))
    monkeypatch.setattr(clingo_engine, "STAGE_ROWS", 0)
    staged = run_checked(program, None, "clingo", facts)
    assert len(controls) == 2
    assert staged == once
    assert sum(map(len, once.values())) > 1000
    read = clingo_engine._raw_model_reader      # the last stage's facts read, or not (solved)
    facts_read = []

    def reader():
        r = read()
        r.facts = lambda *a: facts_read.append(1)
        return r

    monkeypatch.setattr(clingo_engine, "_raw_model_reader", reader)
    assert run_checked(program, None, "clingo", facts) == once
    assert facts_read == [1]


KEYED = """
.decl edge(g: symbol, a: number, b: number)
.input edge
.decl seed(g: symbol, a: number)
.input seed
.decl note(a: number)
.input note
.output note
.decl reach(g: symbol, a: number)
reach("x", a) :- seed("x", a).
reach("y", a) :- seed("y", a).
reach(g, b) :- reach(g, a), edge(g, a, b).
.decl far(g: symbol, a: number)
far(g, a) :- reach(g, a), !reach(g, a + 1).
.decl top(g: symbol, m: number)
top(g, m) :- reach(g, _), m = max a : { reach(g, a) }.
.decl only_x(a: number)
.output only_x
only_x(a) :- far("x", a), !reach("y", a).
.decl top_x(m: number)
.output top_x
top_x(m) :- top("x", m).
.decl far_y(a: number)
.output far_y
far_y(a) :- far("y", a), note(a).
.decl any_x()
.output any_x
any_x() :- far("x", _).
.decl none_x()
.output none_x
none_x() :- far("x", a), a > 1000.
.decl any_y()
.output any_y
any_y() :- far("y", _).
.decl none_y()
.output none_y
none_y() :- far("y", a), a > 1000.
"""

KEYED_APART = KEYED.replace("only_x(a) :- far(\"x\", a), !reach(\"y\", a).",
                            "only_x(a) :- far(\"x\", a).")


def _keyed_facts(seed: int) -> dict:
    rng = random.Random(seed)
    edges = [(g, rng.randrange(40), rng.randrange(40)) for g in ("x", "y") for _ in range(50)]
    return {"edge": edges, "seed": [("x", 0), ("y", 1), ("y", 7)],
            "note": [(a,) for a in range(0, 40, 3)]}


def test_keyed_program_plans():
    """A rule reading two keys of a relation (``only_x`` negates ``reach("y", a)``, or a rule
    over every key) joins their parts."""
    over_both = KEYED_APART + ".decl tops(g: symbol, m: number)\n.output tops\n" \
        "tops(g, m) :- top(g, m).\n"
    for text, parts in ((KEYED, None), (KEYED_APART, 2), (over_both, None)):
        program = load_program_text(text)
        assert key_columns(translated_rules(program), set(program.inputs)) \
            .get("reach") == 0
        stages = _plan(program)
        assert (stages and len(stages)) == parts


def load_program_text(text: str):
    return load_query(text=text, name=API_TEXT_NAME)


@pytest.mark.parametrize("text", [KEYED, KEYED_APART], ids=["joined", "apart"])
@pytest.mark.parametrize("seed", range(6))
def test_keyed_program_rows(monkeypatch, text, seed):
    """Staged or not, the rows of clingo are duckdb's (``only_x`` negates the other key's
    ``reach`` in one program: it does not fall apart; ``note``, an input asked for, is read by
    a stage and returned once)."""
    facts = _keyed_facts(seed)
    expected = query(text, facts=facts, engine="duckdb")
    controls = []
    real = clingo_engine.clingo.Control
    monkeypatch.setattr(clingo_engine.clingo, "Control", lambda *a: controls.append(1) or real(*a))
    for rows in (10**9, 0):
        monkeypatch.setattr(clingo_engine, "STAGE_ROWS", rows)
        assert query(text, facts=facts, engine="clingo") == expected
    assert len(controls) == (3 if text is KEYED_APART else 2)
    assert expected["top_x"] and expected["note"] and expected["any_y"] == [()]
    assert expected["none_x"] == expected["none_y"] == []
