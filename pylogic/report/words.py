"""Counts in messages: ``count_of(1, "files")`` is "1 file", ``count_of(2, "files")`` "2 files"
(issue #30 item 11: "1 files", "1 engine calls")."""
from __future__ import annotations

#: Plural nouns whose singular is not the plural without its final "s".
IRREGULAR = {"analyses": "analysis", "matrices": "matrix", "entries": "entry"}


def singular(plural: str) -> str:
    """The singular of a plural noun or noun phrase (its last word changes)."""
    head, _, last = plural.rpartition(" ")
    one = IRREGULAR.get(last, last[:-1] if last.endswith("s") else last)
    return f"{head} {one}" if head else one


def count_of(n: int, plural: str, thousands: bool = False) -> str:
    """``n`` and the noun, singular when ``n`` is 1 (``thousands``: ``1,000`` separators)."""
    number = f"{n:,}" if thousands else str(n)
    return f"{number} {singular(plural) if n == 1 else plural}"
