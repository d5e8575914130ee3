"""The magic-set transformation, applied where a program asks for it (``.pragma
"magic-transform" "*"`` or a list of relations), as Soufflé does: a relation is then computed
only for the argument values its uses ask for. It changes no answer; it makes goal-directed
programs feasible (same-generation over a 32,767-node tree: ~10^8 tuples without it).

Classic magic sets (Bancilhon, Maier, Sagiv, Ullman, PODS 1986; Beeri & Ramakrishnan 1991) with
left-to-right sideways information passing, on a safe subset: a relation is transformed only if
it is derived (no ``.input``), not an output, ``.printsize`` or ``eqrel`` relation, never used
under ``!`` or inside an aggregate, and none of its rules holds an aggregate. Every other relation
is computed in full; its rules seed the magic relations of the transformed ones they use. The
result must stratify, else the program is left as it was (the transformation is an
optimisation: declining it is always correct)."""
from __future__ import annotations

from pylogic.engines.dialect import (AdtTerm, AggLit, Atom, Constraint, NegAtom, Nil, Num, Record,
                                     Str, Var)
from pylogic.engines.semantics import (CheckedProgram, Relation, Rule, pattern_vars, rules_by_head,
                                       term_vars)
from pylogic.engines.stratify import stratify
from pylogic.errors import DatalogError


def _adorned(rel: str, adornment: str) -> str:
    return f"{rel}#{adornment}"


def _magic(rel: str, adornment: str) -> str:
    return f"magic#{rel}#{adornment}"


def _bound_after(lit, bound: set) -> set:
    """The variables bound once ``lit`` (in body order) has been evaluated."""
    if isinstance(lit, Atom):
        return bound | {v.name for a in lit.args for v in pattern_vars(a)}
    if isinstance(lit, Constraint) and lit.op == "=":
        for a, b in ((lit.left, lit.right), (lit.right, lit.left)):
            if isinstance(a, Var) and all(v.name in bound for v in term_vars(b)):
                return bound | {a.name}
    if isinstance(lit, AggLit):
        return bound | {lit.result.name}
    return bound


def _adornment(atom: Atom, bound: set) -> str:
    """b for an argument that is a constant or a bound variable (a computed argument such as
    ``x+1`` stays free, as in Soufflé: binding it could ask for infinitely many values)."""
    return "".join("b" if _bindable(a, bound) else "f" for a in atom.args)


def _bindable(term, bound: set) -> bool:
    if isinstance(term, Var):
        return term.name in bound
    if isinstance(term, (Num, Str, Nil)):
        return True
    if isinstance(term, (Record, AdtTerm)):
        return all(_bindable(a, bound) for a in term.args)
    return False


def _candidates(checked: CheckedProgram, wanted) -> set[str]:
    heads = {r.head.rel for r in checked.rules}
    blocked = set(checked.inputs) | set(checked.outputs) | set(checked.printsize)

    def walk(lits, inside_agg):
        for lit in lits:
            if isinstance(lit, NegAtom):
                blocked.add(lit.atom.rel)
            elif isinstance(lit, AggLit):
                for b in lit.body:
                    if isinstance(b, Atom):
                        blocked.add(b.rel)
                walk(lit.body, True)
            elif isinstance(lit, Atom) and inside_agg:
                blocked.add(lit.rel)

    for r in checked.rules:
        walk(r.body, False)
        if any(isinstance(lit, AggLit) for lit in r.body):
            blocked.add(r.head.rel)
    out = heads - blocked
    return out if wanted == "*" else out & set(wanted)


def pragma_targets(pragmas) -> tuple:
    """``(wanted, excluded)`` from the program's ``.pragma "magic-transform"`` and
    ``"magic-transform-exclude"`` (``wanted`` is "*", a set of names, or empty)."""
    wanted, excluded = set(), set()
    for p in pragmas:
        names = {n.strip() for n in (p.value or "").split(",") if n.strip()}
        if p.key == "magic-transform":
            if "*" in names:
                wanted = "*"
            elif wanted != "*":
                wanted |= names
        elif p.key == "magic-transform-exclude":
            excluded |= names
    return wanted, excluded


