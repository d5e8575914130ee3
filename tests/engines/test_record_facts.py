"""Records and ADT values in facts files, read as Soufflé 2.5 reads them
(``pylogic/engines/record_text.py``; issue #29 item 4): blanks, quoted and unquoted symbols,
``nil``, nested records, floats and unsigned fields, ADT branches with and without fields. The
expected rows came from Soufflé 2.5 (``souffle -D-`` on this program and file) and are written
here as literals; with ``souffle`` on PATH the binary is compared too."""
from __future__ import annotations

import pytest

from pylogic.engines import run_program
from pylogic.errors import DatalogError
from tests.support import needs_souffle

PROGRAM = """.type P = [a: number, s: symbol]
.type L = [h: float, t: L]
.type V = I {n: number} | F {x: float, y: unsigned} | E {}
.decl p(x: P, l: L, v: V)
.input p
.output p
.decl q(a: number, s: symbol, h: float)
.output q
q(a, s, h) :- p([a, s], [h, _], _).
.decl w(n: number)
.output w
w(n) :- p(_, _, $I(n)).
"""
FACTS = ('[1, hello]\t[0.5, [2, nil]]\t$I(7)\n'
         '[ -3 ,"a, b\\" c" ]\tnil\t$F(2.5, 4000000000)\n'
         '[16, x y ]\t[1e-3, nil]\t$E\n')
# Soufflé 2.5's rows
SOUFFLE_ROWS = {
    "p": [("[-3, a, b\" c]", "nil", "$F(2.5, 4000000000)"),
          ("[1, hello]", "[0.5, [2, nil]]", "$I(7)"),
          ("[16, x y ]", "[0.00100000005, nil]", "$E")],
    "q": [("1", "hello", "0.5"), ("16", "x y ", "0.00100000005")],
    "w": [("7",)],
}


def _run(tmp_path, engine: str, facts: str = FACTS) -> dict:
    (tmp_path / "p.dl").write_text(PROGRAM)
    (tmp_path / "p.facts").write_text(facts)
    result = run_program(tmp_path / "p.dl", tmp_path, engine=engine)
    return {rel: sorted(tuple(str(v) for v in row) for row in rows)
            for rel, rows in result.items()}


@pytest.mark.parametrize("engine", ["clingo", "duckdb", "python"])
def test_record_and_adt_facts_read_as_souffle(tmp_path, engine):
    assert _run(tmp_path, engine) == {k: sorted(v) for k, v in SOUFFLE_ROWS.items()}


@needs_souffle
def test_record_and_adt_facts_on_the_souffle_binary(tmp_path):
    assert _run(tmp_path, "souffle") == {k: sorted(v) for k, v in SOUFFLE_ROWS.items()}


@pytest.mark.parametrize("engine", ["clingo", "duckdb", "python"])
@pytest.mark.parametrize("line", ["[0x10, a]\tnil\t$E",       # base 10 only, as Soufflé
                                  "[1, a]\tnil\t$G",          # no such branch
                                  "[1, a\tnil\t$E",           # unterminated
                                  "[1, a]\t[1.0]\t$E"])       # too few fields
def test_a_bad_record_is_located_at_its_line(tmp_path, engine, line):
    with pytest.raises(DatalogError) as err:
        _run(tmp_path, engine, "[1, a]\tnil\t$E\n" + line + "\n")
    assert err.value.loc.file.endswith("p.facts") and err.value.loc.line == 2, str(err.value)


@pytest.mark.parametrize("engine", ["clingo", "duckdb", "python"])
def test_in_memory_records(tmp_path, engine):
    (tmp_path / "p.dl").write_text(PROGRAM)
    rows = run_program(tmp_path / "p.dl", None, engine=engine,
                       facts={"p": [("[2, z]", "nil", "$I(3)")]})
    assert rows["w"] == [(3,)]
    with pytest.raises(DatalogError, match="tuple 1 column 1"):
        run_program(tmp_path / "p.dl", None, engine=engine, facts={"p": [("[2]", "nil", "$E")]})
