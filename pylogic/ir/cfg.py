"""Cheap structure of a control-flow graph: depth-first reverse postorder and retreating edges.

Used by facts_gen (the structural facts ``rpo``/``retreating`` the Datalog rules lean on) and by
transforms (region selection). Anything costlier -- dominators, loops, control dependence -- is
computed by the catalogued Datalog programs, not here (DESIGN.md "Inside the package").

Graphs are given as a root and a ``successors`` callable (``succ.get`` of a dict works), or as a
PIR :class:`~pylogic.ir.model.Function`, whose graph is its CFG from the entry block with side
exits included. Successors are visited in the order given, so every result is deterministic.
Strongly connected components (Tarjan, linear) serve ``transforms.pcp.sparse`` and
``flow.reaching_graph``.
"""
from __future__ import annotations

from typing import Callable, Hashable, Iterable

from pylogic.identity_cache import IdentityCache
from pylogic.ir.model import Function

__all__ = ["dfs_structure", "block_successors", "block_predecessors", "reverse_postorder",
           "retreating_edges", "strongly_connected"]


def dfs_structure(root: Hashable, successors: Callable[[Hashable], Iterable[Hashable] | None]
                  ) -> tuple[dict, list[tuple]]:
    """Reverse-postorder numbers and retreating edges of one depth-first search from ``root``.

    Parameters
    ----------
    root : hashable
        The start node.
    successors : callable
        ``successors(node)`` gives the node's successors in visiting order; ``None`` counts as
        no successors.

    Returns
    -------
    rpo : dict
        Reverse-postorder number (0 for ``root``) of every node reached from ``root``.
    retreating : list of (u, v)
        Edges to a node still on the DFS stack (v an ancestor of u, or u itself), in the order
        the search explored them. On a reducible graph these are exactly the back edges.

    Examples
    --------
    >>> rpo, retreating = dfs_structure("a", {"a": ["b"], "b": ["a"]}.get)
    >>> sorted(rpo.items()), retreating
    ([('a', 0), ('b', 1)], [('b', 'a')])

    Notes
    -----
    Iterative, so deep graphs do not hit the recursion limit.

    References
    ----------
    Cooper, Harvey, Kennedy, "A Simple, Fast Dominance Algorithm" (2001), §2 (postorder
    numbering); Aho, Lam, Sethi, Ullman, *Compilers* 2nd ed., §9.6.2-9.6.3 (depth-first
    spanning trees, retreating and back edges).
    """
    post: list = []
    state: dict = {root: 1}  # 1 = on the stack, 2 = finished
    retreating: list[tuple] = []
    stack = [(root, iter(successors(root) or ()))]
    while stack:
        node, it = stack[-1]
        for nxt in it:
            st = state.get(nxt)
            if st is None:
                state[nxt] = 1
                stack.append((nxt, iter(successors(nxt) or ())))
                break
            if st == 1:
                retreating.append((node, nxt))
        else:
            stack.pop()
            state[node] = 2
            post.append(node)
    n = len(post)
    return {b: n - 1 - k for k, b in enumerate(post)}, retreating


def block_successors(fn: Function) -> dict[str, tuple[str, ...]]:
    """CFG successors of every block of ``fn``, side exits included, unknown labels dropped.

    Parameters
    ----------
    fn : Function
        A PIR function (an extern gives ``{}``).

    Returns
    -------
    dict
        ``{label: (successor label, ...)}`` in block order; successors in the order of
        :meth:`~pylogic.ir.model.Block.successors`.

    Examples
    --------
    >>> from pylogic.ir.parser import parse_module
    >>> m = parse_module("func @f() {\\nentry:\\n  br exit\\nexit:\\n  ret\\n}\\n")
    >>> block_successors(m.functions[0])
    {'entry': ('exit',), 'exit': ()}
    """
    labels = {b.label for b in fn.blocks}
    return {b.label: tuple(s for s in b.successors() if s in labels) for b in fn.blocks}


