"""One file never takes down a directory run (issue #11 item 1): a failure injected into each
stage of ``analyze`` (load, fact extraction, the engine, if-conversion, predicate statistics)
for one file is reported for that file, the run finishes with ``failed`` set, and every other
file's results are exactly those of a run without the failure."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pylogic.analysis import directory
from pylogic.analysis import run as run_mod
from pylogic.ir import load as load_mod

ROOT = Path(__file__).resolve().parents[2]
VICTIM = "pcp_ifconverted.pir"           # a file with predicate defines: every stage touches it


def boom(*_a, **_k):
    raise RuntimeError("injected failure")


def inject(monkeypatch, stage: str) -> None:
    if stage == "load":
        real = load_mod.load_program
        monkeypatch.setattr(load_mod, "load_program",
                            lambda path, *a, **k: boom() if Path(path).name == VICTIM
                            else real(path, *a, **k))
    elif stage == "extract":
        real = run_mod.extract_module
        monkeypatch.setattr(run_mod, "extract_module",
                            lambda m, rel, *a, **k: boom() if rel == VICTIM else real(m, rel, *a, **k))
    elif stage == "engine":
        real = run_mod.run_checked
        monkeypatch.setattr(run_mod, "run_checked",
                            lambda p, d, e, facts, **k: boom()
                            if any(r[0].startswith(VICTIM) for r in facts["function"])
                            else real(p, d, e, facts, **k))
    elif stage == "if-convert":
        real = directory.run_pass
        monkeypatch.setattr(directory, "run_pass",
                            lambda name, m, rel, **k: boom() if rel == VICTIM
                            else real(name, m, rel, **k))
    elif stage == "predicates":
        real = directory.predicate_summary
        monkeypatch.setattr(directory, "predicate_summary",
                            lambda m, rel, *a, **k: boom() if rel == VICTIM else real(m, rel, *a, **k))


def others(result) -> dict:
    tables = result.run.rows.sorted_tables()
    return {name: [r for r in rows if not str(r[0]).startswith(VICTIM)]
            for name, rows in tables.items()}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("inputs")
    for p in (ROOT / "examples").glob("*.pir"):
        shutil.copy(p, root / p.name)
    return root


@pytest.mark.slow
@pytest.mark.parametrize("stage", ["load", "extract", "engine", "if-convert", "predicates"])
def test_injected_failure_costs_only_its_file(stage, inputs, tmp_path, monkeypatch):
    if_convert = stage == "if-convert"
    clean = directory.analyze_directory(inputs, tmp_path / "clean", engine="clingo",
                                        if_convert_first=if_convert)
    assert not clean.failed
    inject(monkeypatch, stage)
    hurt = directory.analyze_directory(inputs, tmp_path / "hurt", engine="clingo",
                                       if_convert_first=if_convert)
    assert hurt.failed
    messages = hurt.failures + [p.message for p in hurt.loaded.problems]
    assert any(VICTIM in m and "injected failure" in m for m in messages), messages
    assert others(hurt) == others(clean)
    assert (tmp_path / "hurt" / "summary.json").is_file()
    kept = {f for f in hurt.run.rows.functions() if not f.startswith(VICTIM)}
    assert kept == {f for f in clean.run.rows.functions() if not f.startswith(VICTIM)}
    if stage == "predicates":
        assert [r for r in hurt.predicates if r["function"].startswith("pas_fig3b.pir")]


def test_a_huge_integer_literal_is_a_located_error(tmp_path):
    (tmp_path / "big.pir").write_text("func main() {\nentry:\n  x = mov " + "9" * 5000
                                      + "\n  ret\n}\n")
    shutil.copy(ROOT / "examples" / "loop_call.pir", tmp_path / "ok.pir")
    result = directory.analyze_directory(tmp_path, tmp_path / "out", engine="clingo")
    assert result.failed
    (problem,) = [p for p in result.loaded.problems if p.skipped]
    assert "big.pir:3:" in problem.message and "does not fit in 64 bits" in problem.message
    assert any(f.startswith("ok.pir::") for f in result.run.rows.functions())
