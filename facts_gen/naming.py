"""How facts name things: functions are ``<file relative to DIR>::<name>``; instructions are
``<block label>#<index>`` (``#`` cannot occur in a PIR identifier, so ids are unambiguous)."""
from __future__ import annotations

#: The virtual exit node of the reverse CFG (DESIGN.md facts contract).
VIRTUAL_EXIT = "__exit__"


def function_id(relpath: str, name: str) -> str:
    return f"{relpath}::{name}"


def instr_id(label: str, index: int) -> str:
    return f"{label}#{index}"
