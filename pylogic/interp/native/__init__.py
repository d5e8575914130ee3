"""The native execution engine: PIR JIT-compiled through llvmlite, checked against the
reference interpreter (``run_module_native`` has ``pylogic.interp.run_module``'s signature and
result; runs that do not end normally are replayed in the interpreter)."""
from pylogic.interp.native.engine import NativeUnavailable, run_module_native
from pylogic.interp.native.select import ENGINES, run_with, runner

__all__ = ["run_module_native", "NativeUnavailable", "ENGINES", "run_with", "runner"]
