"""Hostile input to every command that reads user input (issue #11 acceptance): per input kind
(PIR, .ll, .c, .dl, facts files, file names, output paths, options) at least one malformed or
adversarial input, each ending in one located line on stderr, no traceback, the documented exit
status (README "Exit status"), and no output written. Inputs are generated here."""
from __future__ import annotations

from pathlib import Path

import pytest

from pylogic.cli import main

ROOT = Path(__file__).resolve().parents[2]
GOOD = "func main() {\nentry:\n    x = mov 2\n    print x\n    ret 0\n}\n"
GOOD_DL = ".decl e(x: symbol, y: symbol)\n.input e\n.decl r(x: symbol)\n.output r\nr(y) :- e(_, y).\n"


@pytest.fixture
def h(tmp_path):
    """Paths of the hostile inputs (and a few good ones) under ``tmp_path``."""
    files = {
        "bad.pir": "func main() {\nentry:\n    x = frob 1\n    ret\n}\n",
        "bad.ll": "define i32 @main() {\n  ret i64 0\n}\n",
        "bad.c": "int main(void) { return 1 +; }\n",
        "good.pir": GOOD,
        "good.dl": GOOD_DL,
        "bad.dl": ".decl e(x: symbol)\n.input e\nr(x) :- e(x\n",
        "undeclared.dl": ".decl e(x: symbol)\n.input e\n.output r\n",
        "facts/e.facts": "a\tb\n",
        "arity/e.facts": "a\tb\tc\n",
        "afile": "not a directory\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "latin1.dl").write_bytes(GOOD_DL.replace("symbol)\n.input", "symbol) // \xe9t\xe9\n.input")
                                         .encode("latin-1"))
    (tmp_path / "latin1.pir").write_bytes(b"func main() {\nentry:\n  \xff\n}\n")
    (tmp_path / "latin1/e.facts").parent.mkdir()
    (tmp_path / "latin1/e.facts").write_bytes(b"a\t\xe9\n")
    (tmp_path / "baddir").mkdir()
    (tmp_path / "baddir" / "bad.pir").write_bytes((tmp_path / "bad.pir").read_bytes())
    return tmp_path


def P(*parts):
    """An argv element naming a path under the fixture's directory."""
    return lambda root: str(root.joinpath(*parts))


