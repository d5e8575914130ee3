"""Which instructions write memory, and how much: stores and calls clobber it; the library calls
that write only at their first argument (``memcpy``, ``memset``, ...; the interpreter's builtins
of those names when the module does not define them) with the bytes they write.

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


#: Library calls that write memory only at their first argument and keep no pointer
#: (the interpreter's builtins of these names, when the module does not define them).
MEMORY_WRITERS = frozenset({"memcpy", "memmove", "memset", "__memcpy_chk", "__memmove_chk",
                            "__memset_chk"})
#: Library calls copying their second argument's bytes to their first (the interpreter's
#: ``memmove``), and those setting bytes to their second argument.
MEMORY_COPIES = frozenset({"memcpy", "memmove", "__memcpy_chk", "__memmove_chk"})
MEMORY_SETS = frozenset({"memset", "__memset_chk"})
#: Builtins (by ``ir.ops.builtin_name``: ``@memcpy``, ``llvm.memcpy.p0.p0.i64``) copying their
#: second argument's bytes to their first, and setting bytes to their second: what simplify's
#: analyses follow (``flow.known_memory``, ``flow.readonly_globals.loaded_only_globals``).
COPY_BUILTINS = ("memcpy", "memmove")
SET_BUILTINS = ("memset",)
#: Builtins that write no memory that exists before the call (``interp.builtins``: they read
#: their arguments' bytes, or allocate a new object).
NO_WRITE_BUILTINS = frozenset({"malloc", "calloc", "strlen", "strnlen", "strcmp", "strncmp",
                               "memcmp", "bcmp", "memchr", "strchr", "index", "strrchr"})


def memory_writer(ins: Instr, defined: frozenset = frozenset()) -> bool:
    """Whether ``ins`` calls one of ``MEMORY_WRITERS`` (not defined in the module)."""
    return isinstance(ins, Call) and ins.callee not in defined and \
        ins.callee.lstrip("@") in MEMORY_WRITERS and bool(ins.args)


def clobbers_memory(ins: Instr) -> bool:
    """A store or a call: may change any loaded value (no alias analysis)."""
    return isinstance(ins, (Store, Call))


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
