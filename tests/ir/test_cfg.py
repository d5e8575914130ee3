"""pylogic.ir.cfg against networkx on random CFGs (irreducible, unreachable blocks, self-loops)."""
from __future__ import annotations

import random

import networkx as nx
import pytest

from pylogic.ir.cfg import (block_predecessors, block_successors, dfs_structure, retreating_edges,
                            reverse_postorder)
from pylogic.ir.model import Function
from pylogic.ir.synthetic import function_from_cfg, random_cfg, structured_cfg


def _graph(fn: Function) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(b.label for b in fn.blocks)
    g.add_edges_from(fn.edges())  # block order, successor order: the order the DFS visits
    return g


@pytest.mark.parametrize("seed", range(60))
def test_against_networkx(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 30)
    labels, succs = (random_cfg if seed % 2 else structured_cfg)(rng, n)
    fn = function_from_cfg("@f", labels, succs)
    g, entry = _graph(fn), fn.blocks[0].label
    rpo = reverse_postorder(fn)
    assert rpo == list(reversed(list(nx.dfs_postorder_nodes(g, entry))))
    # u -> v is retreating iff v is a DFS ancestor of u (or u itself): iff v does not come
    # after u in reverse postorder (Aho et al. 2nd ed. §9.6.3).
    index = {b: k for k, b in enumerate(rpo)}
    expected = {(u, v) for u, v in g.edges if u in index and index[v] <= index[u]}
    assert retreating_edges(fn) == expected
    # Without them the reachable graph is acyclic and reverse postorder is a topological order.
    forward = g.subgraph(rpo).copy()
    forward.remove_edges_from(expected)
    assert nx.is_directed_acyclic_graph(forward)
    assert all(index[u] < index[v] for u, v in forward.edges)


def test_dfs_structure_generic_graph():
    succ = {"a": ["b", "c"], "b": ["d"], "c": ["d"], "d": ["a", "d"]}
    rpo, retreating = dfs_structure("a", succ.get)
    assert sorted(rpo, key=rpo.get) == ["a", "c", "b", "d"]
    assert retreating == [("d", "a"), ("d", "d")]
    assert dfs_structure("x", {}.get) == ({"x": 0}, [])  # no successors: None is fine


def test_deep_chain_is_iterative():
    n = 20_000  # far beyond the recursion limit
    rpo, retreating = dfs_structure(0, lambda k: [k + 1] if k < n else [])
    assert len(rpo) == n + 1 and rpo[n] == n and not retreating


def test_function_without_blocks_and_dangling_labels():
    assert reverse_postorder(Function(name="@e", params=(), extern=True)) == []
    assert retreating_edges(Function(name="@e", params=(), extern=True)) == set()
    fn = function_from_cfg("@f", ["a", "b"], {"a": ["b", "zz"], "b": []})  # zz: no such block
    assert block_successors(fn) == {"a": ("b",), "b": ()}
    assert block_predecessors(fn) == {"a": [], "b": ["a"]}
    assert reverse_postorder(fn) == ["a", "b"]


@pytest.mark.parametrize("seed", range(20))
def test_predecessors_are_the_successors_reversed_in_block_order(seed):
    rng = random.Random(seed)
    labels, succs = (random_cfg if seed % 2 else structured_cfg)(rng, rng.randint(1, 30))
    fn = function_from_cfg("@f", labels, succs)
    g = _graph(fn)
    preds = block_predecessors(fn)
    assert list(preds) == [b.label for b in fn.blocks]
    # networkx keeps a node's in-edges in the order they were added: block order
    assert preds == {b: list(g.predecessors(b)) for b in g}
    assert [(a, b) for b, ps in preds.items() for a in ps] == \
        sorted(fn.edges(), key=lambda e: labels.index(e[1]))  # sorted() is stable
