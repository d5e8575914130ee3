"""CI compares two Datalog engines (issue #12 item 4): every shipped analysis of the catalog on the
two embedded engines, clingo and duckdb, over the examples and a few imported C programs (C
test inputs and csmith seeds), row for row, through ``compare-engines``' own comparison; and
a deliberately broken duckdb translation (negation dropped) makes that comparison fail."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pylogic.analysis import catalog
from pylogic.analysis.directory import facts_directory
from pylogic.commands.compare_engines import compare
from pylogic.engines import to_sql
from tests.support import clang_path

ROOT = Path(__file__).resolve().parents[2]
C_INPUTS = ["control.c", "aggregates.c", "memory.c", "indirect_calls.c"]
CSMITH_SEEDS = [1]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Facts of the examples, plus (with clang-14) C test programs and csmith seeds."""
    src = tmp_path_factory.mktemp("corpus")
    for pir in (ROOT / "examples").glob("*.pir"):
        shutil.copy(pir, src / pir.name)
    if clang_path() is not None:
        for name in C_INPUTS:
            shutil.copy(ROOT / "tests" / "ir" / "llvm" / "c" / name, src / name)
        from benchmarks.corpus import csmith_program
        work = tmp_path_factory.mktemp("csmith")
        for seed in CSMITH_SEEDS:
            path = csmith_program(seed, str(work))
            if path is not None:
                shutil.copy(path, src / f"csmith{seed}.c")
    facts_dir = tmp_path_factory.mktemp("facts") / "facts"
    facts, loaded, failures = facts_directory(src, facts_dir)
    assert not failures, failures
    return facts_dir, facts, loaded


@pytest.mark.slow
def test_shipped_analyses_agree_on_clingo_and_duckdb(corpus):
    facts_dir, facts, loaded = corpus
    lines: list[str] = []
    differing = compare(facts_dir, [("clingo", "duckdb")], say=lines.append)
    assert differing == 0, "\n".join(lines)
    names = [a.name for a in catalog.CATALOG]
    assert [line.split(":")[0] for line in lines] == names          # every analysis compared
    assert all("clingo and duckdb identical" in line for line in lines)
    rows = sum(int(line.rsplit(", ", 1)[1].split()[0]) for line in lines)
    assert rows > 1000, lines                                           # not an empty comparison
    files = {p.relpath for p in loaded.programs}
    if clang_path() is not None:
        assert {"control.c", "memory.c"} <= files


@pytest.mark.slow
def test_a_broken_translation_is_caught(corpus, monkeypatch):
    """Drop every negation from duckdb's SQL: the comparison must report differing rows."""
    facts_dir, _, _ = corpus
    monkeypatch.setattr(to_sql._Scope, "negation", lambda self, atom, table_of: None)
    lines: list[str] = []
    analyses = [catalog.get("reachability"), catalog.get("liveness")]
    differing = compare(facts_dir, [("clingo", "duckdb")], analyses, say=lines.append)
    assert differing > 0
    assert any("rows only in clingo" in line or "only in duckdb" in line for line in lines)
