"""Stable operands: an operand that has the same value wherever an SSA value built on it is read,
so a rule may compare or rebuild that SSA value's definition at another point (GVN's value
numbering, one level; LLVM's InstSimplify asks the same of its operands through SSA form).

Example
-------
``stable_operand(values, Imm(3))`` is True; so is a register written once, unguarded, whose
definition dominates every read (an SSA value), reached through copies (``values.leader``).

References: LLVM 14 GVN.cpp (value numbering of SSA values); InstructionSimplify.cpp.
"""
from __future__ import annotations

from pylogic.ir.model import Reg


def stable_operand(values, a) -> bool:
    """Whether operand ``a`` has the same value wherever an SSA value built on it is read: a
    literal, a global's address, or an SSA register (through copies).

    Parameters
    ----------
    values : a function's solved values with ``leader(operand)`` (the operand a copy stands
        for) and ``is_value(register)`` (an SSA value): ``flow.function_values.FunctionValues``.
    a : the operand (``Imm``, ``GlobalAddr`` or ``Reg``).

    Returns
    -------
    bool
    """
    a = values.leader(a)
    return not isinstance(a, Reg) or values.is_value(a.name)
