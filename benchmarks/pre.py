"""PathFinder PRE against LLVM's GVN-PRE (issue #14): the optimization harness
(``benchmarks/optimize.py``: every version prepared from the same .ll and interpreted on the same
inputs) with our PRE pipelines and ``opt-14 -passes=gvn`` / ``early-cse,gvn``, plus a summary of
what PRE is about: dynamic evaluations of expressions (arithmetic, compares, selects; copies
excluded) and of loads, per program and in total, over the programs where every version was
identical, and each program where LLVM evaluates fewer.

    python -m benchmarks.pre --examples --csmith 1-20 --torture 40 --out runs/optimize-pre.json
    python -m benchmarks.pre --scale 100,300,1000,3000 --out runs/bench-pre.json
    python -m benchmarks.pre --summarise runs/optimize-pre-final2.json [--with RUN2.json]
    python -m benchmarks.pre --statistics DIR [DIR ...] --out runs/pre-statistics.json
    python -m benchmarks.pre --merge RUN1.json RUN2.json --out runs/optimize-pre-final2.json

``--merge``: one run file from runs of the same pipelines on different programs (e.g. csmith +
tree-ssa, then the torture programs within a time budget), the harness summary recomputed.

``--statistics``: PathFinder Table 6.1 (``pathlogic analyze --pre``) on each directory of
programs, totals and percentages beside the thesis' SPEC95 averages, with and without the
functions the importer synthesises (global initialisers).

``--summarise``: adds to a run file of ``benchmarks.optimize`` (our PRE pipelines and LLVM's) the
``pre`` summary below, the code growth of the restructuring passes against the thesis' (PRE(R)
80% vs PRE(MR) about 33%, §6.3.1.4: instructions in basic blocks, inserted computations not
counted, i.e. the restructuring step's own record), and where LLVM wins, by cause
(``benchmarks/pre_llvm_wins.py``).

``--scale``: analysis time of ``datalog/pre.dl`` (every output, one engine call) on one generated
function of N blocks (``pylogic.ir.synthetic_values``), on every available engine, against the
thesis' "about 5 s for a 1,000-node procedure" (PA-8000, 1999).

Torture programs come from gcc-12-source, extracted once by ``benchmarks.corpus``
(``torture_programs``), sampled as the harness samples them (short, no floating point).
"""
from __future__ import annotations

import argparse
import json
import os
import time

from benchmarks.common import command_line, machine_info, read_record, then_command, write_record
from benchmarks.corpus import torture_programs
from benchmarks.pre_llvm_wins import GVN, OURS as MR_LABEL, merged, summary as llvm_wins
from pylogic.analysis.directory import analyze_directory
from pylogic.analysis.pre_stats import THESIS, percentages, totals
from benchmarks.optimize import (DEFAULT_WORKDIR, FUEL, IDENTICAL, REFERENCE, ROOT, corpus,
                                 labels_of, llvm_label, ours_label, run, source_state, summarise,
                                 torture_sample)

OURS = (("pre-m",), ("pre-ms", "pre-m"), ("pre-mr", "pre-m"), ("pre-mr-budget", "pre-m"),
        ("sccp", "pre-m"))
LLVM = ("gvn", "early-cse,gvn", "instsimplify")
#: PRE(MR) with instruction simplification before and after it: GVN calls InstSimplify on every
#: instruction it numbers, also on what its PRE and load forwarding leave behind.
COMPLETE = "ours:simplify,pre-mr,pre-m,simplify"
KEYS = ("expression_evaluations", "load_evaluations", "instructions", "static_size")


def pre_summary(records: list[dict], labels: list[str]) -> dict:
    """Totals of KEYS over the programs where every version was identical and countable, and
    per program the evaluations (expressions + loads) of each version."""
    rows, totals = [], {l: dict.fromkeys(KEYS, 0) for l in labels}
    for r in records:
        vs = {v["pipeline"]: v for v in r.get("versions", [])}
        if not vs or any(vs.get(l, {}).get("verdict") not in (IDENTICAL, REFERENCE)
                         or "expression_evaluations" not in vs.get(l, {}) for l in labels):
            continue
        row = {"program": r["program"]}
        for l in labels:
            for k in KEYS:
                totals[l][k] += vs[l][k]
            row[l] = vs[l]["expression_evaluations"] + vs[l]["load_evaluations"]
        rows.append(row)
    return {"programs": len(rows), "totals": totals, "evaluations_per_program": rows}


