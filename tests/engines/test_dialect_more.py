"""The Soufflé dialect beyond the core (issue #16): each construct on the embedded engine against
a Python oracle computed here, and on Soufflé where its binary is present; what stays outside
is refused with its location."""
from __future__ import annotations

import pytest

from pylogic.engines import run_program
from pylogic.errors import DatalogError
from tests.support import engine_available

ENGINES = ["clingo", "duckdb", "souffle"]


def run(tmp_path, text: str, engine: str = "clingo", facts: dict | None = None):
    if not engine_available(engine):
        pytest.skip(f"{engine} not available")
    prog = tmp_path / "p.dl"
    prog.write_text(text)
    for name, lines in (facts or {}).items():
        (tmp_path / f"{name}.facts").write_text("".join(l + "\n" for l in lines))
    return run_program(prog, tmp_path, engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_an_evaluation_pragma_is_accepted_and_changes_nothing(tmp_path, engine):
    text = ('.pragma "magic-transform" "*"\n.pragma "no-warn"\n'
            ".decl e(x: number, y: number)\n.input e\n.decl t(x: number, y: number)\n.output t\n"
            "t(x, y) :- e(x, y).\nt(x, z) :- t(x, y), e(y, z).\n")
    edges = [(1, 2), (2, 3), (3, 1), (4, 5)]
    closure = set(edges)
    while True:
        more = {(a, d) for a, b in closure for c, d in edges if b == c} - closure
        if not more:
            break
        closure |= more
    got = run(tmp_path, text, engine, {"e": [f"{a}\t{b}" for a, b in edges]})
    assert got["t"] == sorted(closure)


def test_a_pragma_that_changes_the_program_is_refused_at_its_line(tmp_path):
    with pytest.raises(DatalogError) as err:
        run(tmp_path, '.decl r(x: number)\n.output r\n.pragma "legacy"\nr(1).\n')
    assert err.value.loc.line == 3 and err.value.loc.col == 1
    assert '.pragma "legacy"' in err.value.message


def _i32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


@pytest.mark.parametrize("engine", ENGINES)
def test_string_functors(tmp_path, engine):
    words = ["hello", "a12", "", "x-y-z"]
    text = (".decl s(x: symbol)\n.input s\n"
            ".decl r(a: symbol, n: number, b: symbol, c: symbol, d: number)\n.output r\n"
            'r(cat(x, "-", x), strlen(x), substr(x, 1, 2), to_string(strlen(x) * -3), '
            "max(strlen(x), 2, min(4, 3))) :- s(x).\n")
    got = run(tmp_path, text, engine, {"s": words})
    want = sorted((w + "-" + w, len(w), w[1:3] if len(w) >= 1 else "", str(len(w) * -3),
                   max(len(w), 2, min(4, 3))) for w in words)
    assert got["r"] == want


@pytest.mark.parametrize("engine", ENGINES)
def test_match_contains_and_their_negations(tmp_path, engine):
    import re
    words = ["a12", "abc", "hello", "a", "ll"]
    text = (".decl s(x: symbol)\n.input s\n.decl m(x: symbol)\n.output m\n"
            ".decl nm(x: symbol)\n.output nm\n.decl c(x: symbol)\n.output c\n"
            ".decl nc(x: symbol)\n.output nc\n.decl bad(x: symbol)\n.output bad\n"
            'm(x) :- s(x), match("a[0-9]+|[[:alpha:]]{3}", x).\n'
            'nm(x) :- s(x), !match("a[0-9]+|[[:alpha:]]{3}", x).\n'
            'c(x) :- s(x), contains("l", x).\nnc(x) :- s(x), !contains("l", x).\n'
            'bad(x) :- s(x), match("a{x}", x).\nbad(x) :- s(x), !match("a{x}", x).\n')
    got = run(tmp_path, text, engine, {"s": words})
    rx = re.compile(r"a[0-9]+|[a-zA-Z]{3}")
    assert got["m"] == sorted((w,) for w in words if rx.fullmatch(w))
    assert got["nm"] == sorted((w,) for w in words if not rx.fullmatch(w))
    assert got["c"] == sorted((w,) for w in words if "l" in w)
    assert got["nc"] == sorted((w,) for w in words if "l" not in w)
    assert got["bad"] == []      # std::regex refuses the pattern: neither match nor !match


@pytest.mark.parametrize("engine", ENGINES)
def test_bit_logical_power_and_range(tmp_path, engine):
    pairs = [(6, 3), (-8, 1), (-8, 28), (1, 31), (0, 0), (-1, 33), (2, 10), (7, -1)]
    text = (".decl p(a: number, b: number)\n.input p\n"
            ".decl r(a: number, b: number, x: number, y: number, z: number, s1: number, "
            "s2: number, s3: number, p: number, l1: number, l2: number, l3: number, n: number, "
            "m: number)\n.output r\n"
            "r(a, b, a band b, a bor b, a bxor b, a bshl b, a bshr b, a bshru b, "
            "a ^ (b band 7), a land b, a lor b, a lxor b, bnot a, lnot b) :- p(a, b).\n"
            ".decl g(x: number)\n.output g\ng(x) :- x = range(1, 10, 4).\n"
            "g(x) :- x = range(20, 17).\ng(-2^2 + 2+3*2^2 band 7).\n")
    got = run(tmp_path, text, engine, {"p": [f"{a}\t{b}" for a, b in pairs]})
    want = []
    for a, b in pairs:
        want.append((a, b, a & b, a | b, a ^ b, _i32((a & 0xFFFFFFFF) << (b & 31)),
                     a >> (b & 31), _i32((a & 0xFFFFFFFF) >> (b & 31)), int(a ** (b & 7)),
                     int(bool(a) and bool(b)), int(bool(a) or bool(b)), int(bool(a) != bool(b)),
                     ~a, int(not b)))
    assert got["r"] == sorted(want)
    assert got["g"] == sorted([(1,), (5,), (9,), (20,), (19,), (18,), (-(2 ** 2) + 6,)])


def test_a_functor_of_the_wrong_kind_is_a_located_type_error(tmp_path):
    with pytest.raises(DatalogError) as err:
        run(tmp_path, '.decl r(x: number)\n.output r\nr(x) :- x = cat("a", "b").\n')
    assert err.value.loc.line == 3 and "type error" in err.value.message
    with pytest.raises(DatalogError) as err:
        run(tmp_path, '.decl r(x: number)\n.output r\nr(strlen(1)).\n')
    assert err.value.loc.line == 3 and "strlen" in err.value.message


@pytest.mark.parametrize("text, col, word", [
    ('r(x) :- x = ord("a").', 13, "'ord'"),
    ("r(x) :- x = autoinc().", 13, "'autoinc'"),
    ("r(x) :- x = substr(\"a\", 1).", 13, "'substr' takes 3"),
])
def test_functors_outside_the_dialect_are_refused_at_their_column(tmp_path, text, col, word):
    with pytest.raises(DatalogError) as err:
        run(tmp_path, ".decl r(x: number)\n.output r\n" + text + "\n")
    assert (err.value.loc.line, err.value.loc.col) == (3, col) and word in err.value.message


@pytest.mark.parametrize("engine", ENGINES)
def test_eqrel_is_the_equivalence_closure(tmp_path, engine):
    import random

    import networkx as nx
    rnd = random.Random(16)
    edges = [(rnd.randrange(30), rnd.randrange(30)) for _ in range(25)]
    text = (".decl e(x: number, y: number)\n.input e\n"
            ".decl eq(x: number, y: number) eqrel\n.output eq\neq(x, y) :- e(x, y).\n"
            ".decl n(c: number)\n.output n\nn(c) :- c = count : { eq(_, _) }.\n")
    got = run(tmp_path, text, engine, {"e": [f"{a}\t{b}" for a, b in edges]})
    g = nx.Graph(edges)
    want = sorted((a, b) for comp in nx.connected_components(g) for a in comp for b in comp)
    assert got["eq"] == want and got["n"] == [(len(want),)]


def test_eqrel_must_be_binary_over_one_type(tmp_path):
    with pytest.raises(DatalogError) as err:
        run(tmp_path, ".decl q(x: number, y: symbol) eqrel\n.output q\n")
    assert err.value.loc.line == 1 and "eqrel" in err.value.message


COMPONENTS = """
.comp Graph<N> {
    .decl edge(a: N, b: N)
    .decl reach(a: N, b: N) overridable
    .output reach
    reach(x, y) :- edge(x, y).
    reach(x, z) :- reach(x, y), edge(y, z).
}
.comp Undirected<N> : Graph<N> {
    .override reach
    reach(x, y) :- edge(x, y).
    reach(y, x) :- edge(x, y).
    reach(x, z) :- reach(x, y), reach(y, z).
}
.comp Net<N> {
    .init g = Graph<N>
    .decl e(a: N, b: N)
    .input e
    g.edge(x, y) :- e(x, y).
    hub(x) :- g.reach(x, _).
}
.type city <: symbol
.decl hub(x: symbol)
.output hub
.init roads = Net<city>
.init u = Undirected<number>
u.edge(1, 2). u.edge(2, 3).
"""

FLAT = """
.type city <: symbol
.decl hub(x: symbol)
.output hub
.decl roads.g.edge(a: city, b: city)
.decl roads.g.reach(a: city, b: city)
.output roads.g.reach
roads.g.reach(x, y) :- roads.g.edge(x, y).
roads.g.reach(x, z) :- roads.g.reach(x, y), roads.g.edge(y, z).
.decl roads.e(a: city, b: city)
.input roads.e
roads.g.edge(x, y) :- roads.e(x, y).
hub(x) :- roads.g.reach(x, _).
.decl u.edge(a: number, b: number)
.decl u.reach(a: number, b: number)
.output u.reach
u.reach(x, y) :- u.edge(x, y).
u.reach(y, x) :- u.edge(x, y).
u.reach(x, z) :- u.reach(x, y), u.reach(y, z).
u.edge(1, 2). u.edge(2, 3).
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_components_expand_to_the_program_written_out_by_hand(tmp_path, engine):
    facts = {"roads.e": ["a\tb", "b\tc", "d\ta"]}
    got = run(tmp_path, COMPONENTS, engine, facts)
    (tmp_path / "flat").mkdir()                  # Soufflé refuses dotted names in a .decl
    flat = run(tmp_path / "flat", FLAT.replace("roads.", "roads_").replace("g.", "g_")
               .replace("u.", "u_"), engine, {"roads_e": facts["roads.e"]})
    want = {name.replace("roads_", "roads.").replace("g_", "g.").replace("u_", "u."): rows
            for name, rows in flat.items()}
    assert got == want
    assert got["u.reach"] == sorted((a, b) for a in (1, 2, 3) for b in (1, 2, 3))
    assert got["hub"] == [("a",), ("b",), ("d",)]


@pytest.mark.parametrize("text, line, phrase", [
    (".comp A { .decl r(x: number) }\n.comp B : A { .override r }\n.init b = B\n", 2,
     "not declared overridable"),
    (".comp A { .decl r(x: number) }\n.init a = Nope\n", 2, "undeclared component 'Nope'"),
    (".comp A<T> { .decl r(x: T) }\n.init a = A\n", 2, "takes 1 type parameter"),
    (".comp A { .init a = A }\n.init a = A\n", 1, "deeper than"),
])
def test_component_errors_are_located(tmp_path, text, line, phrase):
    with pytest.raises(DatalogError) as err:
        run(tmp_path, text)
    assert err.value.loc.line == line and phrase in err.value.message


RECORDS = """
.type N <: number
.type P = [a: N, b: N]
.type L = [head: number, tail: L]
.decl e(x: N, y: N)
.input e
.decl p(x: P)
p([x, y]) :- e(x, y).
.decl path(x: N, y: N)
.output path
path(x, y) :- p([x, y]).
path(x, z) :- p(q), q = [x, y], path(y, z).
.decl list(l: L)
list([x, [y, nil]]) :- e(x, y).
list(nil).
.decl sums(s: number)
.output sums
sums(a + b) :- list([a, [b, nil]]).
.decl n(c: number)
.output n
n(c) :- c = count : { list(_) }.
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_records_pack_unpack_and_nest(tmp_path, engine):
    import networkx as nx
    edges = [(1, 2), (2, 3), (3, 4), (5, 5), (2, 7)]
    got = run(tmp_path, RECORDS, engine, {"e": [f"{a}\t{b}" for a, b in edges]})
    closure = nx.transitive_closure(nx.DiGraph(edges), reflexive=None)
    assert got["path"] == sorted(closure.edges())
    assert got["sums"] == sorted({(a + b,) for a, b in edges})
    assert got["n"] == [(len(set(edges)) + 1,)]


@pytest.mark.parametrize("text, line, phrase", [
    (".type P = [a: number]\n.decl r(x: P)\nr([1, 2]).\n", 3, "record of 2 field(s)"),
    (".type P = [a: number]\n.decl r(x: P)\nr([\"s\"]).\n", 3, "type error"),
    (".type P = [a: number]\n.decl r(x: number)\nr([1]).\n", 3, "record where"),
    (".type P = [a: Nope]\n", 1, "undeclared type 'Nope'"),
])
def test_record_errors_are_located(tmp_path, text, line, phrase):
    with pytest.raises(DatalogError) as err:
        run(tmp_path, text)
    assert err.value.loc.line == line and phrase in err.value.message


@pytest.mark.parametrize("engine", ENGINES)
def test_object_like_macros_expand_outside_strings(tmp_path, engine):
    text = ('#define LIMIT 3\n#define PAIR [LIMIT, 1 + LIMIT]\n.type P = [a: number, b: number]\n'
            '.decl p(x: P)\np(PAIR).\n.decl r(a: number, s: symbol)\n.output r\n'
            'r(a + b, "LIMIT") :- p([a, b]), a <= LIMIT. // LIMIT in a comment\n')
    assert run(tmp_path, text, engine)["r"] == [(3 + 4, "LIMIT")]


def test_a_function_like_macro_is_refused_at_its_line(tmp_path):
    with pytest.raises(DatalogError) as err:
        run(tmp_path, ".decl r(x: number)\n#define F(x) x + 1\n")
    assert err.value.loc.line == 2 and "function-like macro" in err.value.message


@pytest.mark.parametrize("engine", ENGINES)
def test_unsigned_values_order_arithmetic_and_aggregates(tmp_path, engine):
    m = 2 ** 32
    values = [0, 1, 7, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 5, m - 1]
    text = (".decl a(x: unsigned)\n.input a\n"
            ".decl ops(x: unsigned, y: unsigned, s: unsigned, d: unsigned, p: unsigned, "
            "q: unsigned, n: unsigned, sh: unsigned, o: unsigned)\n.output ops\n"
            "ops(x, y, x + y, x - y, x * y, x / (y bor 1u), bnot x, x bshr (y band 31u), "
            "x bor y) :- a(x), a(y), x <= y.\n"
            ".decl agg(mx: unsigned, mn: unsigned, s: unsigned, c: number)\n.output agg\n"
            "agg(mx, mn, s, c) :- mx = max x : a(x), mn = min x : a(x), s = sum x : a(x), "
            "c = count : a(_).\n"
            ".decl lit(x: unsigned)\n.output lit\nlit(4294967295). lit(0u - 1u). "
            "lit(to_unsigned(-2)). lit(max(3u, 2147483648u)).\n")
    got = run(tmp_path, text, engine, {"a": [str(v) for v in values]})
    want = sorted((x, y, (x + y) % m, (x - y) % m, (x * y) % m, x // (y | 1), ~x % m,
                   x >> (y & 31), x | y) for x in values for y in values if x <= y)
    assert got["ops"] == want
    assert got["agg"] == [(m - 1, 0, sum(values) % m, len(values))]
    assert got["lit"] == [(2 ** 31,), (m - 2,), (m - 1,)]


@pytest.mark.parametrize("text, phrase", [
    ("r(x) :- x = 5u.", "type error"),
    ("r(x) :- x = 2147483648.", "outside the 32-bit range"),
])
def test_unsigned_and_number_do_not_mix(tmp_path, text, phrase):
    with pytest.raises(DatalogError) as err:
        run(tmp_path, ".decl r(x: number)\n.output r\n" + text + "\n")
    assert err.value.loc.line == 3 and phrase in err.value.message


def test_an_unsigned_facts_value_out_of_range_is_located(tmp_path):
    with pytest.raises(DatalogError) as err:
        run(tmp_path, ".decl a(x: unsigned)\n.input a\n.decl r(x: unsigned)\n.output r\n"
                      "r(x) :- a(x).\n", facts={"a": ["1", "4294967296"]})
    assert err.value.loc.line == 2 and "unsigned range" in err.value.message


ADTS = """
.type Day = Mon {} | Tue {} | Wed {} | Thu {}
.type Shape = Circle {r: number} | Rect {w: number, h: number} | Pair {a: Shape, b: Shape}
.decl next(x: Day, y: Day)
.input next
.decl before(x: Day, y: Day)
.output before
before(x, y) :- next(x, y).
before(x, z) :- next(x, y), before(y, z).
.decl s(x: Shape)
s($Circle(2)). s($Rect(2, 3)). s($Pair($Circle(1), $Rect(4, 5))).
.decl area(a: number)
.output area
area(3 * r * r) :- s($Circle(r)).
area(w * h) :- s(x), x = $Rect(w, h).
area(w + h) :- s($Pair(_, $Rect(w, h))).
.decl same(n: number)
.output same
same(1) :- $Circle(1) != $Rect(1, 1).
same(2) :- $Circle(1) = $Circle(1).
same(3) :- $Circle(1) = $Circle(2).
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_adts_enumerations_in_files_and_branches_with_fields(tmp_path, engine):
    days = ["Mon", "Tue", "Wed", "Thu"]
    chain = list(zip(days, days[1:]))
    got = run(tmp_path, ADTS, engine, {"next": [f"${a}\t${b}" for a, b in chain]})
    assert got["before"] == sorted((f"${days[i]}", f"${days[j]}") for i in range(4)
                                   for j in range(i + 1, 4))
    assert got["area"] == sorted([(3 * 2 * 2,), (2 * 3,), (4 + 5,)])
    assert got["same"] == [(1,), (2,)]


@pytest.mark.parametrize("text, line, phrase", [
    (".type D = A {} | B {}\n.decl r(x: D)\nr($C).\n", 3, "undeclared ADT branch '$C'"),
    (".type D = A {x: number}\n.decl r(x: D)\nr($A).\n", 3, "takes 1 argument"),
    (".type D = A {} | B {}\n.decl r(x: D)\n.input r\n.decl o(x: D)\n.output o\no(x) :- r(x).\n",
     None, "not one of $A, $B"),
    (".type D = A {x: number}\n.decl r(x: D)\n.input r\n.output r\n", None,
     "$C is no branch of D"),
    (".type D = A {} | B {}\n.decl r(x: number)\nr(1) :- $A < $B.\n", 3, "ordering"),
])
def test_adt_errors_are_located(tmp_path, text, line, phrase):
    with pytest.raises(DatalogError) as err:
        run(tmp_path, text, facts={"r": ["$C"]})
    assert phrase in err.value.message
    if line is None:                        # the facts file's line
        assert err.value.loc.file.endswith("r.facts") and err.value.loc.line == 1
    else:
        assert err.value.loc.line == line


@pytest.mark.parametrize("engine", ENGINES)
def test_a_literal_takes_its_kind_from_the_head_column(tmp_path, engine):
    # x = 1 + 2 into an unsigned column is unsigned (Soufflé deduces it from the head)
    got = run(tmp_path, ".decl r(x: unsigned)\n.output r\nr(x) :- x = 4294967290 + 2.\n", engine)
    assert got["r"] == [(4294967292,)]


def test_a_number_expression_into_a_symbol_column_is_a_type_error(tmp_path):
    # was accepted once literals became number-or-unsigned: clingo would then put 3 in a symbol
    with pytest.raises(DatalogError) as err:
        run(tmp_path, ".decl r(x: symbol)\n.output r\nr(x) :- x = 1 + 2.\n")
    assert err.value.loc.line == 3 and "type error" in err.value.message
