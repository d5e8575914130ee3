"""The ideal limit of load reuse against what our PRE removes (PathFinder ch. 8, issue #31 items
2-3), with value prediction and the chapter-9 claim on repeated values.

    python -m benchmarks.limit [--csmith 1-20] [--torture 40] [--real all] [--fuel 20000000]
        [--jobs 1] [--name reuse] [--pipeline simplify,pre-mr,pre-m,simplify]
    python -m benchmarks.limit --merge runs/limit-reuse.json runs/raw/limit-PART.json ...

Per program (prepared and run exactly as ``benchmarks/optimize.py`` does: its ``evaluate`` with
the one pipeline ``simplify,pre-mr,pre-m,simplify``, the original and the optimized version run on
the same cases and compared), the original runs once more on the reference interpreter with the
reuse simulator (``pylogic/interp/reuse.py``). Reported:

* ``reuse``: % of executed loads that could reuse an earlier access, ideal aliasing, at
  h = 1..4, whole program, intra-procedural (Fig. 8.2's bars and "X" marks) and within one
  activation (``pylogic/interp/reuse.py``);
* ``table81``: at h = 4, whole program: reuse %, and the redundant loads reused from loads and
  from stores, % of the redundant ones (Table 8.1's columns; can add up to more than 100);
* ``scenarios``: intra-procedural reuse at h = 1 (the §8.3 baseline) under the aliasing
  scenarios ideal / calls / stores_but_globals / all_stores, % of executed loads; and
  ``scenarios_activation``, the same within one activation;
* ``pre``: the dynamic loads ``simplify,pre-mr,pre-m,simplify`` removes (original minus
  optimized, ``RunResult.kinds``), and PRE-completeness: that over the ideal intra-procedural
  reuse at h = 1 (§8.3's baseline), over the reuse within one activation at h = 1 (also with
  calls as kills, as for the thesis's intra-procedural analysis) and over the whole-program
  reuse at h = 4;
* ``captured``: what the analysis captures of it: the CMP^r lower and upper bound of the dynamic
  loads it finds reusable (``analysis.estimation.load_estimate``, from the simulated runs' edge
  profiles: no other run) and their average, as % of the ideal intra-procedural reuse at
  h = 1..4 and of the reuse within one activation at h = 1 (§8.3);
* ``same_value``: % of value-producing executed instructions whose value equals their static
  instruction's previous one, in all and by kind (ch. 9: "up to 40%");
* ``predicted``: % of executed loads the last-value, two-delta stride and context predictors
  predict, and % of the redundant loads (ideal, whole, h = 1 and 4) they predict (§8.5);
* ``register_pressure``: average locations held in registers by the ideal reuse at h = 1..4
  (§8.4; averaged over the simulator's events).

Totals: summed over the programs whose original completed (PRE figures over those where the
optimized version was identical too), and the mean of the per-program percentages (the thesis
averages benchmarks). Writes a JSON summary (one line per program) to
``runs/limit-<name>.json``, and the rows with their counts to ``runs/raw/limit-<name>.json``
(git-ignored). ``--merge`` sums such raw parts (whole corpora: csmith 1-50, every torture
program) into a record's ``coverage`` block, totals only.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from benchmarks.common import command_line, run_text, write_run
from benchmarks.optimize import (DEFAULT_WORKDIR, FUEL, ORIGINAL, corpus, evaluate,
                                 prepare_program)
from pylogic.interp.differential import IDENTICAL
from pylogic.interp.reuse import DEPTHS, PREDICTORS, SCENARIOS, VARIANTS, ReuseObserver, merge

#: Our complete PRE (docs/measurements.md "PRE against GVN program by program").
PIPELINE = ("simplify", "pre-mr", "pre-m", "simplify")
#: The thesis's numbers this run is set beside (pathfinder.md §12.1).
THESIS = {"loads_with_reuse_pct": 55, "pre_complete_pct": 80, "lost_to_array_pointer_stores": "1/3",
          "same_value_up_to_pct": 40, "max_register_pressure": 34, "input_sensitivity_pct": 18}


def pct(n, d) -> float | None:
    return round(100 * n / d, 2) if d else None


def simulate(module, cases, fuel) -> tuple[dict | None, list]:
    """The merged reuse report of the original's runs on ``cases`` (None if one did not end) and
    the runs' results (their edge profiles feed the estimate: no other run)."""
    from pylogic.interp import run_module
    reports, results = [], []
    for args, inputs in cases:
        obs = ReuseObserver()
        res = run_module(module, args=args, inputs=inputs, fuel=fuel, observer=obs)
        if res.error is not None:
            return None, results
        reports.append(obs.report())
        results.append(res)
    return merge(reports), results


