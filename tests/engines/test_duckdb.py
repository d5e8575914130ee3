"""The duckdb engine (``pylogic/engines/duckdb_engine.py``, ``to_sql.py``) against independent
oracles: clingo on random arithmetic (32-bit wrapping, C division, undefined division by zero),
Python on non-linear and mutual recursion (the semi-naive path) and on a long chain (the WITH
RECURSIVE path)."""
from __future__ import annotations


import pytest
from hypothesis import example, given, settings, strategies as st

from pylogic.engines import load_program, run_checked
from pylogic.engines import duckdb_engine

# values at the edges of the 32-bit range (-1: INT_MIN / -1 wraps, where clingo once died of SIGFPE)
VALUES = [-2147483648, -65536, -7, -2, -1, 0, 2, 3, 7, 65536, 46341, 2147483647]


def wrap(v: int) -> int:
    """Two's-complement 32-bit wrap (Soufflé's number; clingo when it evaluates a term)."""
    return (v + 2 ** 31) % 2 ** 32 - 2 ** 31


def c_div(a: int, b: int):
    return None if b == 0 else wrap(abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1))


def c_mod(a: int, b: int):
    return None if b == 0 else abs(a) % abs(b) * (1 if a >= 0 else -1)


_LEAVES = {"x": lambda x, y: x, "y": lambda x, y: y, "1": lambda x, y: 1,
           "2147483647": lambda x, y: 2147483647, "(-2147483648)": lambda x, y: -2147483648,
           "65536": lambda x, y: 65536}


def _lift(op, f, g):
    def h(x, y):
        a, b = f(x, y), g(x, y)
        if a is None or b is None:      # undefined propagates (a division by zero inside)
            return None
        return {"+": lambda: wrap(a + b), "-": lambda: wrap(a - b), "*": lambda: wrap(a * b),
                "/": lambda: c_div(a, b), "%": lambda: c_mod(a, b)}[op]()
    return h


@st.composite
def expressions(draw, depth=3):
    """``(text, value)``: a number expression over x and y in the Soufflé dialect and its value
    in Python (32-bit wrap after every operation, C division, None when undefined); division
    only by y."""
    if depth == 0 or draw(st.booleans()):
        leaf = draw(st.sampled_from(sorted(_LEAVES)))
        return leaf, _LEAVES[leaf]
    op = draw(st.sampled_from(["+", "-", "*", "/", "%", "neg"]))
    left, f = draw(expressions(depth - 1))
    if op == "neg":  # minus on a bare constant is folded by the parser and range-checked there
        text = f"0 - ({left})" if left in _LEAVES and left not in ("x", "y") else f"-({left})"
        return text, lambda x, y: None if f(x, y) is None else wrap(-f(x, y))
    if op in ("/", "%"):
        return f"({left}) {op} y", _lift(op, f, _LEAVES["y"])
    right, g = draw(expressions(depth - 1))
    return f"({left}) {op} ({right})", _lift(op, f, g)


_PY_CMP = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, "=": lambda a, b: a == b,
           "!=": lambda a, b: a != b}

# -(INT_MIN) once y cancels: -2147483648 on duckdb and in Python (and Soufflé's 32-bit wrap);
# once no row on clingo (test_clingo_wraps_an_overflow_in_a_cancelled_term). Found by this test.
_CANCEL = "-((y) + ((-2147483648) - (y)))"


