"""Choosing the execution engine: ``run_with(engine, module, ...)`` for ``interp``, ``native``
or ``auto`` (the default of ``run``, ``validate`` and the optimization harness).

``auto`` is a cost model (issue #32 item 5). Compiling a module costs about
``compile_seconds_per_instruction() * size`` CPU seconds, whatever the run does; interpreting
costs what the run does. So the reference interpreter runs first, in slices of ``AUTO_SLICE``
instructions (``run_module(pause=...)``: a slice boundary costs nothing and the run goes on
where it was, nothing is interpreted twice); after each slice, with ``t`` the CPU seconds spent
so far and ``C`` the predicted compile cost:

* when even running to the end of the fuel at the rate seen so far costs less than ``C``, the
  interpreter finishes the run (compiling cannot pay off);
* otherwise, once ``t >= SWITCH * C``, the run is abandoned and run again natively (from the
  start: interpreted work is lost), compiling only the *precise* variant
  (``run_module_native(variants=(True,))``): it gives the exact result whether the run ends
  normally or by fuel, where the fast variant must be followed by the precise one when the fuel
  runs out (about 2.2 ``C``; the long runs of the corpora are mostly fuel-bound).

Without knowing a run's length, no rule is within 10% of the better engine on every run (a
run ending just after the switch pays ``t + C`` against ``t``): ``SWITCH`` trades the two
sides. A long run costs at most about ``(SWITCH + 1) * C`` against native's ``C`` (plus the
precise variant's ``0.2 C`` and ``C`` again when the fuel runs out); a run ending between
``SWITCH * C`` and ``(SWITCH + 1) * C`` of interpretation costs up to ``1 + 1 / SWITCH`` times
the interpreter. Measured (benchmarks/exec_auto.py, runs/exec-auto.json): the programs of the
corpora end well before ``SWITCH * C`` or run to the fuel. A module already compiled (an earlier
run of the same module object) runs natively at once; one the native engine cannot take runs
in the interpreter. Either way the result is what ``run_module`` gives; ``RunResult.engine``
says which engine produced it.
"""
from __future__ import annotations

import sys
import time

from pylogic.interp.defaults import DEFAULT_FUEL
from pylogic.ir.model import uses_exit_splitting

#: the native engine's module, which imports llvmlite: loaded only when code is compiled, so a
#: run that stays in the interpreter never imports it
_ENGINE = "pylogic.interp.native.engine"


def _compiled_for(module, precise: bool):
    """The native engine's cached machine (or NativeUnavailable) for ``module``; None while
    there is none (or the engine was never loaded)."""
    engine = sys.modules.get(_ENGINE)
    return engine.MACHINES.get(module, precise) if engine is not None else None


def run_module_native(*a, **kw):
    from pylogic.interp.native.engine import run_module_native as run
    return run(*a, **kw)


def run_module(*a, **kw):
    from pylogic.interp.machine import run_module as run
    return run(*a, **kw)

ENGINES = ("auto", "interp", "native")
#: instructions per interpreter slice of ``auto`` (a decision after each: about 20 ms)
AUTO_SLICE = 100_000
#: ``auto`` switches to native code once the interpreter has spent this fraction of the
#: predicted compile cost (see the module docstring for the trade-off)
SWITCH = 0.8
#: CPU seconds per PIR instruction of compiling the precise variant, before any compilation was
#: measured in this process (csmith programs of 500-7,500 instructions: 1.6-2.2e-4 s)
COMPILE_SECONDS_PER_INSTRUCTION = 2e-4
_measured: list = []  # (CPU seconds, instructions) of the precise compilations seen so far


def module_size(module) -> int:
    """PIR instructions of the defined functions (what the native compiler translates)."""
    return sum(len(b.instrs) for f in module.functions if not f.extern for b in f.blocks)


def compile_seconds_per_instruction() -> float:
    """The compile cost per instruction: measured in this process when there is a measurement
    (the latest few precise compilations), else ``COMPILE_SECONDS_PER_INSTRUCTION``."""
    recent = _measured[-8:]
    size = sum(n for _s, n in recent)
    if not size:
        return COMPILE_SECONDS_PER_INSTRUCTION
    return sum(s for s, _n in recent) / size


def _record_compile(module) -> None:
    hit = _compiled_for(module, True)
    if hasattr(hit, "compile_seconds"):
        _measured.append((hit.compile_seconds, max(1, module_size(module))))
        del _measured[:-8]


def _compiled(module) -> tuple:
    """The variants to run ``module`` with when a compiled one is cached (running natively
    then costs no compilation): the precise one alone if only it is, else fast then precise;
    () when none is."""
    cached = [precise for precise in (False, True)
              if (hit := _compiled_for(module, precise)) is not None
              and not isinstance(hit, Exception)]
    return () if not cached else (True,) if cached == [True] else (False, True)


def _native_unavailable(module) -> bool:
    if uses_exit_splitting(module):
        return True
    hit = _compiled_for(module, False) or _compiled_for(module, True)
    return isinstance(hit, Exception)


def run_with(engine: str, module, entry: str = "main", args=(), inputs=(),
             fuel: int = DEFAULT_FUEL, **kw):
    """``run_module(module, ...)`` on the chosen engine (``ENGINES``); the same result."""
    if engine == "interp":
        res = run_module(module, entry=entry, args=args, inputs=inputs, fuel=fuel, **kw)
        res.engine = "interp"
        return res
    if engine == "native":
        return run_module_native(module, entry=entry, args=args, inputs=inputs, fuel=fuel,
                                 **kw)
    if engine != "auto":
        raise ValueError(f"unknown engine {engine!r} (one of {', '.join(ENGINES)})")
    args, inputs = tuple(args), tuple(inputs)
    variants = _compiled(module)
    if variants:
        return run_module_native(module, entry=entry, args=args, inputs=inputs, fuel=fuel,
                                 variants=variants, **kw)
    t0 = time.process_time()
    cost = []  # the predicted compile cost, worked out when the run outlasts its first slice

    def pause(executed: int) -> int:
        if not cost:
            if _native_unavailable(module):
                return fuel
            cost.append(compile_seconds_per_instruction() * module_size(module))
        spent = max(time.process_time() - t0, 1e-6)
        if (fuel - executed) * spent / executed <= cost[0]:
            return fuel  # interpreting to the end of the fuel is the cheaper bound
        return 0 if spent >= SWITCH * cost[0] else AUTO_SLICE
    res = run_module(module, entry=entry, args=args, inputs=inputs, fuel=fuel, pause=pause,
                     first_slice=AUTO_SLICE, **kw)
    if res is not None:
        res.engine = "interp"
        return res
    res = run_module_native(module, entry=entry, args=args, inputs=inputs, fuel=fuel,
                            variants=(True,), **kw)
    _record_compile(module)
    return res


def runner(engine: str):
    """A ``run_module``-compatible callable running on ``engine``."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r} (one of {', '.join(ENGINES)})")

    def run(module, *a, **kw):
        return run_with(engine, module, *a, **kw)
    return run
