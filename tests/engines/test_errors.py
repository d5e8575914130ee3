"""Rejections: every unsupported construct, syntax and semantic errors, non-stratified programs,
bad facts files -- each a DatalogError located at file:line:col and naming the construct."""
from __future__ import annotations

import pytest

from pylogic.engines import EngineError, load_program, run_program
from pylogic.errors import DatalogError

HEADER = ".decl a(x: number)\n.decl b(x: number)\n.decl s(x: symbol)\n"


def rejected(tmp_path, body: str, name="p.dl") -> DatalogError:
    path = tmp_path / name
    path.write_text(HEADER + body)
    with pytest.raises(DatalogError) as info:
        load_program(path)
    return info.value


def test_engine_error_is_datalog_error():
    assert issubclass(EngineError, DatalogError)


# (program text placed on line 4, expected column, a word the message must contain)
# (string, binary min/max, bit and power functors are supported: tests/engines/test_dialect_more.py)
UNSUPPORTED = [
    ("a(x) :- b(x), x = @f(1).", 19, "functor '@f'"),
    ("a(y) :- s(x), y = ord(x).", 19, "functor 'ord'"),
    ("a(x) :- x = autoinc().", 13, "functor 'autoinc'"),
    ('.include "other.dl"', 1, "'.include' directive"),
    (".decl c(x: number) choice-domain x", 20, "choice-domain"),
    (".functor f(x: number): number", 1, ".functor"),
    (".pragma \"legacy\" \"true\"", 1, ".pragma"),
    ("#undef X", 1, "#undef"),
    ("a(x) :- b(x), x = itof(x).", 19, "functor 'itof'"),
    ("a(x) <= a(y) :- b(x), b(y).", 1, "subsumptive"),
]


@pytest.mark.parametrize("text,col,word", UNSUPPORTED, ids=[u[2] for u in UNSUPPORTED])
def test_unsupported_construct_located_and_named(tmp_path, text, col, word):
    err = rejected(tmp_path, text + "\n")
    assert err.loc.file.endswith("p.dl")
    assert (err.loc.line, err.loc.col) == (4, col), str(err)
    assert word in err.message
    assert "unsupported" in err.message


SEMANTIC = [
    ("a(x) :- c(x).", (4, 9), "undeclared relation 'c'"),
    ("a(x) :- b(x, x).", (4, 9), "arity mismatch"),
    ("a(x, 1) :- b(x).", (4, 1), "arity mismatch"),
    ("a(y) :- b(x).", (4, 3), "ungrounded variable 'y'"),
    ("a(x) :- b(x), !b(y).", (4, 18), "ungrounded variable 'y'"),
    ("a(x) :- b(x), y > 1.", (4, 15), "ungrounded variable 'y'"),
    ("a(x) :- b(x+1).", (4, 3), "ungrounded variable 'x'"),
    ("a(_) :- b(1).", (4, 3), "underscore"),
    ("a(x) :- s(x).", (4, 3), "type error"),
    ("a(1.5).", (4, 3), "float constant where a column 1 expects number"),
    ("a(x) :- b(x), y = mean z : { b(z) }, y > 0.5.", (4, 19), "'mean' of a number"),
    ('a(x) :- b(x), x = "q".', (4, 17), "type error"),
    ("a(x) :- b(x), s(x).", (4, 17), "type error"),
    (".output nothere", (4, 1), "undeclared relation 'nothere'"),
    (".decl a(y: number)", (4, 1), "declared twice"),
    (".decl c(x: Nope)", (4, 1), "undeclared type 'Nope'"),
    (".input a(IO=sqlite)", (4, 1), "IO=sqlite"),
    (".input a(headers=true)", (4, 1), "parameter 'headers'"),
    ("a(n) :- n = sum x : { b(x) ; a(x) }.", (4, 13), "disjunction inside an aggregate"),
    # Soufflé 2.5: "Witness problem: argument grounded by an aggregator's inner scope is used
    # ungrounded in outer scope in a count/sum/mean aggregate" (checked on the binary)
    ("a(m) :- n = count : { b(m) }, n > 0.", (4, 25), "witness problem"),
    ("a(n) :- n = sum (count : b(_)) : { b(_) }.", (4, 13), "aggregate's target"),
    ("a(x) :- b(x), x = 2147483648.", (4, 19), "32-bit"),
]


