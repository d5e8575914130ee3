"""Stratification of negation and aggregation: a relation may depend negatively (``!`` or
through an aggregate body) only on relations of strictly lower strata. Soufflé rejects other
programs; clingo would silently return several answer sets (DESIGN.md), so we check here."""
from __future__ import annotations

import networkx as nx

from pylogic.errors import DatalogError


def dependency_graph(relations: dict, rules: list) -> nx.DiGraph:
    """Edges head -> body relation, attribute ``negative`` (True if any dependency through ``!``
    or an aggregate) and ``loc`` (the first such literal)."""
    from pylogic.engines.semantics import AggLit, NegAtom
    from pylogic.engines.dialect import Atom

    g = nx.DiGraph()
    g.add_nodes_from(relations)

    def add(head, rel, negative, loc):
        if g.has_edge(head, rel):
            data = g.edges[head, rel]
            if negative and not data["negative"]:
                data["negative"], data["loc"] = True, loc
        else:
            g.add_edge(head, rel, negative=negative, loc=loc)

    def walk(head, lits, under_agg):
        for lit in lits:
            if isinstance(lit, Atom):
                add(head, lit.rel, under_agg, lit.loc)
            elif isinstance(lit, NegAtom):
                add(head, lit.atom.rel, True, lit.loc)
            elif isinstance(lit, AggLit):
                walk(head, lit.body, True)

    for rule in rules:
        walk(rule.head.rel, rule.body, False)
    return g


def stratify(relations: dict, rules: list) -> list[list[str]]:
    """Strata bottom-up (each a sorted list of relation names). Raises a located DatalogError
    naming the cycle if negation or aggregation is not stratified."""
    g = dependency_graph(relations, rules)
    cond = nx.condensation(g)
    members = cond.graph["mapping"]
    for u, v, data in g.edges(data=True):
        if data["negative"] and members[u] == members[v]:
            cycle = [u] if u == v else nx.shortest_path(g, v, u)
            path = " -> ".join([u] + cycle) if u != v else f"{u} -> {u}"
            raise DatalogError(f"non-stratified program: '{u}' depends on '{v}' through negation "
                               f"or aggregation inside a recursive cycle ({path})", data["loc"])
    order = list(reversed(list(nx.topological_sort(cond))))
    return [sorted(cond.nodes[c]["members"]) for c in order]
