"""Aggregates nested in an aggregate's body and aggregate witnesses (issue #29 item 4), as
Soufflé 2.5 gives them: a nested body is materialized (MaterializeAggregationQueries), a witness
grounded by a copy of the min/max's body (GroundWitnesses), keeping Soufflé's scoping of the
copied variables. Expected rows came from Soufflé 2.5 (``/work/bin/souffle``, ``-D``) and are
written here as literals; with ``souffle`` on PATH the binary is compared too."""
from __future__ import annotations

import pytest

from pylogic.engines import run_program
from pylogic.errors import DatalogError
from tests.support import needs_souffle


def _run(tmp_path, text: str, engine: str) -> dict:
    prog = tmp_path / "p.dl"
    prog.write_text(text)
    return {rel: sorted(tuple(str(v) for v in row) for row in rows)
            for rel, rows in run_program(prog, tmp_path, engine=engine).items()}


S = '.decl s(n: symbol, h: number, z: number)\n' \
    's("A", 180, 1). s("B", 180, 2). s("C", 170, 3). s("D", 160, 3).\n'

# (program, Soufflé 2.5's rows)
CASES = {
    # every binding reaching the max is a witness (ties included)
    "ties": (S + ".decl t(n: symbol, h: number)\n.output t\n"
             "t(n, m) :- m = max h : { s(n, h, _) }.\n",
             {"t": [("A", "180"), ("B", "180")]}),
    # the value discarded, the witnesses of a complex target kept
    "discarded": (".decl d(x: number, y: number)\nd(1, 1). d(1, 2). d(2, 0).\n"
                  ".decl f(x: number, y: number)\n.output f\n"
                  "f(x, y) :- _ = min x + y : { d(x, y) }.\n",
                  {"f": [("1", "1"), ("2", "0")]}),
    # g is injected (the max per g), x its witness
    "injected": (".decl e(g: number, x: number, v: number)\n"
                 "e(1, 1, 5). e(1, 2, 5). e(1, 3, 4). e(2, 4, 9).\n.decl b(g: number)\n"
                 "b(1). b(2). b(3).\n.decl r(g: number, x: number, m: number)\n.output r\n"
                 "r(g, x, m) :- b(g), m = max v : { e(g, x, v) }.\n",
                 {"r": [("1", "1", "5"), ("1", "2", "5"), ("2", "4", "9")]}),
    # Soufflé copies the body with its other variables' names: the min is per z (q); a complex
    # target's variables are copied too (u: every row); a witness target is not replaced (r)
    "per_local": (S + ".decl q(n: symbol, m: number)\n.output q\n"
                  "q(n, m) :- m = min h : { s(n, h, z), z > 1 }.\n"
                  ".decl u(n: symbol, m: number)\n.output u\n"
                  "u(n, m) :- m = min h * 2 : { s(n, h, _) }.\n"
                  ".decl r(h: number, m: number)\n.output r\n"
                  "r(h, m) :- m = max h : { s(_, h, _) }.\n",
                  {"q": [("B", "180"), ("D", "160")],
                   "u": [("A", "360"), ("B", "360"), ("C", "340"), ("D", "320")],
                   "r": [("160", "180"), ("170", "180"), ("180", "180")]}),
    # a witness of a min nested in a count
    "reaching": (".decl d(x: number, y: number)\nd(1, 7). d(1, 8). d(3, 9).\n"
                 ".decl b(x: number)\nb(2). b(5).\n.decl f(c: number, w: number)\n.output f\n"
                 "f(c, w) :- c = count : { b(x), x > min y : { d(y, w) } }.\n",
                 {"f": [("2", "7"), ("2", "8")]}),
    # a sum nested in a min, correlated with the min's body and the rule (aggregates_nested)
    "sum_in_min": ('.decl stock(p: symbol, q: number)\nstock("x", 100). stock("y", 60).\n'
                   ".decl sales(p: symbol, m: number, q: number)\n"
                   'sales("x", 1, 20). sales("x", 2, 20). sales("x", 3, 20). sales("y", 1, 40).\n'
                   ".decl half(p: symbol, m: number)\n.output half\n"
                   "half(p, m) :- stock(p, s), m = min c : { sales(_, c, _), "
                   "t = sum q : { sales(p, k, q), k <= c }, 2 * t >= s }.\n",
                   {"half": [("x", "3"), ("y", "1")]}),
    "three_levels": (".decl a(x: number, y: number)\na(1, 2). a(1, 3). a(2, 2). a(4, 1).\n"
                     ".decl b(x: number)\nb(1). b(2). b(4).\n.decl n(g: number, m: number)\n"
                     ".output n\nn(g, m) :- b(g), m = min p : { a(g, y), p = max q : "
                     "{ b(z), q = count : { a(z, y) } } }.\n",
                     {"n": [("1", "1"), ("2", "1"), ("4", "1")]}),
    # g only the inner count uses: the materialized body is grounded by the rule's b(g, _)
    "outer_variable": (".decl a(x: number, y: number)\na(1, 2). a(3, 3). a(5, 2).\n"
                       ".decl b(x: number, y: number)\nb(1, 0). b(2, 2). b(2, 3).\n"
                       ".decl n(g: number, c: number)\n.output n\n"
                       "n(g, c) :- b(g, _), c = count : { a(x, _), x < count : { b(g, y) } }.\n"
                       ".decl m(c: number)\n.output m\n"
                       "m(c) :- c = max k : { b(g, _), k = count : { a(_, y), y >= g } }.\n",
                       {"n": [("1", "0"), ("2", "1")], "m": [("3",)]}),
}


@pytest.mark.parametrize("engine", ["clingo", "duckdb", "python"])
@pytest.mark.parametrize("name", list(CASES))
def test_nested_aggregates_and_witnesses_give_souffles_rows(tmp_path, engine, name):
    text, rows = CASES[name]
    assert _run(tmp_path, text, engine) == rows


@needs_souffle
@pytest.mark.parametrize("name", list(CASES))
def test_the_cases_on_the_souffle_binary(tmp_path, name):
    text, rows = CASES[name]
    assert _run(tmp_path, text, "souffle") == rows


# (program, (line, column), phrase): refusals, located
REFUSED = [
    # Soufflé: "Witness problem: argument grounded by an aggregator's inner scope is used
    # ungrounded in outer scope in a count/sum/mean aggregate"
    (S + ".decl c(n: symbol, k: number)\nc(n, k) :- k = count : { s(n, _, _) }.\n", (4, 28),
     "witness problem"),
    # no atom of the rule grounds g for the materialized body (Soufflé cannot either)
    (S + ".decl c(g: number, k: number)\n"
     "c(g, k) :- g = 3, k = count : { s(_, h, _), h > count : { s(_, _, g) } }.\n", (4, 23),
     "no atom of the rule binds"),
]


@pytest.mark.parametrize("engine", ["clingo", "duckdb", "python"])
@pytest.mark.parametrize("text, where, phrase", REFUSED, ids=[r[2] for r in REFUSED])
def test_refusals_are_located(tmp_path, engine, text, where, phrase):
    with pytest.raises(DatalogError) as err:
        _run(tmp_path, text, engine)
    assert (err.value.loc.line, err.value.loc.col) == where and phrase in err.value.message
