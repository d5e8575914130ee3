"""Independent stages of a translated program (``to_clingo.translated_rules``): parts that share
no derived relation, each ground in a clingo Control of its own and freed before the next, so
that one part's atoms and indices are not alive while another grounds (issue #32 item 4;
docs/measurements.md, clg50). Every part reads the input relations it needs; no derived atom
crosses from one part to another, so the rows are those of one Control.

A relation can be split by a *key column*: ``lib/dominator_tree.dl``'s ``_dt_*(f, g, ...)``
relations hold two trees, seeded by the constants ``"cfg"`` and ``"rev"``, and every rule
reads and writes one graph ``g``: their rows of ``"cfg"`` and those of ``"rev"`` never meet,
so ``cfg_analyses.dl`` falls apart into the forward tree with its readers (``idom``, ``df``,
loops) and the reverse tree with its readers (``ipdom``, ``cdep``). A rule stays as written
(its key a variable): in a part, the keyed relations hold that part's keys' rows only.
"""
from __future__ import annotations

from itertools import product

from pylogic.engines.dialect import Atom, Num, Str, Var, signed_body_atoms
from pylogic.union_find import UnionFind


def _constant(t) -> bool:
    return isinstance(t, Str) or (isinstance(t, Num) and not t.suffix)


def _atoms(lits):
    """(atom, positive) of every atom of ``lits``; those under negations and aggregates are not
    positive (they bind no variable of the rule)."""
    return signed_body_atoms(lits, aggregated=False)


def key_columns(rules: list, protected) -> dict:
    """relation -> its key column: where every rule of it writes a constant or a variable that
    the key column of one of its positive keyed atoms binds, and where every atom of it, in
    any rule, has a constant or such a bound variable. The ``protected`` relations (inputs,
    the relations asked for) have none."""
    protected = set(protected)
    carries: dict = {}          # relation -> the columns a head's constant reaches
    changed = True
    while changed:
        changed = False
        for r in rules:
            rel = r.head.rel
            if rel in protected:
                continue
            flows = {a.args[k] for a, positive in _atoms(r.body) if positive
                     for k in carries.get(a.rel, ())}
            new = {i for i, a in enumerate(r.head.args) if _constant(a) or a in flows}
            if not new <= carries.setdefault(rel, set()):
                carries[rel] |= new
                changed = True
    candidates = {rel: sorted(c) for rel, c in carries.items()}
    while True:     # each relation's first candidate; drop those some rule breaks
        key = {rel: c[0] for rel, c in candidates.items() if c}
        bad = set()
        for r in rules:
            bound = {a.args[key[a.rel]] for a, positive in _atoms(r.body)
                     if positive and a.rel in key and isinstance(a.args[key[a.rel]], Var)}
            for atom, _ in [(r.head, True), *_atoms(r.body)]:
                k = key.get(atom.rel)
                if k is not None and not (_constant(atom.args[k]) or atom.args[k] in bound):
                    bad.add(atom.rel)
        if not bad:
            return key
        for rel in bad:
            candidates[rel].pop(0)


def plan_stages(rules: list, protected) -> list[list] | None:
    """``rules`` (translated, in order) as the rules of independent stages, the largest first,
    each in the order of ``rules`` (a rule with a variable key is in every stage of a key it
    can take), or None when they do not fall apart. A stage of no keyed relation (the parts a
    key does not separate) joins the largest one: another Control costs its inputs fed again.

    Nodes are the relations, a keyed one's rows of each key apart (``key_columns``, the keys a
    least fixpoint over the heads' constants); a rule, for each value of its key variables
    that its positive keyed atoms can hold, links its head's node to those of every derived
    relation it reads (negated and aggregated too). A stage is a connected part."""
    key = key_columns(rules, protected)
    if not key:
        return None
    domain: dict = {rel: set() for rel in key}

    def value(atom: Atom, env: dict):
        t = atom.args[key[atom.rel]]
        return t if _constant(t) else env.get(t.name)

    def fires(r, env: dict) -> bool:
        return all(value(a, env) in domain[a.rel] for a, positive in _atoms(r.body)
                   if positive and a.rel in key and value(a, env) is not None)

    def values(r, v: Var) -> set:
        """The values the key variable ``v`` of ``r`` can take: every positive keyed atom's."""
        return set.intersection(*[domain[a.rel] for a, positive in _atoms(r.body)
                                   if positive and a.rel in key and a.args[key[a.rel]] == v])

    changed = True
    while changed:
        changed = False
        for r in rules:
            rel = r.head.rel
            if rel in key and fires(r, {}):
                h = r.head.args[key[rel]]
                new = {h} if _constant(h) else values(r, h)
                if not new <= domain[rel]:
                    domain[rel] |= new
                    changed = True
    order = {c: i for i, c in enumerate(sorted({c for d in domain.values() for c in d},
                                               key=lambda c: (type(c).__name__, c.value)))}
    defined = {r.head.rel for r in rules}
    parts_of = UnionFind()
    find = parts_of.find

    def node(atom: Atom, env: dict):
        return (atom.rel, value(atom, env)) if atom.rel in key else (atom.rel, None)

    placed = []                 # (rule index, its head's node) per key assignment
    for i, r in enumerate(rules):
        names = sorted({a.args[key[a.rel]] for a, _ in [(r.head, True), *_atoms(r.body)]
                        if a.rel in key and isinstance(a.args[key[a.rel]], Var)},
                       key=lambda v: v.name)
        for combo in product(*(sorted(values(r, v), key=order.get) for v in names)):
            env = {v.name: c for v, c in zip(names, combo)}
            if not fires(r, env):
                continue
            head = node(r.head, env)
            for a, _ in _atoms(r.body):
                if a.rel in defined:
                    parts_of.union(node(a, env), head)
            placed.append((i, head))
    parts: dict = {}            # root -> rule indices
    keyed = set()               # the roots of parts holding a keyed node
    for i, head in placed:
        root = find(head)
        parts.setdefault(root, set()).add(i)
        if head[1] is not None:
            keyed.add(root)
    keyed_parts = sorted((sorted(ix) for root, ix in parts.items() if root in keyed),
                         key=lambda ix: (-len(ix), ix[0]))
    if len(keyed_parts) < 2:
        return None
    for root, ix in parts.items():
        if root not in keyed:
            keyed_parts[0] = sorted(set(keyed_parts[0]) | ix)
    return [[rules[i] for i in ix] for ix in keyed_parts]