def _cancel_value(x: int, y: int) -> int:
    return wrap(-wrap(y + wrap(-2147483648 - y)))


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(st.lists(expressions(), min_size=1, max_size=4), st.sampled_from(sorted(_PY_CMP)))
@example([(_CANCEL, _cancel_value)], "<")
def test_arithmetic_agrees_with_clingo_and_python(tmp_path_factory, exprs, cmp):
    _check_arithmetic(tmp_path_factory, exprs, cmp, recursive=False)


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(st.lists(expressions(), min_size=1, max_size=4), st.sampled_from(sorted(_PY_CMP)))
@example([(_CANCEL, _cancel_value)], "<")
def test_arithmetic_in_a_recursive_component(tmp_path_factory, exprs, cmp):
    """The same rules, each inside a recursive component (``m`` and the rule's relation derive
    each other; ``m`` is ``n``): evaluated in process by ``indexed.py``, never in SQL, with the
    same values as Python (and clingo where it is run)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(duckdb_engine, "RECURSION", "indexed")
        mp.setattr(duckdb_engine, "_recursive_cte", None)
        mp.setattr(duckdb_engine, "_semi_naive", None)
        _check_arithmetic(tmp_path_factory, exprs, cmp, recursive=True)


def _check_arithmetic(tmp_path_factory, exprs, cmp, recursive: bool):
    """Values (``v = e``), comparisons and negated atoms over them agree with Python's wrapping
    arithmetic on duckdb and on clingo, whatever the term's shape: clingo once simplified a
    linear term before grounding, which made an overflow undefined, killed the process with
    SIGFPE or never finished grounding, and solved ``e = x`` in exact integers; the translation
    now keeps clingo to evaluating ground values (``to_clingo.py``;
    ``test_fuzz_findings.test_arithmetic_wraps_whatever_the_shape``)."""

    def program_of(ks, rels):
        lines = [".decl n(x: number)", ".input n"]
        for k in ks:
            e = exprs[k][0]
            m = f"m{k}" if recursive else "n"
            rules = {"e": (f"e{k}(x: number, y: number, v: number)",
                           f"e{k}(x, y, v) :- {m}(x), n(y), v = {e}."),
                     "c": (f"c{k}(x: number, y: number)",
                           f"c{k}(x, y) :- {m}(x), n(y), {e} {cmp} x."),
                     "g": (f"g{k}(x: number, y: number)",      # undefined: no row
                           f"g{k}(x, y) :- {m}(x), n(y), !n({e}).")}
            if recursive:
                lines += [f".decl m{k}(x: number)", f"m{k}(x) :- n(x)."]
            for r in rels:
                decl, rule = rules[r]
                lines += [f".decl {decl}", f".output {r}{k}", rule]
                if recursive:
                    lines.append(f"m{k}(x) :- {r}{k}(x, _{', _' if r == 'e' else ''}), n(x).")
        path = tmp_path_factory.mktemp("arith") / "arith.dl"
        path.write_text("\n".join(lines) + "\n")
        return load_program(path)

    program = program_of(range(len(exprs)), "ecg")
    facts = {"n": [(v,) for v in VALUES]}
    got = run_checked(program, None, "duckdb", facts=facts)
    pairs = [(x, y) for x in VALUES for y in VALUES]
    clingo_rows = run_checked(program, None, "clingo", facts=facts)
    for k, (_, f) in enumerate(exprs):
        values = {(x, y): f(x, y) for x, y in pairs}
        e_rows = sorted((x, y, v) for (x, y), v in values.items() if v is not None)
        g_rows = sorted(p for p, v in values.items() if v is not None and v not in VALUES)
        assert got[f"e{k}"] == e_rows
        assert got[f"g{k}"] == g_rows
        c_rows = sorted(p for p, v in values.items() if v is not None and _PY_CMP[cmp](v, p[0]))
        assert got[f"c{k}"] == c_rows
        assert clingo_rows[f"e{k}"] == e_rows and clingo_rows[f"g{k}"] == g_rows
        assert clingo_rows[f"c{k}"] == c_rows


@pytest.mark.parametrize("expr, value", [
    (_CANCEL, -2147483648),                                  # -(INT_MIN), y cancelled
    ("((y) + (2147483647)) - (y) + (1)", -2147483648),       # INT_MAX + 1, y cancelled
    ("(0 - (y)) + (y) - (2147483647) - (2)", 2147483647),    # INT_MIN - 1, y cancelled
    ("((y) - (y) + (65536)) * (65536)", 0),                  # 2^32
    ("(((y) - (y)) + (-2147483648)) / (-1)", -2147483648),   # INT_MIN / -1
    ("(((y) - (y)) + (-2147483648)) % (-1)", 0),
])
def test_wrapped_constant_after_cancellation(tmp_path, expr, value):
    """A term whose variables cancel and whose constant wraps: every binding gets the wrapped
    value on duckdb (Soufflé's 32-bit arithmetic)."""
    path = tmp_path / "cancel.dl"
    path.write_text(".decl n(x: number) .input n .decl e(y: number, v: number) .output e\n"
                    f"e(y, v) :- n(y), v = {expr}.\n")
    rows = run_checked(load_program(path), None, "duckdb",
                       facts={"n": [(v,) for v in VALUES]})["e"]
    assert rows == sorted((y, value) for y in VALUES)


def test_clingo_wraps_an_overflow_in_a_cancelled_term(tmp_path):
    """clingo 5.8.3 folded the constant part of this term before grounding and made its
    overflow undefined (no row; this was a strict xfail); the translation keeps it from folding
    (``to_clingo.py``), so it wraps as Soufflé and duckdb."""
    path = tmp_path / "cancel.dl"
    path.write_text(".decl n(x: number) .input n .decl e(y: number, v: number) .output e\n"
                    f"e(y, v) :- n(y), v = {_CANCEL}.\n")
    rows = run_checked(load_program(path), None, "clingo",
                       facts={"n": [(v,) for v in VALUES]})["e"]
    assert rows == sorted((y, -2147483648) for y in VALUES)


RECURSION = """
.decl edge(a: number, b: number)
.input edge
// non-linear transitive closure (two recursive atoms: semi-naive with delta tables)
.decl tc(a: number, b: number)
.output tc
tc(x, y) :- edge(x, y).
tc(x, z) :- tc(x, y), tc(y, z).
// mutual recursion: nodes at even / odd distance from 0
.decl even(n: number)
.output even
.decl odd(n: number)
.output odd
even(0).
odd(y) :- even(x), edge(x, y).
even(y) :- odd(x), edge(x, y).
// linear recursion (one WITH RECURSIVE query) with negation and an aggregate after it
.decl reach(n: number)
.output reach
reach(0).
reach(y) :- reach(x), edge(x, y).
.decl stuck(n: number, d: number)
.output stuck
stuck(n, d) :- reach(n), !edge(n, _), d = count : { edge(_, n) }.
"""


def python_oracle(edges: set) -> dict:
    tc = set(edges)
    while True:
        new = {(a, d) for (a, b) in tc for (c, d) in tc if b == c} - tc
        if not new:
            break
        tc |= new
    even, odd = {0}, set()
    while True:
        odd2 = odd | {b for (a, b) in edges if a in even}
        even2 = even | {b for (a, b) in edges if a in odd2}
        if (even2, odd2) == (even, odd):
            break
        even, odd = even2, odd2
    reach = {0} | {b for (a, b) in tc if a == 0}
    stuck = {(n, sum(1 for (_, b) in edges if b == n)) for n in reach
             if not any(a == n for (a, _) in edges)}
    return {"tc": sorted(tc), "even": sorted((n,) for n in even),
            "odd": sorted((n,) for n in odd), "reach": sorted((n,) for n in reach),
            "stuck": sorted(stuck)}


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["indexed", "cte", "loop"])   # duckdb_engine.RECURSION
@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), max_size=16))
def test_recursion_matches_python(tmp_path_factory, strategy, edge_list):
    path = tmp_path_factory.mktemp("rec") / "rec.dl"
    path.write_text(RECURSION)
    old, duckdb_engine.RECURSION = duckdb_engine.RECURSION, strategy
    try:
        got = run_checked(load_program(path), None, "duckdb", facts={"edge": edge_list})
    finally:
        duckdb_engine.RECURSION = old
    assert got == python_oracle(set(edge_list))


