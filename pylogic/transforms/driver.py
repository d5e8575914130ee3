"""The function-pass driver: which functions a pass rewrites (every defined function, or the ones
named by ``--function``), the pass's rewrite of each, and the new module with the record.

Every pass of the registry that works one function at a time runs through
:func:`run_per_function` (LLVM's function-pass manager in small: the pass says what it does to one
function, the driver chooses the functions, loops and rebuilds the module).

Example
-------
>>> def drop_nothing(fn):                                            # doctest: +SKIP
...     return fn, None
>>> new, record = run_per_function(module, None, TransformRecord("id"), drop_nothing)
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Iterable, Optional, Sequence, TypeVar

from pylogic.errors import PathlogicError
from pylogic.ir.model import Function, Module
from pylogic.transforms.record import TransformRecord

R = TypeVar("R", bound=TransformRecord)
#: ``rewrite(fn) -> (new function, the record entry of fn or None)``
Rewrite = Callable[[Function], tuple[Function, object]]


def wanted_functions(module: Module, functions: Optional[Iterable[str]], pass_name: str
                     ) -> Optional[list[str]]:
    """The names in ``functions`` as a list (None: every function); a clear error naming the
    pass and the defined functions for a name ``module`` does not define."""
    if functions is None:
        return None
    fmap = module.function_map()
    wanted = list(functions)
    for name in wanted:
        if name not in fmap or fmap[name].extern:
            defined = ", ".join(f.name for f in module.defined_functions()) or "none"
            raise PathlogicError(f"no function '{name}' for {pass_name} (defined: {defined})")
    return wanted


def rewrites(fn: Function, wanted: Optional[Iterable[str]]) -> bool:
    """Whether a pass asked for ``wanted`` rewrites ``fn``: defined, and named if any are."""
    return not fn.extern and bool(fn.blocks) and (wanted is None or fn.name in wanted)


def rewrite_functions(module: Module, wanted: Optional[Iterable[str]], rewrite: Rewrite, *,
                      order: Optional[Sequence[Function]] = None) -> tuple[Module, list]:
    """``(new module, entries)``: ``rewrite`` applied to every function of ``module`` that
    :func:`rewrites` for ``wanted``, visited in ``order`` (default: the module's; e.g. callees
    first, when a rewrite learns from the functions before it); the others are kept. The new
    module and the entries (None left out) follow the module's function order."""
    done, entries = {}, {}
    for fn in module.functions if order is None else order:
        if not rewrites(fn, wanted):
            continue
        done[fn.name], entry = rewrite(fn)
        if entry is not None:
            entries[fn.name] = entry
    new = dataclasses.replace(module, functions=tuple(done.get(fn.name, fn)
                                                      for fn in module.functions))
    return new, [entries[fn.name] for fn in module.functions if fn.name in entries]


def run_per_function(module: Module, functions: Optional[Iterable[str]], record: R,
                     rewrite: Rewrite, *, order: Optional[Sequence[Function]] = None
                     ) -> tuple[Module, R]:
    """``(new module, record)`` of a function pass: the functions named ``functions`` (None:
    every defined function; checked against ``module``, errors name ``record.transform``) are
    rewritten (:func:`rewrite_functions`); ``record.options["functions"]`` echoes the choice and
    the entries ``rewrite`` returns are appended to ``record.applied`` in module order (a
    rewrite may instead append its own entries, then it returns None)."""
    wanted = wanted_functions(module, functions, record.transform)
    record.options["functions"] = None if wanted is None else sorted(wanted)
    new, entries = rewrite_functions(module, wanted, rewrite, order=order)
    record.applied.extend(entries)
    return new, record
