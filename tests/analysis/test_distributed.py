"""``analyze --executor dask`` (issue #17 item 5): on a LocalCluster of two worker processes, the
facts, results and per-function summaries are those of ``--executor local``, on the examples and
on 20 csmith programs; a failing file is reported the same way."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from pylogic.analysis.directory import analyze_directory
from pylogic.analysis.distributed import dask_executor
from pylogic.cli import main
from tests.support import needs_clang

distributed = pytest.importorskip("distributed")
ROOT = Path(__file__).resolve().parents[2]
CSMITH = ("--no-float", "--max-funcs", "3", "--max-block-depth", "2", "--max-expr-complexity",
          "3", "--no-packed-struct")


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as c:
        yield c.scheduler_address


def outputs(out: Path) -> dict:
    files = {p.relative_to(out).as_posix(): p.read_bytes()
             for p in sorted(out.rglob("*")) if p.is_file() and p.name != "summary.json"}
    s = json.loads((out / "summary.json").read_text())
    timing = ("seconds_bdd", "seconds_ppg")
    predicates = [{k: v for k, v in r.items() if k not in timing} for r in s["predicates"]]
    return {"files": files, "functions": s["functions"], "predicates": predicates,
            "failures": sorted(s["failures"]), "files_failed": s["files_failed"]}


def same_as_local(src: Path, tmp_path: Path, scheduler: str, **options) -> dict:
    local = analyze_directory(src, tmp_path / "local", engine="clingo", **options)
    dask = analyze_directory(src, tmp_path / "dask", engine="clingo",
                             executor=dask_executor(scheduler), **options)
    assert dask.failed == local.failed
    assert outputs(tmp_path / "dask") == outputs(tmp_path / "local")
    return json.loads((tmp_path / "dask" / "summary.json").read_text())


@pytest.mark.slow
def test_examples_with_a_bad_file(tmp_path, cluster):
    src = tmp_path / "in"
    shutil.copytree(ROOT / "examples", src)
    (src / "broken.pir").write_text("func main( {\n")
    s = same_as_local(src, tmp_path, cluster, if_convert_first=True)
    assert s["if_conversion"]
    assert s["files_failed"] == ["broken.pir"]
    assert 1 <= s["seconds"]["dask_tasks"] <= len(list(src.glob("*.pir")))


@pytest.mark.slow
@needs_clang
def test_twenty_csmith_programs(tmp_path, cluster):
    if shutil.which("csmith") is None:
        pytest.skip("csmith not installed")
    src = tmp_path / "in"
    src.mkdir()
    for seed in range(1, 21):
        subprocess.run(["csmith", "--seed", str(seed), *CSMITH, "-o", str(src / f"s{seed}.c")],
                       check=True, capture_output=True, timeout=60)
    s = same_as_local(src, tmp_path, cluster)
    assert len(s["functions"]) >= 20


@pytest.mark.slow
def test_cli(tmp_path, cluster, capsys):
    assert main(["analyze", str(ROOT / "examples"), "--out", str(tmp_path / "o"), "--executor",
                 "dask", "--scheduler", cluster, "--engine", "clingo", "--quiet"]) == 0
    assert "9 functions in 6 files" in capsys.readouterr().out
    assert main(["analyze", str(ROOT / "examples"), "--out", str(tmp_path / "p"),
                 "--scheduler", cluster]) == 1
    assert "--scheduler needs --executor dask" in capsys.readouterr().err
