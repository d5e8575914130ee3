"""Read-only globals: the globals of a module nothing can write, so a load of one reads its
initial bytes wherever and whenever it runs. The one criterion every consumer uses (PRE's facts,
``facts_gen/extract.py`` and ``transforms/pre/pre_m.py``; simplify's loads of constants; the
initial contents of ``flow.known_bytes``).

A global is read-only when it is a ``const global`` (docs/pir.md "Extensions": a store into it
faults), or when, in every defined function, its address and every register derived from it
(``address_roots.global_roots``: written once, unguarded, by a copy of it or by adding or
subtracting any offset to it -- a table indexed by a loop counter) is only

* the address of a ``load``, guarded or not (it reads);
* an operand of a compare (``cmp``, ``pcmp``: a 0/1 value or predicates, no pointer);
* the operand of such a derivation (the derived register is then checked the same way);
* the source of a builtin copy (``memory_writes.copy_source``: ``memcpy``, ``memmove``, their
  ``_chk`` forms, ``llvm.memcpy.*``, when the module does not define the callee), which reads
  its bytes and keeps no pointer.

Any other use writes it or may: stored to (guarded or not), stored as a value, passed to another
call (or as a copy's destination or length), returned, selected, printed, derived into a
register written more than once or under a guard, or used as a guard. Then a pointer to it may
exist somewhere the analysis does not follow, so it is not read-only.

Why this is sound: PIR reaches an object only through its address (docs/pir.md: a global's
name evaluates to it); the address lives in registers of one function until it is stored,
passed or returned -- each of which disqualifies the global -- and every register holding a
value derived from it is either in ``global_roots`` (its uses are checked) or written by an
instruction that disqualifies the global. The one way around is forging an address from an
integer (or offsetting past the object), which C's object rules exclude and the interpreter's
segmented memory faults on in practice; LLVM's alias analyses assume the same.

Example
-------
>>> from pylogic.ir.parser import parse_module
>>> m = parse_module("global t[4]\\nglobal u[4]\\nfunc main() {\\ne:\\n i = input\\n"
...                  " p = add t, i\\n x = load.1 p\\n store.1 u, x\\n ret 0\\n}\\n")
>>> sorted(readonly_globals(m))
['t']

References
----------
LLVM 14 ``GlobalStatus::analyzeGlobal`` (Transforms/Utils/GlobalStatus.cpp: through GEPs and
casts, loads, ``icmp`` and a ``memcpy``'s source leave a global not stored; anything else
stores or escapes it), which GlobalOpt uses to mark a never-stored global ``constant``; BasicAA
(no pointer to an object whose address never escapes); docs/pir.md (``const global``, guards).
"""
from __future__ import annotations

from pylogic.flow.address_roots import GLOBAL, global_roots
from pylogic.flow.memory_writes import copy_source
from pylogic.identity_cache import IdentityCache
from pylogic.ir.model import BinOp, Cmp, GlobalAddr, Instr, Load, Mov, PredDefine, Reg

__all__ = ["readonly_globals", "written_globals"]


def readonly_globals(module) -> frozenset[str]:
    """The read-only globals of ``module`` (the module docstring): the ``const`` ones and those no
    ``written_globals``.

    Parameters
    ----------
    module : the ``Module``.

    Returns
    -------
    frozenset of global names.
    """
    def compute() -> frozenset[str]:
        written = written_globals(module)
        return frozenset(g.name for g in module.globals if g.const or g.name not in written)
    return _READONLY.get_or_compute(module, compute)


#: module -> its ``readonly_globals`` (a PRE step asks 2-7 times: its facts, its rewrite, the
#: known bytes of main)
_READONLY = IdentityCache(16)


def written_globals(module, skip: frozenset = frozenset()) -> set[str]:
    """Globals some defined function (but those in ``skip``) may write: one of its uses of the
    global's address, or of a register derived from it, is not only a read (the module
    docstring)."""
    written: set[str] = set()
    defined = frozenset(fn.name for fn in module.functions if not fn.extern)
    for fn in module.functions:
        if fn.extern or not fn.blocks or fn.name in skip:
            continue
        written |= _written_by(fn, defined)
    return written


def _written_by(fn, defined: frozenset) -> frozenset[str]:
    """The globals ``fn`` may write (``written_globals``' test on one function), kept per
    function object and ``defined``: each step of a pipeline asks again for a module that keeps
    most functions of the last (issue #28 item 1: csmith-32's PRE pipeline asked 8 times, 3%
    of its CPU)."""
    return _WRITTEN_BY.get_or_compute(fn, lambda: _scan_written(fn, defined), defined)


def _scan_written(fn, defined: frozenset) -> frozenset[str]:
    written: set[str] = set()
    groots = global_roots(fn)

    for b in fn.blocks:
        for ins in b.instrs:
            for pos, a in enumerate(ins.uses()):
                kind = type(a)
                if kind is GlobalAddr:
                    r = GLOBAL + a.name
                elif kind is Reg and groots:
                    r = groots.get(a.name)
                    if r is None:
                        continue
                else:
                    continue
                if not _only_reads(ins, pos, r, groots, defined):
                    written.add(r[len(GLOBAL):])
            if ins.guard in groots:         # a guard holding an address: followed nowhere
                written.add(groots[ins.guard][len(GLOBAL):])
    return frozenset(written)


#: (function, ``defined``) -> the globals it may write
_WRITTEN_BY = IdentityCache(256)


def _only_reads(ins: Instr, pos: int, root: str, groots: dict, defined: frozenset) -> bool:
    """Whether operand ``pos`` of ``ins``, an address of ``root``, is only read or derived into a
    register ``groots`` follows (a guarded instruction reads it, or does nothing)."""
    if isinstance(ins, Load):
        return pos == 0
    if isinstance(ins, (Cmp, PredDefine)):
        return True
    if isinstance(ins, (Mov, BinOp)):
        return groots.get(ins.dest) == root    # written once, unguarded (``global_roots``)
    return copy_source(ins, pos, defined)
