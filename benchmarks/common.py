"""Shared helpers for the benchmarks: machine facts and writing figures to runs/."""
from __future__ import annotations

import datetime
import json
import os
import platform
from pathlib import Path

RUNS = Path(__file__).resolve().parent.parent / "runs"


def machine_info() -> dict:
    return {"python": platform.python_version(), "machine": platform.machine(),
            "processor": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
            "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}


def write_run(name: str, payload: dict) -> Path:
    RUNS.mkdir(exist_ok=True)
    path = RUNS / name
    path.write_text(json.dumps({"machine": machine_info(), **payload}, indent=2) + "\n")
    return path


def store_derived(run_path: str, payload: dict, key: str, result, out: str | None = None) -> None:
    """Write ``result``, derived from the run file ``run_path`` (already read as ``payload``), to
    ``out`` when given, else back into the run file under ``key``."""
    if out:
        target, data = out, result
    else:
        payload[key] = result
        target, data = run_path, payload
    with open(target, "w") as fh:
        json.dump(data, fh, indent=1)
        fh.write("\n")


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
