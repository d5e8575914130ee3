"""The report renders, it never computes (issue #27 item 5): ``analyze`` writes the relation
matrices and derivation trees to ``OUT/report``; ``pathlogic report OUT`` then loads no program
(ir.load, the parser, the LLVM importer), runs no engine and builds no BDD, and its pages are
those ``analyze --html`` wrote."""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from pylogic.cli import main

ROOT = Path(__file__).resolve().parents[2]
needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="graphviz 'dot' is not installed (apt-get install graphviz)")


def _forbidden() -> list:
    """Every entry point of loading a program, if-converting, running an engine, explaining a
    row or building a predicate matrix."""
    from pylogic.analysis import explain as analysis_explain, passes, query
    from pylogic.engines import base, explain, run
    from pylogic.ir import load, parser
    from pylogic.ir.llvm import importer
    from pylogic.predicates import pas, relation_matrix
    out = [load.load_program, load.load_module, load.load_directory, load.load_one,
           parser.parse_module, parser.parse_file, importer.import_llvm,
           run.run_checked, run.run_program, query.run_query, analysis_explain.explainer,
           relation_matrix.relation_matrix, passes.run_pass]
    out += [m.if_convert for name, m in list(sys.modules.items())   # wherever the pass lives
            if name.startswith("pylogic.transforms") and hasattr(m, "if_convert")]
    out += [type(base.engine(name)).run for name in base.engine_names()]
    out += [explain.Explainer.__init__, pas.PredicateAnalysis.__init__]
    return out


def _refuse_everything(monkeypatch) -> None:
    """Every binding of a forbidden function, in every loaded pylogic/facts_gen module and on
    its class, raises instead."""
    forbidden = _forbidden()

    def refuse(*_a, **_k):
        raise AssertionError("the report computed something instead of reading OUT")
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(("pylogic", "facts_gen")):
            continue
        for attr, value in list(vars(module).items()):
            if any(value is f for f in forbidden):
                monkeypatch.setattr(module, attr, refuse)
            elif isinstance(value, type):
                for method, fn in list(vars(value).items()):
                    if any(fn is f for f in forbidden):
                        monkeypatch.setattr(value, method, refuse)


def _pages(html: Path) -> dict[str, str]:
    return {p.relative_to(html).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(html.rglob("*.html"))}


@pytest.mark.slow
@needs_dot
def test_report_renders_from_out_alone(tmp_path, monkeypatch):
    out = tmp_path / "run"
    assert main(["analyze", str(ROOT / "examples"), "--out", str(out), "--no-cache", "--quiet",
                 "--html"]) == 0
    matrices = json.loads((out / "report" / "matrices.json").read_text())
    explanations = json.loads((out / "report" / "explanations.json").read_text())
    assert any(isinstance(m, list) and m for m in matrices.values())
    assert sum(len(e["trees"]) for e in explanations.values()) > 0
    written = _pages(out / "html")
    _refuse_everything(monkeypatch)
    with pytest.raises(AssertionError):        # the guard holds
        from pylogic.ir.load import load_program
        load_program(str(ROOT / "examples" / "loop_call.pir"))
    assert main(["report", str(out), "--out", str(tmp_path / "again")]) == 0
    assert _pages(tmp_path / "again") == written
    assert "Predicate relations: BDD / SAT / PPG" in "".join(written.values())


@needs_dot
@pytest.mark.slow
def test_a_run_without_report_data_renders_with_notes(tmp_path, monkeypatch):
    """``--no-explain`` and ``--no-predicates``: no trees and no matrices in OUT; the report
    shows each row's ``pathlogic explain`` command and says why there is no matrix."""
    out = tmp_path / "run"
    assert main(["analyze", str(ROOT / "examples"), "--out", str(out), "--no-cache", "--quiet",
                 "--no-explain", "--no-predicates"]) == 0
    assert not (out / "report").exists()
    _refuse_everything(monkeypatch)
    assert main(["report", str(out)]) == 0
    pages = "".join(_pages(out / "html").values())
    assert "pathlogic explain" in pages and "-why.html#" not in pages
    assert "no matrix: the run wrote no report/matrices.json" in pages


@pytest.mark.slow
@needs_dot
def test_report_data_is_computed_only_when_a_report_is_asked_for(tmp_path):
    """Plain ``analyze`` (the main job) pays for no matrix and no derivation tree;
    ``--report-data`` writes what ``--html`` would render, for a later ``pathlogic report``."""
    plain, data, html = tmp_path / "plain", tmp_path / "data", tmp_path / "html"
    src = tmp_path / "src"          # a loop with a call, and predicated code (a matrix)
    src.mkdir()
    for name in ("loop_call.pir", "pas_fig3b.pir"):
        (src / name).write_bytes((ROOT / "examples" / name).read_bytes())
    common = [str(src), "--no-cache", "--quiet"]
    assert main(["analyze", *common, "--out", str(plain)]) == 0
    assert not (plain / "report").exists()
    assert main(["analyze", *common, "--out", str(data), "--report-data"]) == 0
    assert not (data / "html").exists()
    assert main(["analyze", *common, "--out", str(html), "--html"]) == 0
    for name in ("matrices.json", "explanations.json"):
        assert (data / "report" / name).read_text() == (html / "report" / name).read_text()
    assert "pas_fig3b.pir" in (data / "report" / "matrices.json").read_text()
    assert main(["report", str(data)]) == 0
    pages, expected = _pages(data / "html"), _pages(html / "html")
    assert pages.keys() == expected.keys()
    del pages["index.html"], expected["index.html"]     # the index names the run's time and OUT
    assert pages == expected
