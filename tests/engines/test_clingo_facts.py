"""Input facts reach clingo through its backend (``clingo_engine._backend_feeder``), not as
text: every column kind arrives with its value (numbers at the 32-bit ends, unsigned and float
columns in their clingo forms, symbols with quotes, backslashes and bytes that are not UTF-8),
the grounder takes them as facts (negation over them is decided), and a symbol clingo cannot
hold (a NUL character: clingo's strings are C strings) is a located error, not a cut value."""
from __future__ import annotations

import pytest

from pylogic import query
from pylogic.errors import DatalogError

PROGRAM = """
.decl n(x: number, u: unsigned, f: float)
.input n
.decl s(x: symbol)
.input s
.decl z()
.input z
.decl nums(x: number, u: unsigned, f: float)
.output nums
nums(x, u, f) :- n(x, u, f), z().
.decl lens(x: symbol, k: number)
.output lens
lens(x, k) :- s(x), k = strlen(x).
.decl lonely(x: symbol)
.output lonely
lonely(x) :- s(x), !n(_, _, _).
"""

FACTS = {
    "n": [(-2 ** 31, 0, "0.5"), (2 ** 31 - 1, 2 ** 32 - 1, "-1.25")],
    "s": [('say "hi"',), ("back\\slash",), ("é",), ("\udcff",)],   # \udcff: the byte 0xff
    "z": [()],
}


@pytest.mark.parametrize("engine", ["clingo", "duckdb", "python"])
def test_every_kind_of_column_arrives_with_its_value(engine):
    rows = query(PROGRAM, facts=FACTS, engine=engine)
    assert rows["nums"] == [(-2 ** 31, 0, "0.5"), (2 ** 31 - 1, 2 ** 32 - 1, "-1.25")]
    assert rows["lens"] == [("back\\slash", 10), ('say "hi"', 8), ("é", 2), ("\udcff", 1)]
    assert rows["lonely"] == []


def test_a_relation_without_facts_is_empty_and_its_negation_holds():
    rows = query(PROGRAM, facts={**FACTS, "n": [], "z": []}, engine="clingo")
    assert rows["nums"] == []
    assert len(rows["lonely"]) == 4


def test_a_nul_character_is_refused_with_the_relation_named():
    with pytest.raises(DatalogError, match="s: the clingo engine cannot hold a NUL"):
        query(PROGRAM, facts={**FACTS, "s": [("a\x00b",)]}, engine="clingo")


def test_the_text_route_gives_the_same_rows(monkeypatch):
    """Without clingo's C API (``_backend_feeder`` None) the facts go in as text."""
    from pylogic.engines import clingo_engine

    facts = {**FACTS, "s": FACTS["s"][:3]}        # text cannot carry the byte 0xff
    backend = query(PROGRAM, facts=facts, engine="clingo")
    monkeypatch.setattr(clingo_engine, "_backend_feeder", lambda: None)
    assert query(PROGRAM, facts=facts, engine="clingo") == backend
    assert backend["lens"] == [("back\\slash", 10), ('say "hi"', 8), ("é", 2)]
