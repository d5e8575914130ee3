"""Fresh register and predicate names for passes that add them (if-conversion, predicated CP):
every name a function or its module already uses, and a supply of new ones that avoid them."""
from __future__ import annotations

from pylogic.flow.block_access import block_access
from pylogic.ir.model import TRUE_PREDICATES, Function, GlobalAddr, Module


def used_names(fn: Function, module: Module) -> set:
    """Parameters, labels, globals, functions, every register and predicate read or written (a
    block's from its ``block_access`` and ``_global_operands``, kept per block object: a pass
    asks for the functions whose blocks the last one mostly left alone)."""
    used = set(fn.params) | {b.label for b in fn.blocks} | {g.name for g in module.globals}
    used |= {f.name for f in module.functions} | set(TRUE_PREDICATES)
    for b in fn.blocks:
        used.update(block_access(b).registers)     # reads (guards too) and writes
        used.update(b.derived("_global_operands", _global_operands))
    return used


def _global_operands(block) -> frozenset:
    """The names of the globals ``block``'s instructions take the address of."""
    return frozenset(op.name for ins in block.instrs for op in ins.uses()
                     if type(op) is GlobalAddr)


class FreshNames:
    """``fresh(base)``: ``base`` itself if unused, else ``base.2``, ``base.3``, ..."""

    def __init__(self, used: set):
        self.used = used

    def fresh(self, base: str) -> str:
        name, n = base, 1
        while name in self.used:
            n += 1
            name = f"{base}.{n}"
        self.used.add(name)
        return name


class LazyFreshNames(FreshNames):
    """``FreshNames(used_names(fn, module))``, the names collected at the first ``fresh``: a pass
    that adds none to most functions skips the walk (cbe and exit splitting, every function of
    every icbe round: 302 walks on csmith-32, issue #28 item 1)."""

    def __init__(self, fn: Function, module: Module):
        self._of = (fn, module)
        self._used: set | None = None

    @property
    def used(self) -> set:
        if self._used is None:
            self._used = used_names(*self._of)
        return self._used