#: Restructuring passes whose record gives size before / after the split (pre/restructure.py).
RESTRUCTURING = ("ours:pre-mr,pre-m", "ours:pre-r,pre-m", "ours:pre-mr-budget,pre-m")
#: §6.3.1.4, SPEC95 average code growth (percent); PRE(M) grows by 0 in that measure.
THESIS_GROWTH = {"ours:pre-r,pre-m": 80.0, "ours:pre-mr,pre-m": 33.0, "ours:pre-m": 0.0}


def growth_summary(records: list[dict]) -> dict:
    """Per restructuring pipeline, over the programs where it and the original were identical:
    instructions the split added (its record: size after - size before, the functions it
    split), the programs' static size, total growth in percent, the mean of per-program growth,
    and loops given one entry by the reducibility fix (Fig. 6.19) or left with several."""
    out = {}
    for label in RESTRUCTURING:
        added = size = fixed = left = 0
        per_program = []
        for r in records:
            vs = {v["pipeline"]: v for v in r.get("versions", [])}
            v, o = vs.get(label), vs.get("original")
            if not (v and o and v.get("verdict") == IDENTICAL and v.get("passes")):
                continue
            split = v["passes"][0]
            grown = split.get("size_after", 0) - split.get("size_before", 0)
            added += grown
            size += o["static_size"]
            fixed += split.get("irreducible_fixed", 0)
            left += split.get("irreducible_left", 0)
            per_program.append(100.0 * grown / max(1, o["static_size"]))
        if per_program:
            out[label] = {"programs": len(per_program), "instructions_added": added,
                          "static_size": size, "growth_percent": round(100.0 * added / max(1, size), 1),
                          "mean_program_growth_percent": round(sum(per_program) / len(per_program), 1),
                          "loops_made_single_entry": fixed, "loops_left_multi_entry": left,
                          "thesis_percent": THESIS_GROWTH.get(label)}
    return out


def summarise_run(path: str, extra: list[str], command: str) -> int:
    """Add ``pre``, ``code_growth`` and ``llvm_wins`` to the run file ``path`` (summary or raw),
    and ``command``, which adds them, to its command."""
    payload = read_record(path)
    payload["command"] = then_command(payload, command)
    records = merged(payload["programs"], extra)
    labels = ["original"] + payload["pipelines"]["ours"] + payload["pipelines"]["llvm"]
    payload["pre"] = pre_summary(payload["programs"], labels)
    t = payload["pre"]["totals"]
    base = t["original"]["expression_evaluations"] + t["original"]["load_evaluations"]
    # Table 6.1 "global CSE" 7.8% / "complete PRE" 9.5% of all dynamic (lexical arithmetic)
    payload["pre"]["removed_percent"] = {
        l: round(100.0 * (base - v["expression_evaluations"] - v["load_evaluations"]) / max(1, base), 2)
        for l, v in t.items()}
    growth = growth_summary(payload["programs"])
    if growth or "code_growth" not in payload:   # a summary has no pass records: keep the growth
        payload["code_growth"] = growth          # measured on the raw output
    payload["llvm_wins"] = {f"{ours} vs {gvn}": llvm_wins(records, ours, gvn)
                            for ours in (MR_LABEL, "ours:pre-m", "ours:simplify,pre-mr,pre-m",
                                         COMPLETE)
                            if ours in labels for gvn in (GVN, "opt:early-cse,gvn")}
    if extra:
        payload["llvm_wins_extra_runs"] = extra
    write_record(path, payload)
    print(f"{payload['pre']['programs']} programs identical in every version and countable")
    for l, t in payload["pre"]["totals"].items():
        print(f"  {l:50} " + "  ".join(f"{k}={v}" for k, v in t.items()))
    print(f"dynamic evaluations removed (%): {payload['pre']['removed_percent']}")
    for l, g in payload["code_growth"].items():
        print(f"growth {l}: {g}")
    for key, w in payload["llvm_wins"].items():
        print(f"{key}: {w['programs']}; LLVM ahead by cause {w['by_cause']}; parts "
              f"{w['parts_total']} of {w['gap_total']}")
    return 0


