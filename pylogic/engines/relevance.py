"""Which relations an evaluation needs: those the shown relations depend on, through rule bodies
(positive, negated and aggregate literals). Everything else is neither fed nor grounded: a
program that includes a large shared file pays only for what its outputs use."""
from __future__ import annotations

import dataclasses

from pylogic.engines.program import CheckedProgram
from pylogic.engines.semantics import derived


def _body_relations(obj, found: set[str]) -> None:
    if hasattr(obj, "rel") and isinstance(getattr(obj, "rel"), str):
        found.add(obj.rel)
    if dataclasses.is_dataclass(obj):
        for f in dataclasses.fields(obj):
            if f.name != "loc":
                _body_relations(getattr(obj, f.name), found)
    elif isinstance(obj, (tuple, list)):
        for item in obj:
            _body_relations(item, found)


def needed_relations(checked: CheckedProgram, shown) -> set[str]:
    """Relations reachable backwards from ``shown`` in the rule dependency graph."""
    deps = derived(checked, "dependencies", lambda: _dependencies(checked))
    needed, todo = set(shown), list(shown)
    while todo:
        for dep in deps.get(todo.pop(), ()):
            if dep not in needed:
                needed.add(dep)
                todo.append(dep)
    return needed


def _dependencies(checked: CheckedProgram) -> dict[str, set[str]]:
    """relation -> the relations its rules' bodies read."""
    deps: dict[str, set[str]] = {}
    for rule in checked.rules:
        body: set[str] = set()
        _body_relations(rule.body, body)
        deps.setdefault(rule.head.rel, set()).update(body)
    return deps
