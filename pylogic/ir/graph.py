"""Depth-first structure of a rooted graph: reverse postorder and retreating edges. Used by
facts_gen (structural facts for the Datalog rules) and by transforms (region selection)."""
from __future__ import annotations

from typing import Callable, Iterable


def dfs_structure(root: str, successors: Callable[[str], Iterable[str]]
                  ) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """Iterative DFS from ``root``: (reverse-postorder number of each reached node, retreating
    edges in discovery order).

    An edge u->v is retreating when v is on the DFS stack when the edge is explored. Successors
    are visited in the order given, so the result is deterministic.

    Example: ``dfs_structure("a", {"a": ["b"], "b": ["a"]}.get)`` is
    ``({"a": 0, "b": 1}, [("b", "a")])``.
    """
    post: list[str] = []
    state: dict[str, int] = {root: 1}  # 1 = on stack, 2 = done
    retreating: list[tuple[str, str]] = []
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