@pytest.mark.slow
def test_a_long_chain_is_one_recursive_query(tmp_path, monkeypatch):
    """Reachability along a 20,000-edge chain: 20,000 semi-naive rounds, run inside DuckDB as one
    WITH RECURSIVE query (the per-round loop is never entered). No timing assertion (it failed
    at load 8): the per-round loop is the slow plan, and it is disabled."""
    monkeypatch.setattr(duckdb_engine, "RECURSION", "cte")
    path = tmp_path / "rec.dl"
    path.write_text(RECURSION)
    program = load_program(path)
    n = 20_000
    calls = []
    real = duckdb_engine._recursive_cte
    monkeypatch.setattr(duckdb_engine, "_recursive_cte",
                        lambda *a: calls.append(a[2]) or real(*a))
    monkeypatch.setattr(duckdb_engine, "_semi_naive", None)   # never the per-round loop
    got = run_checked(program, None, "duckdb", facts={"edge": [(i, i + 1) for i in range(n)]},
                      only=["reach", "stuck"])
    assert got["reach"] == [(i,) for i in range(n + 1)]
    assert got["stuck"] == [(n, 1)]
    assert calls == [["reach"]]          # one query for the 20,000-round component


#: A recursive component one of whose rules counts over a lower stratum (as ppg/cfg.dl's
#: ``_ppg_size`` does): each node's out-degree, carried along the edges.
DEGREE_CARRIED = """
.decl edge(a: number, b: number)
.input edge
.decl carried(n: number, d: number)
.output carried
carried(n, d) :- edge(n, _), d = count : { edge(n, _) }.
carried(y, d) :- carried(x, d), edge(x, y).
"""


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=12))
def test_an_aggregate_over_a_lower_stratum_inside_recursion_runs_in_process(tmp_path_factory,
                                                                           edge_list):
    """The aggregate's rule is evaluated in SQL once, the rest of the component in process
    (never the WITH RECURSIVE query); rows as Python's fixpoint and clingo's."""
    path = tmp_path_factory.mktemp("agg") / "agg.dl"
    path.write_text(DEGREE_CARRIED)
    program = load_program(path)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(duckdb_engine, "RECURSION", "indexed")
        mp.setattr(duckdb_engine, "_recursive_cte", None)
        mp.setattr(duckdb_engine, "_semi_naive", None)
        got = run_checked(program, None, "duckdb", facts={"edge": edge_list})
    edges = set(edge_list)
    carried = {(a, sum(1 for (x, _) in edges if x == a)) for (a, _) in edges}
    while True:
        more = carried | {(y, d) for (x, d) in carried for (a, y) in edges if a == x}
        if more == carried:
            break
        carried = more
    assert got == {"carried": sorted(carried)}
    assert got == run_checked(program, None, "clingo", facts={"edge": edge_list})


