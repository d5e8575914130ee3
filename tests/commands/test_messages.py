"""Issue #30 item 11: the smaller things a new user meets: --version, every --engine explained,
no reST double backticks in helps, "1 file" not "1 files", did-you-mean for a misspelled
relation or pass, a note for an input that defines no function, pylogic.query's own location."""
from __future__ import annotations

import argparse
from pathlib import Path

import pytest

import pylogic
from pylogic.cli import build_parser, main
from pylogic.errors import DatalogError

ROOT = Path(__file__).resolve().parents[2]
LOOP = ROOT / "examples" / "loop_call.pir"


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_version(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"pathlogic {pylogic.__version__}"


def test_every_option_is_explained_in_plain_text():
    for name, command in _commands().items():
        text = command.format_help()
        assert "``" not in text, name
        for action in command._actions:
            if "--engine" in action.option_strings:
                assert action.help, f"{name} --engine has no help"


def test_counts_are_singular_for_one(tmp_path, capsys):
    assert main(["facts", str(LOOP), "--out", str(tmp_path / "f")]) == 0
    out = capsys.readouterr()
    assert "from 1 file " in out.out and "1 files" not in out.out + out.err
    assert "load: 1 file," in out.err
    assert main(["analyze", str(LOOP), "--out", str(tmp_path / "a"), "--no-cache",
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "in 1 file (0 files failed" in out and "1 engine call," in out


def test_did_you_mean(tmp_path, capsys):
    assert main(["optimize", str(LOOP), "--passes", "pre-mm"]) == 1
    assert "unknown pass 'pre-mm'; did you mean 'pre-m'?" in capsys.readouterr().err
    query = tmp_path / "q.dl"
    query.write_text('#include "dominance.dl"\n.decl x(f: Function)\n.output x\n'
                     "x(f) :- idm(f, _, _).\n")
    assert main(["query", str(query), "--on", str(LOOP)]) == 1
    assert "undeclared relation 'idm'; did you mean 'idom'?" in capsys.readouterr().err
    assert main(["explain", "dominance.dl", "idm(a, b, c)", "--on", str(LOOP)]) == 1
    assert "did you mean 'idom'?" in capsys.readouterr().err
    assert main(["optimize", str(LOOP), "--passes", "zzzz"]) == 1     # nothing close: no guess
    assert "did you mean" not in capsys.readouterr().err


def test_an_input_defining_no_function_is_noted(tmp_path, capsys):
    (tmp_path / "empty.pir").write_text("")
    (tmp_path / "loop.pir").write_bytes(LOOP.read_bytes())
    assert main(["facts", str(tmp_path), "--out", str(tmp_path / "f")]) == 0
    err = capsys.readouterr().err
    assert "empty.pir: note: defines no function" in err
    assert "loop.pir: note" not in err


def test_the_python_query_names_its_own_text():
    with pytest.raises(DatalogError) as exc:
        pylogic.query(".decl a(x: number)\n.output a\na(x) :- b(x).\n")
    assert str(exc.value).startswith("<query>:3:9:") and "<-e>" not in str(exc.value)
