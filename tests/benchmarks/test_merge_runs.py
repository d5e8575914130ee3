"""benchmarks/merge_runs.py: merging parts of a run gives the programs of all parts, the summed
'not attempted', and per-pair counts that match a direct count over the versions."""
from __future__ import annotations

import json
from pathlib import Path

from benchmarks.common import read_record
from benchmarks.merge_runs import merge

RUN = Path(__file__).resolve().parents[2] / "runs" / "optimize-pde.json"


def test_parts_merge_into_the_whole(tmp_path):
    whole = read_record(RUN)
    programs = whole["programs"][:40] + [p for p in whole["programs"] if p["program"] in
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
