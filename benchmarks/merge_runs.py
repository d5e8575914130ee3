"""Merge run files of ``benchmarks.optimize`` taken side by side on parts of one corpus (same
pipelines, e.g. the torture programs and the csmith seeds in two processes) into one record,
summarised again, with the PDE figures of issue #13 per program pair.

    python -m benchmarks.merge_runs runs/optimize-pde.json PART.json PART.json ...

``pde_report``: over the programs where every pipeline of ours is identical, how many programs
``if-convert,ppde`` runs fewer / more / as many instructions as ``if-convert`` alone, ``pde``
against ``dce`` and against LLVM ``sink,adce`` (where LLVM's versions are identical too), and the
instructions our passes deleted, sank and copied (their records, summed: only the raw parts,
``runs/raw/``, hold them).
"""
from __future__ import annotations

import json
import os
import sys

from benchmarks.common import command_line, read_record, write_record
from benchmarks.optimize import run_labels, summarise


def _version(record: dict, label: str):
    return next((v for v in record.get("versions", []) if v["pipeline"] == label), None)


def _compare(records, mine: str, ref: str) -> dict:
    fewer, more, same, names_more = 0, 0, 0, []
    for r in records:
        a, b = _version(r, mine), _version(r, ref)
        if not a or not b or a["verdict"] != "identical" or b["verdict"] != "identical":
            continue
        if a["instructions"] < b["instructions"]:
            fewer += 1
        elif a["instructions"] > b["instructions"]:
            more += 1
            names_more.append(r["program"])
        else:
            same += 1
    return {"fewer": fewer, "more": more, "same": same, "more_programs": names_more[:50]}


def _pass_totals(records, label: str) -> dict:
    out: dict = {}
    for r in records:
        v = _version(r, label)
        if not v or v["verdict"] != "identical":
            continue
        for p in v.get("passes", []):
            for key in ("deleted", "sunk", "copies", "split", "merged", "sunk_out", "copies_out",
                        "merged_out", "interface", "emptied", "rounds"):
                if isinstance(p.get(key), int):
                    out[key] = out.get(key, 0) + p[key]
        out["pass_seconds"] = round(out.get("pass_seconds", 0) + v.get("pass_seconds", 0), 1)
    return out


def pde_report(records: list[dict]) -> dict:
    return {
        "if-convert,ppde vs if-convert": _compare(records, "ours:if-convert,ppde",
                                                  "ours:if-convert"),
        "pde vs dce": _compare(records, "ours:pde", "ours:dce"),
        "pde vs opt:sink,adce": _compare(records, "ours:pde", "opt:sink,adce"),
        "pde vs opt:adce": _compare(records, "ours:pde", "opt:adce"),
        "opt:sink,adce vs opt:adce": _compare(records, "opt:sink,adce", "opt:adce"),
        "passes": {label: _pass_totals(records, label)
                   for label in ("ours:pde", "ours:if-convert,ppde", "ours:dce")},
    }


def merge(out: str, parts: list[str]) -> dict:
    payloads = [read_record(p) for p in parts]
    first = payloads[0]
    for p in payloads[1:]:
        if p["pipelines"] != first["pipelines"]:
            raise SystemExit(f"pipelines differ: {p['name']} vs {first['name']}")
    merged = dict(first)
    # the name of the merged file, as the harness names its own (runs/optimize-<name>.json)
    merged["name"] = os.path.basename(out).removesuffix(".json").removeprefix("optimize-")
    merged["command"] = command_line("benchmarks.merge_runs", [out, *parts])
    merged["parts"] = [{"file": f, "name": p["name"], "command": p.get("command"),
                        "corpus": p["settings"]["corpus"],
                        "programs": len(p["programs"]), "not_attempted": p["not_attempted"],
                        "wall_seconds": p["wall_seconds"], "machine": p["machine"],
                        "source": p["source"]} for f, p in zip(parts, payloads)]
    merged["programs"] = [r for p in payloads for r in p["programs"]]
    merged["not_attempted"] = sum(p["not_attempted"] for p in payloads)
    merged["wall_seconds"] = max(p["wall_seconds"] for p in payloads)
    merged["summary"] = summarise(merged["programs"], run_labels(merged))
    merged["pde_report"] = pde_report(merged["programs"])
    write_record(out, merged)
    return merged


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    merged = merge(argv[0], argv[1:])
    print(json.dumps(merged["pde_report"], indent=1))
    print(json.dumps(merged["summary"]["verdicts"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