@pytest.mark.parametrize("text,pos,phrase", SEMANTIC, ids=[s[2] for s in SEMANTIC])
def test_semantic_error_located(tmp_path, text, pos, phrase):
    err = rejected(tmp_path, text + "\n")
    assert (err.loc.line, err.loc.col) == pos, str(err)
    assert phrase in err.message


def test_subtypes_that_share_no_values_are_a_type_error(tmp_path):
    err = rejected(tmp_path, ".type A <: symbol\n.type B <: symbol\n.decl pa(x: A)\n"
                             ".decl pb(x: B)\n.decl both(x: A)\nboth(x) :- pa(x), pb(x).\n")
    assert err.loc.line == 9 and "share no values" in err.message


def test_supertype_into_subtype_head_is_a_type_error(tmp_path):
    err = rejected(tmp_path, ".type A <: symbol\n.decl pa(x: A)\npa(x) :- s(x).\n")
    assert err.loc.line == 6 and "not a subtype" in err.message


@pytest.mark.parametrize("rules,line,col", [
    ("a(x) :- b(x), !a(x).", 4, 16),                            # self negation
    ("a(x) :- b(x), !c(x).\nc(x) :- a(x).", 4, 16),              # negation through a cycle
    ("a(n) :- b(_), n = count : { a(_) }.", 4, 29),             # aggregate over itself
])
def test_non_stratified_program_rejected(tmp_path, rules, line, col):
    err = rejected(tmp_path, ".decl c(x: number)\n" + rules + "\n")
    assert "non-stratified" in err.message
    assert (err.loc.line, err.loc.col) == (line + 1, col), str(err)


def test_stratified_negation_accepted(tmp_path):
    path = tmp_path / "p.dl"
    path.write_text(HEADER + ".decl c(x: number)\n.output c\nc(x) :- b(x), !a(x).\n"
                    "a(x) :- b(x), x > 1.\nb(1). b(2). b(3).\n")
    assert run_program(path, None, engine="clingo") == {"c": [(1,)]}


@pytest.mark.parametrize("text,pos", [
    ("a(x) :- b(x) b(x).", (4, 14)),
    ("a(x) :- b(x)", (4, 13)),
    (".decl", (4, 6)),
    ("a(x) :- b(x), x = 1 +.", (4, 22)),
    ('s("unterminated) :- s(1).', (4, 3)),
])
def test_syntax_error_located(tmp_path, text, pos):
    err = rejected(tmp_path, text + "\n")
    assert "syntax error" in err.message
    assert (err.loc.line, err.loc.col) == pos, str(err)


def test_error_inside_included_file_names_that_file(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "inc.dl").write_text(".decl q(x: number)\nq(x) :- nothere(x).\n")
    (tmp_path / "main.dl").write_text('#include "sub/inc.dl"\n')
    with pytest.raises(DatalogError) as info:
        load_program(tmp_path / "main.dl")
    assert info.value.loc.file.endswith("sub/inc.dl") and info.value.loc.line == 2


def test_include_cycle_rejected(tmp_path):
    (tmp_path / "a.dl").write_text('#include "b.dl"\n')
    (tmp_path / "b.dl").write_text('.decl x(n: number)\n#include "a.dl"\n')
    with pytest.raises(DatalogError) as info:
        load_program(tmp_path / "a.dl")
    assert "cycle" in info.value.message
    assert info.value.loc.file.endswith("b.dl") and info.value.loc.line == 2


def test_missing_include_rejected(tmp_path):
    (tmp_path / "a.dl").write_text('\n#include "nope.dl"\n')
    with pytest.raises(DatalogError) as info:
        load_program(tmp_path / "a.dl")
    assert info.value.loc.line == 2 and "nope.dl" in info.value.message

# ---- facts files ----------------------------------------------------------------------------


FACTS_PROG = (".decl e(x: symbol, n: number)\n.input e\n.decl o(x: symbol, n: number)\n.output o\n"
              "o(x, n) :- e(x, n).\n")


def run_with_facts(tmp_path, facts_text: str | None):
    prog = tmp_path / "p.dl"
    prog.write_text(FACTS_PROG)
    facts = tmp_path / "facts"
    facts.mkdir()
    if facts_text is not None:
        (facts / "e.facts").write_text(facts_text)
    return run_program(prog, facts, engine="clingo")