def merge(paths: list[str], out: str, command: str) -> int:
    """Concatenate run files of the same pipelines into ``out`` (summary recomputed)."""
    runs = [read_record(path) for path in paths]
    first = runs[0]
    if any(r["pipelines"] != first["pipelines"] for r in runs):
        raise SystemExit("--merge: the runs have different pipelines")
    programs = [p for r in runs for p in r["programs"]]
    labels = ["original"] + first["pipelines"]["ours"] + first["pipelines"]["llvm"]
    payload = {k: v for k, v in first.items() if k not in ("programs", "summary")}
    payload.update(command=command,
                   name=os.path.splitext(os.path.basename(out))[0].replace("optimize-", ""),
                   parts=[{"file": os.path.basename(p), "name": r["name"],
                           "command": r.get("command"), "source": r["source"],
                           "settings": r["settings"], "machine": r["machine"],
                           "programs": len(r["programs"]), "not_attempted": r["not_attempted"],
                           "wall_seconds": r["wall_seconds"]} for p, r in zip(paths, runs)],
                   not_attempted=sum(r["not_attempted"] for r in runs),
                   wall_seconds=round(sum(r["wall_seconds"] for r in runs), 1),
                   summary=summarise(programs, labels), programs=programs)
    write_record(out, payload)
    print(f"wrote {out}: {len(programs)} programs, {payload['not_attempted']} not attempted")
    return 0


def statistics(dirs: list[str], out: str, command: str, jobs: int = 1) -> int:
    """Table 6.1 of every directory (``analyze --pre``), into ``out``."""
    source, rows = source_state(), []       # at the start: the code that runs
    for d in dirs:
        t0 = time.perf_counter()
        result = analyze_directory(d, os.path.join("/tmp", f"pre-statistics-{os.getpid()}"),
                                   engine="clingo", jobs=jobs, predicates=False, pre=True)
        mine = [r for r in result.pre if "::@__pathlogic_" not in r["function"]]
        rows.append({"directory": d, "files": len(result.loaded.programs),
                     "files_failed": sum(1 for p in result.loaded.problems if p.skipped),
                     "functions": len(result.pre), "failures": len(result.failures),
                     "totals": totals(result.pre), "percent": percentages(totals(result.pre)),
                     "without_synthetic": {"functions": len(mine), "totals": totals(mine),
                                           "percent": percentages(totals(mine))},
                     "seconds": {k: round(v, 1) for k, v in result.seconds.items()},
                     "wall_seconds": round(time.perf_counter() - t0, 1)})
        print(rows[-1], flush=True)
    with open(out, "w") as fh:
        json.dump({"command": command, "machine": machine_info(), "source": source,
                   "note": "shared 2-core machine under load (timings rough); static counts per "
                           "computation of an expression or load (datalog/pre_statistics.dl)",
                   "thesis_spec95_percent": THESIS, "corpora": rows}, fh, indent=1)
        fh.write("\n")
    return 0


