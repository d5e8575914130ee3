"""clingo's answer is decoded after its Control is freed (``clingo_engine._read_answer`` copies
the shown atoms' symbol handles out of the model, ``run_clingo`` deletes the Control and gives
the freed heap back, then the rows are built): clingo's symbols belong to the process, so the
handles still name the same values even when another Control has since grounded new symbols
in the freed memory. Checked against the Python-built rows and duckdb's."""
from __future__ import annotations

import clingo
import pytest

from pylogic import query
from pylogic.engines import clingo_engine

PROGRAM = """
.decl s(x: symbol, k: number)
.input s
.decl t(x: symbol, y: symbol, k: number)
.output t
t(x, y, k + 1) :- s(x, k), y = cat(x, "!").
.decl some()
.output some
some() :- s(_, 0).
"""

FACTS = {"s": [(f"v{i}", i) for i in range(3000)] + [('say "hi"', -1), ("\udcff", -2)]}
EXPECTED_T = sorted((x, x + "!", k + 1) for x, k in FACTS["s"])


def _busy_elsewhere():
    """Another Control grounding fresh strings and numbers, in the memory just freed."""
    other = clingo.Control(["--warn=none"])
    other.add("base", [], "".join(f'o("other{i}",{i * 7}).' for i in range(20000)))
    other.ground([("base", [])])
    del other


def test_rows_decoded_after_the_control_is_freed(monkeypatch):
    freed = []
    release = clingo_engine._return_freed_memory

    def release_then_reuse():
        release()
        _busy_elsewhere()
        freed.append(True)

    monkeypatch.setattr(clingo_engine, "_return_freed_memory", release_then_reuse)
    monkeypatch.setattr(clingo_engine, "TRIM_ATOMS", 0)     # as on a large Control
    rows = query(PROGRAM, facts=FACTS, engine="clingo")
    assert freed, "run_clingo no longer frees its Control before decoding"
    assert rows["t"] == EXPECTED_T
    assert rows["some"] == [()]


def test_small_control_not_trimmed(monkeypatch):
    """Below TRIM_ATOMS ground atoms the freed heap is not handed back (the trim costs more)."""
    trimmed = []
    monkeypatch.setattr(clingo_engine, "_return_freed_memory", lambda: trimmed.append(True))
    rows = query(PROGRAM, facts=FACTS, engine="clingo")
    assert not trimmed
    assert rows["t"] == EXPECTED_T


@pytest.mark.parametrize("bound", [0, 1, "exact", 10**6])
def test_raw_reader_bound(monkeypatch, bound):
    """The raw reader fills a buffer of the bound it is given (the Control's symbolic atoms): a
    bound below the answer's atoms (not one) asks clingo for their count, and a larger one
    leaves a tail of zeros that is not read as atoms. The rows are the same either way."""
    read = clingo_engine._read_answer

    def with_bound(ctl, checked, shown, result, atoms, reader=None):
        return read(ctl, checked, shown, result, atoms if bound == "exact" else bound, reader)

    monkeypatch.setattr(clingo_engine, "_read_answer", with_bound)
    rows = query(PROGRAM, facts=FACTS, engine="clingo")
    assert rows["t"] == EXPECTED_T
    assert rows["some"] == [()]


@pytest.mark.parametrize("reader", ["raw", "public"])
def test_readers_agree_with_duckdb(monkeypatch, reader):
    facts = FACTS
    if reader == "public":      # its Symbol.string decodes UTF-8: no byte 0xff there
        monkeypatch.setattr(clingo_engine, "_raw_model_reader", lambda: None)
        facts = {"s": [r for r in FACTS["s"] if r[0] != "\udcff"]}
    assert query(PROGRAM, facts=facts, engine="clingo") == \
        query(PROGRAM, facts=facts, engine="duckdb")


