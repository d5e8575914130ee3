"""The reference interpreter of PIR (docs/pir.md): ``run_module(module, ...) -> RunResult``.

The interpreter is imported on first use (PEP 562), so ``pylogic.interp.defaults`` and the other
light modules of the package load without it."""
from pylogic.errors import RunError

__all__ = ["run_module", "RunResult", "RunError", "Machine"]

_LAZY = {"run_module": "machine", "Machine": "machine", "RunResult": "result"}


def __getattr__(name):
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(f"pylogic.interp.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
