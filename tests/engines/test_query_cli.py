"""``pathlogic query``: table output, --out, --json, --limit, --on, errors with locations."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pylogic.cli import main
from tests.support import ENGINES, souffle_available

PROGRAMS = Path(__file__).parent / "programs"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_query_prints_tables(capsys):
    rc = main(["query", str(PROGRAMS / "tc.dl"), "--facts", str(PROGRAMS / "tc"),
               "--engine", "clingo"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "reach (13 rows)" in out and "cyclic (3 rows)" in out
    lines = out.splitlines()
    header = lines.index("reach (13 rows)") + 1
    assert lines[header].split() == ["from", "to"]
    assert lines[header + 2].split() == ["a", "a"]


def test_query_limit_and_json(capsys):
    assert main(["query", str(PROGRAMS / "tc.dl"), "--facts", str(PROGRAMS / "tc"),
                 "--engine", "clingo", "--limit", "2"]) == 0
    out = capsys.readouterr().out
    assert "... 11 more" in out
    assert main(["query", str(PROGRAMS / "aggregates.dl"), "--facts",
                 str(PROGRAMS / "aggregates"), "--engine", "clingo", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["lo"] == {"columns": ["g", "m"], "rows": [["a", 1], ["b", -3]], "count": 2}


def test_query_out_writes_souffle_csv(tmp_path, capsys):
    out = tmp_path / "res"
    assert main(["query", str(PROGRAMS / "tc.dl"), "--facts", str(PROGRAMS / "tc"),
                 "--engine", "clingo", "--out", str(out)]) == 0
    assert (out / "reach.csv").read_text() == (PROGRAMS / "tc/expected/reach.csv").read_text()
    assert (out / "on_cycle.csv").read_text() == "a\nb\nc\n"


def test_query_invalid_program_is_located(tmp_path, capsys):
    prog = tmp_path / "bad.dl"
    prog.write_text(".decl a(x: number)\n.output a\n\na(x) :- a(x), !a(x).\n")
    rc = main(["query", str(prog), "--facts", str(tmp_path), "--engine", "clingo"])
    err = capsys.readouterr().err
    assert rc == 1
    assert f"{prog}:4:16: datalog error: non-stratified" in err
    assert "Traceback" not in err


def test_query_souffle_unavailable_or_runs(tmp_path, capsys):
    rc = main(["query", str(PROGRAMS / "tc.dl"), "--facts", str(PROGRAMS / "tc"),
               "--engine", "souffle"])
    if not souffle_available():
        assert rc == 1 and "not on PATH" in capsys.readouterr().err
    else:
        assert rc == 0


def test_query_requires_a_facts_source(capsys):
    with pytest.raises(SystemExit):
        main(["query", str(PROGRAMS / "tc.dl")])


BLOCKS_PER_FUNCTION = """
.decl block(f: symbol, b: symbol)
.input block
.decl blocks(f: symbol, n: number)
.output blocks
blocks(f, n) :- block(f, _), n = count : { block(f, _) }.
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_query_on_extracts_facts_and_runs(engine, tmp_path, capsys):
    """``query PROG.dl --on DIR``: facts extracted from the programs of examples/, then the
    program run on them (rows checked against the block labels in the .pir text)."""
    prog = tmp_path / "blocks.dl"
    prog.write_text(BLOCKS_PER_FUNCTION)
    assert main(["query", str(prog), "--on", str(EXAMPLES), "--engine", engine, "--json"]) == 0
    rows = {f: n for f, n in json.loads(capsys.readouterr().out)["blocks"]["rows"]}
    assert rows["loop_call.pir::main"] == 4 and rows["pcp_branchy.pir::main"] == 9
    assert {f.split("::")[0] for f in rows} == {p.name for p in EXAMPLES.glob("*.pir")}


def test_query_on_missing_directory_is_a_clean_error(tmp_path, capsys):
    rc = main(["query", str(PROGRAMS / "tc.dl"), "--on", str(tmp_path / "nowhere")])
    err = capsys.readouterr().err
    assert rc == 1 and "nowhere: no such file or directory" in err and "Traceback" not in err
