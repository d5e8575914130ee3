"""How much of the ideal load reuse our PRE pipelines capture on one run (PathFinder ch. 8,
§8.3 "PRE-completeness"; issue #31 items 2 and 4): each pipeline runs on the module, the result
runs on the same input, and the dynamic loads and expression evaluations it removes
(``analysis.evaluations``) are set against the ideal reuse the simulator found
(``interp.reuse``: intra-procedural and same-activation reuse at h = 1, ideal aliasing, as
``benchmarks/limit.py`` reports PRE-completeness).

Used by ``pathlogic run --reuse H --html``; the report only draws the numbers.
"""
from __future__ import annotations

from typing import Optional

from pylogic.errors import PathlogicError
from pylogic.ir.model import Module

#: The PRE pipelines compared (docs/passes.md "Pipelines"), the complete PRE last.
PIPELINES = ("pre-m", "pre-ms", "pre-mr", "simplify,pre-mr,simplify")


def share(removed: Optional[int], ideal: int) -> Optional[float]:
    """``removed`` as % of ``ideal`` (None when either is unknown or ``ideal`` is 0)."""
    if removed is None or not ideal:
        return None
    return round(100 * removed / ideal, 2)


def captured(module: Module, reuse: dict, *, entry: str = "main", args=(), inputs=(),
             fuel: Optional[int] = None, engine: str = "auto",
             pipelines=PIPELINES, base=None) -> dict:
    """``{"ideal": {"intra_h1", "activation_h1"}, "pipelines": [{pipeline, loads_removed,
    evaluations_removed, share_intra_h1, share_activation_h1, note}]}`` for ``reuse`` (an
    ``interp.reuse`` report of the same run, with depth 1). A pipeline whose output runs
    differently, fails, or cannot be counted (side exits) has ``note`` and no numbers.
    ``base``: the profiled ``RunResult`` of that run, when the caller has it (else it runs)."""
    from pylogic.analysis.evaluations import expression_evaluations
    from pylogic.analysis.optimize import optimize
    from pylogic.interp.machine import run_module
    args, inputs = tuple(args), tuple(inputs)
    kwargs = {"fuel": fuel} if fuel is not None else {}
    if base is None:
        base = run_module(module, entry, args, inputs, **kwargs)
    ideal = {"intra_h1": reuse["reuse"]["1"]["ideal"]["intra"]["redundant"],
             "activation_h1": reuse["reuse"]["1"]["ideal"]["activation"]["redundant"]}
    before = expression_evaluations(module, base)
    out = {"ideal": ideal, "loads": base.kinds.get("loads", 0), "pipelines": []}
    for text in pipelines:
        passes = text.split(",")
        row = {"pipeline": text, "loads_removed": None, "evaluations_removed": None,
               "share_intra_h1": None, "share_activation_h1": None, "note": ""}
        out["pipelines"].append(row)
        options = {"pre-ms": {"entry": entry, "args": args, "inputs": inputs}}
        try:
            new = optimize(module, passes, engine=engine,
                           options={p: o for p, o in options.items() if p in passes}).module
        except PathlogicError as exc:
            row["note"] = f"failed: {exc}"
            continue
        after = run_module(new, entry, args, inputs, **kwargs)
        if after.error is not None or after.observable() != base.observable():
            row["note"] = "its output runs differently on this input: not counted"
            continue
        removed = base.kinds.get("loads", 0) - after.kinds.get("loads", 0)
        row.update(loads_removed=removed, share_intra_h1=share(removed, ideal["intra_h1"]),
                   share_activation_h1=share(removed, ideal["activation_h1"]))
        counted = expression_evaluations(new, after)
        if before is not None and counted is not None:
            row["evaluations_removed"] = sum(before.values()) - sum(counted.values())
    return out