def captured(module, results, counts: dict) -> dict:
    """What the analysis captures of the ideal reuse: the CMP^r bounds of the dynamic loads it
    finds reusable, from the simulated runs' edge profiles (``analysis.estimation.load_estimate``),
    their average as % of the ideal intra-procedural reuse at h = 1..4 and of the reuse within
    one activation at h = 1 (§8.3: "the CMP^r average of bounds"). ``counts``: the row's."""
    from pylogic.analysis.estimation import EstimationError, load_estimate
    try:
        est = load_estimate(module, results)
    except EstimationError as exc:
        return {"note": str(exc)[:160]}
    red = counts["redundant"]
    return {**est, "of_intra": [pct(est["average"], red[f"intra{h}"]) for h in DEPTHS],
            "of_activation_h1": pct(est["average"], red["activation1"])}


def figures(rep: dict) -> dict:
    """One program's row from its reuse report."""
    loads = rep["loads"]

    def red(h, scenario="ideal", variant="whole"):
        return rep["reuse"][str(h)][scenario][variant]
    r4 = red(4)
    values = rep["values"]
    executed = sum(v["executed"] for v in values.values())
    same = sum(v["same_as_previous"] for v in values.values())
    return {
        "loads": loads,
        "reuse": {v: [pct(red(h, "ideal", v)["redundant"], loads) for h in DEPTHS]
                  for v in VARIANTS},
        "table81": {"reuse": pct(r4["redundant"], loads),
                    "from_loads": pct(r4["from_loads"], r4["redundant"]),
                    "from_stores": pct(r4["from_stores"], r4["redundant"])},
        "scenarios": {s: pct(red(1, s, "intra")["redundant"], loads) for s in SCENARIOS},
        "scenarios_activation": {s: pct(red(1, s, "activation")["redundant"], loads)
                                 for s in SCENARIOS},
        "same_value": {"all": pct(same, executed), "executed": executed,
                       **{k: pct(v["same_as_previous"], v["executed"])
                          for k, v in values.items()}},
        "predicted": {"loads": {p: pct(rep["loads_predicted"][p], loads) for p in PREDICTORS},
                      **{f"reuse_h{h}": {p: pct(rep["predicted_reuse"][str(h)][p],
                                                red(h)["redundant"]) for p in PREDICTORS}
                         for h in (1, 4)}},
        "register_pressure": [rep["register_pressure"][str(h)] for h in DEPTHS],
        "_counts": {"loads": loads, "executed": executed, "same": same,
                    "redundant": {f"{v}{h}": red(h, "ideal", v)["redundant"]
                                  for v in VARIANTS for h in DEPTHS},
                    "intra1": {s: red(1, s, "intra")["redundant"] for s in SCENARIOS},
                    "activation1": {s: red(1, s, "activation")["redundant"] for s in SCENARIOS},
                    "from_loads4": r4["from_loads"], "from_stores4": r4["from_stores"],
                    "predicted_loads": rep["loads_predicted"],
                    "predicted_reuse1": rep["predicted_reuse"]["1"],
                    "predicted_reuse4": rep["predicted_reuse"]["4"],
                    "values": values},
    }


def one(item, fuel, pipeline=PIPELINE) -> dict:
    name, kind, path = item
    t0 = time.process_time()
    row = {"program": name, "kind": kind}
    try:
        rec = evaluate(name, kind, path, [tuple(pipeline)], [], fuel)
        if rec["status"] != "ok":
            row.update(status=rec["status"], detail=rec.get("detail", "")[:120])
            return row
        base, opt = rec["versions"][0], rec["versions"][1]
        cases = [(tuple(a), tuple(i)) for a, i in rec["cases"]]
        module = prepare_program(kind, path)[0]
        rep, results = simulate(module, cases, fuel)
        if rep is None:
            row.update(status="original not run", detail="the observed run did not complete")
            return row
        row.update(status="ok", **figures(rep))
        row["captured"] = captured(module, results, row["_counts"])
        assert base["pipeline"] == ORIGINAL and rep["loads"] <= base["loads"]
        pre = {"verdict": opt["verdict"], "loads_before": base["loads"]}
        if opt["verdict"] == IDENTICAL:
            removed = base["loads"] - opt["loads"]
            c = row["_counts"]["redundant"]
            pre.update(loads_after=opt["loads"], removed=removed,
                       removed_pct=pct(removed, base["loads"]),
                       complete_intra_h1=pct(removed, c["intra1"]),
                       complete_activation_h1=pct(removed, c["activation1"]),
                       complete_activation_calls_h1=pct(
                           removed, row["_counts"]["activation1"]["calls"]),
                       complete_whole_h4=pct(removed, c["whole4"]))
        row["pre"] = pre
    except Exception as exc:  # a crash is a finding for its row, not a reason to stop
        row.update(status="crash", detail=f"{type(exc).__name__}: {exc}"[:200])
    row["cpu_seconds"] = round(time.process_time() - t0, 1)
    return row


