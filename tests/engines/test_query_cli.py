"""``pathlogic query``: table output, --out, --json, --limit, errors with locations."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pylogic.cli import main

PROGRAMS = Path(__file__).parent / "programs"


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
    import shutil

    rc = main(["query", str(PROGRAMS / "tc.dl"), "--facts", str(PROGRAMS / "tc"),
               "--engine", "souffle"])
    if shutil.which("souffle") is None:
        assert rc == 1 and "not on PATH" in capsys.readouterr().err
    else:
        assert rc == 0


def test_query_requires_a_facts_source(capsys):
    with pytest.raises(SystemExit):
        main(["query", str(PROGRAMS / "tc.dl")])
