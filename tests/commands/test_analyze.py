"""`pathlogic analyze`, `facts` and `compare-engines` from the command line: outputs on disk, the
summary, bad input reported with its location while the other files are still analysed."""
from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from pylogic.cli import main
from tests.support import needs_clang, needs_souffle, souffle_available

ROOT = Path(__file__).resolve().parents[2]

GOOD = """
func @main(%n) {
entry:
    %i = mov 0
    br head
head:
    %c = cmp.lt %i, %n
    cbr %c, body, done
body:
    %i = add %i, 1
    br head
done:
    ret %i
}
"""


def read_tsv(path: Path) -> list[list[str]]:
    with open(path) as fh:
        return [row for row in csv.reader(fh, delimiter="\t")]


@pytest.fixture
def programs(tmp_path):
    d = tmp_path / "progs"
    (d / "sub").mkdir(parents=True)
    (d / "a.pir").write_text(GOOD)
    (d / "sub" / "b.pir").write_text(GOOD.replace("@main", "@loop"))
    return d


def test_analyze_writes_facts_results_and_summary(programs, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["analyze", str(programs), "--out", str(out), "--engine", "clingo"]) == 0
    table = capsys.readouterr().out
    assert "a.pir::@main" in table and "sub/b.pir::@loop" in table
    assert (out / "facts" / "edge.facts").exists()
    edges = read_tsv(out / "facts" / "edge.facts")
    assert ["a.pir::@main", "head", "body"] in edges
    idom = read_tsv(out / "results" / "idom.tsv")
    assert ["a.pir::@main", "head", "body"] in idom and ["sub/b.pir::@loop", "entry", "head"] in idom
    ipdom = read_tsv(out / "results" / "ipdom.tsv")
    assert ["a.pir::@main", "__exit__", "done"] in ipdom
    cdep = read_tsv(out / "results" / "cdep.tsv")
    assert ["a.pir::@main", "body", "head", "body"] in cdep
    summary = json.loads((out / "summary.json").read_text())
    assert summary["files_analyzed"] == 2 and not summary["files_failed"]
    rows = {r["function"]: r for r in summary["functions"]}
    assert rows["a.pir::@main"]["blocks"] == 4 and rows["a.pir::@main"]["loops"] == 1


def test_bad_file_is_reported_and_others_still_analyzed(programs, tmp_path, capsys):
    (programs / "bad.pir").write_text("func @f() {\nentry:\n    %x = addd 1, 2\n    ret\n}\n")
    out = tmp_path / "out"
    assert main(["analyze", str(programs), "--out", str(out), "--engine", "clingo"]) == 1
    captured = capsys.readouterr()
    assert "bad.pir:3:" in captured.err and "Traceback" not in captured.err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["files_failed"] == ["bad.pir"]
    assert {r["function"] for r in summary["functions"]} == {"a.pir::@main", "sub/b.pir::@loop"}


