"""Independent oracle for the CFG analyses: networkx dominator trees plus the textbook
definitions of dominance frontier (Cytron et al. 1991) and control dependence (Ferrante,
Ottenstein & Warren 1987), evaluated on explicit dominator sets."""
from __future__ import annotations

import networkx as nx

EXIT = "__exit__"


def _immediate_dominators(graph: nx.DiGraph, root: str) -> dict[str, str]:
    """networkx's idom map without the root (networkx < 3.5 maps root to itself)."""
    return {n: d for n, d in nx.immediate_dominators(graph, root).items() if n != root}


def _dom_sets(graph: nx.DiGraph, root: str) -> dict[str, set[str]]:
    idom = _immediate_dominators(graph, root)
    doms = {root: {root}}
    for n in idom:
        chain, x = {n}, n
        while x in idom:
            x = idom[x]
            chain.add(x)
        doms[n] = chain
    return doms


def cfg_oracle(blocks: list[str], edges: list[tuple[str, str]], exits: list[str]) -> dict[str, set]:
    """Expected idom, dom, df, ipdom, pdom, cdep rows (without the function column)."""
    entry = blocks[0]
    g = nx.DiGraph()
    g.add_nodes_from(blocks)
    g.add_edges_from(edges)
    idom = _immediate_dominators(g, entry)
    doms = _dom_sets(g, entry)
    out: dict[str, set] = {}
    out["idom"] = {(d, n) for n, d in idom.items()}
    out["dom"] = {(d, n) for n, ds in doms.items() for d in ds}
    df = set()
    for p, n in edges:
        if p not in doms:
            continue
        for d in doms[p]:
            if not (d in doms[n] and d != n):
                df.add((d, n))
    out["df"] = df

    r = nx.DiGraph()
    r.add_nodes_from(blocks)
    r.add_node(EXIT)
    r.add_edges_from((b, a) for a, b in edges)
    r.add_edges_from((EXIT, x) for x in exits)
    ipdom = _immediate_dominators(r, EXIT)
    pdoms = _dom_sets(r, EXIT)
    out["ipdom"] = {(d, n) for n, d in ipdom.items()}
    out["pdom"] = {(d, n) for n, ds in pdoms.items() for d in ds}
    cdep = set()
    for b, s in edges:
        for n in pdoms.get(s, ()):
            if n == EXIT:
                continue
            if not (n in pdoms.get(b, ()) and n != b):
                cdep.add((n, b, s))
    out["cdep"] = cdep
    reach = nx.descendants(g, entry) | {entry}
    out["reachable"] = {(b,) for b in reach}
    out["unreachable"] = {(b,) for b in blocks if b not in reach}
    return out


def loops_oracle(blocks: list[str], edges: list[tuple[str, str]]) -> dict[str, set]:
    """Expected back_edge, loop_header, loop_block, loop_depth and irreducible rows (without the
    function column; irreducible as {()} or set()) from networkx's dominator tree, walked per
    pair (no dominator sets, so it stays linear on long chains): natural loops of Aho, Lam,
    Sethi & Ullman §9.6.6; a CFG is reducible iff its reachable part without back edges is
    acyclic (§9.6.4)."""
    entry = blocks[0]
    g = nx.DiGraph()
    g.add_nodes_from(blocks)
    g.add_edges_from(edges)
    idom = _immediate_dominators(g, entry)
    reach = nx.descendants(g, entry) | {entry}

    def dominates(d: str, n: str) -> bool:
        while n != d and n in idom:
            n = idom[n]
        return n == d

    back = {(t, h) for t, h in edges if t in reach and dominates(h, t)}
    body: dict[str, set] = {}
    for t, h in back:
        loop = body.setdefault(h, {h})
        work = [t] if t not in loop else []
        loop.add(t)
        while work:
            b = work.pop()
            for p in g.predecessors(b):
                if p in reach and p not in loop:
                    loop.add(p)
                    work.append(p)
    forward = g.subgraph(reach).copy()
    forward.remove_edges_from(back)
    return {"back_edge": back, "loop_header": {(h,) for h in body},
            "loop_block": {(h, b) for h, bs in body.items() for b in bs},
            "loop_depth": {(b, sum(b in bs for bs in body.values())) for b in reach},
            "irreducible": set() if nx.is_directed_acyclic_graph(forward) else {()}}
