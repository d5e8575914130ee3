"""benchmarks/ab_speed.py: two trees timed program by program, interleaved. The summary's medians
from hand-made rows; a tree against itself gives one output per program."""
import json
import os

import pytest

from benchmarks import ab_speed
from benchmarks.corpus import csmith_program

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_summary_takes_medians_of_the_programs_both_sides_ran():
    rows = [{"pipeline": "pre", "a": 1.0, "b": 0.5, "opt": 0.1, "same_output": True},
            {"pipeline": "pre", "a": 2.0, "b": 2.0, "opt": 0.1, "same_output": True},
            {"pipeline": "pre", "a": 4.0, "b": 3.0, "opt": 0.2, "same_output": False,
             "steady": True},
            {"pipeline": "pre", "a": 3.0, "b": 3.0, "opt": 0.2, "same_output": False,
             "steady": False},
            {"pipeline": "pre", "a": 9.0, "b": None, "opt": 0.1, "same_output": True,
             "error": "b: pass failed"}]
    got = ab_speed.summarise(rows)["pre"]
    # A's output not B's counted apart from a tree that gave two outputs
    assert got == {"programs": 4, "b_over_a": 0.875, "a_over_opt": 17.5, "b_over_opt": 15.0,
                   "outputs_differ": 1, "repeats_differ": 1}


@pytest.mark.slow
def test_a_tree_against_itself_gives_one_output_per_program(tmp_path):
    path = csmith_program(4, str(tmp_path))
    if path is None:
        pytest.skip("csmith is not installed")
    got = ab_speed.compare(ROOT, ROOT, [path], [["simplify"]], "instsimplify", repeat=1)
    (row,) = got["programs"]
    assert "error" not in row and row["same_output"] and row["steady"]
    assert row["a"] > 0 and row["b"] > 0 and row["opt"] > 0
    assert got["summary"]["simplify"]["programs"] == 1


def test_main_records_the_hosts_speed_beside_the_ratios(tmp_path, monkeypatch, capsys):
    """The host's speed for Python before and after (``host_python_seconds``) goes into the JSON
    and the printout: ratios compare only at like readings (stop 55: 0.70 s, then 1.1-1.45 s)."""
    readings = iter([0.7, 1.3])
    monkeypatch.setattr(ab_speed, "host_python_seconds", lambda: next(readings))
    rows = [{"pipeline": "simplify", "a": 1.0, "b": 0.9, "opt": 0.1, "same_output": True}]
    monkeypatch.setattr(ab_speed, "compare", lambda *a, **k: {
        "programs": rows, "summary": ab_speed.summarise(rows)})
    monkeypatch.setattr(ab_speed, "csmith_program", lambda seed, workdir: f"/p/seed{seed}.c")
    out = tmp_path / "ab.json"
    assert ab_speed.main(["--a", "x", "--b", "y", "--csmith", "4", "--ours", "simplify",
                          "--out", str(out)]) == 0
    assert json.loads(out.read_text())["python_loop_seconds"] == [0.7, 1.3]
    assert "Python loop took 0.7 s before and 1.3 s after" in capsys.readouterr().out


def test_host_python_seconds_is_cpu_seconds_of_the_loop():
    from benchmarks.common import host_python_seconds
    got = host_python_seconds(10 ** 5)
    assert isinstance(got, float) and got >= 0 and got == round(got, 3)
