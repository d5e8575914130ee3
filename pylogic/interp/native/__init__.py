"""The native execution engine: PIR JIT-compiled through llvmlite, checked against the
reference interpreter (``run_module_native`` has ``pylogic.interp.run_module``'s signature and
result; runs that do not end normally are replayed in the interpreter).

``ENGINES`` (an ``--engine`` option's choices) comes without llvmlite: the engine module is
imported on first use (PEP 562)."""
from pylogic.interp.native.select import ENGINES, run_with, runner

__all__ = ["run_module_native", "NativeUnavailable", "ENGINES", "run_with", "runner"]


def __getattr__(name):
    if name in ("run_module_native", "NativeUnavailable"):
        from pylogic.interp.native import engine
        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
