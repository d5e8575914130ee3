"""benchmarks/common.py: a harness run's summary (runs/<name>.json) keeps every figure of every
program and version but the raw detail, and reads back as the run did; the whole output goes to
raw/ beside it."""
from __future__ import annotations

import json
import shlex

import pytest

from benchmarks.common import (command_line, read_record, record_paths, store_derived,
                               summary_record, then_command, write_record, write_run)


def _run():
    versions = [
        {"pipeline": "original", "side": "input", "verdict": "reference", "detail": "",
         "static_size": 10, "instructions": 40, "expression_evaluations": 7},
        {"pipeline": "ours:pre-m", "side": "ours", "verdict": "identical", "detail": "",
         "static_size": 9, "instructions": 38, "expression_evaluations": 5, "pass_seconds": 0.1,
         "passes": [{"size_before": 10, "size_after": 9}], "sha256": "ab" * 32},
        {"pipeline": "opt:gvn", "side": "llvm", "verdict": "not compared",
         "detail": "import incomplete: x", "import_skipped": {"functions": {"x": ["f"]}}},
    ]
    return {"command": "python3 -m benchmarks.optimize --name t", "name": "t", "pipelines": {"ours": ["ours:pre-m"], "llvm": ["opt:gvn"]},
            "summary": {"verdicts": {}}, "pre": {"programs": 1, "evaluations_per_program": [{}]},
            "programs": [
                {"program": "a.c", "kind": "torture", "status": "ok", "detail": "",
                 "cases": [[[], []]], "driver": {"functions": ["f"], "cases": 1, "completed": 1},
                 "claim": {"if-convert,sccp": {"missing": 1, "missing_first": [["f:1"]]}},
                 "versions": versions},
                {"program": "b.c", "kind": "torture", "status": "excluded",
                 "detail": "floating point", "versions": []}]}


def test_summary_reads_back_as_the_run_without_its_raw_detail(tmp_path):
    run = _run()
    path = write_record(tmp_path / "optimize-t.json", run)
    assert path == tmp_path / "optimize-t.json"
    assert json.loads((tmp_path / "raw" / "optimize-t.json").read_text()) == run
    back = read_record(path)
    a = back["programs"][0]
    assert "cases" not in a and a["driver"] == {"cases": 1, "completed": 1}
    assert a["claim"] == {"if-convert,sccp": {"missing": 1}}
    raw_only = ("side", "passes", "pass_seconds")
    assert a["versions"] == [{k: x for k, x in v.items() if k not in raw_only}
                             for v in run["programs"][0]["versions"]]
    assert back["programs"][1] == run["programs"][1]
    assert back["pre"] == {"programs": 1} and back["summary"] == run["summary"]
    # a summary read back and written again is the same file, and writes no raw output
    (tmp_path / "raw" / "optimize-t.json").unlink()
    text = path.read_text()
    write_record(path, back)
    assert path.read_text() == text and not (tmp_path / "raw" / "optimize-t.json").exists()
    assert summary_record(json.loads(text)) == json.loads(text)


def test_raw_and_summary_paths():
    assert record_paths("runs/optimize-x.json") == record_paths("runs/raw/optimize-x.json")
    summary, raw = record_paths("runs/optimize-x.json")
    assert (str(summary), str(raw)) == ("runs/optimize-x.json", "runs/raw/optimize-x.json")


def test_other_run_files_are_written_as_they_are(tmp_path):
    payload = {"command": "python3 -m benchmarks.x", "machine": {}, "rows": [{"n": 1}, {"n": 2}]}
    path = write_record(tmp_path / "bench.json", payload)
    assert json.loads(path.read_text()) == payload and not (tmp_path / "raw").exists()


def test_the_command_line_of_a_run_reproduces_its_arguments():
    argv = ["--torture", "pr*", "--ours", "simplify,pre-mr", "--llvm", "default<O2> -vectorize-slp=false"]
    command = command_line("benchmarks.optimize", argv)
    assert shlex.split(command) == ["python3", "-m", "benchmarks.optimize", *argv]


def test_a_run_without_its_command_is_not_written(tmp_path):
    with pytest.raises(ValueError, match="command"):
        write_record(tmp_path / "bench.json", {"machine": {}, "rows": [{"n": 1}]})
    with pytest.raises(ValueError, match="command"):
        write_run(str(tmp_path / "bench.json"), {"rows": [{"n": 1}]})
    assert not (tmp_path / "bench.json").exists()
    path = write_run(str(tmp_path / "bench.json"), {"command": "python3 -m benchmarks.x",
                                                    "rows": [{"n": 1}]})
    assert json.loads(path.read_text())["command"] == "python3 -m benchmarks.x"


def test_a_derived_block_adds_its_command_once(tmp_path):
    run = _run()
    path = write_record(tmp_path / "optimize-t.json", run)
    step = "python3 -m benchmarks.pre_simplify " + str(path)
    for _ in range(2):      # derived again: the step is not repeated
        store_derived(str(path), read_record(path), "simplify_vs_gvn", {"programs": 1},
                      command=step)
    back = read_record(path)
    assert back["command"] == run["command"] + "; " + step
    assert back["simplify_vs_gvn"] == {"programs": 1}
    assert then_command({}, step) == step