def magic_transform(checked: CheckedProgram, wanted, excluded=frozenset()) -> CheckedProgram:
    """``checked`` with the relations of ``wanted`` ("*" for all) that qualify computed through
    magic sets; ``checked`` itself when nothing qualifies or the result would not stratify."""
    targets = _candidates(checked, wanted) - set(excluded)
    if not targets:
        return checked
    relations = dict(checked.relations)
    by_head = rules_by_head(checked.rules)
    new_rules: list[Rule] = []
    todo: list[tuple[str, str]] = []
    done: set[tuple[str, str]] = set()

    def need(rel: str, adornment: str) -> None:
        if (rel, adornment) not in done:
            done.add((rel, adornment))
            todo.append((rel, adornment))
            cols = relations[rel].columns
            relations[_adorned(rel, adornment)] = Relation(_adorned(rel, adornment), cols,
                                                           relations[rel].loc)
            relations[_magic(rel, adornment)] = Relation(
                _magic(rel, adornment),
                tuple(c for c, a in zip(cols, adornment) if a == "b"), relations[rel].loc)

    def rewrite_body(body, bound: set, seed_head: Atom | None, seed_loc, kinds: dict) -> tuple:
        """The body with uses of targets replaced by adorned relations, and a magic rule per
        use (its body: the seed and the positive atoms before the use)."""
        out, prefix = [], ([seed_head] if seed_head is not None else [])
        for lit in body:
            if isinstance(lit, Atom) and lit.rel in targets:
                adornment = _adornment(lit, bound)
                need(lit.rel, adornment)
                magic_args = tuple(a for a, b in zip(lit.args, adornment) if b == "b")
                new_rules.append(Rule(Atom(_magic(lit.rel, adornment), magic_args, lit.loc),
                                      tuple(prefix), seed_loc, kinds))
                lit = Atom(_adorned(lit.rel, adornment), lit.args, lit.loc)
            out.append(lit)
            if isinstance(lit, Atom):
                prefix.append(lit)
            elif isinstance(lit, Constraint) and all(
                    v.name in _bound_after(lit, bound) for v in term_vars(lit.left)
                    + term_vars(lit.right)):
                prefix.append(lit)     # a filter or binding the magic rule may keep
            bound = _bound_after(lit, bound)
        return tuple(out)

    for r in checked.rules:               # the relations computed in full seed the targets
        if r.head.rel not in targets:
            new_rules.append(Rule(r.head, rewrite_body(r.body, set(), None, r.loc, r.kinds), r.loc,
                                  r.kinds))
    while todo:
        rel, adornment = todo.pop()
        for r in by_head.get(rel, []):
            bound_args = tuple(a for a, b in zip(r.head.args, adornment) if b == "b")
            seed = Atom(_magic(rel, adornment), bound_args, r.head.loc)
            bound = {v.name for a in bound_args for v in term_vars(a)}
            body = rewrite_body(r.body, bound, seed, r.loc, r.kinds)
            new_rules.append(Rule(Atom(_adorned(rel, adornment), r.head.args, r.head.loc),
                                  (seed,) + body, r.loc, r.kinds))
    try:
        strata = stratify(relations, new_rules)
    except DatalogError:
        return checked
    if any(not _safe(r) for r in new_rules):
        return checked
    out = CheckedProgram(relations, checked.inputs, checked.outputs, checked.printsize,
                         new_rules, strata, checked.files, checked.main_file,
                         checked.input_files, checked.output_files, checked.types)
    return out


def _safe(rule: Rule) -> bool:
    """Every head and constraint variable still bound by the rewritten body (a magic rule's
    head argument that is a computed term may not be)."""
    bound: set = set()
    for _ in range(len(rule.body) + 1):
        for lit in rule.body:
            bound = _bound_after(lit, bound)
    need = [v.name for a in rule.head.args for v in term_vars(a)]
    for lit in rule.body:
        if isinstance(lit, (Constraint, NegAtom)):
            need += [v.name for v in (term_vars(lit.left) + term_vars(lit.right)
                                      if isinstance(lit, Constraint) else
                                      [v for a in lit.atom.args for v in term_vars(a)])]
    return all(n in bound for n in need)
