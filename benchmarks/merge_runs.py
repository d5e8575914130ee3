"""Merge run files of ``benchmarks.optimize`` taken side by side on parts of one corpus (same
pipelines, e.g. the torture programs and the csmith seeds in two processes) into one record,
summarised again, with the PDE figures of issue #13 per program pair.

    python -m benchmarks.merge_runs runs/optimize-pde.json PART.json PART.json ...

Parts may also hold other pipelines on the same programs (issue #28 item 3: pipelines added to
``runs/optimize-from-o2.json`` later): a program in several parts gets the versions of all of
them (the first part's version of a pipeline kept), provided the parts agree on its original
and its start (``start:O2``) in every count -- otherwise they are not runs of the same programs
and the merge stops. The merged pipelines are the union, in the parts' order; a part that is
itself a merge keeps its own parts (nested in its entry of ``parts``). ``--drop LABEL``
(repeat) leaves a pipeline's versions out of the merge (runs/ stays under 10 MB).

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


#: The versions two parts must agree on before their versions of one program are merged.
SHARED = ("original", "start:O2")
#: The counts they must agree on.
AGREE = ("instructions", "moves", "loads", "stores", "conditional_branches",
         "expression_evaluations", "verdict")


def merge_programs(payloads: list[dict]) -> list[dict]:
    """The programs of all ``payloads`` in order of first appearance; a program in several gets
    the versions of each (the first version of a pipeline kept) once ``SHARED`` agree."""
    out: dict = {}
    for payload in payloads:
        for r in payload["programs"]:
            mine = out.get(r["program"])
            if mine is None:
                out[r["program"]] = dict(r, versions=list(r.get("versions", [])))
                continue
            have = {v["pipeline"]: v for v in mine["versions"]}
            for v in r.get("versions", []):
                if v["pipeline"] in SHARED and v["pipeline"] in have:
                    h = have[v["pipeline"]]
                    if any(h.get(k) != v.get(k) for k in AGREE):
                        raise SystemExit(f"{r['program']}: {payload['name']}'s {v['pipeline']} "
                                         "differs from the earlier part's: not the same runs")
            mine["versions"] += [v for v in r.get("versions", []) if v["pipeline"] not in have]
    return list(out.values())


def _union(lists) -> list:
    return list(dict.fromkeys(x for xs in lists for x in xs))


def _part(file: str, p: dict) -> dict:
    return {"file": file, "name": p["name"], "command": p.get("command"),
            "corpus": p["settings"]["corpus"], "pipelines": p["pipelines"],
            "programs": len(p["programs"]), "not_attempted": p["not_attempted"],
            "wall_seconds": p["wall_seconds"], "machine": p["machine"], "source": p["source"],
            **({"parts": p["parts"]} if p.get("parts") else {})}


def without(payload: dict, drop: set) -> dict:
    """``payload`` without the versions and pipelines labelled in ``drop``."""
    if not drop:
        return payload
    return dict(payload, pipelines={side: [l for l in labels if l not in drop]
                                    for side, labels in payload["pipelines"].items()},
                programs=[dict(r, versions=[v for v in r.get("versions", [])
                                            if v["pipeline"] not in drop])
                          for r in payload["programs"]])


def merge(out: str, parts: list[str], drop: tuple = ()) -> dict:
    payloads = [without(read_record(p), set(drop)) for p in parts]
    first = payloads[0]
    merged = dict(first)
    # the name of the merged file, as the harness names its own (runs/optimize-<name>.json)
    merged["name"] = os.path.basename(out).removesuffix(".json").removeprefix("optimize-")
    merged["command"] = command_line(
        "benchmarks.merge_runs", [out, *parts, *(x for label in drop for x in ("--drop", label))])
    merged["pipelines"] = {side: _union(p["pipelines"][side] for p in payloads)
                           for side in ("ours", "llvm")}
    merged["parts"] = [_part(f, p) for f, p in zip(parts, payloads)]
    merged["programs"] = merge_programs(payloads)
    merged["not_attempted"] = sum(p["not_attempted"] for p in payloads)
    merged["wall_seconds"] = max(p["wall_seconds"] for p in payloads)
    merged["summary"] = summarise(merged["programs"], run_labels(merged))
    merged["pde_report"] = pde_report(merged["programs"])
    write_record(out, merged)
    return merged


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    drop = []
    while "--drop" in argv:             # --drop LABEL: that pipeline's versions left out
        k = argv.index("--drop")
        drop.append(argv[k + 1])
        del argv[k:k + 2]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    merged = merge(argv[0], argv[1:], tuple(drop))
    print(json.dumps(merged["pde_report"], indent=1))
    print(json.dumps(merged["summary"]["verdicts"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
