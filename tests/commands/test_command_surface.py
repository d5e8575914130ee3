"""The command surface (issue #11 item 6 and item 1 for ``query --on``/``compare-engines``):
``run``, ``check`` and ``facts`` read ``.c`` and ``.ll`` like the other commands; ``pathlogic
import`` prints the PIR it imported with the skip notes on stderr; ``--function NAME`` filters
``check``, ``facts`` and ``query --on``; a directory with one bad file still queries (and
compares) the rest, names the bad file and exits 1. Inputs are generated here."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pylogic.cli import main
from pylogic.engines import engine, engine_names, register, unregister
from tests.support import needs_clang

ROOT = Path(__file__).resolve().parents[2]

GOOD = """func helper(x) {
entry:
    y = add x, 1
    ret y
}

func main() {
entry:
    v = call helper(41)
    print v
    ret 3
}
"""

# line 3 is not PIR
BAD = "func main() {\nentry:\n    x = frobnicate 1\n    ret x\n}\n"

LL = """define i32 @twice(i32 %x) {
entry:
  %y = mul i32 %x, 2
  ret i32 %y
}

define double @half(double %x) {
entry:
  %y = fmul double %x, 5.000000e-01
  ret double %y
}

define i32 @main() {
entry:
  %r = call i32 @twice(i32 21)
  ret i32 %r
}
"""

C = "int twice(int x) { return 2 * x; }\nint main(void) { return twice(21); }\n"

BLOCKS = """.decl block(f: symbol, b: symbol)
.input block
.decl blocks(f: symbol, n: number)
.output blocks
blocks(f, n) :- block(f, _), n = count : { block(f, _) }.
"""


@pytest.fixture
def corpus(tmp_path):
    """Two good programs and one that does not parse."""
    d = tmp_path / "corpus"
    d.mkdir()
    (d / "a.pir").write_text(GOOD)
    (d / "b.pir").write_text(GOOD.replace("ret 3", "ret 4"))
    (d / "bad.pir").write_text(BAD)
    return d


# ---- .ll and .c everywhere ----------------------------------------------------------------------

def test_run_check_facts_read_ll(tmp_path, capsys):
    ll = tmp_path / "p.ll"
    ll.write_text(LL)
    assert main(["run", str(ll)]) == 42
    err = capsys.readouterr().err
    assert f"pathlogic: {ll}: note: function @half not imported: floating point" in err
    assert main(["check", str(ll)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith(f"{ll}: ok (") and "@half not imported" in captured.err
    out = tmp_path / "facts"
    assert main(["facts", str(ll), "--out", str(out)]) == 0
    capsys.readouterr()
    functions = (out / "function.facts").read_text().split()
    assert functions == ["p.ll::@main", "p.ll::@twice"] or \
        sorted(functions) == ["p.ll::@main", "p.ll::@twice"]


@needs_clang
def test_run_and_check_read_c(tmp_path, capsys):
    c = tmp_path / "p.c"
    c.write_text(C)
    assert main(["run", str(c)]) == 42
    assert main(["check", str(c), "--function", "twice"]) == 0
    assert capsys.readouterr().out.startswith(f"{c}: ok (function @twice, ")


def test_check_recursive_finds_ll(tmp_path, capsys):
    (tmp_path / "p.ll").write_text(LL)
    (tmp_path / "q.pir").write_text(GOOD)
    assert main(["check", "-r", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "p.ll: ok" in out and "q.pir: ok" in out


def test_bad_ll_is_a_located_error(tmp_path, capsys):
    ll = tmp_path / "bad.ll"
    ll.write_text("define i32 @f( {\n")
    for argv in (["run", str(ll)], ["import", str(ll)]):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert "Traceback" not in err and f"{ll}:" in err and "import error" in err


# ---- import --------------------------------------------------------------------------------------

def test_import_prints_pir_and_notes(tmp_path, capsys):
    ll = tmp_path / "p.ll"
    ll.write_text(LL)
    assert main(["import", str(ll)]) == 0
    captured = capsys.readouterr()
    assert "func @twice(" in captured.out and "func @main(" in captured.out
    assert f"pathlogic: {ll}: note: function @half not imported: floating point" in captured.err
    assert f"{ll}: imported 2 of 3 functions (1 skipped)" in captured.err
    pir = tmp_path / "p.pir"
    (tmp_path / "p.pir").write_text("old")
    assert main(["import", str(ll), "-o", str(pir)]) == 0
    assert pir.read_text() == captured.out
    assert main(["run", str(pir)]) == 42          # the written PIR is a program of its own
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.ll", "p.pir"]


def test_import_bad_out_before_any_work(tmp_path, capsys):
    assert main(["import", str(tmp_path / "missing.ll"), "-o", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--out" in err and "is a directory" in err


# ---- --function ----------------------------------------------------------------------------------

def test_check_function_filters(tmp_path, capsys):
    prog = tmp_path / "p.pir"
    # helper is malformed (a branch to a block that does not exist), main is fine
    prog.write_text(GOOD.replace("    ret y\n", "    br nowhere\n"))
    assert main(["check", str(prog)]) == 1
    assert "helper" in capsys.readouterr().err
    assert main(["check", str(prog), "--function", "main"]) == 0
    assert capsys.readouterr().out.startswith(f"{prog}: ok (function main, 1 block, ")
    assert main(["check", str(prog), "--function", "helper"]) == 1
    assert main(["check", str(prog), "--function", "nope"]) == 1
    assert "no function nope" in capsys.readouterr().err


def test_facts_function_filters(corpus, tmp_path, capsys):
    (corpus / "bad.pir").unlink()
    out = tmp_path / "facts"
    assert main(["facts", str(corpus), "--out", str(out), "--function", "@helper"]) == 0
    assert (out / "function.facts").read_text() == "a.pir::helper\nb.pir::helper\n"
    assert {ln.split("\t")[0] for ln in (out / "block.facts").read_text().splitlines()} == \
        {"a.pir::helper", "b.pir::helper"}
    assert main(["facts", str(corpus), "--out", str(out), "--function", "nope"]) == 1
    assert "no function 'nope'" in capsys.readouterr().err
    assert (out / "function.facts").exists()            # the previous output is untouched


# ---- query --on / compare-engines with a bad file -----------------------------------------------

def test_query_on_isolates_a_bad_file(corpus, tmp_path, capsys):
    prog = tmp_path / "blocks.dl"
    prog.write_text(BLOCKS)
    rc = main(["query", str(prog), "--on", str(corpus), "--engine", "clingo", "--json"])
    captured = capsys.readouterr()
    assert rc == 1
    assert f"{corpus / 'bad.pir'}:3:" in captured.err and "Traceback" not in captured.err
    rows = dict(json.loads(captured.out)["blocks"]["rows"])
    assert rows == {"a.pir::helper": 1, "a.pir::main": 1, "b.pir::helper": 1, "b.pir::main": 1}
    assert main(["query", str(prog), "--on", str(corpus), "--engine", "clingo", "--json",
                 "--function", "main"]) == 1
    assert set(dict(json.loads(capsys.readouterr().out)["blocks"]["rows"])) == \
        {"a.pir::main", "b.pir::main"}


def test_query_function_needs_on(tmp_path, capsys):
    prog = tmp_path / "blocks.dl"
    prog.write_text(BLOCKS)
    assert main(["query", str(prog), "--facts", str(tmp_path), "--function", "main"]) == 1
    assert "--function" in capsys.readouterr().err


@pytest.fixture
def one_engine():
    """Only clingo registered ("only one engine installed"); the registry restored after."""
    order = [(n, engine(n)) for n in engine_names()]
    for name, _ in order:
        if name != "clingo":
            unregister(name)
    yield
    for name, _ in order:
        unregister(name)
    for _, e in order:
        register(e)


def test_compare_engines_fails_on_bad_input_with_one_engine(one_engine, corpus, tmp_path,
                                                            capsys):
    assert engine_names() == ["clingo"]
    assert main(["compare-engines", str(corpus)]) == 1
    captured = capsys.readouterr()
    assert "nothing to compare" in captured.out and f"{corpus / 'bad.pir'}:3:" in captured.err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["compare-engines", str(empty)]) == 1
    assert "no input files" in capsys.readouterr().err
    assert main(["compare-engines", str(tmp_path / "nowhere")]) == 1
    assert "no such file or directory" in capsys.readouterr().err
    (corpus / "bad.pir").unlink()
    assert main(["compare-engines", str(corpus)]) == 0


@pytest.mark.slow
def test_predicates_function_with_or_without_at(capsys):
    example = str(ROOT / "examples" / "pas_fig3b.pir")
    assert main(["predicates", example, "--function", "fig3b", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(["predicates", example, "--function", "@fig3b", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == plain and list(plain) == ["fig3b"]