def test_missing_facts_file_is_empty_relation(tmp_path):
    assert run_with_facts(tmp_path, None) == {"o": []}


def test_facts_values_typed(tmp_path):
    got = run_with_facts(tmp_path, "a b\t-2147483648\nc\t2147483647\nd\t0x10\n")
    assert got == {"o": [("a b", -2147483648), ("c", 2147483647), ("d", 16)]}


@pytest.mark.parametrize("text,line,phrase", [
    ("a\t1\nb\t2\t3\n", 2, "expected 2 column(s), found 3"),
    ("a\t1\nb\n", 2, "expected 2 column(s), found 1"),
    ("a\t1\nb\tx1\n", 2, "not a number"),
    ("a\t2147483648\n", 1, "outside the 32-bit"),
    ("a\t-2147483649\n", 1, "outside the 32-bit"),
])
def test_bad_facts_file_named_with_line(tmp_path, text, line, phrase):
    with pytest.raises(DatalogError) as info:
        run_with_facts(tmp_path, text)
    assert info.value.loc.file.endswith("e.facts") and info.value.loc.line == line
    assert phrase in info.value.message


@pytest.mark.parametrize("rows,phrase", [
    ([("a", 2 ** 31)], "outside the 32-bit"),
    ([("a", "1")], "expected an int"),
    ([(1, 1)], "expected a str"),
    ([("a",)], "expected 2"),
])
def test_bad_in_memory_facts(tmp_path, rows, phrase):
    prog = tmp_path / "p.dl"
    prog.write_text(FACTS_PROG)
    with pytest.raises(DatalogError) as info:
        run_program(prog, None, engine="clingo", facts={"e": rows})
    assert phrase in info.value.message


def test_unknown_engine_rejected(tmp_path):
    prog = tmp_path / "p.dl"
    prog.write_text(FACTS_PROG)
    with pytest.raises(DatalogError):
        run_program(prog, None, engine="no-such-engine")


def test_include_guard_allows_diamond_includes(tmp_path):
    (tmp_path / "schema.dl").write_text("#ifndef SCHEMA\n#define SCHEMA\n.decl e(x: number)\n"
                                        ".input e\n#endif\n")
    (tmp_path / "a.dl").write_text('#include "schema.dl"\n.decl a(x: number)\na(x) :- e(x).\n')
    (tmp_path / "main.dl").write_text('#include "schema.dl"\n#include "a.dl"\n'
                                      ".decl o(x: number)\n.output o\no(x) :- a(x).\n")
    got = run_program(tmp_path / "main.dl", None, engine="clingo", facts={"e": [(3,), (1,)]})
    assert got == {"o": [(1,), (3,)]}


def test_symbols_with_quotes_and_backslashes_round_trip(tmp_path):
    got = run_with_facts(tmp_path, 'a"b\\c\t1\n\\\t2\n"\t3\nplain, with comma (x)\t4\n')
    assert got == {"o": sorted([('a"b\\c', 1), ("\\", 2), ('"', 3), ("plain, with comma (x)", 4)])}
    rows = [('q"', 1), ("back\\slash", 2)]
    prog = tmp_path / "p.dl"
    assert run_program(prog, None, engine="clingo", facts={"e": rows}) == {"o": sorted(rows)}


def test_plan_is_an_evaluation_hint(tmp_path):
    """``.plan`` after a rule is accepted (a Soufflé join-order hint; clingo ignores it), and
    the program computes the same; a ``.plan`` that follows no rule is a located error."""
    from pylogic.engines import run_program
    prog = tmp_path / "plan.dl"
    prog.write_text(".decl e(x: number, y: number)\ne(1, 2). e(2, 3).\n"
                    ".decl p(x: number, y: number)\n.output p\n"
                    "p(x, y) :- e(x, y).\np(x, z) :- p(x, y), e(y, z).\n.plan 0:(2,1)\n")
    assert run_program(prog, None, engine="clingo")["p"] == [(1, 2), (1, 3), (2, 3)]
    bad = tmp_path / "bad.dl"
    bad.write_text(".decl e(x: number)\n.plan 0:(1)\n")
    with pytest.raises(DatalogError) as info:
        run_program(bad, None, engine="clingo")
    assert (info.value.loc.line, ".plan must directly follow a rule") == (2, info.value.message)