def scale(sizes: list[int], out: str, command: str, analysis: str = "pre") -> int:
    """Time a PRE analysis (``pre``, or ``pre_statistics``: Table 6.1, which includes it) on
    generated functions of each size, per available engine; rows already in ``out`` are kept
    (each row says which analysis, when and at what load it was measured)."""
    from pylogic.analysis import catalog
    from pylogic.analysis.run import module_rows
    from pylogic.engines import engine, engine_names
    from pylogic.ir.synthetic_values import random_module
    outputs = list(catalog.get(analysis).outputs)
    try:
        with open(out) as fh:
            rows = json.load(fh)["rows"]
    except (OSError, ValueError, KeyError):
        rows = []
    for n in sizes:
        module = random_module([n], blocks=n, span=3)
        fn = module.defined_functions()[0]
        for name in engine_names():
            if not engine(name).available():
                rows.append({"blocks": n, "engine": name, "analysis": analysis,
                             "skipped": engine(name).unavailable_reason()})
                continue
            t0 = time.perf_counter()
            got = module_rows(module, "scale.pir", relations=outputs, engine=name)
            seconds = time.perf_counter() - t0
            rows.append({"blocks": len(fn.blocks), "instructions": fn.instruction_count(),
                         "engine": name, "analysis": analysis, "seconds": round(seconds, 3),
                         "expressions": len({r[1] for r in got["vf_expr"]}),
                         "avail_rows": len(got["pre_avail_in"]), "prevented": len(got["pre_prevented"]),
                         "load_average": round(os.getloadavg()[0], 1),
                         "date": time.strftime("%Y-%m-%dT%H:%M:%S")})
            print(rows[-1], flush=True)
    with open(out, "w") as fh:
        json.dump({"command": command, "machine": machine_info(), "source": source_state(),
                   "note": "shared 2-core machine under load; includes fact extraction",
                   "thesis": "about 5 s per 1,000-node procedure (PA-8000, 1999)", "rows": rows},
                  fh, indent=1)
        fh.write("\n")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--examples", action="store_true")
    ap.add_argument("--csmith", default="")
    ap.add_argument("--torture", default="0", help="N short torture programs (sampled)")
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--budget", type=float, default=None)
    ap.add_argument("--fuel", type=int, default=FUEL)
    ap.add_argument("--workdir", default=DEFAULT_WORKDIR)
    ap.add_argument("--out", default=None)
    ap.add_argument("--scale", default=None, help="block counts, e.g. 100,300,1000")
    ap.add_argument("--ours", action="append", default=None, metavar="P1,P2",
                    help="our pipeline (repeatable; default: the five of OURS)")
    ap.add_argument("--analysis", default="pre", choices=("pre", "pre_statistics"),
                    help="with --scale: which analysis to time")
    ap.add_argument("--summarise", metavar="RUN.json", help="add the PRE summaries to a run file")
    ap.add_argument("--statistics", nargs="+", metavar="DIR", help="Table 6.1 of directories")
    ap.add_argument("--merge", nargs="+", metavar="RUN.json", help="concatenate run files (--out)")
    ap.add_argument("--with", dest="extra", action="append", default=[],
                    help="with --summarise: another run file on the same programs (more versions)")
    a = ap.parse_args(argv)
    command = command_line("benchmarks.pre", argv)
    if a.merge:
        return merge(a.merge, a.out, command)
    if a.summarise:
        return summarise_run(a.summarise, a.extra, command)
    if a.statistics:
        return statistics(a.statistics, a.out or os.path.join(ROOT, "runs", "pre-statistics.json"),
                          command, a.jobs)
    if a.scale:
        return scale([int(x) for x in a.scale.split(",")],
                     a.out or os.path.join(ROOT, "runs", "bench-pre.json"), command, a.analysis)
    a.out = a.out or os.path.join(ROOT, "runs", "optimize-pre.json")
    ours = [p.split(",") for p in a.ours] if a.ours else [list(p) for p in OURS]
    llvm = list(LLVM)
    items = corpus(a.examples, a.csmith, "0", a.workdir, a.seed)
    if a.torture != "0":
        programs = torture_programs(a.workdir)
        directory = os.path.dirname(programs[0]) if programs else ""
        items += [(os.path.basename(p), "torture", p)
                  for p in torture_sample(a.torture, a.seed, directory=directory)]
    labels = labels_of(ours, llvm)
    source, t0 = source_state(), time.time()
    records, left = run(items, ours, llvm, fuel=a.fuel, jobs=a.jobs, budget=a.budget,
                        progress=lambda r: print(f"  {r['program']}: {r['status']}", flush=True))
    payload = {"command": command, "machine": machine_info(), "name": "pre", "source": source,
               "settings": {"fuel": a.fuel, "jobs": a.jobs, "corpus": {
                   "examples": a.examples, "csmith": a.csmith, "torture": a.torture,
                   "torture_seed": a.seed}},
               "pipelines": {"ours": [ours_label(p) for p in ours],
                             "llvm": [llvm_label(s) for s in llvm]},
               "pre": pre_summary(records, labels),
               "summary": summarise(records, labels),
               "not_attempted": left, "wall_seconds": round(time.time() - t0, 1),
               "note": "timings taken on a shared 2-core machine under load",
               "programs": records}
    write_record(a.out, payload)
    pre = payload["pre"]
    print(f"{pre['programs']} programs identical in every version and countable")
    for l, t in pre["totals"].items():
        print(f"  {l:22} " + "  ".join(f"{k}={v}" for k, v in t.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
