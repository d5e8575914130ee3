"""Stand-in addresses an imported module holds and the interpreter must recognise.

PIR has no ``FILE`` objects and no function pointers, so the importer gives them fixed addresses
that are never dereferenced: the external globals ``stdin``/``stdout``/``stderr`` are initialised
to ``FAKE_FILES`` (the interpreter's ``fprintf`` tells the streams apart by them,
``pylogic/interp/builtins.py``), and each function gets ``FAKE_FUNCTION_BASE + 16 * k`` (indirect
calls compare against it, ``lower.py``).
"""
from __future__ import annotations

__all__ = ["FAKE_FILES", "FAKE_FUNCTION_BASE"]

#: Stand-in ``FILE *`` values of the C streams.
FAKE_FILES = {"stdin": 0x7E0000000000, "stdout": 0x7E0000000100, "stderr": 0x7E0000000200}
#: Stand-in address of the first function (16 bytes apart, in module order).
FAKE_FUNCTION_BASE = 0x7F0000000000
