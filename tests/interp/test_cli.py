"""``pathlogic run``: exit codes, output channels, --json shape, located run-time errors."""
import json
import pathlib

import pytest

from pylogic.cli import main
from tests.interp.test_reuse import RECURRENT as RECURRENT_LOOP

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def write(tmp_path, text, name="p.pir"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_exit_code_is_return_value_low_byte(tmp_path, capsys):
    path = write(tmp_path, "func main(a, b) {\nentry:\n    r = add a, b\n    print r\n"
                           "    ret r\n}\n")
    assert main(["run", path, "--args", "250,10"]) == 260 & 0xFF
    out = capsys.readouterr()
    assert out.out == "260\n"
    assert "instructions=3" in out.err and "nullified=0" in out.err and "branches=0" in out.err


@pytest.mark.parametrize("argv", [["--args", "-3,4"], ["--args=-3,4"], ["--args", "-3, 4"]])
def test_negative_args(tmp_path, capsys, argv):
    path = write(tmp_path, "func main(a, b) {\nentry:\n    print a\n    print b\n    ret a\n}\n")
    assert main(["run", path, *argv]) == (-3) & 0xFF
    assert capsys.readouterr().out == "-3\n4\n"


def test_negative_inputs_and_function_choice(tmp_path, capsys):
    path = write(tmp_path, "func f() {\nentry:\n    x = input\n    y = input\n    z = mul x, y\n"
                           "    print z\n    ret 0\n}\n")
    assert main(["run", path, "--function", "f", "--input", "-2,-21"]) == 0
    assert capsys.readouterr().out == "42\n"


def test_json_output_shape(capsys):
    rc = main(["run", str(EXAMPLES / "loop_call.pir"), "--args", "3", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert data["stdout"] == "14\n2\n" and data["prints"] == [14, 2]
    assert data["return_value"] == 0 and data["exit_status"] == 0 and data["error"] is None
    assert set(data["counts"]) == {"instructions", "nullified", "executed", "branches_taken",
                                   "calls"}
    assert {"function": "main", "from": "head", "to": "body", "count": 3} in data["edge_profile"]


def test_profile_file(tmp_path, capsys):
    out = tmp_path / "prof.json"
    main(["run", str(EXAMPLES / "loop_call.pir"), "--args", "2", "--profile", str(out)])
    data = json.loads(out.read_text())
    assert {"function": "main", "from": "body", "to": "head", "count": 2} in data["edges"]


def test_runtime_error_exit_70_with_located_message(tmp_path, capsys):
    path = write(tmp_path, "func @f(x) {\nL:\n    print 7\n    y = div 1, x\n    ret y\n}\n"
                           "func main() {\nentry:\n    r = call @f(0)\n    ret r\n}\n")
    assert main(["run", path]) == 70
    out = capsys.readouterr()
    assert out.out == "7\n"
    assert f"{path}:4:5: run-time error: division by zero in @f block L" in out.err


def test_runtime_error_in_json_mode(tmp_path, capsys):
    path = write(tmp_path, "func main() {\nentry:\n    x = input\n    ret x\n}\n")
    assert main(["run", path, "--json"]) == 70
    data = json.loads(capsys.readouterr().out)
    assert "input exhausted" in data["error"]["message"] and data["exit_status"] == 70


def test_parse_error_and_unknown_function_exit_1(tmp_path, capsys):
    bad = write(tmp_path, "func main() {\nentry:\n    x = frobnicate 1\n    ret 0\n}\n")
    assert main(["run", bad]) == 1
    assert ":3:" in capsys.readouterr().err
    good = write(tmp_path, "func main() {\nentry:\n    ret 0\n}\n", "g.pir")
    assert main(["run", good, "--function", "nope"]) == 1
    assert "nope" in capsys.readouterr().err


def test_fuel_option(tmp_path, capsys):
    path = write(tmp_path, "func main() {\nentry:\n    br entry\n}\n")
    assert main(["run", path, "--fuel", "100"]) == 70
    assert "fuel exhausted" in capsys.readouterr().err


def test_examples_run(capsys):
    assert main(["run", str(EXAMPLES / "pcp_ifconverted.pir"), "--input", "-1,-1"]) == 17
    assert capsys.readouterr().out.split() == ["4", "1", "7", "5", "4", "11", "6", "17"]
    assert main(["run", str(EXAMPLES / "pas_fig3b.pir"), "--args", "-20"]) == 0
    assert capsys.readouterr().out.split() == ["3", "4"]
    assert main(["run", str(EXAMPLES / "strings_printf.pir")]) == 0
    assert "table sum 36, first word 0x4030201" in capsys.readouterr().out


def test_console_script_end_to_end(tmp_path):
    import subprocess
    import sys
    path = write(tmp_path, "func main(a, b) {\nentry:\n    r = sub a, b\n    print r\n    ret r\n}\n")
    proc = subprocess.run([sys.executable, "-m", "pylogic.cli", "run", path, "--args", "-3,4"],
                          capture_output=True, text=True)
    assert proc.returncode == (-7) & 0xFF
    assert proc.stdout == "-7\n" and "instructions=3" in proc.stderr


def test_non_integer_args_is_a_clean_error(capsys):
    from pathlib import Path
    example = Path(__file__).resolve().parents[2] / "examples" / "loop_call.pir"
    assert main(["run", str(example), "--args", "x"]) == 1
    err = capsys.readouterr().err
    assert "--args: 'x' is not an integer" in err and "Traceback" not in err


# §12 case 28's loop (A[i+2] stored, A[i] loaded), printing its trip count
RECURRENT = RECURRENT_LOOP.replace("    ret 0", "    print i\n    ret 0")


def test_run_reuse_reports_the_limit_of_load_reuse(tmp_path, capsys):
    """``run --reuse H`` (PathFinder §8.2): the store of A[i+2] is reused by the load of A[i]
    at h = 2 (8 of 10 loads), not at h = 1; the program's output stays on stdout."""
    path = write(tmp_path, RECURRENT)
    assert main(["run", path, "--reuse", "2"]) == 0
    out = capsys.readouterr()
    assert out.out == "10\n"
    assert "reuse h=2: loads=10" in out.err
    row = next(line for line in out.err.splitlines() if line.startswith("ideal ")).split()
    assert row[:3] == ["ideal", "whole", "8"] and row[-2:] == ["0", "8"]
    assert main(["run", path, "--reuse", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["stdout"] == "10\n"
    assert data["reuse"]["reuse"]["1"]["ideal"]["whole"] == {
        "loads": 10, "redundant": 0, "from_loads": 0, "from_stores": 0}
    assert set(data["reuse"]["reuse"]) == {"1"}
    assert data["reuse"]["values"]["loads"]["executed"] == 10


@pytest.mark.parametrize("bad, message", [("5", "history depth 5 is outside 1 to 4"),
                                          ("0", "history depth 0 is outside 1 to 4"),
                                          ("two", "history depth 'two' is not an integer")])
def test_run_reuse_bad_depth_is_a_usage_error(tmp_path, capsys, bad, message):
    path = write(tmp_path, RECURRENT)
    with pytest.raises(SystemExit) as exc:
        main(["run", path, "--reuse", bad])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --reuse: {message}" in err and "Traceback" not in err
