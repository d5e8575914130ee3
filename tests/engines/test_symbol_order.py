"""Ordering comparisons of symbols (issue #29): Soufflé 2.5 compares the decoded strings, in
``std::string``'s order (bytes as unsigned char: UTF-8 text in code point order, a prefix first),
never the numbers its symbol table gave them (souffle-src src/interpreter/Engine.cpp
``COMPARE_STRING``; symbol inequalities are never index ranges, src/ram/transform/MakeIndex.cpp).
Measured with /work/bin/souffle: the same rows whatever order the symbols were met in. Both
embedded engines compute the same: clingo's string symbols natively, duckdb through ``scmp``
(``functors.py``), in SQL and in the in-process recursive components (``indexed.py``)."""
from __future__ import annotations

import pytest

from pylogic.engines import load_program, run_checked
from pylogic.errors import DatalogError
from tests.support import ENGINES, needs_souffle

#: in intern order (first met first) far from text order: upper case, punctuation, prefixes,
#: the empty string, 2-, 3- and 4-byte UTF-8
WORDS = ["zeta", "é", "Beta", "", "ab", "a", "a!b", "€", "ü", "😀", "b", "Z", "a b"]


def text_order(a: str, b: str) -> int:
    ka, kb = a.encode("utf-8"), b.encode("utf-8")
    return (ka > kb) - (ka < kb)


PROGRAM = """
.decl s(x: symbol)
.input s
.decl lt(x: symbol, y: symbol)
.output lt
lt(x, y) :- s(x), s(y), x < y.
.decl ge(x: symbol)
.output ge
ge(x) :- s(x), x >= "b".
.decl le(x: symbol)
.output le
le(x) :- s(x), "ab" <= x, cat(x, "") > "a".
// the rank of each symbol: an ordering inside an aggregate
.decl rank(x: symbol, n: number)
.output rank
rank(x, n) :- s(x), n = count : { s(y), y < x }.
// a recursive component (duckdb: evaluated in process) and a negation
.decl up(x: symbol, y: symbol)
.output up
up(x, y) :- s(x), s(y), x < y, x > "a".
up(x, z) :- up(x, y), s(z), y < z.
.decl low(x: symbol)
.output low
low(x) :- s(x), !big(x).
.decl big(x: symbol)
big(x) :- s(x), x > "mid".
"""


def run(tmp_path, engine: str, words: list[str]) -> dict:
    path = tmp_path / "order.dl"
    path.write_text(PROGRAM, encoding="utf-8")
    return run_checked(load_program(path), None, engine, facts={"s": [(w,) for w in words]})


def expected(words: list[str]) -> dict:
    ws = set(words)
    lt = {(x, y) for x in ws for y in ws if text_order(x, y) < 0}
    return {
        "lt": lt,
        "ge": {(x,) for x in ws if text_order(x, "b") >= 0},
        "le": {(x,) for x in ws if text_order("ab", x) <= 0 and text_order(x, "a") > 0},
        "rank": {(x, sum(text_order(y, x) < 0 for y in ws)) for x in ws},
        "up": {(x, y) for x, y in lt if text_order(x, "a") > 0},
        "low": {(x,) for x in ws if text_order(x, "mid") <= 0},
    }


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("order", ["as met", "sorted", "reversed"])
def test_symbols_are_ordered_by_their_text(tmp_path, engine, order):
    words = {"as met": WORDS, "sorted": sorted(WORDS), "reversed": sorted(WORDS)[::-1]}[order]
    got = run(tmp_path, engine, words)
    assert {rel: set(rows) for rel, rows in got.items()} == expected(words)


@needs_souffle
def test_souffle_orders_symbols_whatever_order_they_were_met_in(tmp_path):
    """The measured fact the embedded engines follow: Soufflé's rows do not change when its
    symbol table numbers the same symbols in another order."""
    a = run(tmp_path, "souffle", WORDS)
    b = run(tmp_path, "souffle", WORDS[::-1])
    assert a == b
    assert set(a["lt"]) == expected(WORDS)["lt"]


@pytest.mark.parametrize("engine", ["clingo", "duckdb", "python"])
def test_min_of_symbols_stays_a_located_type_error(tmp_path, engine):
    """Soufflé 2.5 rejects ``min``/``max`` aggregates over symbols ("Unable to deduce type");
    the embedded engines give a located error too."""
    path = tmp_path / "m.dl"
    path.write_text(".decl s(x: symbol)\ns(\"b\"). s(\"a\").\n.decl m(x: symbol)\n.output m\n"
                    "m(v) :- v = min x : { s(x) }.\n")
    with pytest.raises(DatalogError) as err:
        run_checked(load_program(path), None, engine)
    assert err.value.loc is not None and err.value.loc.line == 5


#: r: the symbols of s after U+E000 (bytes EE 80 80); t: the first byte of an emoji (0xF0)
UNDECODABLE = """
.decl s(x: symbol)
.input s
.decl r(x: symbol)
.output r
r(x) :- s(x), x > "\ue000".
.decl t(x: symbol)
.output t
t(x) :- x = substr("\U0001F600", 0, 1), x > "\ue000".
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_an_undecodable_byte_is_ordered_as_a_byte(tmp_path, engine):
    """``substr`` may cut a UTF-8 character: the lone byte 0xF0 (held as the surrogate escape
    U+DCF0) is after U+E000 in Soufflé's order, though before it in code points."""
    path = tmp_path / "b.dl"
    path.write_text(UNDECODABLE, encoding="utf-8")
    got = run_checked(load_program(path), None, engine, facts={"s": [("a",)]})
    assert got["t"] == [(b"\xf0".decode("utf-8", "surrogateescape"),)]


def test_the_explainer_orders_symbols_as_the_engines(tmp_path):
    """``explain`` replays a comparison in the same order: a row whose symbol holds the lone
    byte 0xF0 is derived by ``x > "\ue000"``."""
    from pylogic.engines.explain import Explainer
    path = tmp_path / "b.dl"
    path.write_text(UNDECODABLE, encoding="utf-8")
    lone = b"\xf0".decode("utf-8", "surrogateescape")
    tree = Explainer(load_program(path), {"s": [(lone,), ("a",)], "r": [(lone,)]}).explain(
        "r", (lone,))
    assert [c["atom"] for c in tree["children"]] == [f's("{lone}")']