def test_the_smallest_number_is_a_literal(tmp_path):
    """-2147483648 is Soufflé's smallest number: accepted (it was refused as out of range);
    2147483648 on its own, or under a binary minus, is still refused, at its column."""
    path = tmp_path / "p.dl"
    path.write_text(HEADER + ".output a\na(-2147483648).\na(- 2147483648).\na(2147483647).\n")
    assert run_program(path, None, "clingo")["a"] == [(-2147483648,), (2147483647,)]
    for body, col in (("a(2147483648).", 3), ("a(3 - 2147483648).", 7)):
        error = rejected(tmp_path, body)
        assert (error.loc.line, error.loc.col) == (4, col) and "32-bit" in str(error)


def test_an_aggregate_over_false(tmp_path):
    """``count : { false }`` was refused as a disjunction; as Soufflé (checked against its
    binary): count and sum are 0, min and max have no value."""
    path = tmp_path / "p.dl"
    path.write_text(HEADER + ".output a\n.output b\na(n) :- n = count : { false }.\n"
                    "a(n) :- n = sum 7 : { false }.\nb(n) :- n = max 1 : { false }.\n")
    rows = run_program(path, None, "clingo")
    assert rows["a"] == [(0,)] and rows["b"] == []


@pytest.mark.parametrize("body, col, words", [
    (".output a\n.printsize b\n.printsize b\na(1).", 1, "second .printsize of relation 'b'"),
    (".decl i(x: number) inline\n.output i\ni(1).", 1, "IO relation 'i' cannot be inlined"),
    (".decl i(x: number) inline\ni(x) :- i(y), x = y + 1, x < 3.\ni(0).\na(x) :- i(x).", 1,
     "cannot inline cyclically dependent relations {i}"),
    ("a(x) :- b(x).\n.plan 0:(1)", 7, "non-recursive rule"),
    ("a(x) :- b(x).\na(x) :- a(y), b(x), x = y + 1.\n.plan 1:(2,1)", 7, "only versions 0..0"),
    ("a(x) :- b(x).\na(x) :- a(y), b(x), x = y + 1.\n.plan 0:(1,2,3)", 7, "expected 2 atoms"),
    ("a(x) :- b(x).\na(x) :- a(y), b(x), x = y + 1.\n.plan 0:(1,1)", 7, "incomplete"),
])
def test_inline_plan_and_printsize_get_souffles_checks(tmp_path, body, col, words):
    """Issue #16: accepted without the checks Soufflé applies (its messages, checked against
    the souffle binary, are the model)."""
    error = rejected(tmp_path, body)
    assert error.loc.col == col and words in str(error), str(error)


def test_a_plan_on_a_recursive_rule_is_accepted(tmp_path):
    path = tmp_path / "p.dl"
    path.write_text(HEADER + ".output a\nb(1).\nb(2).\na(x) :- b(x).\n"
                    "a(x) :- a(y), b(x), x = y + 1.\n.plan 0:(2,1)\n")
    assert run_program(path, None, "clingo")["a"] == [(1,), (2,)]


@pytest.mark.parametrize("engine", ["clingo", "duckdb", "souffle"])
def test_the_aggregates_own_variable_is_local(tmp_path, engine):
    """``Y = min Z+Y : { a(A,Z), a(B,Y), A != B }``: the inner Y is the aggregate's own (Soufflé
    scopes it; clingo got an unsafe rule and failed with no line). A variable that the rest of
    the body grounds stays shared."""
    from tests.support import engine_available
    if not engine_available(engine):
        pytest.skip(f"{engine} not available")
    (tmp_path / "a.facts").write_text("x\t1\ny\t2\nz\t5\n")
    path = tmp_path / "p.dl"
    path.write_text(".decl a(x: symbol, y: number)\n.input a\n.decl r(y: number)\n.output r\n"
                    ".decl s(x: symbol, y: number)\n.output s\n"
                    "r(Y) :- Y = min Z+Y : { a(A,Z), a(B,Y), A != B }.\n"
                    "s(A, N) :- a(A, _), N = count : { a(B, _), B != A }.\n")
    rows = run_program(path, tmp_path, engine)
    assert rows["r"] == [(3,)]
    assert rows["s"] == [("x", 2), ("y", 2), ("z", 2)]
