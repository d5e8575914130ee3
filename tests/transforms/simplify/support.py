"""Shared by the simplify tests: a PIR text through ``optimize(["simplify"])``, verified."""
from pylogic.analysis.optimize import optimize
from pylogic.ir.parser import parse_module
from pylogic.ir.verify import verify_module


def simplify_result(text: str):
    """``(parsed module, Optimization)`` of ``simplify`` on ``text``; the result verifies."""
    module = parse_module(text, "t.pir")
    result = optimize(module, ["simplify"], "t.pir", engine="clingo")
    assert verify_module(result.module) == []
    return module, result


def simplified(text: str):
    """``(parsed module, simplified module)``."""
    module, result = simplify_result(text)
    return module, result.module
