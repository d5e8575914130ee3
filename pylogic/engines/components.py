"""Soufflé components expanded away before checking: ``.comp Name<T...> : Base<A...> { ... }``,
``.init inst = Name<A...>`` and ``.override Rel``, as Soufflé's ComponentInstantiation does:
an instance holds its component's items with the type parameters bound, its bases' items first
(the clauses of a relation a deriving component overrides are dropped from every base below
it), the items of its nested ``.init``s (already prefixed by their own instance name), and
then every relation and type it declares is renamed ``inst.Name``, in declarations, IO
directives and atoms alike. A
clause whose relations are not declared in the instance keeps their names: they belong to the
enclosing scope (Soufflé's "orphan" clauses)."""
from __future__ import annotations

import dataclasses

from pylogic.engines.dialect import (Atom, Clause, CompDecl, Decl, Init, IODirective, Override,
                                     PlanHint, Pragma, Program, TypeDecl)
from pylogic.errors import DatalogError

#: Soufflé's limit on nested instantiation (a component instantiating itself never ends).
MAX_DEPTH = 100


class _Scope:
    """The components visible at a point: those declared here, then the enclosing scope's."""

    def __init__(self, comps: dict, parent: "_Scope | None" = None):
        self.comps, self.parent = comps, parent

    def lookup(self, ref) -> tuple[CompDecl, "_Scope"]:
        scope = self
        while scope is not None:
            if ref.name in scope.comps:
                return scope.comps[ref.name], scope
            scope = scope.parent
        raise DatalogError(f"undeclared component '{ref.name}'", ref.loc)


def _declare(items, parent: _Scope | None) -> _Scope:
    comps = {}
    for item in items:
        if isinstance(item, CompDecl):
            if item.name in comps:
                raise DatalogError(f"component '{item.name}' is declared twice", item.loc)
            comps[item.name] = item
    return _Scope(comps, parent)


def _rename(node, rels: dict, types: dict):
    """``node`` with relation names (atoms, declarations, IO directives) and type names
    (attributes, type declarations) renamed."""
    if isinstance(node, Atom):
        return Atom(rels.get(node.rel, node.rel), tuple(_rename(a, rels, types) for a in node.args),
                    node.loc)
    if isinstance(node, Decl):
        return dataclasses.replace(node, name=rels.get(node.name, node.name),
                                   attrs=tuple((a, types.get(t, t)) for a, t in node.attrs))
    if isinstance(node, TypeDecl):
        return dataclasses.replace(node, name=types.get(node.name, node.name),
                                   bases=tuple(types.get(b, b) for b in node.bases))
    if isinstance(node, IODirective):
        return dataclasses.replace(node, rel=rels.get(node.rel, node.rel))
    if isinstance(node, tuple):
        return tuple(_rename(x, rels, types) for x in node)
    if isinstance(node, list):
        return [_rename(x, rels, types) for x in node]
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        changes = {f.name: _rename(getattr(node, f.name), rels, types)
                   for f in dataclasses.fields(node) if f.name != "loc"}
        return dataclasses.replace(node, **changes)
    return node


def _collect(comp: CompDecl, args: tuple, scope: _Scope, overridden: set, ref, depth: int) -> list:
    """The items of ``comp`` bound to ``args`` (type names), not yet prefixed."""
    if depth > MAX_DEPTH:
        raise DatalogError(f"component instantiation deeper than {MAX_DEPTH} levels (a component "
                           "that instantiates itself?)", ref.loc)
    if len(args) != len(comp.params):
        raise DatalogError(f"component '{comp.name}' takes {len(comp.params)} type "
                           f"parameter(s), given {len(args)}", ref.loc)
    binding = dict(zip(comp.params, args))
    inner = _declare(comp.items, scope)
    own_overrides = {o.rel for o in comp.items if isinstance(o, Override)}
    out: list = []
    for base in comp.bases:
        base_comp, base_scope = inner.lookup(base)
        base_args = tuple(binding.get(a, a) for a in base.args)
        # an override reaches every base below (comp-override1: F : E : A drops A's clauses)
        out += _collect(base_comp, base_args, base_scope, own_overrides | overridden, base,
                        depth + 1)
    inherited = {i.name: i for i in out if isinstance(i, Decl)}
    for rel in sorted(own_overrides):
        where = next(o.loc for o in comp.items if isinstance(o, Override) and o.rel == rel)
        decl = inherited.get(rel)
        if decl is None:
            raise DatalogError(f".override of '{rel}', which no base component of "
                               f"'{comp.name}' declares", where)
        if not any(q == "overridable" for q, _ in decl.qualifiers):
            raise DatalogError(f".override of '{rel}', which is not declared overridable "
                               f"(at {decl.loc})", where)
    for item in comp.items:
        if isinstance(item, (CompDecl, Override, PlanHint, Pragma)):
            continue          # scoped above; overrides applied to the bases; plans are hints
        if isinstance(item, Init):
            out += _instantiate(item, inner, binding, depth + 1)
        elif isinstance(item, Clause):
            if not any(h.rel in overridden for h in item.heads):
                out.append(_rename(item, {}, binding))
        elif isinstance(item, tuple):      # an #include inside a component
            raise DatalogError("#include inside a component is not supported", item[2])
        else:
            out.append(_rename(item, {}, binding))
    return out


def _instantiate(init: Init, scope: _Scope, binding: dict, depth: int = 0) -> list:
    comp, comp_scope = scope.lookup(init.comp)
    args = tuple(binding.get(a, a) for a in init.comp.args)
    items = _collect(comp, args, comp_scope, set(), init.comp, depth)
    prefix = init.name + "."
    rels = {i.name: prefix + i.name for i in items if isinstance(i, Decl)}
    types = {i.name: prefix + i.name for i in items if isinstance(i, TypeDecl)}
    return _rename(items, rels, types)


def expand_components(program: Program) -> None:
    """Replace ``program.components`` by the declarations, IO directives and clauses of every
    top-level ``.init`` (in place). Raises DatalogError located at the offending construct."""
    if not program.components:
        return
    scope = _declare(program.components, None)
    for item in program.components:
        if not isinstance(item, Init):
            continue
        for new in _instantiate(item, scope, {}):
            if isinstance(new, Decl):
                program.decls.append(new)
            elif isinstance(new, TypeDecl):
                program.types.append(new)
            elif isinstance(new, IODirective):
                program.ios.append(new)
            elif isinstance(new, Clause):
                program.clauses.append(new)
    program.components = []
