"""benchmarks/merge_runs.py: merging parts of a run gives the programs of all parts, the summed
'not attempted', and per-pair counts that match a direct count over the versions."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.common import read_record
from benchmarks.merge_runs import merge

RUN = Path(__file__).resolve().parents[2] / "runs" / "optimize-pde.json"


def test_parts_merge_into_the_whole(tmp_path):
    whole = read_record(RUN)
    programs = whole["programs"][:40] + [p for p in whole["programs"][40:] if p["program"] in
                                         ("csmith-7.c", "csmith-2.c")]
    parts = []
    for k, chunk in enumerate((programs[:25], programs[25:])):
        part = dict(whole, programs=chunk, not_attempted=k, name=f"part{k}")
        part["settings"] = dict(whole.get("settings", {}), corpus={"part": k})
        path = tmp_path / f"p{k}.json"
        path.write_text(json.dumps(part))
        parts.append(str(path))
    merged = merge(str(tmp_path / "m.json"), parts)
    assert [p["program"] for p in merged["programs"]] == [p["program"] for p in programs]
    assert merged["not_attempted"] == 1 and len(merged["parts"]) == 2

    def count(label_a, label_b):
        fewer = 0
        for p in programs:
            v = {x["pipeline"]: x for x in p.get("versions", [])}
            a, b = v.get(label_a), v.get(label_b)
            if a and b and a["verdict"] == b["verdict"] == "identical" and \
                    a["instructions"] < b["instructions"]:
                fewer += 1
        return fewer
    got = merged["pde_report"]["if-convert,ppde vs if-convert"]["fewer"]
    assert got == count("ours:if-convert,ppde", "ours:if-convert") and got >= 1


FROM_O2 = RUN.parent / "optimize-from-o2.json"


def _split(whole, labels_a, tmp_path):
    """Two parts of ``whole``'s first programs: the pipelines ``labels_a`` in one, the rest in
    the other, both with the original and the start."""
    shared = ("original", "start:O2")
    parts = []
    for k, keep in enumerate((lambda l: l in labels_a, lambda l: l not in labels_a)):
        programs = [dict(r, versions=[v for v in r["versions"]
                                      if v["pipeline"] in shared or keep(v["pipeline"])])
                    for r in whole["programs"][:4]]
        pipelines = {side: [l for l in whole["pipelines"][side] if keep(l)]
                     for side in ("ours", "llvm")}
        part = dict(whole, programs=programs, pipelines=pipelines, name=f"part{k}")
        part.pop("parts", None)
        path = tmp_path / f"v{k}.json"
        path.write_text(json.dumps(part))
        parts.append(path)
    return parts


def test_parts_with_other_pipelines_merge_by_program(tmp_path):
    # issue #28 item 3: pipelines added to a run later join the versions of the same programs
    whole = read_record(FROM_O2)
    ours = whole["pipelines"]["ours"]
    parts = _split(whole, set(ours[:3]), tmp_path)
    merged = merge(str(tmp_path / "m.json"), [str(p) for p in parts])
    assert merged["pipelines"]["ours"] == ours[:3] + ours[3:]
    for got, want in zip(merged["programs"], whole["programs"][:4]):
        assert sorted(v["pipeline"] for v in got["versions"]) == \
            sorted(v["pipeline"] for v in want["versions"])
        assert {v["pipeline"]: v["instructions"] for v in got["versions"] if "instructions" in v} \
            == {v["pipeline"]: v["instructions"] for v in want["versions"] if "instructions" in v}


def test_parts_that_disagree_on_the_start_do_not_merge(tmp_path):
    whole = read_record(FROM_O2)
    a, b = _split(whole, set(whole["pipelines"]["ours"][:3]), tmp_path)
    part = json.loads(b.read_text())
    start = next(v for v in part["programs"][0]["versions"] if v["pipeline"] == "start:O2")
    start["instructions"] += 1
    b.write_text(json.dumps(part))
    with pytest.raises(SystemExit, match="not the same runs"):
        merge(str(tmp_path / "m.json"), [str(a), str(b)])


def test_dropped_pipelines_are_left_out(tmp_path):
    whole = read_record(FROM_O2)
    ours = whole["pipelines"]["ours"]
    parts = _split(whole, set(ours[:3]), tmp_path)
    merged = merge(str(tmp_path / "m.json"), [str(p) for p in parts], drop=(ours[4],))
    assert ours[4] not in merged["pipelines"]["ours"] and merged["command"].endswith(
        "--drop " + ours[4])
    assert all(v["pipeline"] != ours[4] for r in merged["programs"] for v in r["versions"])
