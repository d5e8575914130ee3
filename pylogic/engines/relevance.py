"""Which relations an evaluation needs: those the shown relations depend on, through rule bodies
(positive, negated and aggregate literals). Everything else is neither fed nor grounded: a
program that includes a large shared file pays only for what its outputs use.

With the inputs that have rows known (``live_relations``), a rule with a positive body atom of a
relation that cannot have rows cannot fire: it is dropped, and what only it reads is not needed
(unpredicated code has no ``guard`` rows, so predicated_deadness.dl's PPG and the dominance it
reads are not grounded for it: issue #28 item 1)."""
from __future__ import annotations

from typing import Optional

from pylogic.engines.dialect import Atom, Num, Str, body_atoms
from pylogic.engines.program import CheckedProgram
from pylogic.engines.semantics import Rule, derived


def needed_relations(checked: CheckedProgram, shown,
                     live: Optional[frozenset] = None) -> set[str]:
    """Relations reachable backwards from ``shown`` in the rule dependency graph (through the
    rules that can fire when ``live``, ``live_relations``, is given). A new set (callers may
    change it); the walk is kept with ``checked`` per ``shown`` (a pipeline asks the same ones
    at every pass)."""
    shown = frozenset(shown)
    return set(derived(checked, ("needed", shown, live), lambda: _needed(checked, shown, live)))


def _needed(checked: CheckedProgram, shown: frozenset, live: Optional[frozenset]) -> frozenset:
    deps = derived(checked, ("dependencies", live), lambda: _dependencies(checked, live))
    needed, todo = set(shown), list(shown)
    while todo:
        for dep in deps.get(todo.pop(), ()):
            if dep not in needed:
                needed.add(dep)
                todo.append(dep)
    return frozenset(needed)


def live_relations(checked: CheckedProgram, nonempty) -> frozenset[str]:
    """The relations that can have rows when the inputs with rows are ``nonempty``: those inputs
    and the heads of rules whose positive body atoms are all of such relations (least fixpoint;
    an aggregate or a negation over an empty relation still holds, so only positive atoms
    count). Every other relation has no rows whatever the facts' values."""
    nonempty = frozenset(nonempty)

    def compute() -> frozenset[str]:
        live = set(nonempty)
        waiting: dict[str, list] = {}               # relation -> rules one of whose atoms it is
        missing = []                                # per rule: its atoms' relations not yet live
        todo = []
        for k, rule in enumerate(checked.rules):
            atoms = {b.rel for b in rule.body if isinstance(b, Atom)} - live
            missing.append(atoms)
            for rel in atoms:
                waiting.setdefault(rel, []).append(k)
            if not atoms:
                todo.append(rule.head.rel)
        while todo:
            rel = todo.pop()
            if rel in live:
                continue
            live.add(rel)
            for k in waiting.get(rel, ()):
                missing[k].discard(rel)
                if not missing[k]:
                    todo.append(checked.rules[k].head.rel)
        return frozenset(live)
    return derived(checked, ("live", nonempty), compute)


def can_fire(rule: Rule, live: Optional[frozenset]) -> bool:
    """Whether every positive body atom of ``rule`` is of a ``live`` relation (None: all are)."""
    return live is None or all(b.rel in live for b in rule.body if isinstance(b, Atom))


def _dependencies(checked: CheckedProgram, live: Optional[frozenset] = None
                  ) -> dict[str, set[str]]:
    """relation -> the relations its rules' bodies read (its rules that can fire, ``live``)."""
    deps: dict[str, set[str]] = {}
    for rule, body in zip(checked.rules, derived(checked, "rule reads", lambda: _reads(checked))):
        if can_fire(rule, live):
            deps.setdefault(rule.head.rel, set()).update(body)
    return deps


def _reads(checked: CheckedProgram) -> list[frozenset]:
    """Per rule, the relations its body reads (walked once per program, not once per ``live``)."""
    return [frozenset(atom.rel for atom in body_atoms(rule.body)) for rule in checked.rules]


def input_selections(checked: CheckedProgram, needed, live: Optional[frozenset] = None,
                     shown=()) -> dict[str, tuple]:
    """Input relation -> the constants of every atom of it in the rules of ``needed`` relations
    that can fire (``live``): one ``((column, value), ...)`` per atom, number and symbol
    constants only. A row matching none of them matches no atom, so it need not be fed; a
    relation with an atom without such a constant, or ``shown``, is absent (every row counts).
    Example: predicated_deadness.dl reads ``operand`` only as ``operand(f, i, 1, "const", v)``
    (a divisor), 7,491 -> 2,207 rows on csmith-22."""
    def compute() -> dict[str, tuple]:
        found: dict[str, set] = {}
        free: set[str] = set(shown)
        for rule in checked.rules:
            if rule.head.rel not in needed or not can_fire(rule, live):
                continue
            for atom in body_atoms(rule.body):
                if atom.rel not in checked.inputs or atom.rel in free:
                    continue
                kinds = checked.relations[atom.rel].kinds
                fixed = tuple((k, a.value) for k, a in enumerate(atom.args)
                              if (isinstance(a, Num) and not a.suffix and kinds[k] == "number")
                              or (isinstance(a, Str) and kinds[k] == "symbol"))
                if fixed:
                    found.setdefault(atom.rel, set()).add(fixed)
                else:
                    free.add(atom.rel)
        return {rel: tuple(sorted(p)) for rel, p in found.items() if rel not in free}
    return derived(checked, ("selections", frozenset(needed), live, frozenset(shown)), compute)
