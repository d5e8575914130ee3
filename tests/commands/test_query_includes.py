"""Queries as researchers write them (issue #17 item 3): the shipped ``datalog/`` on the include
path from any directory, ``query -e``, only the query's own outputs unless ``--all-outputs``,
``--csv``, and the ``pylogic.query`` API. Rows are checked against networkx and brute force."""
from __future__ import annotations

import csv
import io
import itertools
import json
from pathlib import Path

import networkx as nx
import pytest

import pylogic
import pylogic.errors
from pylogic.cli import main
from tests.support import ENGINES

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

DEPTH1 = """#include "dominance.dl"
// blocks whose immediate dominator is the entry
.decl depth1(f: Function, b: Block)
.output depth1
depth1(f, b) :- idom(f, d, b), entry(f, d).
"""


@pytest.fixture(scope="module")
def facts(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("facts") / "facts"
    assert main(["facts", str(EXAMPLES), "--out", str(out)]) == 0
    return out


def _rows(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text().splitlines() if line]


def idom_oracle(facts: Path) -> set[tuple[str, str, str]]:
    """idom of every function by networkx (the reachable blocks; the entry has none)."""
    graphs: dict[str, nx.DiGraph] = {}
    for f, a, b in _rows(facts / "edge.facts"):
        graphs.setdefault(f, nx.DiGraph()).add_edge(a, b)
    out = set()
    for f, e in _rows(facts / "entry.facts"):
        g = graphs.get(f, nx.DiGraph())
        g.add_node(e)
        out |= {(f, d, n) for n, d in nx.immediate_dominators(g, e).items() if n != e}
    return out


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.slow
def test_include_of_a_shipped_analysis_works_from_anywhere(engine, facts, tmp_path, monkeypatch,
                                                          capsys):
    """A query in an unrelated directory includes dominance.dl; only its own output is shown."""
    work = tmp_path / "elsewhere"
    work.mkdir()
    (work / "q.dl").write_text(DEPTH1)
    monkeypatch.chdir(tmp_path)
    assert main(["query", "elsewhere/q.dl", "--facts", str(facts), "--engine", engine,
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc) == ["depth1"]
    entries = {f: e for f, e in _rows(facts / "entry.facts")}
    expected = sorted([f, n] for f, d, n in idom_oracle(facts) if entries[f] == d)
    assert doc["depth1"]["rows"] == expected and expected
    assert main(["query", "elsewhere/q.dl", "--facts", str(facts), "--engine", engine,
                 "--json", "--all-outputs"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert sorted(doc) == ["depth1", "idom"]
    assert {tuple(r) for r in doc["idom"]["rows"]} == idom_oracle(facts)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.slow
def test_dash_e_runs_a_one_line_program(engine, facts, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["query", "-e", '#include "dominance.dl"', "-e",
                 ".decl n(f: Function, c: number) .output n "
                 "n(f, c) :- function(f), c = count : { idom(f, _, _) }.",
                 "--facts", str(facts), "--engine", engine, "--csv"]) == 0
    got = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    counts: dict[str, int] = {}
    for f, _, _ in idom_oracle(facts):
        counts[f] = counts.get(f, 0) + 1
    functions = [f for (f,) in _rows(facts / "function.facts")]
    assert sorted(got) == sorted(["n", f, str(counts.get(f, 0))] for f in functions)


def test_a_query_without_outputs_of_its_own_shows_the_included_ones(facts, tmp_path, capsys):
    (tmp_path / "only_include.dl").write_text('#include "dominance.dl"\n')
    assert main(["query", str(tmp_path / "only_include.dl"), "--facts", str(facts),
                 "--engine", "clingo", "--csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert {tuple(r[1:]) for r in rows} == idom_oracle(facts) and {r[0] for r in rows} == {"idom"}


def test_query_text_errors_are_located(facts, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["query", "-e", "x(a) :- .", "--facts", str(facts)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("pathlogic: <-e>:1:9: datalog error: syntax error")
    assert main(["query", "-e", '#include "nosuch.dl"', "--facts", str(facts)]) == 1
    err = capsys.readouterr().err
    assert '<-e>:1:1: datalog error: #include "nosuch.dl": no such file (looked in .' in err
    assert "datalog" in err.split("looked in", 1)[1] and "Traceback" not in err
    assert main(["query", "--facts", str(facts)]) == 1
    assert "give a program file or -e TEXT" in capsys.readouterr().err
    (tmp_path / "p.dl").write_text(DEPTH1)
    assert main(["query", str(tmp_path / "p.dl"), "-e", "x.", "--facts", str(facts)]) == 1
    assert "give a program file or -e TEXT" in capsys.readouterr().err


@pytest.mark.slow
def test_the_python_api_with_facts_in_memory_and_on_disk(facts, tmp_path, monkeypatch):
    """pylogic.query: transitive closure of random graphs against brute force, and a shipped
    analysis over a facts directory against networkx."""
    program = """.decl e(a: number, b: number)
.input e
.decl tc(a: number, b: number)
.output tc
tc(a, b) :- e(a, b).
tc(a, c) :- tc(a, b), e(b, c).
"""
    for edges in ([(0, 1), (1, 2), (2, 0), (3, 3)], [(k, k + 1) for k in range(6)], []):
        closure = set(edges)
        while True:
            more = {(a, d) for (a, b), (c, d) in itertools.product(closure, edges) if b == c}
            if more <= closure:
                break
            closure |= more
        assert pylogic.query(program, facts={"e": edges}, engine="clingo") == {"tc": sorted(closure)}
    monkeypatch.chdir(tmp_path)
    got = pylogic.query(DEPTH1, facts=facts, engine="clingo", all_outputs=True)
    assert set(got["idom"]) == idom_oracle(facts)
    (tmp_path / "q.dl").write_text(DEPTH1)
    assert pylogic.query(Path("q.dl"), facts=str(facts), engine="clingo")["depth1"] == \
        got["depth1"]
    with pytest.raises(pylogic.errors.DatalogError, match="does not exist"):
        pylogic.query(DEPTH1, facts=tmp_path / "nowhere")
