"""Dynamic evaluations of expressions and loads: what PRE removes (PathFinder §6.6 counts
"dynamic user computations"). Copies (``mov``) are not evaluations: PRE turns a redundant
computation into a copy of its temporary, which register coalescing would remove.

Counted from the interpreter's block profile: each block entry executes all of the block's
instructions when no block has a side exit (a branch before its last instruction, as after
if-conversion); for such modules the count is not defined here and ``None`` is returned.

Example
-------
>>> result = run_module(module, capture_profile=True)             # doctest: +SKIP
>>> expression_evaluations(module, result)                         # doctest: +SKIP
{'expressions': 120, 'loads': 40}
"""
from __future__ import annotations

from typing import Optional

from pylogic.flow.value_names import expression_of, is_load
from pylogic.identity_cache import IdentityCache
from pylogic.interp.result import RunResult
from pylogic.ir.model import Module, branch_targets


#: The last modules counted -> their _static. A harness counts one version once per function it
#: runs (300 functions: 300 sweeps of every block's expressions without it).
_RECENT = IdentityCache(8)


def _static(module: Module) -> Optional[dict]:
    """``{(function, label): (expressions, loads)}``, or None when some block has a side exit."""
    return _RECENT.get_or_compute(module, lambda: _count(module))


def _count(module: Module) -> Optional[dict]:
    out = {}
    for fn in module.defined_functions():
        for b in fn.blocks:
            if any(branch_targets(i) for i in b.instrs[:-1]):
                return None
            found = [expression_of(i) for i in b.instrs]
            loads = sum(1 for x in found if x is not None and is_load(x[1]))
            out[(fn.name, b.label)] = (sum(1 for x in found if x is not None) - loads, loads)
    return out


def expression_evaluations(module: Module, result: RunResult) -> Optional[dict]:
    """``{"expressions": n, "loads": m}`` evaluated in ``result`` (a profiled run of
    ``module``): arithmetic, compares and selects, and loads; None when not countable."""
    static = _static(module)
    if static is None or not result.block_profile:
        return None
    expressions = loads = 0
    for key, entries in result.block_profile.items():
        e, l = static.get(key, (0, 0))
        expressions += entries * e
        loads += entries * l
    return {"expressions": expressions, "loads": loads}
