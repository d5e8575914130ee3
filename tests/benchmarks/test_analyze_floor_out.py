"""benchmarks/analyze_floor.py's ``--out``: a name under runs/ as the other benchmarks take it
(write_run), not a file of the current directory."""
import os

from benchmarks import common
from benchmarks.analyze_floor import run_name


def test_out_names_a_file_under_runs(tmp_path, monkeypatch):
    monkeypatch.setattr(common, "RUNS", tmp_path / "runs")
    monkeypatch.chdir(tmp_path)
    for out, where in (("floor.json", "runs/floor.json"), ("runs/floor2.json", "runs/floor2.json"),
                       ("raw/floor.json", "runs/raw/floor.json"),
                       (str(tmp_path / "elsewhere.json"), "elsewhere.json")):
        path = common.write_run(run_name(out), {"command": "python3 -m benchmarks.analyze_floor"})
        assert path == tmp_path / where and path.is_file(), out
    assert sorted(os.listdir(tmp_path)) == ["elsewhere.json", "runs"]
