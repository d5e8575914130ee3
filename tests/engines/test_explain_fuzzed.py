"""``explain`` as an oracle of the differential fuzzer (``benchmarks.datalog_fuzz.run_explain``):
every row of a fuzzed program explained, rows that do not hold asked why not; a refusal must be
located, any other error is a disagreement. The regressions below are the classes the fuzzer
found at stop 43 (docs/measurements.md, "Differential fuzzing"), each the smallest program that
showed it; the sample at the end is the fuzzer's own check on a fixed seed."""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from benchmarks.datalog_fuzz import run_explain
from benchmarks.datalog_programs import CONSTRUCTS, FuzzProgram, RandomChoices, generate
from pylogic.analysis.explain import explainer
from pylogic.engines import load_program
from pylogic.errors import DatalogError


def _explainer(tmp_path, text: str, facts: dict, rels: list[str]):
    path = tmp_path / "p.dl"
    path.write_text(text)
    checked = load_program(path)
    return explainer(checked, rels, facts=facts, engine="clingo")


def test_an_aggregate_body_without_local_variables_is_explained(tmp_path):
    """``count : { a(g, y), ... }`` inside another aggregate, with every variable bound outside:
    the checker gives it the tuple ``(0,)`` (one tuple, ``finish_aggregates``); explain read a
    variable's name from the constant (AttributeError)."""
    ex = _explainer(tmp_path, """\
.decl a(x: number, y: number)
.input a
.decl nc(g: number, n: number)
.output nc
nc(g, n) :- a(g, _), n = max p : { a(g, y), p = count : { a(y, g) } }.
""", {"a": [(1, 2), (2, 1), (2, 3)]}, ["nc"])
    assert sorted(ex.model["nc"]) == [(1, 1), (2, 1)]
    for row in ex.model["nc"]:
        assert ex.explain("nc", row)["row"] == list(row)


@pytest.mark.parametrize("kind, value, body", [("unsigned", 3, "x < 5"),
                                               ("float", "0.5", "x = min y : { a(y) }")])
def test_unsigned_and_float_rules_are_refused_where_they_are(tmp_path, kind, value, body):
    """The checker rewrites an unsigned rule with biased values (``unsigned.bias_rule``) and a
    float is text in the model: explain derived other rows than the engines ('no rule instance
    derives d(3)': 3 < 5 read as 3 < 5 - 2^31; an OverflowError) and now refuses the rule,
    located."""
    ex = _explainer(tmp_path, f"""\
.decl a(x: {kind})
.input a
.decl d(x: {kind})
.output d
d(x) :- a(x), {body}.
""", {"a": [(value,)]}, ["d"])
    assert list(ex.model["d"]) == [(value,)]
    with pytest.raises(DatalogError, match=f"unsupported {kind} values") as err:
        ex.explain("d", (value,))
    assert err.value.loc.line == 5
    with pytest.raises(DatalogError, match=f"unsupported {kind} values"):
        ex.why_not("d", ("1" if kind == "float" else 1,))


def test_a_term_explain_does_not_evaluate_is_refused_at_its_location(tmp_path):
    """A refusal names the functor and its place (it printed the term's repr, unlocated)."""
    ex = _explainer(tmp_path, """\
.decl a(x: number)
.input a
.decl m(x: number)
.output m
m(y) :- a(x), y = range(x, 3).
""", {"a": [(1,)]}, ["m"])
    with pytest.raises(DatalogError) as err:
        ex.explain("m", (2,))
    assert err.value.message == "explain: unsupported functor 'range'"
    assert (err.value.loc.line, err.value.loc.col) == (5, 19)


def test_min_max_bnot_and_lnot_are_the_engines(tmp_path):
    """``min``/``max`` of numbers and of symbols (Soufflé's order of the texts: ``functors``),
    ``bnot`` and ``lnot``: every row explained (they were refused: the most frequent refusal of
    the fuzzer's arithmetic, bitwise and symbols programs; "é" is after "z": UTF-8's order)."""
    ex = _explainer(tmp_path, """\
.decl a(x: number, s: symbol)
.input a
.decl m(x: number, y: number, s: symbol, t: symbol)
.output m
m(min(x, 2), max(bnot x, lnot x), min(s, "b"), max(s, "é")) :- a(x, s).
""", {"a": [(1, "a"), (-5, "z"), (3, "日本")]}, ["m"])
    assert sorted(ex.model["m"]) == [(-5, 4, "b", "é"), (1, 0, "a", "é"), (2, 0, "b", "日本")]
    for row in ex.model["m"]:
        assert ex.explain("m", row)["row"] == list(row)


def _explain_sample(construct: str, seeds: range) -> None:
    """Every program of ``seeds`` explained or refused at a location; never a disagreement."""
    with tempfile.TemporaryDirectory(prefix="fuzz-explain-") as tmp:
        for seed in seeds:
            prog = generate(RandomChoices(seed), construct)
            got = run_explain(prog, Path(tmp) / str(seed))
            assert got["kind"] in ("explained", "refused", "skipped"), \
                f"{got.get('message')}\n{prog.reproducer()}"
            if got["kind"] == "refused":
                assert not got["message"].startswith("unlocated"), got["message"]


@pytest.mark.parametrize("construct", CONSTRUCTS)
def test_explain_agrees_with_the_engine_on_fuzzed_programs(construct):
    """Two programs per construct (about 0.3 s in all; the slow test below takes 40)."""
    _explain_sample(construct, range(43_000, 43_002))


@pytest.mark.slow
@pytest.mark.parametrize("construct", CONSTRUCTS)
def test_explain_agrees_with_the_engine_on_more_fuzzed_programs(construct):
    """40 programs per construct (720 in all: about 5 s CPU at stop 43)."""
    _explain_sample(construct, range(43_002, 43_042))


def test_a_disagreement_is_reported(monkeypatch):
    """The oracle can fail: a model without a row the rules derive is a disagreement."""
    from pylogic.analysis import explain as analysis_explain
    from pylogic.engines.explain import Explainer
    prog = FuzzProgram("join", ".decl a(x: number)\n.input a\n.decl r(x: number)\n.output r\n"
                       "r(x) :- a(x), x band 1 = 1.\n", {"a": [(3,), (2,), (5,)]})
    with tempfile.TemporaryDirectory(prefix="fuzz-explain-") as tmp:
        assert run_explain(prog, Path(tmp) / "1") == {"kind": "explained", "rows": 2,
                                                      "why_not": 0}
        full = analysis_explain.explainer

        def short(*args, **kw):
            ex = full(*args, **kw)
            return Explainer(ex.checked, dict(ex.model, r=[(3,)]))
        monkeypatch.setattr(analysis_explain, "explainer", short)
        got = run_explain(prog, Path(tmp) / "2")
    assert got["kind"] == "disagreement" and "derives r(5), which the engine's result does " \
        "not hold" in got["message"]
