"""Which instructions write memory, and how much: stores and calls clobber it; the library calls
that write only at their first argument (``memcpy``, ``memset``, ...; the interpreter's builtins
of those names when the module does not define them: ``builtin_called``, the one place that
decides which builtin a call runs) with the bytes they write; a copy's source, which it only
reads (``copy_source``).

Example
-------
>>> from pylogic.ir.model import Call, Imm, Reg
>>> c = Call(dest=None, callee="@memset", args=(Reg("p"), Imm(0), Imm(0)))
>>> memory_writer(c), writes_nothing(c), written_size(c)
(True, True, 0)

References: docs/pir.md (``store``, ``call``); the interpreter's builtins (``interp/builtins.py``);
C's library (memcpy, memmove, memset and their ``_chk`` forms).
"""
from __future__ import annotations

from typing import Optional

from pylogic.ir.model import Call, Imm, Instr, Store
from pylogic.ir.ops import builtin_name


#: Library calls that write memory only at their first argument and keep no pointer
#: (the interpreter's builtins of these names, ``builtin_called``).
MEMORY_WRITERS = frozenset({"memcpy", "memmove", "memset", "__memcpy_chk", "__memmove_chk",
                            "__memset_chk"})
#: Library calls copying their second argument's bytes to their first (the interpreter's
#: ``memmove``), and those setting bytes to their second argument.
MEMORY_COPIES = frozenset({"memcpy", "memmove", "__memcpy_chk", "__memmove_chk"})
MEMORY_SETS = frozenset({"memset", "__memset_chk"})
#: Builtins that write no memory that exists before the call (``interp.builtins``: they read
#: their arguments' bytes, or allocate a new object).
NO_WRITE_BUILTINS = frozenset({"malloc", "calloc", "strlen", "strnlen", "strcmp", "strncmp",
                               "memcmp", "bcmp", "memchr", "strchr", "index", "strrchr"})


def builtin_called(ins: Instr, defined=frozenset()) -> Optional[str]:
    """The interpreter builtin a call runs, by ``ir.ops.builtin_name`` (``@memcpy`` and
    ``llvm.memcpy.p0.p0.i64`` run ``memcpy``); None when ``ins`` is no call or ``defined`` (the
    module's functions, spelled with or without ``@``) has its callee, which the interpreter
    then calls instead (``interp.decode.resolve_function``: a missing or extra ``@``)."""
    if not isinstance(ins, Call):
        return None
    bare = ins.callee.lstrip("@")
    if ins.callee in defined or bare in defined or "@" + bare in defined:
        return None
    return builtin_name(ins.callee)


def memory_writer(ins: Instr, defined=frozenset()) -> bool:
    """Whether ``ins`` calls one of ``MEMORY_WRITERS`` (``builtin_called``)."""
    return builtin_called(ins, defined) in MEMORY_WRITERS and bool(ins.args)


def copy_source(ins: Instr, pos: int, defined=frozenset()) -> bool:
    """Whether operand ``pos`` of ``ins`` is the source of a ``MEMORY_COPIES`` builtin, which only
    reads its bytes and keeps no pointer to them."""
    return pos == 1 and builtin_called(ins, defined) in MEMORY_COPIES


def clobbers_memory(ins: Instr) -> bool:
    """A store or a call: may change any loaded value (no alias analysis)."""
    return type(ins) in _CLOBBERING


#: ``clobbers_memory``'s classes (they have no subclasses)
_CLOBBERING = frozenset((Store, Call))


def writes_nothing(ins: Instr, defined: frozenset = frozenset()) -> bool:
    """A ``MEMORY_WRITERS`` call of 0 bytes: it changes no memory."""
    return memory_writer(ins, defined) and len(ins.args) >= 3 and ins.args[2] == Imm(0)


def written_size(ins: Instr, defined: frozenset = frozenset()) -> Optional[int]:
    """How many bytes a store or a ``MEMORY_WRITERS`` call of a constant length writes."""
    if isinstance(ins, Store):
        return ins.size
    if memory_writer(ins, defined) and len(ins.args) >= 3 and isinstance(ins.args[2], Imm):
        return ins.args[2].value
    return None
