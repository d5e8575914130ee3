"""Soufflé's ``autoinc()``: a counter, one new number each time a rule instance is evaluated,
so which number a tuple gets depends on Soufflé's evaluation order. What an engine can give
exactly is a program whose answer does not depend on the numbers but only on their being
distinct: then any injective numbering gives Soufflé's rows. The checker accepts ``autoinc()``
only there (``check_autoinc``), located refusals elsewhere:

- as a whole argument of the head of a rule that is not recursive and has no ``_`` in its body
  (one value per binding of the body's variables; a ``_`` may be iterated or only tested for
  existence, as Soufflé's plan decides);
- the columns its values reach (**opaque** columns, followed through every rule to a fixpoint)
  hold nothing else, and are neither read from facts nor written to output files;
- an opaque value is only joined, copied, counted, or compared with ``=``/``!=`` to another
  opaque value: no arithmetic, functor, ordering, aggregate target or constant.

The value of ``autoinc()`` is then the record ``[k, x1, .., xn]`` of the rule's number k and its
body variables: distinct for distinct rule instances, as Soufflé's counter is (Soufflé's suite:
counter)."""
from __future__ import annotations

import dataclasses

from pylogic.engines.dialect import (AggLit, Atom, Call, Constraint, Num, Record, Test, Var,
                                     Wildcard, signed_body_atoms)
from pylogic.engines.stratify import dependency_graph, strongly_connected_components
from pylogic.errors import DatalogError

_TAG = "autoinc"     # the suffix of the rule number in an autoinc record (autoinc_relations)

_WHY = ("unsupported construct: functor 'autoinc' ({0}; its numbers depend on Soufflé's "
        "evaluation order, supported where only their being distinct matters)")


def _refuse(reason: str, loc) -> DatalogError:
    return DatalogError(_WHY.format(reason), loc)


def _calls(node):
    if isinstance(node, Call) and node.name == "autoinc":
        yield node
    if isinstance(node, (list, tuple)):
        for x in node:
            yield from _calls(x)
    elif hasattr(node, "__dataclass_fields__"):
        for f in node.__dataclass_fields__:
            if f not in ("loc", "kinds"):
                yield from _calls(getattr(node, f))


def _names(term) -> set:
    if isinstance(term, Var):
        return {term.name}
    return {n for a in getattr(term, "args", ()) for n in _names(a)} | \
        ({n for side in (term.left, term.right) for n in _names(side)}
         if hasattr(term, "left") else set())


def _recursive(relations: dict, rules: list):
    """``recursive(rule)``: whether the rule's head is in a component with a relation of its
    body."""
    component = {}
    for comp in strongly_connected_components(dependency_graph(relations, rules)):
        for rel in comp:
            component[rel] = id(comp)
    return lambda rule: any(component[a.rel] == component[rule.head.rel]
                            for a, _ in signed_body_atoms(rule.body))


def autoinc_relations(rules: list) -> set:
    """The relations a rule with ``autoinc()`` (its record, ``check_autoinc``) derives: the
    magic-set transform leaves them alone (an adorned copy of the rule would number the same
    instance alike in two relations, where Soufflé's counter would not)."""
    return {r.head.rel for r in rules if any(isinstance(a, Record) and a.args and
                                             isinstance(a.args[0], Num) and a.args[0].suffix
                                             == _TAG for a in r.head.args)}


def check_autoinc(rules: list, relations: dict, io: set) -> list:
    """``rules`` with each ``autoinc()`` as its record (module docstring), or a located
    DatalogError. ``io``: relations read from or written to files."""
    sources = [r for r in rules if any(True for _ in _calls(r.head.args))]
    if not sources:
        for r in rules:
            for c in _calls(r.body):
                raise _refuse("only as an argument of a rule's head", c.loc)
        return rules
    opaque: set = set()      # (relation, column)
    recursive = None
    for r in sources:
        for c in _calls(r.body):
            raise _refuse("only as an argument of a rule's head", c.loc)
        for i, a in enumerate(r.head.args):
            if isinstance(a, Call) and a.name == "autoinc":
                opaque.add((r.head.rel, i))
            elif any(True for _ in _calls(a)):
                raise _refuse("only as a whole argument of a rule's head", a.loc)
        if recursive is None:
            recursive = _recursive(relations, rules)
        if recursive(r):
            raise _refuse("in a recursive rule", r.loc)
        for atom, _ in signed_body_atoms(r.body):
            w = next((a for a in atom.args if isinstance(a, Wildcard)), None)
            if w is not None:
                raise _refuse("in a rule with '_' in its body", w.loc)
    changed = True
    while changed:
        changed = False
        for r in rules:
            changed |= _spread(r, opaque)
    for rel, i in sorted(opaque):
        if rel in io:
            raise _refuse(f"its values reach column {i + 1} of '{rel}', which is read from or "
                          "written to a file", relations[rel].loc)
    for r in rules:
        _check_uses(r, opaque)
    out = []
    for k, r in enumerate(rules):
        if r in sources:
            names = sorted({n for lit in r.body if isinstance(lit, Atom)
                            for a in lit.args for n in _names(a)})
            value = Record((Num(k, r.loc, _TAG),) + tuple(Var(n, r.loc) for n in names), r.loc)
            args = tuple(value if isinstance(a, Call) and a.name == "autoinc" else a
                         for a in r.head.args)
            r = dataclasses.replace(r, head=Atom(r.head.rel, args, r.head.loc))
        out.append(r)
    return out


def _opaque_vars(lits, opaque: set) -> set:
    return {a.name for atom, _ in signed_body_atoms(lits) for i, a in enumerate(atom.args)
            if isinstance(a, Var) and (atom.rel, i) in opaque}


def _spread(rule, opaque: set) -> bool:
    """Mark the head columns an opaque variable of ``rule`` reaches; whether any is new."""
    vs = _opaque_vars(rule.body, opaque)
    new = False
    for i, a in enumerate(rule.head.args):
        if isinstance(a, Var) and a.name in vs and (rule.head.rel, i) not in opaque:
            opaque.add((rule.head.rel, i))
            new = True
    return new


def _check_uses(rule, opaque: set) -> None:
    vs = _opaque_vars(rule.body, opaque)
    atoms = [(rule.head, True)] + list(signed_body_atoms(rule.body))
    for atom, _ in atoms:
        for i, a in enumerate(atom.args):
            if isinstance(a, Wildcard) or (isinstance(a, Call) and a.name == "autoinc"):
                continue
            is_opaque = isinstance(a, Var) and a.name in vs
            if ((atom.rel, i) in opaque) != is_opaque or (not isinstance(a, Var) and
                                                          _names(a) & vs):
                raise _refuse(f"column {i + 1} of '{atom.rel}' would mix its numbers with other "
                              "values", a.loc)

    def lits(body):
        for lit in body:
            yield lit
            if isinstance(lit, AggLit):
                yield from lits(lit.body)

    for lit in lits(rule.body):
        if isinstance(lit, Constraint):
            used = _names(lit.left) | _names(lit.right)
            if used & vs and not (lit.op in ("=", "!=") and isinstance(lit.left, Var) and
                                  isinstance(lit.right, Var) and {lit.left.name,
                                                                  lit.right.name} <= vs):
                raise _refuse("its numbers compared with other values or computed with", lit.loc)
        elif isinstance(lit, AggLit) and lit.target is not None and _names(lit.target) & vs:
            raise _refuse("its numbers aggregated", lit.loc)
        elif isinstance(lit, Test) and any(_names(a) & vs for a in lit.args):
            raise _refuse("its numbers given to a functor", lit.loc)
