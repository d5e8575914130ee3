"""`analyze` extracts only the fact families its analyses (and the report) read (issue #32):
the results are those of a run with every family, the facts it writes are the same rows, a
query over a left-out family is refused with the way to get it, and `query --on` extracts only
what the query reads."""
from __future__ import annotations

from pathlib import Path

import pytest

from facts_gen.extract import FAMILIES
from pylogic.analysis.directory import facts_directory
from pylogic.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.slow
def test_results_are_those_of_every_family(tmp_path):
    assert main(["analyze", str(EXAMPLES), "--out", str(tmp_path / "some"), "--quiet",
                 "--no-cache", "--engine", "clingo"]) == 0
    assert main(["analyze", str(EXAMPLES), "--out", str(tmp_path / "all"), "--quiet",
                 "--no-cache", "--engine", "clingo", "--all-facts"]) == 0
    assert files(tmp_path / "some" / "results") == files(tmp_path / "all" / "results")
    some, every = files(tmp_path / "some" / "facts"), files(tmp_path / "all" / "facts")
    assert set(some) < set(every)
    assert all(every[name] == rows for name, rows in some.items())  # the same rows, fewer files
    left_out = {f"{rel}.facts" for rel in FAMILIES["value_flow"] + FAMILIES["interprocedural"]}
    assert left_out <= set(every) and not left_out & set(some)
    assert {"block.facts", "instr.facts", "edge.facts"} <= set(some)   # what the report reads


@pytest.mark.slow
def test_a_query_over_a_left_out_family_says_how_to_get_it(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["analyze", str(EXAMPLES), "--out", str(out), "--quiet", "--no-cache",
                 "--engine", "clingo"]) == 0
    capsys.readouterr()
    schema = '#include "schema.dl"'
    # schema.dl declares every input; only what the shown relation reads must exist
    assert main(["query", "-e", schema, "-e", ".decl o(f: Function) .output o o(f) :- rpo(f, _, _).",
                 "--facts", str(out / "facts"), "--engine", "clingo"]) == 0
    capsys.readouterr()
    assert main(["query", "-e", schema, "-e", ".decl o(f: Function) .output o o(f) :- memory_cell(f, _).",
                 "--facts", str(out / "facts"), "--engine", "clingo"]) == 1
    err = capsys.readouterr().err
    assert "memory_cell" in err and "--all-facts" in err and "schema.dl:" in err


def test_facts_for_a_query_are_only_the_families_it_reads(tmp_path):
    facts, _, _ = facts_directory(EXAMPLES, tmp_path / "f", relations=["rpo", "mine"])
    written = {p.stem for p in (tmp_path / "f").iterdir()}
    assert "rpo" in written and "memory_cell" not in written and "instr" not in written
    assert set(facts) == set(FAMILIES["module"] + FAMILIES["cfg"])


def test_query_on_builds_no_value_name_graph_unless_read(monkeypatch, capsys):
    """#30 item 10: a query that includes schema.dl (which declares every input, vng_* among
    them) but whose shown relations read no vng_* relation builds no Value Name Graph."""
    import facts_gen.extract as extract
    built = []
    real = extract.vng_facts
    monkeypatch.setattr(extract, "vng_facts", lambda *a: built.append(a[0]) or real(*a))
    program = ['#include "schema.dl"',
               ".decl o(f: Function, b: Block) .output o o(f, b) :- rpo(f, b, _)."]
    args = ["query", *[x for line in program for x in ("-e", line)], "--on", str(EXAMPLES),
            "--engine", "clingo", "--limit", "1"]
    assert main(args) == 0 and not built
    program[1] = ".decl o(f: Function) .output o o(f) :- vng_node(f, _, _)."
    args = ["query", *[x for line in program for x in ("-e", line)], "--on", str(EXAMPLES),
            "--engine", "clingo", "--limit", "1"]
    assert main(args) == 0 and built                 # read: built


def test_a_missing_relation_of_ones_own_may_be_read_as_empty(tmp_path, capsys):
    assert main(["query", "-e", ".decl mine(x: number) .input mine .decl o(x: number) .output o "
                 "o(x) :- mine(x).", "--facts", str(tmp_path), "--engine", "clingo"]) == 1
    err = capsys.readouterr().err
    assert "mine.facts does not exist" in err and "--missing-as-empty" in err
    assert "--all-facts" not in err
