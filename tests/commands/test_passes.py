"""``pathlogic passes`` and ``optimize --list-passes`` (issue #30 item 8): every registered pass
with its summary, paper and usual pipeline, read from the registry without importing a pass; the
pipelines agree with docs/passes.md."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pylogic.cli import main
from pylogic.transforms.registry import PASSES
from tests.package.test_startup_imports import heavy, imported

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_json_lists_every_pass_with_summary_paper_and_a_runnable_pipeline(capsys):
    assert main(["passes", "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)
    assert [e["name"] for e in entries] == list(PASSES)
    for e in entries:
        assert e["summary"] and e["paper"] and e["pipeline"], e["name"]
        steps = e["pipeline"].split(",")
        assert e["name"] in steps, e                       # the pipeline runs the pass
        assert all(step in PASSES for step in steps), e    # and only registered passes


def test_text_listing_and_optimize_list_passes_agree(capsys):
    assert main(["passes"]) == 0
    text = capsys.readouterr().out
    for name in PASSES:
        spec = PASSES.declared(name)
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
    for name in PASSES:
        title = next(t for t in docs if name in re.split(r"[ ,]+| and ", t))
        assert f"`{PASSES.declared(name).pipeline}`" in docs[title] \
            or f"`{PASSES.declared(name).pipeline}`" in docs["Pipelines"], name


def test_listing_imports_no_pass():
    runs = imported([["passes"], ["passes", "--json"]])
    for run in runs:
        assert run["status"] == 0, run["argv"]
        assert heavy(run["modules"]) == [], run["argv"]
