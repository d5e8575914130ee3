"""How facts name things: functions are ``<file relative to DIR>::<name>`` (the file name
escaped by ``escape_field``); instructions are
``<block label>#<index>`` (``#`` cannot occur in a PIR identifier, so ids are unambiguous)."""
from __future__ import annotations

from typing import Optional

#: The virtual exit node of the reverse CFG (DESIGN.md facts contract).
VIRTUAL_EXIT = "__exit__"


#: Characters Soufflé's tab-separated facts cannot hold (a field ends at a tab, a tuple at a
#: newline; ``\r`` before one is dropped), written C-style; ``\`` is doubled so ids stay distinct.
_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def escape_field(text: str) -> str:
    """``text`` as one field of a facts file: tab, newline, CR and backslash written C-style."""
    return text.translate(_ESCAPES)


def function_id(relpath: str, name: str) -> str:
    """``relpath::name``; a file name holding a tab or newline is escaped (``escape_field``)."""
    return f"{escape_field(relpath)}::{name}"


def same_function(name: str, wanted: str) -> bool:
    """Whether the function ``name`` is the one a ``--function`` option names (a leading ``@``
    on either side is ignored: ``main`` is ``@main``, as docs/pir.md allows)."""
    return name == wanted or name.lstrip("@") == wanted.lstrip("@")


def names_function(fid: str, wanted: str) -> bool:
    """Whether the function id ``fid`` (``relpath::name``) is of a function named ``wanted``."""
    return same_function(fid.rpartition("::")[2], wanted)


def instr_id(label: str, index: int) -> str:
    """The id of the instruction at ``index`` of block ``label``: ``label#index``."""
    return f"{label}#{index}"


def instr_block(iid: str) -> str:
    """The block label of the instruction id ``iid`` (:func:`instr_id`)."""
    return iid.rpartition("#")[0]


def instr_site(iid: str) -> Optional[tuple[str, int]]:
    """``(block label, index)`` of the instruction id ``iid`` (:func:`instr_id`'s inverse); None
    for an id of another form (e.g. a query id's ``#branch``)."""
    label, _, k = iid.rpartition("#")
    return (label, int(k)) if k.isdigit() else None
