"""File and symbol names the fact format cannot hold as they are (issue #11 item 1): a file name
with a tab, a newline or a backslash is escaped in the facts (``facts_gen.naming.escape_field``)
and in every message; an LLVM name with ``(`` (C ``__asm__("f(int)")``) imports and runs."""
from __future__ import annotations

import json

import pytest

from facts_gen.naming import escape_field, function_id
from pylogic.cli import main
from tests.support import ENGINES, needs_clang

PIR = "func main() {{\nentry:\n    x = mov {n}\n    print x\n    ret 0\n}}\n"
NAMES = ["tab\there.pir", "new\nline.pir", "back\\tslash.pir", "cr\rhere.pir", "plain.pir"]


def test_escape_field_is_injective_and_fact_safe():
    texts = ["a\tb", "a\\tb", "a\\\\tb", "a\nb", "a\\nb", "a\rb", "a\\", "a"]
    escaped = [escape_field(t) for t in texts]
    assert len(set(escaped)) == len(texts)
    assert not any(c in e for e in escaped for c in "\t\n\r")
    assert function_id("a\tb.c", "@main") == "a\\tb.c::@main"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.slow
def test_analyze_directory_of_odd_file_names(tmp_path, engine, capsys):
    src = tmp_path / "in"
    src.mkdir()
    for n, name in enumerate(NAMES):
        (src / name).write_text(PIR.format(n=n))
    (src / "bad\tone.pir").write_text("func main( {\n")
    out = tmp_path / "out"
    status = main(["analyze", str(src), "--out", str(out), "--engine", engine])
    err = capsys.readouterr()
    assert status == 1  # the bad file failed; the five good ones are analysed
    assert "Traceback" not in err.err
    ids = (out / "facts" / "function.facts").read_text().splitlines()
    assert sorted(ids) == sorted(function_id(name, "main") for name in NAMES)
    for facts in (out / "facts").glob("*.facts"):
        for line in facts.read_text().splitlines():
            assert "\r" not in line
    assert not list((out / "facts").glob(".*"))  # no partial facts file left behind
    reachable = {line.split("\t")[0] for line in (out / "results" / "reachable.tsv")
                 .read_text().splitlines()}
    assert reachable == set(ids)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["files_analyzed"] == len(NAMES)
    # Every message about the bad file is one line naming it escaped.
    assert "bad\\tone.pir:1:" in err.err + err.out
    assert "bad\tone.pir" not in err.err + err.out


def test_check_names_the_file_escaped(tmp_path, capsys):
    bad = tmp_path / "b\nad.pir"
    bad.write_text("func main( {\n")
    assert main(["check", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "b\\nad.pir:1:" in err and "b\nad.pir" not in err


@needs_clang
def test_llvm_symbol_with_parenthesis(tmp_path, capsys):
    """``__asm__("f(int)")`` gives the LLVM name ``@"f(int)"``; it imports (its PIR name made
    an identifier, distinct from a C function already called f_int_) and validates identical."""
    c = tmp_path / "asm.c"
    c.write_text('int f(int x) __asm__("f(int)");\nint f(int x) { return x + 1; }\n'
                 'int f_int_(int x) { return x + 2; }\nint g __asm__("g=1") = 5;\n'
                 'int main(void) { return f(41) + f_int_(0) + g - 49; }\n')
    assert main(["validate", str(c)]) == 0
    assert "identical" in capsys.readouterr().out
    out = tmp_path / "out"
    assert main(["analyze", str(c), "--out", str(out), "--engine", "clingo"]) == 0
    assert len((out / "facts" / "function.facts").read_text().splitlines()) == 3


@pytest.mark.slow
def test_predicate_statistics_of_a_file_with_a_tab_in_its_name(tmp_path):
    """The predicate layer finds the rows of a function whose file name needs escaping."""
    import shutil
    from pathlib import Path
    from pylogic.analysis.directory import analyze_directory
    src = tmp_path / "in"
    src.mkdir()
    example = Path(__file__).resolve().parents[2] / "examples" / "pcp_ifconverted.pir"
    shutil.copy(example, src / "with\ttab.pir")
    shutil.copy(example, src / "plain.pir")
    result = analyze_directory(src, tmp_path / "out", engine="clingo")
    assert not result.failed, result.failures
    by_file = {}
    for row in result.predicates:
        by_file.setdefault(row["function"].split("::")[0], []).append(
            {k: v for k, v in row.items() if k != "function" and not k.startswith("seconds")})
    assert set(by_file) == {"with\\ttab.pir", "plain.pir"}
    assert by_file["with\\ttab.pir"] == by_file["plain.pir"]


def test_write_facts_refuses_a_raw_tab_and_leaves_no_file(tmp_path):
    """An unescaped tab or newline in a value is a bug upstream: the writer names it and
    leaves neither a truncated facts file nor its partial copy."""
    from facts_gen.extract import write_facts
    for bad in ("a\tb", "a\nb", "a\rb"):
        with pytest.raises(ValueError, match="contains a tab or newline"):
            write_facts({"function": [("ok",), (bad,)]}, tmp_path / "f")
        assert not any((tmp_path / "f").iterdir())
    write_facts({"edge": [("f", "a", "b")]}, tmp_path / "f")
    assert (tmp_path / "f" / "edge.facts").read_text() == "f\ta\tb\n"
