"""What the embedded engines make of a shipped program, kept across processes: clingo's
translations (``to_clingo.program_text``) and the python engine's compiled plans
(``python_engine.Plan``, ``kept``). A fresh process, or a child forked from a warmed-up one,
otherwise translates or compiles a shipped program again for every set of relations it meets
first (issue #28 item 1, stop 50: the #28 harness's children translated correlation.dl 19 times
on icbe's 9 median programs, 0.117 s of 2.82; clingo's parse of the text, 0.081 s, stays: its
syntax trees cannot be pickled; stop 53: a child compiled 1-2 plans, 18-67 ms, on the median
programs of icbe and PRE).

Only a program whose content a key determines is kept (``identify``: the catalog's key of a
shipped program, which covers pathlogic's whole source, ``to_clingo.py`` included, so any edit
makes every entry stale); an entry lives in the program cache (``user_cache.program_root``,
kind ``clingo``) under that key and the relation sets of the translation. An unreadable entry
is a miss, translated and written again.
"""
from __future__ import annotations

import sys
from hashlib import sha256

from pylogic.engines import to_clingo
from pylogic.engines.program import CheckedProgram
from pylogic.identity_cache import IdentityCache
from pylogic.user_cache import Cache, program_root

#: checked program -> the key that determines it (kept as long as the catalog keeps the program)
_KEYS = IdentityCache()


def identify(checked: CheckedProgram, key: str) -> None:
    """Record that ``checked`` is a function of ``key`` alone: a digest of pathlogic's source
    (``datalog/`` and ``to_clingo.py`` included) and of what names the program (the catalog's
    ``_shipped``)."""
    _KEYS.put(checked, key)


def translation(checked: CheckedProgram, needed: set, shown: list, live: frozenset) -> str:
    """``program_text(checked, needed, set(shown), live)``, read from the program cache if
    ``checked`` was identified and the cache holds it, else translated (and kept if
    identified)."""
    return kept(checked, "clingo", (sorted(needed), sorted(shown), sorted(live)), str,
                lambda: to_clingo.program_text(checked, needed, set(shown), live))


def kept(checked: CheckedProgram, kind: str, parts: tuple, expected: type, make):
    """``make()``, read from the program cache (kind ``kind``, keyed by ``parts`` and this
    Python's bytecode tag: compiled code is marshalled) if ``checked`` was identified and the
    cache holds it (an ``expected`` instance: anything else is a miss), else made (and kept if
    identified and it pickles)."""
    source = _KEYS.get(checked)
    root = program_root() if source is not None else None
    if root is None:
        return make()
    k = sha256(repr((source, sys.implementation.cache_tag, parts)).encode()).hexdigest()
    cache = Cache(root)
    value = cache.get(kind, k)
    if not isinstance(value, expected):
        value = make()
        try:
            cache.put(kind, k, value)
        except Exception:  # noqa: BLE001 -- what does not pickle stays in this process
            pass
    return value
