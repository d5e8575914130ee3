"""pcp/cycles.py: the components of a growing graph, condensed batch by batch, are its strongly
connected components (networkx's on the whole graph is the oracle)."""
from __future__ import annotations

import random

import networkx as nx
import pytest

from pylogic.transforms.pcp.cycles import Condensation


def test_a_cycle_closes_only_with_its_last_edge():
    c = Condensation()
    c.add("a", "b")
    c.add("b", "c")
    c.update()
    assert not c.same("a", "b") and c.same("a", "a")
    c.add("c", "b")
    assert not c.same("b", "c")                 # not before update()
    c.update()
    assert c.same("b", "c") and not c.same("a", "b")
    c.add("c", "a")
    c.update()
    assert c.same("a", "c") and c.same("a", "b")


@pytest.mark.parametrize("seed", range(20))
def test_batches_of_random_edges_agree_with_networkx(seed):
    rng = random.Random(seed)
    nodes = list(range(rng.randint(3, 30)))
    c, g = Condensation(), nx.DiGraph()
    g.add_nodes_from(nodes)
    for _ in range(rng.randint(1, 6)):
        for _ in range(rng.randint(1, 12)):
            u, v = rng.choice(nodes), rng.choice(nodes)
            c.add(u, v)
            g.add_edge(u, v)
        c.update()
        comp = {x: k for k, scc in enumerate(nx.strongly_connected_components(g)) for x in scc}
        for u in nodes:
            for v in nodes:
                assert c.same(u, v) == (comp[u] == comp[v]), (u, v)