def test_a_long_chain_in_process(tmp_path, monkeypatch):
    """The same 20,000 rounds under the default strategy: the component compiles to
    ``indexed.py`` (no SQL recursion, no per-round statements) and each round costs its delta."""
    monkeypatch.setattr(duckdb_engine, "RECURSION", "indexed")
    monkeypatch.setattr(duckdb_engine, "_recursive_cte", None)
    monkeypatch.setattr(duckdb_engine, "_semi_naive", None)
    path = tmp_path / "rec.dl"
    path.write_text(RECURSION)
    n = 20_000
    got = run_checked(load_program(path), None, "duckdb",
                      facts={"edge": [(i, i + 1) for i in range(n)]}, only=["reach", "stuck"])
    assert got["reach"] == [(i,) for i in range(n + 1)]
    assert got["stuck"] == [(n, 1)]


AGGREGATE_IN_RECURSION = """
.decl edge(a: number, b: number)
.input edge
.decl reach(n: number, d: number)
.output reach
reach(0, 0).
reach(y, 0) :- reach(x, _), reach(y, _), edge(y, x).
reach(y, d) :- reach(x, _), edge(x, y), d = count : { edge(_, y) }.
// compiled in process, reading what the SQL evaluation of reach computed
.decl far(n: number)
.output far
far(x) :- reach(x, 2).
far(y) :- far(x), edge(x, y), reach(y, _).
.type P = [a: number, b: number]
.decl sym(n: number)
.output sym
sym(0).
sym(y) :- sym(x), edge(x, y), [x, y] < [y, x].
"""


def test_a_component_indexed_does_not_compile_goes_to_sql(tmp_path, monkeypatch):
    """An aggregate the in-process compiler does not cover inside a recursive rule (``count``
    taken out of ``indexed._AGGREGATES`` here; the aggregates of floats are the real case): that
    component is evaluated by the WITH RECURSIVE query, with clingo's rows, and a later
    component compiled in process reads its rows (not what its table held when the compilation
    was tried); a construct neither covers is refused located (an ordering comparison on
    records)."""
    from pylogic.engines import indexed
    from pylogic.errors import DatalogError

    path = tmp_path / "agg.dl"
    path.write_text(AGGREGATE_IN_RECURSION.split(".decl sym")[0])
    calls = []
    real = duckdb_engine._recursive_cte
    monkeypatch.setattr(indexed, "_AGGREGATES", ("sum", "min", "max"))
    monkeypatch.setattr(duckdb_engine, "RECURSION", "indexed")
    monkeypatch.setattr(duckdb_engine, "_recursive_cte", lambda *a: calls.append(a[2]) or real(*a))
    edges = [(0, 1), (1, 2), (2, 1), (3, 2), (2, 4)]
    program = load_program(path)
    got = run_checked(program, None, "duckdb", facts={"edge": edges})
    assert calls == [["reach"]]
    assert got == run_checked(program, None, "clingo", facts={"edge": edges})
    assert got["reach"] == [(0, 0), (1, 0), (1, 2), (2, 0), (2, 2), (4, 1)]
    assert got["far"] == [(1,), (2,), (4,)]
    path.write_text(AGGREGATE_IN_RECURSION)
    with pytest.raises(DatalogError) as info:
        run_checked(load_program(path), None, "duckdb", facts={"edge": edges})
    assert info.value.loc is not None and info.value.loc.line == 18
    assert "ordering comparison '<' on records" in info.value.message


