"""Every ``.input`` and every ``.output`` of a relation counts, as in Soufflé (issue #16: a
relation with two ``.input`` directives loaded only the last file, two ``.output`` directives
wrote only the last one; Soufflé then failed on the file we had not staged)."""
from __future__ import annotations

import pytest

from pylogic.engines import run_program
from tests.support import engine_available

ENGINES = ["clingo", "duckdb", "souffle"]


@pytest.mark.parametrize("engine", ENGINES)
def test_two_inputs_and_two_outputs(tmp_path, engine):
    if not engine_available(engine):
        pytest.skip(f"{engine} not available")
    (tmp_path / "f").mkdir()
    (tmp_path / "f" / "e.facts").write_text("a\nb\n")
    (tmp_path / "f" / "e2.facts").write_text("c\nb\n")
    prog = tmp_path / "p.dl"
    prog.write_text('.decl e(x: symbol)\n.input e\n.input e(filename="e2.facts")\n'
                    '.decl r(x: symbol)\n.output r\n.output r(filename="again.csv")\n'
                    'r(x) :- e(x).\n')
    out = tmp_path / "out"
    out.mkdir()
    rows = run_program(prog, tmp_path / "f", engine, output_dir=out)
    assert rows["r"] == [("a",), ("b",), ("c",)]
    assert (out / "r.csv").read_text() == (out / "again.csv").read_text() == "a\nb\nc\n"


@pytest.mark.parametrize("engine", ENGINES)
def test_in_memory_facts_replace_every_input_file(tmp_path, engine):
    if not engine_available(engine):
        pytest.skip(f"{engine} not available")
    (tmp_path / "e2.facts").write_text("z\n")
    prog = tmp_path / "p.dl"
    prog.write_text('.decl e(x: symbol)\n.input e\n.input e(filename="e2.facts")\n'
                    '.decl r(x: symbol)\n.output r\nr(x) :- e(x).\n')
    rows = run_program(prog, tmp_path, engine, facts={"e": [("m",)]})
    assert rows["r"] == [("m",)]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("text, holds", [("\n", True), ("\n\n", True), ("", False)])
def test_a_blank_line_in_a_nullary_facts_file_is_the_empty_tuple(tmp_path, engine, text, holds):
    if not engine_available(engine):
        pytest.skip(f"{engine} not available")
    (tmp_path / "n.facts").write_text(text)
    prog = tmp_path / "p.dl"
    prog.write_text(".decl n()\n.input n\n.decl r(x: number)\n.output r\nr(1) :- n().\n")
    assert run_program(prog, tmp_path, engine)["r"] == ([(1,)] if holds else [])


@pytest.mark.parametrize("engine", ENGINES)
def test_a_gzip_compressed_facts_file_is_read(tmp_path, engine):
    # Soufflé reads facts through zlib's gzip stream: compressed and plain files alike
    if not engine_available(engine):
        pytest.skip(f"{engine} not available")
    import gzip
    (tmp_path / "e.facts").write_bytes(gzip.compress(b"a\t1\nb\t-2\n"))
    prog = tmp_path / "p.dl"
    prog.write_text(".decl e(x: symbol, n: number)\n.input e\n"
                    ".decl r(x: symbol, n: number)\n.output r\nr(x, n + 1) :- e(x, n).\n")
    assert run_program(prog, tmp_path, engine)["r"] == [("a", 2), ("b", -1)]


def test_a_truncated_gzip_facts_file_is_refused_naming_it(tmp_path):
    import gzip
    from pylogic.errors import DatalogError
    (tmp_path / "e.facts").write_bytes(gzip.compress(b"a\nb\n" * 100)[:20])
    prog = tmp_path / "p.dl"
    prog.write_text(".decl e(x: symbol)\n.input e\n.decl r(x: symbol)\n.output r\nr(x) :- e(x).\n")
    with pytest.raises(DatalogError) as err:
        run_program(prog, tmp_path, "clingo")
    assert "gzip" in str(err.value) and "e.facts" in str(err.value)
