"""Which functions a pass rewrites: every defined function, or the ones named (``--function``)."""
from __future__ import annotations

from typing import Iterable, Optional

from pylogic.errors import PathlogicError
from pylogic.ir.model import Function, Module


def wanted_functions(module: Module, functions: Optional[Iterable[str]], pass_name: str
                     ) -> Optional[list[str]]:
    """The names in ``functions`` as a list (None: every function); a clear error naming the
    pass for a name ``module`` does not define."""
    if functions is None:
        return None
    fmap = module.function_map()
    wanted = list(functions)
    for name in wanted:
        if name not in fmap or fmap[name].extern:
            raise PathlogicError(f"no function '{name}' for {pass_name}")
    return wanted


def rewrites(fn: Function, wanted: Optional[list[str]]) -> bool:
    """Whether a pass asked for ``wanted`` rewrites ``fn``: defined, and named if any are."""
    return not fn.extern and bool(fn.blocks) and (wanted is None or fn.name in wanted)
