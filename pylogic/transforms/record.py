"""What a transformation did: a record every transform returns beside its new module.

DESIGN.md / STYLE.md: "A transformation returns a new module and a record of what it did (counts,
per-instruction reasons), never edits in place silently." A concrete transform subclasses
:class:`TransformRecord`, appends its own (dataclass) entries to ``applied`` and a
:class:`Rejection` for every place it looked at and left alone, with the reason.
"""
from __future__ import annotations

import dataclasses
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

__all__ = ["FixpointRecord", "Rejection", "TransformRecord"]


@dataclass(frozen=True)
class Rejection:
    """One place a transformation declined to change, and why.

    ``function``: the function; ``where``: the region / block / instruction it concerned
    (e.g. the head of a candidate region); ``item``: the element that caused the refusal (e.g.
    the block that could not be merged), or None; ``reason``: a short fixed phrase, so records
    can be grouped by reason; ``detail``: free text.
    """
    function: str
    where: str
    item: Optional[str]
    reason: str
    detail: str = ""


@dataclass
class TransformRecord:
    """Base record: ``transform`` names the transformation, ``options`` echoes its options,
    ``applied`` lists what was changed (transform-specific dataclasses), ``rejected`` what was not.
    """
    transform: str
    options: dict = field(default_factory=dict)
    applied: list = field(default_factory=list)
    rejected: list = field(default_factory=list)  # list[Rejection]

    def rejected_by_reason(self) -> dict:
        """``{reason: count}`` over all rejections, most frequent first."""
        return dict(Counter(r.reason for r in self.rejected).most_common())

    def for_function(self, name: str) -> tuple[list, list]:
        """(applied, rejected) entries of one function."""
        return ([a for a in self.applied if getattr(a, "function", None) == name],
                [r for r in self.rejected if r.function == name])

    def totals(self) -> dict:
        """Counts for reports; subclasses extend this."""
        return {"applied": len(self.applied), "rejected": len(self.rejected)}

    def to_json(self) -> dict:
        """A JSON-ready dict of the whole record."""
        return {
            "transform": self.transform,
            "options": dict(self.options),
            "totals": self.totals(),
            "applied": [_plain(a) for a in self.applied],
            "rejected": [_plain(r) for r in self.rejected],
            "rejected_by_reason": self.rejected_by_reason(),
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1)


@dataclass
class FixpointRecord(TransformRecord):
    """Record of a pass the driver repeats while ``changed`` (registry ``fixpoint=True``): its
    ``applied`` entries are per-function dataclasses whose first field is ``function`` and whose
    other fields are counts, summed round by round by :meth:`absorb`."""
    rounds: int = 1
    last_changed: bool = False

    @property
    def changed(self) -> bool:
        """The last round changed the module (the driver runs another)."""
        return self.last_changed

    def absorb(self, later: "FixpointRecord") -> None:
        """Fold the record of the next round into this one."""
        self.rounds += 1
        self.last_changed = later.last_changed
        by_name = {a.function: a for a in self.applied}
        for a in later.applied:
            old = by_name.get(a.function)
            by_name[a.function] = a if old is None else type(a)(
                a.function, *(getattr(old, f.name) + getattr(a, f.name)
                              for f in dataclasses.fields(a)[1:]))
        self.applied = list(by_name.values())


def _plain(x):
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: _plain(getattr(x, f.name)) for f in dataclasses.fields(x)}
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x
