"""Errors instead of silence (issue #11 item 5): hostile inputs to ``query``, ``run`` and
``compare-engines`` end in one located line, no traceback, the documented exit status, and no
partial output; a broken pipe keeps the command's exit status. Inputs are generated here."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pylogic.cli import main
from pylogic.engines.budget import TIMEOUT_STATUS
from pylogic.engines.dialect import MAX_SOURCE_BYTES
from tests.support import souffle_available

ROOT = Path(__file__).resolve().parents[2]

EDGES = (".decl e(x: symbol, y: symbol)\n.input e\n"
         ".decl r(x: symbol)\n.output r\nr(y) :- e(_, y).\n")


def one_error_line(err: str) -> str:
    """The single ``pathlogic: ...`` line of ``err`` (and no traceback)."""
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.startswith("pathlogic: ")]
    assert len(lines) == 1, err
    return lines[0]


def cli(*argv: str, cwd: Path | None = None, stdout=subprocess.PIPE, timeout: float = 120):
    """``pathlogic ARGV`` in a fresh process (for what a test cannot do in-process)."""
    return subprocess.run([sys.executable, "-m", "pylogic.cli", *argv], cwd=cwd or ROOT,
                          stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.fixture
def edges(tmp_path):
    prog = tmp_path / "p.dl"
    prog.write_text(EDGES)
    facts = tmp_path / "facts"
    facts.mkdir()
    return prog, facts


# ---- query: the program and its facts files ----------------------------------------------------

def test_missing_input_file_is_an_error_naming_it(edges, capsys):
    prog, facts = edges
    assert main(["query", str(prog), "--facts", str(facts), "--engine", "clingo"]) == 1
    line = one_error_line(capsys.readouterr().err)
    assert line.startswith(f"pathlogic: {prog}:2:1: datalog error: .input e: facts file "
                           f"{facts / 'e.facts'} does not exist")
    assert "--missing-as-empty" in line


def test_missing_as_empty_is_an_explicit_opt_in(edges, capsys):
    prog, facts = edges
    assert main(["query", str(prog), "--facts", str(facts), "--engine", "clingo",
                 "--missing-as-empty", "--json"]) == 0
    assert '"count": 0' in capsys.readouterr().out


def test_facts_file_that_is_a_directory_is_refused(edges, capsys):
    prog, facts = edges
    (facts / "e.facts").mkdir()
    assert main(["query", str(prog), "--facts", str(facts), "--engine", "clingo",
                 "--missing-as-empty"]) == 1
    assert "is not a regular file" in one_error_line(capsys.readouterr().err)


@pytest.mark.parametrize("included", [False, True])
def test_non_utf8_program_is_located(tmp_path, capsys, included):
    bad = tmp_path / ("inc.dl" if included else "p.dl")
    bad.write_bytes(b".decl a(x: number)\n.output a\na(1). // caf\xe9\n")
    prog = tmp_path / "p.dl"
    if included:
        prog.write_text('// main\n#include "inc.dl"\n')
    assert main(["query", str(prog), "--facts", str(tmp_path), "--engine", "clingo"]) == 1
    line = one_error_line(capsys.readouterr().err)
    assert line == f"pathlogic: {bad}:3:13: datalog error: not UTF-8 text (byte 0xe9)"


@pytest.mark.slow
def test_include_of_a_device_or_a_huge_file_is_refused(tmp_path):
    """In a child process with a deadline: reading /dev/zero would never end."""
    huge = tmp_path / "huge.dl"
    with open(huge, "wb") as fh:    # sparse: takes no disk space
        fh.truncate(MAX_SOURCE_BYTES + 1)
    for target, word in (("/dev/zero", "not a regular file"), (str(huge), "byte limit")):
        prog = tmp_path / "p.dl"
        prog.write_text(f'.decl a(x: number)\n#include "{target}"\n')
        proc = cli("query", str(prog), "--facts", str(tmp_path), "--engine", "clingo")
        assert proc.returncode == 1
        line = one_error_line(proc.stderr)
        assert line.startswith(f"pathlogic: {prog}:2:1: datalog error: refusing to read "
                               f"{target}") and word in line


# ---- query: --out, --timeout ------------------------------------------------------------------

def test_bad_out_is_an_error_before_any_work(tmp_path, capsys):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    for out in (a_file, a_file / "sub"):
        # the program does not exist either: the --out error comes first
        assert main(["query", str(tmp_path / "nowhere.dl"), "--facts", str(tmp_path),
                     "--out", str(out)]) == 1
        line = one_error_line(capsys.readouterr().err)
        assert str(out) in line and "nowhere.dl" not in line


def test_out_is_replaced_all_at_once_or_left_alone(edges, capsys):
    prog, facts = edges
    out = prog.parent / "res"
    out.mkdir()
    (out / "old.csv").write_text("old\n")
    (facts / "e.facts").write_text("a\tb\nx\n")          # line 2: one column of two
    assert main(["query", str(prog), "--facts", str(facts), "--engine", "clingo",
                 "--out", str(out)]) == 1
    assert f"{facts / 'e.facts'}:2" in one_error_line(capsys.readouterr().err)
    assert sorted(p.name for p in out.iterdir()) == ["old.csv"]     # untouched
    assert [p.name for p in prog.parent.iterdir() if p.name.startswith(".")] == []
    (facts / "e.facts").write_text("a\tb\n")
    assert main(["query", str(prog), "--facts", str(facts), "--engine", "clingo",
                 "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["r.csv"]
    assert (out / "r.csv").read_text() == "b\n"


SLOW = ".decl n(x: number)\n.output n\nn(0).\nn(x + 1) :- n(x), x < 2000000000.\n"


@pytest.mark.parametrize("engine", ["clingo", "souffle"])
def test_timeout_stops_the_engine(tmp_path, capsys, engine):
    if engine == "souffle" and not souffle_available():
        pytest.skip("souffle binary not on PATH")
    prog = tmp_path / "slow.dl"
    prog.write_text(SLOW)
    out = tmp_path / "res"
    rc = main(["query", str(prog), "--facts", str(tmp_path), "--engine", engine,
               "--timeout", "0.5", "--out", str(out)])
    assert rc == TIMEOUT_STATUS
    line = one_error_line(capsys.readouterr().err)
    assert line == (f"pathlogic: {prog}: timeout: query ({engine} engine) stopped after 0.5 s "
                    "(--timeout)")
    assert not out.exists()


def test_timeout_passes_results_and_errors_through(edges, capsys):
    prog, facts = edges
    (facts / "e.facts").write_text("a\tb\n")
    assert main(["query", str(prog), "--facts", str(facts), "--engine", "clingo",
                 "--timeout", "60", "--json"]) == 0
    assert '"rows": [\n   [\n    "b"\n   ]\n  ]' in capsys.readouterr().out
    (facts / "e.facts").write_text("a\n")
    assert main(["query", str(prog), "--facts", str(facts), "--engine", "clingo",
                 "--timeout", "60"]) == 1
    assert f"{facts / 'e.facts'}:1: datalog error: e: expected 2 column(s)" in \
        one_error_line(capsys.readouterr().err)


# ---- run ----------------------------------------------------------------------------------------

def test_run_globals_over_the_memory_limit(tmp_path, capsys):
    prog = tmp_path / "g.pir"
    prog.write_text("global big[100000]\nfunc main() {\nentry:\n  ret 0\n}\n")
    assert main(["run", str(prog), "--memory-limit", "1000"]) == 70
    err = capsys.readouterr().err
    assert "Traceback" not in err and "KeyError" not in err
    assert err.strip() == (f"{prog}: run-time error: memory limit exceeded: global big of "
                           "100000 bytes with 0 bytes live (limit 1000)")


def test_run_bad_profile_path_before_running(tmp_path, capsys):
    prog = ROOT / "examples" / "loop_call.pir"
    for bad in (tmp_path, tmp_path / "missing" / "p.json"):
        assert main(["run", str(prog), "--profile", str(bad)]) == 1
        captured = capsys.readouterr()
        assert captured.out == "" and "--profile" in one_error_line(captured.err)


# ---- a broken pipe --------------------------------------------------------------------------------

def closed_pipe() -> int:
    """A write end whose reader is already gone: every write to it fails with EPIPE."""
    read, write = os.pipe()
    os.close(read)
    return write


@pytest.mark.slow
@pytest.mark.parametrize("argv, status", [
    (["run", "examples/loop_call.pir"], 0),
    (["run", "examples/loop_call.pir", "--fuel", "50"], 70),
    (["query", "tests/engines/programs/tc.dl", "--facts", "tests/engines/programs/tc",
      "--engine", "clingo"], 0),
])
def test_broken_pipe_keeps_the_exit_status(argv, status):
    fd = closed_pipe()
    try:
        proc = cli(*argv, stdout=fd)
    finally:
        os.close(fd)
    assert proc.returncode == status
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr


@pytest.mark.parametrize("engine", ["clingo", "souffle"])
@pytest.mark.parametrize("row, message", [("a\tb\tc\n", "e.facts:1: datalog error: e: expected 2 "
                                                        "column(s), found 3"),
                                          (b"a\t\xe9\n", "e.facts:1:3: datalog error: facts file "
                                                         "is not UTF-8 (byte 0xe9)")])
def test_both_engines_refuse_the_same_facts_file(edges, capsys, engine, row, message):
    """Soufflé drops extra columns and passes bytes through; the embedded engine refuses both.
    Staging for Soufflé reads every facts file with the same reader, so both refuse."""
    if engine == "souffle" and not souffle_available():
        pytest.skip("souffle not installed")
    prog, facts = edges
    target = facts / "e.facts"
    target.write_bytes(row if isinstance(row, bytes) else row.encode())
    assert main(["query", str(prog), "--facts", str(facts), "--engine", engine]) == 1
    assert message in one_error_line(capsys.readouterr().err)
