"""CFG relations (DESIGN.md facts contract) and the structural facts the Datalog rules lean on:
reverse postorder and retreating edges of the CFG and of the reverse CFG rooted at ``__exit__``.

The structural facts keep dominance output-sensitive (datalog/dominance.dl): with RPO numbers and
retreating edges known, idom is an intersect-walk over forward edges (Cooper, Harvey, Kennedy 2001)
and only irreducible regions need the reach-avoiding fallback.
"""
from __future__ import annotations

from pylogic.ir.model import Function, Ret
from facts_gen.naming import VIRTUAL_EXIT


def exit_blocks(fn: Function) -> list[str]:
    """Blocks whose terminator is an unguarded ``ret`` (guarded rets are side exits too)."""
    return [b.label for b in fn.blocks if any(isinstance(i, Ret) for i in b.instrs)]


def dfs_structure(root: str, succ: dict[str, list[str]]) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """Iterative DFS from ``root``: (reverse-postorder index per reached node, retreating edges).

    An edge u->v is retreating when v is on the DFS stack when the edge is explored.
    Successor order is the given order, so the result is deterministic.
    """
    post: list[str] = []
    state: dict[str, int] = {root: 1}  # 1 = on stack, 2 = done
    retreating: list[tuple[str, str]] = []
    stack = [(root, iter(succ.get(root, ())))]
    while stack:
        node, it = stack[-1]
        for nxt in it:
            st = state.get(nxt)
            if st is None:
                state[nxt] = 1
                stack.append((nxt, iter(succ.get(nxt, ()))))
                break
            if st == 1:
                retreating.append((node, nxt))
        else:
            stack.pop()
            state[node] = 2
            post.append(node)
    n = len(post)
    rpo = {b: n - 1 - k for k, b in enumerate(post)}
    return rpo, retreating


def cfg_facts(f: str, fn: Function, out: dict[str, list[tuple]]) -> None:
    """Append the CFG and structural relations of one defined function to ``out``."""
    labels = [b.label for b in fn.blocks]
    out["block"].extend((f, b) for b in labels)
    out["entry"].append((f, labels[0]))
    exits = exit_blocks(fn)
    out["exit"].extend((f, b) for b in exits)
    edges = fn.edges()
    out["edge"].extend((f, a, b) for a, b in edges)
    out["hyperblock"].extend((f, b.label) for b in fn.blocks if b.hyperblock)

    succ: dict[str, list[str]] = {b: [] for b in labels}
    pred: dict[str, list[str]] = {b: [] for b in labels}
    for a, b in edges:
        succ[a].append(b)
        pred[b].append(a)
    rpo, retreating = dfs_structure(labels[0], succ)
    out["rpo"].extend((f, b, i) for b, i in rpo.items())
    out["retreating"].extend((f, a, b) for a, b in retreating)

    # Reverse CFG rooted at the virtual exit: __exit__ -> each exit block, then b -> its preds.
    rsucc: dict[str, list[str]] = {VIRTUAL_EXIT: list(exits)}
    for b in labels:
        rsucc[b] = pred[b]
    rrpo, rretreating = dfs_structure(VIRTUAL_EXIT, rsucc)
    out["rpo_rev"].extend((f, b, i) for b, i in rrpo.items())
    out["retreating_rev"].extend((f, a, b) for a, b in rretreating)