#: (id, argv (strings, or callables of the fixture dir), exit status, text the error names,
#:  a path that must not have been created)
CASES = [
    # PIR
    ("run-pir", ["run", P("bad.pir")], 1, "bad.pir:3:9: parse error", None),
    ("run-pir-utf8", ["run", P("latin1.pir")], 1, "latin1.pir:3:3: parse error", None),
    ("check-pir", ["check", P("bad.pir")], 1, "bad.pir:3:9", None),
    ("analyze-pir", ["analyze", P("baddir"), "--out", P("o")], 1, "bad.pir:3:9", None),
    ("facts-pir", ["facts", P("baddir"), "--out", P("o")], 1, "bad.pir:3:9", None),
    ("predicates-pir", ["predicates", P("bad.pir")], 1, "bad.pir:3:9", None),
    ("ifconvert-pir", ["if-convert", P("bad.pir"), "--out", P("o.pir")], 1, "bad.pir:3:9", "o.pir"),
    ("optimize-pir", ["optimize", P("bad.pir"), "--passes", "sccp", "--out", P("o.pir")], 1,
     "bad.pir:3:9", "o.pir"),
    ("compare-pir", ["compare-engines", P("baddir")], 1, "bad.pir:3:9", None),
    # LLVM IR
    ("run-ll", ["run", P("bad.ll")], 1, "bad.ll:2:", None),
    ("check-ll", ["check", P("bad.ll")], 1, "bad.ll:2:", None),
    ("import-ll", ["import", P("bad.ll"), "-o", P("o.pir")], 1, "bad.ll:2:", "o.pir"),
    ("validate-ll", ["validate", P("bad.ll")], 2, "bad.ll:2:", None),
    # C
    ("run-c", ["run", P("bad.c")], 1, "bad.c:1:", None),
    ("import-c", ["import", P("bad.c")], 1, "bad.c:1:", None),
    ("predicates-c", ["predicates", P("bad.c")], 1, "bad.c:1:", None),
    ("validate-c", ["validate", P("bad.c")], 2, "bad.c:1:", None),
    # Datalog programs
    ("query-dl", ["query", P("bad.dl"), "--facts", P("facts")], 1, "bad.dl:3:", None),
    ("query-dl-utf8", ["query", P("latin1.dl"), "--facts", P("facts")], 1, "latin1.dl:1:", None),
    ("query-dl-undeclared", ["query", P("undeclared.dl"), "--facts", P("facts")], 1,
     "undeclared.dl:3:", None),
    # facts files
    ("query-facts-arity", ["query", P("good.dl"), "--facts", P("arity")], 1, "e.facts:1", None),
    ("query-facts-utf8", ["query", P("good.dl"), "--facts", P("latin1")], 1,
     "e.facts:1:3: datalog error: facts file is not UTF-8", None),
    ("query-facts-missing", ["query", P("good.dl"), "--facts", P("nowhere")], 1, "nowhere", None),
    # output paths
    ("analyze-out-file", ["analyze", P("good.pir"), "--out", P("afile")], 1, "afile", None),
    ("analyze-out-under-file", ["analyze", P("good.pir"), "--out", P("afile", "o")], 1,
     "afile", None),
    ("facts-out-file", ["facts", P("good.pir"), "--out", P("afile")], 1, "afile", None),
    ("query-out-file", ["query", P("good.dl"), "--facts", P("facts"), "--out", P("afile")], 1,
     "afile", None),
    ("optimize-out-under-file", ["optimize", P("good.pir"), "--passes", "sccp",
                                 "--out", P("afile", "o.pir")], 1, "afile", None),
    ("ifconvert-out-under-file", ["if-convert", P("good.pir"), "--out", P("afile", "o.pir")], 1,
     "afile", None),
    ("import-out-dir", ["import", P("bad.c"), "-o", P("facts")], 1, "facts", None),
    ("run-profile-under-file", ["run", P("good.pir"), "--profile", P("afile", "p.json")], 1,
     "afile", None),
    # missing inputs and wrong kinds
    ("run-missing", ["run", P("nowhere.pir")], 1, "nowhere.pir", None),
    ("analyze-missing", ["analyze", P("nowhere"), "--out", P("o")], 1, "nowhere", "o"),
    ("validate-pir", ["validate", P("good.pir")], 2, "good.pir", None),
    # options
    ("analyze-jobs", ["analyze", P("good.pir"), "--jobs", "0", "--out", P("o")], 2, "--jobs", "o"),
    ("analyze-timeout", ["analyze", P("good.pir"), "--function-timeout", "-1", "--out", P("o")],
     2, "--function-timeout", "o"),
    ("run-fuel", ["run", P("good.pir"), "--fuel", "-5"], 2, "--fuel", None),
    ("query-timeout", ["query", P("good.dl"), "--facts", P("facts"), "--timeout", "soon"], 2,
     "--timeout", None),
    ("optimize-pass", ["optimize", P("good.pir"), "--passes", "nosuch"], 1, "nosuch", None),
]


@pytest.mark.slow
@pytest.mark.parametrize("argv, status, names, absent", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_one_located_line_the_status_and_nothing_written(h, capsys, argv, status, names, absent):
    args = [a(h) if callable(a) else a for a in argv]
    try:
        got = main(args)
    except SystemExit as exc:                    # argparse: a usage error
        got = exc.code
    captured = capsys.readouterr()
    err = captured.err
    assert "Traceback" not in err
    assert got == status, err
    # the message: on stderr ("pathlogic: FILE:LINE: ..."; check's own "FILE:LINE: ..." lines),
    # validate's verdict on stdout
    text = err + (captured.out if argv[0] == "validate" else "")
    located = [ln for ln in text.splitlines() if names in ln]
    assert len(located) >= 1, text
    if absent is not None:
        assert not (h / absent).exists()
    assert (h / "afile").read_text() == "not a directory\n"
    assert not [p for p in h.iterdir() if p.name.startswith(".") and "partial" in p.name]
