"""Options are checked (issue #11 item 5): non-positive --jobs, fuel, limits and timeouts are
usage errors naming the option; an integer list may start with a minus sign
(``--input -1,5`` like ``--args -3``)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pylogic.cli import join_negative_lists, main

ROOT = Path(__file__).resolve().parents[2]
BRANCHY = str(ROOT / "examples" / "pcp_branchy.pir")


@pytest.mark.parametrize("argv, option", [
    (["analyze", "examples", "--jobs", "0"], "--jobs"),
    (["run", BRANCHY, "--fuel", "-3"], "--fuel"),
    (["run", BRANCHY, "--memory-limit", "0"], "--memory-limit"),
    (["run", BRANCHY, "--max-depth", "x"], "--max-depth"),
    (["if-convert", BRANCHY, "--max-blocks", "0"], "--max-blocks"),
    (["validate", "x.c", "--timeout", "0"], "--timeout"),
    (["query", "x.dl", "--facts", ".", "--limit", "-1"], "--limit"),
    (["query", "x.dl", "--facts", ".", "--timeout", "0"], "--timeout"),
    (["query", "x.dl", "--facts", ".", "--timeout", "soon"], "--timeout"),
])
def test_bad_numbers_are_usage_errors(argv, option, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}" in err and "Traceback" not in err


def test_negative_integer_lists(capsys):
    assert join_negative_lists(["run", "f", "--input", "-1,5", "--args", "-3"]) == \
        ["run", "f", "--input=-1,5", "--args", "-3"]
    assert main(["run", BRANCHY, "--input", "-1,5"]) == main(["run", BRANCHY, "--input=-1,5"])
    out = capsys.readouterr().out
    assert out.count("\n") >= 2


def test_run_takes_inputs_like_if_convert(tmp_path, capsys):
    """``run --inputs -1,5`` (the spelling if-convert uses) reads the same values as --input."""
    prog = tmp_path / "in.pir"
    prog.write_text("func main() {\nentry:\n    x = input\n    y = input\n    print x\n"
                    "    print y\n    ret 0\n}\n")
    assert main(["run", str(prog), "--inputs", "-1,5"]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == ["-1", "5"]
