"""IMPACT EPIC predicate deposit types (PAS Table 1; docs/pir.md "Predicate defines").

``deposit(dtype, g, c, old)`` is the single source of truth for what a define writes;
the interpreter calls it and the BDD/SAT encodings are tested against it.
"""
from __future__ import annotations

from pylogic.ir.model import DEPOSIT_TYPES

#: Spellings accepted after ``D:`` in a define, mapped to the canonical name.
DEPOSIT_ALIASES = {name: name for name in DEPOSIT_TYPES}
DEPOSIT_ALIASES.update({"∨t": "disjt", "∨f": "disjf", "∧t": "conjt", "∧f": "conjf"})

#: IA-64 completers: ``pcmp.REL[.CTYPE] P1, P2 = A, B`` -> deposit types of (P1, P2). docs/pir.md.
IA64_COMPLETERS = {
    "": ("ct", "cf"),
    "unc": ("ut", "uf"),
    "or": ("ot", "ot"),
    "orcm": ("of", "of"),
    "and": ("at", "at"),
    "andcm": ("af", "af"),
    "or.andcm": ("ot", "af"),
    "and.orcm": ("at", "of"),
}

#: Types whose result ignores the destination's previous value.
UNCONDITIONAL_TYPES = frozenset({"ut", "uf"})


def deposit(dtype: str, g: int, c: int, old: int) -> int:
    """New value of a predicate destination of type ``dtype``.

    Parameters: guard value ``g``, condition ``c`` and previous value ``old``, each 0 or 1.
    References: PAS Table 1 (Table 2's ct/cf are misprinted; Table 1 is ground truth); docs/pir.md.
    """
    g, c, old = bool(g), bool(c), bool(old)
    if dtype == "ut":
        r = g and c
    elif dtype == "uf":
        r = g and not c
    elif dtype == "ot":
        r = old or (g and c)
    elif dtype == "of":
        r = old or (g and not c)
    elif dtype == "at":
        r = old and not (g and not c)
    elif dtype == "af":
        r = old and not (g and c)
    elif dtype == "ct":
        r = c if g else old
    elif dtype == "cf":
        r = (not c) if g else old
    elif dtype == "disjt":
        r = old or g or c
    elif dtype == "disjf":
        r = old or g or not c
    elif dtype == "conjt":
        r = old and g and c
    elif dtype == "conjf":
        r = old and g and not c
    else:
        raise ValueError(f"unknown deposit type {dtype!r}")
    return int(r)


#: Types whose result, under a false guard, does not depend on the condition (every type but
#: disjt/disjf: a disjunction with the guard): a define made only of these reads its operands only where its guard is 1.
CONDITION_IGNORED_WHEN_NULLIFIED = frozenset(
    t for t in DEPOSIT_TYPES
    if all(deposit(t, 0, 0, old) == deposit(t, 0, 1, old) for old in (0, 1)))


def reads_condition_when_nullified(ins) -> bool:
    """True when predicate define ``ins`` has a destination whose new value under a false guard
    depends on the condition (``disjt``/``disjf``, docs/pir.md)."""
    return any(d.dtype not in CONDITION_IGNORED_WHEN_NULLIFIED for d in ins.dests)
