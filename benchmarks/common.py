"""Shared helpers for the benchmarks: machine facts and writing figures to runs/."""
from __future__ import annotations

import datetime
import json
import os
import platform
import resource
import shlex
import sys
import time
from pathlib import Path

RUNS = Path(__file__).resolve().parent.parent / "runs"


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's reaped child processes so far, their
    threads included: a subprocess's or a forked worker's cost, read before and after it."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


#: Iterations of ``host_python_seconds``' loop (in a function: 0.36-0.39 s on the 2-core machine
#: at a time the same loop at a module's top level, on globals, took 0.97 s)
HOST_LOOP = 10 ** 7


def host_python_seconds(n: int = HOST_LOOP) -> float:
    """CPU seconds of a fixed pure-Python loop (``n`` additions) now: how fast this host runs the
    interpreter at this moment. The speed harnesses record it beside their ratios because the
    shared host's speed for Python moves by up to 2x within an hour while opt-14's moves less
    (issue #28 item 1, stop 55: the loop at a module's top level 0.70 s, then 1.1-1.45 s an hour
    later; our medians 0.259 -> 0.356 s CPU, opt-14's 0.024 -> 0.030 s), so two ratios compare
    only at like readings."""
    start = time.process_time()
    total = 0
    for i in range(n):
        total += i
    return round(time.process_time() - start, 3)