def totals(rows: list) -> dict:
    ok = [r for r in rows if r.get("status") == "ok"]
    if not ok:
        return {}
    c = [r["_counts"] for r in ok]
    loads = sum(x["loads"] for x in c)

    def total(key):
        return sum(x["redundant"][key] for x in c)

    def mean(values):
        values = [v for v in values if v is not None]
        return round(sum(values) / len(values), 2) if values else None
    kinds = sorted({k for x in c for k in x["values"]})
    kind_rows = {k: [x["values"][k] for x in c if k in x["values"]] for k in kinds}
    pre_rows = [r for r in ok if r["pre"].get("verdict") == IDENTICAL]
    pre_c = [r["_counts"] for r in pre_rows]
    removed = sum(r["pre"]["removed"] for r in pre_rows)
    r4 = total("whole4")
    est_rows = [r for r in ok if "average" in r.get("captured", {})]
    est_c = [r["_counts"]["redundant"] for r in est_rows]
    average = sum(r["captured"]["average"] for r in est_rows)
    return {
        "programs": len(ok), "loads": loads,
        "reuse": {v: [pct(total(f"{v}{h}"), loads) for h in DEPTHS] for v in VARIANTS},
        "reuse_mean": {v: [mean(r["reuse"][v][k] for r in ok) for k in range(4)]
                       for v in VARIANTS},
        "table81": {"reuse": pct(r4, loads),
                    "from_loads": pct(sum(x["from_loads4"] for x in c), r4),
                    "from_stores": pct(sum(x["from_stores4"] for x in c), r4)},
        "scenarios": {s: pct(sum(x["intra1"][s] for x in c), loads) for s in SCENARIOS},
        "scenarios_activation": {s: pct(sum(x["activation1"][s] for x in c), loads)
                                 for s in SCENARIOS},
        "same_value": {"all": pct(sum(x["same"] for x in c), sum(x["executed"] for x in c)),
                       "max_program": max((r["same_value"]["all"] or 0) for r in ok),
                       **{k: pct(sum(v["same_as_previous"] for v in kind_rows[k]),
                                 sum(v["executed"] for v in kind_rows[k])) for k in kinds}},
        "predicted": {"loads": {p: pct(sum(x["predicted_loads"][p] for x in c), loads)
                                for p in PREDICTORS},
                      "reuse_h1": {p: pct(sum(x["predicted_reuse1"][p] for x in c),
                                          total("whole1")) for p in PREDICTORS},
                      "reuse_h4": {p: pct(sum(x["predicted_reuse4"][p] for x in c), r4)
                                   for p in PREDICTORS}},
        "captured": {"programs": len(est_rows),
                     "lower": sum(r["captured"]["lower"] for r in est_rows),
                     "upper": sum(r["captured"]["upper"] for r in est_rows), "average": average,
                     "of_intra": [pct(average, sum(x[f"intra{h}"] for x in est_c))
                                  for h in DEPTHS],
                     "of_activation_h1": pct(average, sum(x["activation1"] for x in est_c)),
                     "of_intra_h1_mean": mean(r["captured"]["of_intra"][0] for r in est_rows)},
        "register_pressure_max": max(max(r["register_pressure"]) for r in ok),
        "register_pressure_mean_h1": mean(r["register_pressure"][0] for r in ok),
        "pre": {"programs": len(pre_rows), "removed": removed,
                "loads": sum(r["pre"]["loads_before"] for r in pre_rows),
                "removed_pct": pct(removed, sum(r["pre"]["loads_before"] for r in pre_rows)),
                "complete_intra_h1": pct(removed, sum(x["redundant"]["intra1"] for x in pre_c)),
                "complete_activation_h1": pct(removed, sum(x["redundant"]["activation1"]
                                                           for x in pre_c)),
                "complete_activation_calls_h1": pct(removed, sum(x["activation1"]["calls"]
                                                                 for x in pre_c)),
                "complete_whole_h4": pct(removed, sum(x["redundant"]["whole4"] for x in pre_c)),
                "complete_intra_h1_mean": mean(r["pre"]["complete_intra_h1"] for r in pre_rows),
                "complete_activation_h1_mean": mean(r["pre"]["complete_activation_h1"]
                                                    for r in pre_rows),
                "programs_over_100": sum(1 for r in pre_rows
                                         if (r["pre"]["complete_activation_h1"] or 0) > 100)},
    }