def block_predecessors(fn: Function) -> dict[str, list[str]]:
    """CFG predecessors of every block of ``fn``, side exits included, unknown labels dropped:
    the edges of :func:`block_successors` reversed.

    Parameters
    ----------
    fn : Function
        A PIR function (an extern gives ``{}``).

    Returns
    -------
    dict
        ``{label: [predecessor label, ...]}`` in block order (every block a key, ``[]`` for
        none); each list in block order, one entry per edge (a block's successors hold no
        duplicates). A new dict of new lists on every call: callers may edit them.

    Examples
    --------
    >>> from pylogic.ir.parser import parse_module
    >>> m = parse_module("func @f() {\\nentry:\\n  br exit\\nexit:\\n  ret\\n}\\n")
    >>> block_predecessors(m.functions[0])
    {'entry': [], 'exit': ['entry']}
    """
    preds: dict[str, list[str]] = {b.label: [] for b in fn.blocks}
    for b in fn.blocks:
        for s in b.successors():
            got = preds.get(s)
            if got is not None:
                got.append(b.label)
    return preds


def reverse_postorder(fn: Function) -> list[str]:
    """Labels of the blocks reachable from the entry of ``fn``, in reverse postorder.

    Parameters
    ----------
    fn : Function
        A PIR function; its first block is the entry.

    Returns
    -------
    list of str
        Entry first; every block before its successors along forward (non-retreating) edges.
        Empty for a function without blocks.

    Examples
    --------
    >>> from pylogic.ir.parser import parse_module
    >>> m = parse_module("func @f() {\\nentry:\\n  br exit\\ndead:\\n  ret\\nexit:\\n  ret\\n}\\n")
    >>> reverse_postorder(m.functions[0])
    ['entry', 'exit']

    References
    ----------
    See :func:`dfs_structure`.
    """
    if not fn.blocks:
        return []
    got = _RPO.get(fn)
    if got is None:
        rpo, _ = dfs_structure(fn.blocks[0].label, block_successors(fn).get)
        got = _RPO.put(fn, tuple(sorted(rpo, key=rpo.get)))
    return list(got)


#: function -> its reverse postorder (a function object is asked again by value naming's
#: rounds, their copies' checks and the facts of the step after; issue #28 item 1)
_RPO = IdentityCache(64)


def retreating_edges(fn: Function) -> set[tuple[str, str]]:
    """Retreating edges ``(u, v)`` of a depth-first search of ``fn``'s CFG from its entry.

    Parameters
    ----------
    fn : Function
        A PIR function; its first block is the entry.

    Returns
    -------
    set of (str, str)
        Edges whose target is on the DFS stack when explored (loop back edges, on a reducible
        CFG). Empty for a function without blocks.

    Examples
    --------
    >>> from pylogic.ir.parser import parse_module
    >>> m = parse_module("func @f() {\\nentry:\\n  br loop\\nloop:\\n  br loop\\n}\\n")
    >>> retreating_edges(m.functions[0])
    {('loop', 'loop')}

    References
    ----------
    See :func:`dfs_structure`.
    """
    if not fn.blocks:
        return set()
    _, retreating = dfs_structure(fn.blocks[0].label, block_successors(fn).get)
    return set(retreating)


def strongly_connected(nodes, succ: dict) -> dict:
    """node -> its strongly connected component (named by one of its nodes), for the graph
    ``succ`` (node -> successors) from ``nodes``: Tarjan, iterative, O(V + E).

    References: R. Tarjan, "Depth-first search and linear graph algorithms", SIAM J. Comput.
    1(2), 1972."""
    index: dict = {}
    low: dict = {}
    comp: dict = {}
    stack: list = []
    on: set = set()
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(succ.get(root, ())))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(succ.get(w, ()))))
                    break
                if w in on and index[w] < low[v]:
                    low[v] = index[w]
            else:
                work.pop()
                if work:
                    u = work[-1][0]
                    if low[v] < low[u]:
                        low[u] = low[v]
                if low[v] == index[v]:
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp[w] = v
                        if w == v:
                            break
    return comp
