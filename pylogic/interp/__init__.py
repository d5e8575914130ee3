"""The reference interpreter of PIR (docs/pir.md): ``run_module(module, ...) -> RunResult``."""
from pylogic.errors import RunError
from pylogic.interp.machine import Machine, run_module
from pylogic.interp.result import RunResult

__all__ = ["run_module", "RunResult", "RunError", "Machine"]