def coverage(record: str, raws: list[str]) -> dict:
    """Totals over the programs of the raw run files ``raws`` (``runs/raw/limit-*.json``, rows
    with counts), per corpus kind and in all, written into ``record`` (a ``runs/limit-*.json``)
    as its ``coverage`` block: summaries only, beside the thesis's numbers."""
    import json
    rows, commands = {}, []
    for path in raws:
        with open(path) as fh:
            data = json.load(fh)
        commands.append(data["command"])
        for r in data["programs"]:
            rows[(r["kind"], r["program"])] = r      # a program in two parts: the later run
    rows = list(rows.values())
    kinds = sorted({r["kind"] for r in rows})

    def block(part):
        status = {}
        for r in part:
            status[r.get("status")] = status.get(r.get("status"), 0) + 1
        t = totals(part)
        keep = ("programs", "loads", "reuse", "reuse_mean", "table81", "scenarios", "pre",
                "captured", "same_value", "register_pressure_max")
        return {"status": status, **{k: t[k] for k in keep if k in t}}
    with open(record) as fh:
        data = json.load(fh)
    data["coverage"] = {"commands": commands,
                        "merge": command_line("benchmarks.limit", ["--merge", os.path.relpath(record)]
                                             + [os.path.relpath(p) for p in raws]),
                        "thesis": THESIS, "all": block(rows),
                        "by_kind": {k: block([r for r in rows if r["kind"] == k]) for k in kinds}}
    with open(record, "w") as fh:
        fh.write(run_text(data) + "\n")
    return data["coverage"]


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--merge"]:       # --merge RECORD RAW...
        cov = coverage(argv[1], argv[2:])
        print({k: cov["all"].get(k) for k in ("programs", "table81", "pre", "captured")})
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csmith", default="1-20")
    ap.add_argument("--torture", default="40", help="a torture sample (benchmarks.optimize)")
    ap.add_argument("--real", default="all", help="benchmarks/real programs (globs or all)")
    ap.add_argument("--fuel", type=int, default=FUEL)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--workdir", default=DEFAULT_WORKDIR)
    ap.add_argument("--name", default="reuse", help="writes runs/limit-NAME.json")
    ap.add_argument("--pipeline", default=",".join(PIPELINE),
                    help="the PRE pipeline whose removed loads are measured")
    args = ap.parse_args(argv)
    pipeline = tuple(args.pipeline.split(","))
    items = corpus(False, args.csmith, args.torture, args.workdir, real=args.real)
    rows = [None] * len(items)

    def show(k, row):
        rows[k] = row
        if row.get("status") == "ok":
            print(f"{row['program']:32} loads={row['loads']:>9} reuse(h1..4)={row['reuse']['whole']} "
                  f"intra={row['reuse']['intra']} activation={row['reuse']['activation']} "
                  f"pre={row['pre']} captured={row['captured'].get('of_intra')}", flush=True)
        else:
            print(f"{row['program']:32} {row.get('status')}: {row.get('detail', '')}", flush=True)
    if args.jobs <= 1:
        for k, item in enumerate(items):
            show(k, one(item, args.fuel, pipeline))
    else:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            futures = [pool.submit(one, item, args.fuel, pipeline) for item in items]
            for k, f in enumerate(futures):
                show(k, f.result())
    summary = totals(rows)
    command = command_line("benchmarks.limit", argv)
    write_run(f"raw/limit-{args.name}.json", {"command": command, "programs": rows})
    for r in rows:          # the raw file keeps the counts (for --merge), the record does not
        r.pop("_counts", None)
    write_run(f"limit-{args.name}.json", {
        "command": command, "pipeline": ",".join(pipeline),
        "settings": {"csmith": args.csmith, "torture": args.torture, "real": args.real,
                     "fuel": args.fuel, "depths": list(DEPTHS), "scenarios": list(SCENARIOS)},
        "thesis": THESIS, "totals": summary, "programs": rows})
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