def machine_info() -> dict:
    return {"python": platform.python_version(), "machine": platform.machine(),
            "processor": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
            "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}


def run_text(x, level: int = 0) -> str:
    """The JSON of a file in runs/: dicts indented to the third level, a list of dicts or lists
    one element a line, the rest compact (a figure a line would double a run file)."""
    pad = " " * (level + 1)
    if isinstance(x, dict) and x and level < 3:
        return ("{\n" + ",\n".join(f"{pad}{json.dumps(k)}: {run_text(v, level + 1)}"
                                    for k, v in x.items()) + "\n" + " " * level + "}")
    if isinstance(x, list) and any(isinstance(e, (dict, list)) for e in x):
        return ("[\n" + ",\n".join(pad + json.dumps(e, separators=(",", ":")) for e in x)
                + "\n" + " " * level + "]")
    return json.dumps(x, separators=(",", ":"))


def command_line(module: str, argv: list[str] | None = None) -> str:
    """The command that reproduces a run of the benchmark ``module`` (``benchmarks.x``) given
    ``argv`` (``sys.argv[1:]`` when None): what every runs/ file records under "command"
    (issue #27 item 7: runs/ is a record; tests/package/test_runs_record.py)."""
    return shlex.join(["python3", "-m", module, *(sys.argv[1:] if argv is None else argv)])


def then_command(payload: dict, step: str) -> str:
    """The "command" of ``payload`` once ``step`` (a command that derives a block of the run
    file from the run, e.g. ``benchmarks.pre --summarise``) has run: the run's command, then each
    step once, joined by "; "."""
    steps = [c for c in (payload.get("command") or "").split("; ") if c]
    return "; ".join(steps + [step] * (step not in steps))


def _recorded(payload: dict) -> dict:
    if not payload.get("command") and not payload.get("commands"):
        raise ValueError("a runs/ file records the command that reproduces it: give the payload "
                         "a \"command\" (benchmarks.common.command_line)")
    return payload


def write_run(name: str, payload: dict) -> Path:
    """Write ``payload`` (with its "command", command_line) to runs/``name`` (or to ``name``
    when it is a path; runs/raw/ for git-ignored detail), after the machine's facts."""
    path = RUNS / name
    path.parent.mkdir(parents=True, exist_ok=True)      # runs/ or runs/raw/
    path.write_text(run_text({"machine": machine_info(), **_recorded(payload)}) + "\n")
    return path


# ------------------------------------------- harness run files: summary in runs/, raw beside it
# A run of the optimization harness (benchmarks/optimize.py and the benchmarks built on it) holds
# per program, per version figures. runs/<name>.json, committed, is its summary: the run's
# metadata and summary blocks, and per program one line, a row of the fields "program_fields"
# names, its versions rows of the figures "version_fields" names (pipeline and verdict as
# indices into "version_values"); runs/raw/<name>.json, git-ignored, is the whole output (issue
# #27: runs/ a record, not a dump). read_record gives either back with programs and versions as
# dicts.

#: Version keys only the raw output keeps: the side (the label says it), the passes' own records
#: and their time.
RAW_VERSION_KEYS = ("side", "passes", "pass_seconds")
#: Program keys only the raw output keeps: the driver's argument lists.
RAW_PROGRAM_KEYS = ("cases",)
#: Keys anywhere in a run's derived blocks (pre, llvm_wins, ...) only the raw output keeps: per
#: program rows copied or derived from the versions' figures (benchmarks.pre --summarise makes
#: them again from a summary).
RAW_DERIVED_KEYS = ("evaluations_per_program", "per_program")
#: Version fields a summary holds as an index into its list of their values (few values, long).
INTERNED = ("pipeline", "verdict")


def record_paths(path: str | Path) -> tuple[Path, Path]:
    """(summary, raw) of a run file named by either: ``DIR/name.json`` and ``DIR/raw/name.json``."""
    path = Path(path)
    if path.parent.name == "raw":
        return path.parent.parent / path.name, path
    return path, path.parent / "raw" / path.name


def _is_harness_run(payload: dict) -> bool:
    programs = payload.get("programs")
    return isinstance(programs, list) and any(isinstance(r, dict) and "versions" in r
                                              for r in programs)


def _has_raw_detail(payload: dict) -> bool:
    """Whether ``payload`` holds what only a raw output holds (not a summary read back)."""
    return _is_harness_run(payload) and any(
        any(k in r for k in RAW_PROGRAM_KEYS)
        or any(k in v for v in r.get("versions", []) for k in RAW_VERSION_KEYS)
        for r in payload["programs"])


def _without_derived_rows(block):
    if isinstance(block, dict):
        return {k: _without_derived_rows(x) for k, x in block.items() if k not in RAW_DERIVED_KEYS}
    return block


def _program_figures(r: dict) -> dict:
    """One program's record without RAW_PROGRAM_KEYS, the functions its driver calls and the
    constants a claim misses (their counts stay)."""
    rec = {k: x for k, x in r.items() if k not in RAW_PROGRAM_KEYS}
    if isinstance(rec.get("driver"), dict):
        rec["driver"] = {k: x for k, x in rec["driver"].items() if k != "functions"}
    if rec.get("claim"):
        rec["claim"] = {p: {k: x for k, x in c.items() if k != "missing_first"}
                        for p, c in rec["claim"].items()}
    return rec


def _row(d: dict, fields: list) -> list:
    row = [d.get(f) for f in fields]
    while row and row[-1] is None:
        row.pop()
    return row


def summary_record(payload: dict) -> dict:
    """``payload``, a harness run (raw, or read back from a summary), as its summary: its blocks
    without RAW_DERIVED_KEYS; per program a row of its figures (_program_figures) in the order
    of ``program_fields``, each version a row in the order of ``version_fields`` (the keys met,
    in the order met, but RAW_VERSION_KEYS; INTERNED ones as indices into ``version_values``),
    trailing missing figures left off."""
    if "version_fields" in payload or not _is_harness_run(payload):
        return payload
    programs = [_program_figures(r) for r in payload["programs"]]
    pfields, vfields, values = {}, {}, {f: {} for f in INTERNED}
    for r in programs:
        pfields.update((k, None) for k in r if k != "versions")
        for v in r.get("versions", []):
            vfields.update((k, None) for k in v if k not in RAW_VERSION_KEYS)
            for f, seen in values.items():
                seen.setdefault(v[f], len(seen))
    pfields, vfields = list(pfields) + ["versions"], list(vfields)
    rows = []
    for r in programs:
        versions = [_row(dict(v, **{f: values[f][v[f]] for f in INTERNED}), vfields)
                    for v in r.get("versions", [])]
        rows.append(_row(dict(r, versions=versions), pfields))
    out = {k: _without_derived_rows(x) for k, x in payload.items() if k != "programs"}
    out.update(program_fields=pfields, version_fields=vfields,
               version_values={f: list(seen) for f, seen in values.items()}, programs=rows)
    return out


def expanded(payload: dict) -> dict:
    """A summary with its programs and versions as dicts (missing figures left out); a raw run
    as it is."""
    if "version_fields" not in payload:
        return payload
    pfields, vfields, values = (payload[k] for k in ("program_fields", "version_fields",
                                                     "version_values"))

    def version(row):
        v = {f: x for f, x in zip(vfields, row) if x is not None}
        v.update((f, values[f][v[f]]) for f in values)
        return v

    def program(row):
        r = {f: x for f, x in zip(pfields, row) if x is not None}
        r["versions"] = [version(v) for v in r.get("versions", [])]
        return r
    out = {k: x for k, x in payload.items()
           if k not in ("program_fields", "version_fields", "version_values")}
    out["programs"] = [program(row) for row in payload["programs"]]
    return out


def read_record(path: str | Path) -> dict:
    """A harness run file, summary or raw, with its programs and versions as dicts."""
    with open(path) as fh:
        return expanded(json.load(fh))


def write_record(path: str | Path, payload: dict) -> Path:
    """Write the harness run ``payload``: its summary to the summary path of ``path`` and, when
    it holds raw detail, the whole of it to the raw path (record_paths). Returns the summary's
    path."""
    summary_path, raw_path = record_paths(path)
    _recorded(payload)
    if _has_raw_detail(payload):
        raw_path.parent.mkdir(parents=True, exist_ok=True)
        raw_path.write_text(json.dumps(payload, indent=1) + "\n")
    summary_path.parent.mkdir(parents=True, exist_ok=True)
    summary_path.write_text(run_text(summary_record(payload)) + "\n")
    return summary_path


def store_derived(run_path: str, payload: dict, key: str, result, out: str | None = None,
                  command: str = "") -> None:
    """Write ``result``, derived from the run file ``run_path`` (already read as ``payload``) by
    ``command`` (command_line), to ``out`` when given, else back into the run file under
    ``key``, its command after the run's (then_command)."""
    if out:
        with open(out, "w") as fh:
            json.dump({"command": command, key: result}, fh, indent=1)
            fh.write("\n")
    else:
        payload[key] = result
        payload["command"] = then_command(payload, command)
        write_record(run_path, payload)


def growth_exponent(sizes: list[float], costs: list[float]) -> float | None:
    """Least-squares slope of log(cost) against log(size): cost ~ size^slope."""
    import math
    pts = [(math.log(s), math.log(c)) for s, c in zip(sizes, costs) if s > 0 and c > 0]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / den if den else None


def fitted_exponent(points, digits: int = 2) -> float | None:
    """cost ~ size^k over (size, cost) points: ``growth_exponent`` rounded to ``digits``; None
    from fewer than two usable points (what every benchmark's summary records)."""
    k = growth_exponent([x for x, _ in points], [y for _, y in points])
    return None if k is None else round(k, digits)