def test_jobs_give_the_same_results(programs, tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    assert main(["analyze", str(programs), "--out", str(one), "--engine", "clingo", "--quiet"]) == 0
    assert main(["analyze", str(programs), "--out", str(two), "--engine", "clingo", "--quiet",
                 "--jobs", "2"]) == 0
    for f in sorted((one / "results").iterdir()):
        assert f.read_text() == (two / "results" / f.name).read_text(), f.name


def test_facts_command(programs, tmp_path, capsys):
    out = tmp_path / "facts"
    assert main(["facts", str(programs), "--out", str(out)]) == 0
    assert ["a.pir::@main"] in read_tsv(out / "function.facts")


def test_missing_directory_is_a_clean_error(tmp_path, capsys):
    assert main(["analyze", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert "no such file or directory" in err and "Traceback" not in err


@pytest.mark.slow
def test_compare_engines_agree(capsys):
    """Every available pair on the examples, Soufflé's among them. Without Soufflé,
    tests/engines/test_engine_agreement.py compares clingo and duckdb on the examples and C
    programs, and test_function_filters_compare_engines runs the command on them."""
    if not souffle_available():
        pytest.skip("souffle absent: clingo and duckdb are compared in test_engine_agreement")
    assert main(["compare-engines", str(ROOT / "examples")]) == 0
    out = capsys.readouterr().out
    assert "ppg: clingo and duckdb identical" in out


@needs_clang
def test_analyze_c_and_ll_inputs_same_contract(tmp_path, capsys):
    """.c files go through clang and the LLVM importer into the same facts contract; the CFG
    analyses run on them unchanged; import coverage is in the summary."""
    src = ROOT / "tests" / "ir" / "llvm" / "c"
    d = tmp_path / "c"
    d.mkdir()
    for name in ("control.c", "has_float.c"):
        shutil.copy(src / name, d / name)
    out = tmp_path / "out"
    assert main(["analyze", str(d), "--out", str(out), "--engine", "clingo", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "not imported: floating point" in err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["coverage"]["functions_skipped"] >= 1
    assert summary["coverage"]["functions_imported"] >= 4
    functions = {r[0] for r in read_tsv(out / "facts" / "function.facts")}
    assert "control.c::@main" in functions
    idom = read_tsv(out / "results" / "idom.tsv")
    assert any(row[0] == "control.c::@main" for row in idom)


@pytest.mark.slow
def test_analyze_if_convert_reports_predicates_bdd_vs_ppg(tmp_path, capsys):
    """--if-convert turns the branchy predicated-CP example into a hyperblock; the summary then
    carries PAS (BDD) vs PPG pair counts, and PPG never proves more than the BDD."""
    d = tmp_path / "p"
    d.mkdir()
    shutil.copy(ROOT / "examples" / "pcp_branchy.pir", d / "pcp_branchy.pir")
    out = tmp_path / "out"
    assert main(["analyze", str(d), "--out", str(out), "--engine", "clingo", "--if-convert"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["if_conversion"]["pcp_branchy.pir"]["regions_converted"] >= 1
    [row] = summary["predicates"]
    assert row["function"] == "pcp_branchy.pir::main" and row["defines"] >= 3
    assert row["disjoint_bdd"] >= 1
    for key in ("disjoint", "implied", "covers"):
        assert row[f"{key}_ppg"] <= row[f"{key}_bdd"]
    assert "disj bdd" in capsys.readouterr().out
    blocks = {r[1] for r in read_tsv(out / "facts" / "block.facts")}
    assert len(blocks) < 9  # the branchy original has 9 blocks


def test_empty_directory_is_an_error(tmp_path, capsys):
    assert main(["analyze", str(tmp_path), "--out", str(tmp_path / "o")]) == 1
    assert "no input files" in capsys.readouterr().err


@needs_souffle
def test_analyze_souffle_batched_equals_clingo(programs, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["analyze", str(programs), "--out", str(a), "--engine", "clingo", "--quiet"]) == 0
    assert main(["analyze", str(programs), "--out", str(b), "--engine", "souffle", "--quiet"]) == 0
    for f in sorted((a / "results").iterdir()):
        assert f.read_text() == (b / "results" / f.name).read_text(), f.name


def test_the_last_lines_name_every_failure_and_the_results(tmp_path, capsys):
    """Issue #11 item 6: after the tables, where the results are and how to read them, every
    failed file with its first error line, and the summary line last."""
    d = tmp_path / "progs"
    d.mkdir()
    (d / "a.pir").write_text(GOOD)
    (d / "bad.pir").write_text("func main() {\nentry:\n    x = frob 1\n    ret\n}\n")
    (d / "worse.pir").write_text("func main() {\n")
    out = tmp_path / "out"
    assert main(["analyze", str(d), "--out", str(out), "--engine", "clingo"]) == 1
    lines = capsys.readouterr().out.splitlines()
    tail = lines[lines.index(next(x for x in lines if x.startswith("results: "))):]
    assert "NAME.tsv" in tail[0] and "docs/relations.md" in tail[0]
    assert tail[1] == "failed: 2 of 3 files"
    assert tail[2].endswith("bad.pir:3:9: parse error: unknown opcode 'frob' (expected one of: "
                            "add, sub, mul, div, rem, and, or, xor, shl, shr, sar, neg, not, mov, "
                            "cmp.REL, select, pcmp.REL, load[.N][u], store[.N], alloca, call, "
                            "input, print, br, cbr, ret, ret.N)")
    assert "worse.pir:" in tail[3] and len(tail) == 5
    assert tail[-1].startswith("1 function in 1 file (2 files failed, 0 functions failed)")
    assert (out / "results" / "idom.tsv").is_file()


@needs_clang
def test_synthetic_functions_are_counted_apart(tmp_path, capsys):
    src = tmp_path / "g.c"
    src.write_text("int x = 3; int *p = &x;\nint main(void) { return *p; }\n")
    assert main(["analyze", str(src), "--out", str(tmp_path / "o"), "--engine", "clingo"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("2 functions, 1 of them synthetic (@__pathlogic_*")


def test_same_base_name_does_not_share_a_default_output(tmp_path, monkeypatch):
    from pylogic.commands.analyze import default_out
    monkeypatch.chdir(tmp_path)
    for parent in ("a", "b"):
        (tmp_path / parent / "x").mkdir(parents=True)
        (tmp_path / parent / "x" / "p.pir").write_text(GOOD)
    assert main(["analyze", "a/x", "--engine", "clingo", "--quiet"]) == 0
    assert default_out("b/x") == Path("runs/x-2")
    assert main(["analyze", "b/x", "--engine", "clingo", "--quiet"]) == 0
    assert default_out("a/x") == Path("runs/x") and default_out("b/x") == Path("runs/x-2")
    inputs = {json.loads((tmp_path / "runs" / n / "summary.json").read_text())["input_path"]
              for n in ("x", "x-2")}
    assert inputs == {str(tmp_path / "a" / "x"), str(tmp_path / "b" / "x")}


def test_function_filters_analyze(programs, tmp_path, capsys):
    """--function NAME: only the functions so named get facts, results and table rows."""
    out = tmp_path / "out"
    assert main(["analyze", str(programs), "--out", str(out), "--engine", "clingo",
                 "--function", "loop"]) == 0
    table = capsys.readouterr().out
    assert "sub/b.pir::@loop" in table and "a.pir::@main" not in table
    ids = {r[0] for r in read_tsv(out / "facts" / "function.facts")}
    assert ids == {"sub/b.pir::@loop"}
    assert {r[0] for r in read_tsv(out / "results" / "idom.tsv")} == ids
    assert main(["analyze", str(programs), "--out", str(out), "--engine", "clingo",
                 "--function", "nosuch"]) == 1
    assert "no function 'nosuch'" in capsys.readouterr().err
    assert {r[0] for r in read_tsv(out / "facts" / "function.facts")} == ids   # left as it was


@pytest.mark.slow
def test_function_filters_compare_engines(programs, capsys):
    assert main(["compare-engines", str(programs), "--function", "nosuch"]) == 1
    assert "no function 'nosuch'" in capsys.readouterr().err
    assert main(["compare-engines", str(programs), "--function", "@loop"]) == 0
    out = capsys.readouterr().out     # without Soufflé the two embedded engines still compared
    assert "dominance: clingo and duckdb identical" in out and "engines agree" in out


def test_compare_engines_says_which_engines_it_compared(tmp_path, capsys, monkeypatch):
    """Issue #30 item 9: the first line names the engines compared and each one not available
    (souffle without its binary) with the reason; the verdict names them again."""
    from pylogic.commands import compare_engines
    from pylogic.engines import available_engines, engine_names
    seen = []
    monkeypatch.setattr(compare_engines, "compare",
                        lambda facts, pairs, **kw: seen.append(pairs) or 0)
    (tmp_path / "a.pir").write_text("func main() {\nentry:\n    ret 0\n}\n")
    assert main(["compare-engines", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    usable = available_engines()
    assert lines[0].startswith(f"compare-engines: comparing {', '.join(usable)}")
    assert lines[-1].startswith("engines agree: ") and all(n in lines[-1] for n in usable)
    for name in engine_names():
        if name not in usable:
            assert f"not available here: {name} (" in lines[0] or f"; {name} (" in lines[0]
            assert f"{name} not compared" in lines[-1]
    assert seen == [compare_engines.engine_pairs()]
