"""Read-only globals: the globals of a module nothing can write (``const`` ones, and those whose
address only ever reaches loads, compares and the sources of ``memcpy``-like calls), so a load
of them reads their initial bytes wherever it runs.

Two criteria, both sound, neither contains the other: ``readonly_globals`` follows addresses
through every register derived from a global (copies, ``add``/``sub`` of any offset: a table
indexed by a loop counter), accepts compares and the ``_chk`` copies, but only unguarded uses and
callees spelled ``memcpy``/``memmove``; ``loaded_only_globals`` accepts guarded loads and the
LLVM intrinsics (``llvm.memcpy.*``, ``ir.ops.builtin_name``) but follows only one ``add G, C``
register. PRE's facts read the first; simplify folds loads of either
(``simplify.readonly_globals``). One criterion with the strengths of both would change what
each pass does (more globals read-only), so both stay until a change of results is wanted.

Example
-------
>>> from pylogic.ir.parser import parse_module
>>> m = parse_module("global t[4]\\nglobal u[4]\\nfunc main() {\\ne:\\n x = load.1 t\\n"
...                  " store.1 u, x\\n ret 0\\n}\\n")
>>> sorted(readonly_globals(m))
['t']

References: C's object rules as LLVM 14 uses them (``constant`` globals; BasicAA: no pointer to an
object whose address never escapes); docs/pir.md "Extensions" (``const global``).
"""
from __future__ import annotations

from collections import Counter

from pylogic.flow.address_roots import GLOBAL, global_roots
from pylogic.flow.memory_writes import COPY_BUILTINS, MEMORY_COPIES, memory_writer
from pylogic.ir.model import BinOp, Call, Cmp, GlobalAddr, Imm, Instr, Load, Module, Mov, Reg
from pylogic.ir.ops import builtin_name


def readonly_globals(module) -> frozenset[str]:
    """Globals of ``module`` nothing can write: in every defined function their address (and
    every register ``global_roots`` derives from it) is only a load address, compared, or
    derived into such a register -- never stored, stored to, passed, returned or selected, so
    no pointer to them exists outside (``const`` tables such as gcc torture ashrdi-1's
    ``zext``: LLVM's memory dependence knows it); and every ``const global`` (docs/pir.md
    "Extensions"), whatever its uses. The source of a ``memcpy``/``memmove`` (``MEMORY_COPIES``,
    not defined in the module) is read too."""
    written = written_globals(module)
    # a const global is never written: a write into it faults
    return frozenset(g.name for g in module.globals if g.name not in written or g.const)


def written_globals(module, skip: frozenset = frozenset()) -> set[str]:
    """Globals some defined function (but those in ``skip``) may write (``readonly_globals``)."""
    written: set[str] = set()
    defined = frozenset(fn.name for fn in module.functions if not fn.extern)
    for fn in module.functions:
        if fn.extern or not fn.blocks or fn.name in skip:
            continue
        groots = global_roots(fn)

        def root(a):
            if isinstance(a, GlobalAddr):
                return GLOBAL + a.name
            return groots.get(a.name) if isinstance(a, Reg) else None
        for b in fn.blocks:
            for ins in b.instrs:
                for pos, a in enumerate(ins.uses()):
                    r = root(a)
                    if r is None:
                        continue
                    ok = ins.guard is None and (
                        (isinstance(ins, Load) and pos == 0) or isinstance(ins, Cmp)
                        or (isinstance(ins, (Mov, BinOp)) and groots.get(ins.defs()[0]) == r)
                        or (pos == 1 and memory_writer(ins, defined)
                            and ins.callee.lstrip("@") in MEMORY_COPIES))
                    if not ok:
                        written.add(r[len(GLOBAL):])
                if ins.guard in groots:
                    written.add(groots[ins.guard][len(GLOBAL):])
    return written


def loaded_only_globals(module: Module) -> frozenset[str]:
    """Globals of ``module`` whose address is only a load address (guarded or not) or the source
    of a builtin ``memcpy``/``memmove`` (by ``builtin_name``, not defined in the module),
    directly or through registers written once by ``add G, C`` that are only such addresses
    (stored, passed to another call, compared or copied, it escapes). PIR offers no other way
    to reach a global but forging its address from an integer: C's object rules, which LLVM's
    ``constant`` globals and BasicAA rely on too.

    Parameters
    ----------
    module : the ``Module``.

    Returns
    -------
    frozenset of global names.
    """
    defined = {f.name.lstrip("@") for f in module.defined_functions()}
    escaped, derived = set(), {}
    for fn in module.defined_functions():
        count = Counter(d for b in fn.blocks for i in b.instrs for d in i.defs())
        for b in fn.blocks:
            for ins in b.instrs:
                if isinstance(ins, BinOp) and ins.op == "add" and ins.guard is None:
                    g, c = ins.a, ins.b
                    if isinstance(c, GlobalAddr):
                        g, c = c, g
                    if isinstance(g, GlobalAddr) and isinstance(c, Imm):
                        if count[ins.dest] == 1 and ins.dest not in fn.params:
                            derived[(fn.name, ins.dest)] = g.name
                            continue
        for b in fn.blocks:
            for ins in b.instrs:
                if isinstance(ins, BinOp) and (fn.name, ins.dest) in derived:
                    continue
                for k, a in enumerate(ins.uses()):
                    if isinstance(ins, Load) and k == 0 or _copy_source(ins, k, defined):
                        continue
                    if isinstance(a, GlobalAddr):
                        escaped.add(a.name)
                    elif isinstance(a, Reg) and (fn.name, a.name) in derived:
                        escaped.add(derived[fn.name, a.name])
                if ins.guard is not None and (fn.name, ins.guard) in derived:
                    escaped.add(derived[fn.name, ins.guard])
    return frozenset(g.name for g in module.globals if g.name not in escaped)


def _copy_source(ins: Instr, k: int, defined: set) -> bool:
    """Is operand ``k`` of ``ins`` the source of the builtin ``memcpy``/``memmove`` (which only
    reads it; not when the module defines a function of that name)?"""
    if not isinstance(ins, Call) or k != 1:
        return False
    name = builtin_name(ins.callee)
    return name in COPY_BUILTINS and name not in defined
