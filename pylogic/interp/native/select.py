"""Choosing the execution engine: ``run_with(engine, module, ...)`` for ``interp``, ``native``
or ``auto`` (the default of ``run``, ``validate`` and the optimization harness).

``auto`` is tiered: the reference interpreter runs first with at most ``AUTO_SLICE``
instructions of fuel (most programs finish there, and pay no compilation); a run that needs
more is compiled and run natively with the full fuel (``run_module_native``, which itself
hands every run that does not end normally back to the interpreter). Either way the result is
what ``run_module`` gives; ``RunResult.engine`` says which engine produced it.
"""
from __future__ import annotations

from pylogic.interp.defaults import DEFAULT_FUEL

ENGINES = ("auto", "interp", "native")
#: instructions the interpreter runs before ``auto`` switches to native code (about 0.3 s)
AUTO_SLICE = 1_000_000


def _fuel_exhausted(res) -> bool:
    err = res.error
    return err is not None and str(getattr(err, "fault", err.message)).startswith(
        "fuel exhausted")


def run_with(engine: str, module, entry: str = "main", args=(), inputs=(),
             fuel: int = DEFAULT_FUEL, **kw):
    """``run_module(module, ...)`` on the chosen engine (``ENGINES``); the same result."""
    # imported here: choosing an engine (``ENGINES``) needs neither the interpreter nor llvmlite,
    # and a run that stays in the interpreter never imports llvmlite
    from pylogic.interp.machine import run_module
    if engine == "interp":
        res = run_module(module, entry=entry, args=args, inputs=inputs, fuel=fuel, **kw)
        res.engine = "interp"
        return res
    if engine == "native":
        from pylogic.interp.native.engine import run_module_native
        return run_module_native(module, entry=entry, args=args, inputs=inputs, fuel=fuel,
                                 **kw)
    if engine != "auto":
        raise ValueError(f"unknown engine {engine!r} (one of {', '.join(ENGINES)})")
    args, inputs = tuple(args), tuple(inputs)
    if fuel > AUTO_SLICE:
        res = run_module(module, entry=entry, args=args, inputs=inputs, fuel=AUTO_SLICE, **kw)
        if not _fuel_exhausted(res):
            res.engine = "interp"
            return res
    else:
        res = run_module(module, entry=entry, args=args, inputs=inputs, fuel=fuel, **kw)
        res.engine = "interp"
        return res
    from pylogic.interp.native.engine import run_module_native
    return run_module_native(module, entry=entry, args=args, inputs=inputs, fuel=fuel, **kw)


def runner(engine: str):
    """A ``run_module``-compatible callable running on ``engine``."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r} (one of {', '.join(ENGINES)})")

    def run(module, *a, **kw):
        return run_with(engine, module, *a, **kw)
    return run