def test_an_aggregate_of_lower_strata_inside_a_component_compiles(tmp_path, monkeypatch):
    """The same component with ``count`` compiled in process (the aggregate reads only a lower
    stratum: ``indexed._aggregate``): no SQL recursion, clingo's rows."""
    path = tmp_path / "agg.dl"
    path.write_text(AGGREGATE_IN_RECURSION.split(".decl sym")[0])
    monkeypatch.setattr(duckdb_engine, "RECURSION", "indexed")
    monkeypatch.setattr(duckdb_engine, "_recursive_cte", None)
    edges = [(0, 1), (1, 2), (2, 1), (3, 2), (2, 4)]
    program = load_program(path)
    got = run_checked(program, None, "duckdb", facts={"edge": edges})
    assert got == run_checked(program, None, "clingo", facts={"edge": edges})
    assert got["reach"] == [(0, 0), (1, 0), (1, 2), (2, 0), (2, 2), (4, 1)]


def test_constructs_outside_the_translation_are_refused_located(tmp_path):
    """A node the SQL translation does not cover (the dialect grows: an operator, a literal or a
    column kind it has never seen) is refused at its location, never guessed."""
    import dataclasses

    from pylogic.engines.dialect import BinOp, Constraint, Str, Var
    from pylogic.engines.to_sql import rule_select
    from pylogic.engines.values import Values
    from pylogic.errors import DatalogError, SourceLoc

    path = tmp_path / "p.dl"
    path.write_text(".decl e(x: number)\n.decl p(x: number)\n.output p\n"
                    "p(x + 1) :- e(x), x < 3.\n")
    program = load_program(path)
    rule, rel = program.rules[0], program.relations["p"]
    where = SourceLoc(str(path), 4, 9)
    full = lambda i, atom: f"r_{atom.rel}"                       # noqa: E731
    odd = dataclasses.replace(rule.head, args=(BinOp("~~", Var("x", where), Var("x", where),
                                                     where),))
    cases = [(dataclasses.replace(rule, head=odd), "operator '~~'"),
             (dataclasses.replace(rule, body=rule.body[:1] + (
                 Constraint("~", Var("x", where), Var("x", where), where),)), "constraint '~'"),
             (dataclasses.replace(rule, body=rule.body + ("a literal",)), "literal str")]
    for bad, what in cases:
        with pytest.raises(DatalogError) as info:
            rule_select(bad, rel, full, Values())
        assert f"unsupported construct: {what}" in info.value.message
    assert rule_select(rule, rel, full, Values()).startswith("SELECT DISTINCT")
    # symbols are ordered by their texts (scmp), never by their numbers (the order met)
    ordered = dataclasses.replace(rule, body=rule.body + (
        Constraint("<", Str("b", where), Str("a", where), where),))
    sql = rule_select(ordered, rel, full, Values())
    assert "pl_scmp(" in sql and "< 0" in sql


def test_an_aggregate_in_an_atom_argument_filters_the_atom(tmp_path):
    """``B(id, max s : {..})`` (Soufflé's aggregates2): the atom binds the column first, so the
    aggregate's value must equal it; duckdb used to let the aggregate overwrite the binding
    (every B row of the id kept: 27 rows of Soufflé's 9)."""
    path = tmp_path / "p.dl"
    path.write_text(".decl a(n: number, d: number)\n.decl b(n: number, s: number)\n"
                    ".decl c(n: number, id: number)\n.output c\n"
                    "c(n, id) :- a(n, id), b(id, max s : { a(n, d), b(d, s) }).\n")
    a = [(1, 1), (1, 2), (2, 2), (2, 3)]
    b = [(1, 5), (2, 7), (2, 5), (3, 9), (3, 1)]
    best = {n: max(s for m, d in a if m == n for e, s in b if e == d) for n, _ in a}
    want = sorted({(n, i) for n, i in a for e, s in b if e == i and s == best[n]})
    facts = {"a": a, "b": b}
    program = load_program(path)
    assert run_checked(program, None, "duckdb", facts=facts)["c"] == want
    assert run_checked(program, None, "clingo", facts=facts)["c"] == want
