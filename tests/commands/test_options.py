"""Options are checked (issue #11 item 5): non-positive --jobs, fuel, limits and timeouts are
usage errors naming the option; an integer list may start with a minus sign
(``--input -1,5`` like ``--args -3``)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pylogic.cli import join_negative_lists, main

ROOT = Path(__file__).resolve().parents[2]
BRANCHY = str(ROOT / "examples" / "pcp_branchy.pir")
GOOD_PIR = "func main() {\nentry:\n    x = mov 2\n    print x\n    ret 0\n}\n"


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


def test_check_jobs_reports_in_order(tmp_path, capsys):
    """check --jobs 2: the same lines, in the same order, as --jobs 1."""
    for k in range(6):
        text = GOOD_PIR if k % 3 else "func main() {\nentry:\n    x = frob 1\n    ret\n}\n"
        (tmp_path / f"f{k}.pir").write_text(text)
    outs = []
    for jobs in ("1", "2"):
        status = main(["check", "-r", str(tmp_path), "--jobs", jobs])
        cap = capsys.readouterr()
        outs.append((status, cap.out, cap.err))
    assert outs[0] == outs[1] and outs[0][0] == 1
    assert outs[0][1].count(": ok (") == 4
