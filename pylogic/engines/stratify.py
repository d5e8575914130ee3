"""Stratification of negation and aggregation: a relation may depend negatively (``!`` or
through an aggregate body) only on relations of strictly lower strata. Soufflé rejects other
programs; clingo would silently return several answer sets (DESIGN.md), so we check here.

The dependency graph is small (one node per relation); plain dicts and Tarjan's algorithm keep
this module free of networkx, which would dominate the import time of every command.

References: Tarjan, "Depth-first search and linear graph algorithms", SIAM J. Comput. 1972.
"""
from __future__ import annotations

from collections import deque

from pylogic.engines.dialect import AggLit, Atom, NegAtom
from pylogic.errors import DatalogError

#: head -> {body relation: (negative, loc of the first negative literal, else of the first one)}
Graph = dict[str, dict[str, tuple]]


def dependency_graph(relations: dict, rules: list) -> Graph:
    """The relation dependency graph of ``rules``.

    Parameters
    ----------
    relations : dict
        Every declared relation (a node each, in declaration order).
    rules : list of Rule
        Normalized rules (bodies of Atom, NegAtom, Constraint, AggLit).

    Returns
    -------
    dict
        ``graph[head][rel] = (negative, loc)``: ``head`` has a rule whose body uses ``rel``;
        ``negative`` is True if some use is through ``!`` or inside an aggregate, and ``loc``
        is the first such literal (else the first use).
    """
    graph: Graph = {rel: {} for rel in relations}

    def add(head, rel, negative, loc):
        graph.setdefault(rel, {})
        old = graph.setdefault(head, {}).get(rel)
        if old is None or (negative and not old[0]):
            graph[head][rel] = (negative, loc)

    def walk(head, lits, under_agg):
        for lit in lits:
            if isinstance(lit, Atom):
                add(head, lit.rel, under_agg, lit.loc)
            elif isinstance(lit, NegAtom):
                add(head, lit.atom.rel, True, lit.loc)
            elif isinstance(lit, AggLit):
                walk(head, lit.body, True)

    for rule in rules:
        graph.setdefault(rule.head.rel, {})
        walk(rule.head.rel, rule.body, False)
    return graph


def strongly_connected_components(graph: Graph) -> list[list[str]]:
    """The strongly connected components of ``graph``, each listed after every component it
    reaches (for a dependency graph: bottom-up). Iterative Tarjan, O(V + E)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def enter(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        return node, iter(graph[node])

    for root in graph:
        if root in index:
            continue
        work = [enter(root)]
        while work:
            node, succs = work[-1]
            for nxt in succs:
                if nxt not in index:
                    work.append(enter(nxt))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:  # every successor done
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    out.append(component)
    return out


def _shortest_path(graph: Graph, source: str, target: str) -> list[str]:
    """Nodes of a shortest path source -> target (breadth-first; target reachable)."""
    parent = {source: None}
    todo = deque([source])
    while todo:
        node = todo.popleft()
        if node == target:
            break
        for nxt in graph[node]:
            if nxt not in parent:
                parent[nxt] = node
                todo.append(nxt)
    path = [target]
    while parent[path[-1]] is not None:
        path.append(parent[path[-1]])
    return path[::-1]


def stratify(relations: dict, rules: list) -> list[list[str]]:
    """Strata of the program, bottom-up.

    Parameters
    ----------
    relations : dict
        Every declared relation.
    rules : list of Rule

    Returns
    -------
    list of list of str
        Each stratum a sorted list of relation names; a relation's stratum comes after the
        strata of every relation it depends on.

    Raises
    ------
    DatalogError
        Located at the offending literal, naming the cycle, if a relation depends through
        negation or aggregation on a relation of its own recursive cycle.
    """
    graph = dependency_graph(relations, rules)
    components = strongly_connected_components(graph)
    member = {rel: k for k, component in enumerate(components) for rel in component}
    for u, succs in graph.items():
        for v, (negative, loc) in succs.items():
            if negative and member[u] == member[v]:
                path = f"{u} -> {u}" if u == v else " -> ".join([u] + _shortest_path(graph, v, u))
                raise DatalogError(f"non-stratified program: '{u}' depends on '{v}' through "
                                   f"negation or aggregation inside a recursive cycle ({path})",
                                   loc)
    return [sorted(component) for component in components]
