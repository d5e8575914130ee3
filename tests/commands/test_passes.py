"""``pathlogic passes`` and ``optimize --list-passes`` (issue #30 item 8): every registered pass
with its summary, paper and usual pipeline, read from the registry without importing a pass; the
pipelines agree with docs/passes.md."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pylogic.cli import main
from pylogic.transforms.registry import COMPOSITES, PASSES, expand, known_names
from tests.package.test_startup_imports import heavy, imported
from tests.transforms.pre.test_pre_mr import FIG_6_1

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_json_lists_every_pass_with_summary_paper_and_a_runnable_pipeline(capsys):
    assert main(["passes", "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)
    assert sorted(e["name"] for e in entries) == sorted(known_names())
    for e in entries:
        assert e["summary"] and e["paper"] and e["pipeline"], e["name"]
        steps = e["pipeline"].split(",")
        assert e["name"] in steps + expand(steps)[0], e    # the pipeline runs the pass
        assert all(step in PASSES for step in expand(steps)[0]), e   # registered passes only
        assert e["steps"] == list(expand([e["name"]])[0])


def test_text_listing_and_optimize_list_passes_agree(capsys):
    assert main(["passes"]) == 0
    text = capsys.readouterr().out
    for name in known_names():
        spec = COMPOSITES.get(name) or PASSES.declared(name)
        line = next(ln for ln in text.splitlines() if ln.split(" ")[0] == name)
        assert spec.summary in line
        assert f"paper: {spec.paper}" in text and f"pipeline: {spec.pipeline}" in text
    with pytest.raises(SystemExit) as exc:   # like --help: no FILE or --passes needed
        main(["optimize", "--list-passes"])
    assert exc.value.code == 0
    assert capsys.readouterr().out == text


def sections(markdown: str) -> dict[str, str]:
    """``## title`` -> its text, of docs/passes.md."""
    parts = re.split(r"^## (.+)$", markdown, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def test_each_pipeline_is_the_one_docs_passes_md_names():
    """One owner for the short form (the registry); the long form in docs/passes.md names the
    same pipeline in the pass's section."""
    docs = sections((DOCS / "passes.md").read_text())
    for name in known_names():
        spec = COMPOSITES.get(name) or PASSES.declared(name)
        title = next(t for t in docs if name in re.split(r"[ ,]+| and ", t))
        assert f"`{spec.pipeline}`" in docs[title] or f"`{spec.pipeline}`" in docs["Pipelines"], \
            name


def test_listing_imports_no_pass():
    runs = imported([["passes"], ["passes", "--json"]])
    for run in runs:
        assert run["status"] == 0, run["argv"]
        assert heavy(run["modules"]) == [], run["argv"]


#: pathfinder.md Fig. 6.10's PRE(MR) example (docs/passes.md "pre-mr"): a+b and c+d are
#: evaluated 6 times on this input; PRE(MR) leaves 2.
FIG_6_10 = FIG_6_1   # the same program (test_pre_mr)
CASE = ["--validate", "--args", "1,2,3,4", "--input", "0,0,0,0,0,0,0,0,0,0,0,0,1,1,0,1"]


def test_a_pass_named_after_an_algorithm_does_it(tmp_path, capsys):
    """Issue #30 item 7: ``pre-mr`` alone is PRE(MR), restructuring then motion (evaluations
    6 -> 2), the same program as ``pre-mr-split,pre-m``; its restructuring step alone,
    ``pre-mr-split``, grows the program and removes no evaluation."""
    src = tmp_path / "ex.pir"
    src.write_text(FIG_6_10)
    runs = {}
    for passes in ("pre-mr", "pre-mr-split", "pre-mr-split,pre-m"):
        out = tmp_path / f"{passes}.pir"
        capsys.readouterr()
        assert main(["optimize", str(src), "--passes", passes, *CASE, "--out", str(out),
                     "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)["programs"][0]
        runs[passes] = (doc["check"]["cases"][0], out.read_text(), doc)
    before = runs["pre-mr"][0]["before"]["evaluations"]
    assert before == 6 and runs["pre-mr"][0]["after"]["evaluations"] == 2
    assert runs["pre-mr-split"][0]["after"]["evaluations"] == 6
    assert runs["pre-mr-split"][2]["size_after"] > runs["pre-mr-split"][2]["size_before"]
    assert runs["pre-mr"][1] == runs["pre-mr-split,pre-m"][1]
    assert [p["pass"] for p in runs["pre-mr"][2]["passes"]] == ["pre-mr-split", "pre-m"]