def test_rules_added_as_trees_once_parsed(monkeypatch):
    """The translated rules are parsed once per program (``_add_rules``): the rows are those of
    the text added as text, and a second run parses nothing."""
    from pathlib import Path
    from facts_gen.extract import empty_facts, extract_module
    from pylogic.analysis import catalog
    from pylogic.engines import load_program
    from pylogic.engines.run import run_checked
    from pylogic.ir.parser import parse_file
    path = Path(__file__).resolve().parents[2] / "examples" / "ppde_hyperblock.pir"
    facts = empty_facts()
    extract_module(parse_file(path), path.name, facts)
    dl = catalog.datalog_dir() / "predicated_deadness.dl"
    program = load_program(dl)
    parsed = []
    real = clingo_engine._parsed
    monkeypatch.setattr(clingo_engine, "_parsed", lambda text, *lines: parsed.append(1) or real(text, *lines))
    as_trees = run_checked(program, None, "clingo", facts)
    assert sum(map(len, as_trees.values())) > 50
    assert run_checked(program, None, "clingo", facts) == as_trees
    assert parsed == [1]
    monkeypatch.setattr(clingo_engine, "_parsed", lambda text, *lines: None)      # the text path
    assert run_checked(load_program(dl), None, "clingo", facts) == as_trees


LIVE_SETS = """
.decl a(x: number)
.input a
.decl b(x: number)
.input b
.decl p(x: number)
.output p
p(x) :- a(x).
p(x) :- b(x), x > 1.
.decl q(x: number)
.output q
q(x) :- p(x), !b(x).
"""


def test_a_relation_set_met_later_parses_only_its_new_lines(monkeypatch):
    """The trees of a translation's lines are kept per program (``_parsed``): a second set of
    live relations (``b`` with rows) parses only the lines the first did not have, and its rows
    are those of its text parsed whole and of the text added as text."""
    from pylogic.engines import load_program
    from pylogic.engines.run import run_checked
    program = load_program("live_sets.dl", LIVE_SETS)
    parsed = []
    real = clingo.ast.parse_string
    monkeypatch.setattr(clingo.ast, "parse_string",
                        lambda text, *a, **k: parsed.append(text) or real(text, *a, **k))
    first = run_checked(program, None, "clingo", {"a": [(1,), (2,)], "b": []})
    assert first == {"p": [(1,), (2,)], "q": [(1,), (2,)]}
    first_lines = {line for text in parsed for line in text.split("\n") if line}
    assert len(first_lines) >= 2
    del parsed[:]
    facts = {"a": [(1,), (2,)], "b": [(2,), (3,)]}
    second = run_checked(program, None, "clingo", facts)
    assert second == {"p": [(1,), (2,), (3,)], "q": [(1,)]}
    second_lines = [line for text in parsed for line in text.split("\n") if line]
    assert second_lines and not set(second_lines) & first_lines      # only the new lines
    monkeypatch.undo()
    whole = clingo_engine._parsed
    monkeypatch.setattr(clingo_engine, "_parsed", lambda text, *lines: whole(text))
    assert run_checked(load_program("live_sets.dl", LIVE_SETS), None, "clingo", facts) == second
    monkeypatch.setattr(clingo_engine, "_parsed", lambda text, *lines: None)      # the text path
    assert run_checked(load_program("live_sets.dl", LIVE_SETS), None, "clingo", facts) == second


def test_lines_parsed_give_the_statements_of_the_whole_text():
    """``_parsed`` with a program's kept lines: the statements of each text are those of the text
    parsed whole (compared as text: locations differ), a line met before is taken from the kept
    ones, and a statement over two lines leaves the text parsed whole."""
    lines: dict = {}
    texts = ["a :- b.\nc(X) :- d(X), X > 1.\n#show.\n", "a :- b.\ne :- f.\n#show.\n",
             "a :- b.\ng :-\n h.\n#show.\n", "e :- f.\nc(X) :- d(X), X > 1.\n"]
    for text in texts:
        whole = clingo_engine._parsed(text)
        assert [str(s) for s in clingo_engine._parsed(text, lines)] == [str(s) for s in whole]
    assert "a :- b." in lines and "e :- f." in lines and "g :-" not in lines
    assert clingo_engine._parsed("a :- b.\n", lines)[1] is lines["a :- b."][0]


def test_parsed_rules_released_before_exit():
    """A command that ran clingo ends without clingo's 'Exception ignored' at exit (the parsed
    syntax trees kept by ``_add_rules`` are released while clingo's library is alive)."""
    import subprocess
    import sys
    from pathlib import Path
    example = Path(__file__).resolve().parents[2] / "examples" / "pcp_branchy.pir"
    done = subprocess.run([sys.executable, "-m", "pylogic.cli", "optimize", str(example),
                           "--passes", "pde", "--engine", "clingo"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "pde" in done.stdout
    assert "Exception ignored" not in done.stderr, done.stderr
