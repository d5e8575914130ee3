"""Synthetic functions for tests and benchmarks: arbitrary CFGs (irreducible, unreachable blocks,
self-loops, several exits) and structured code (sequences, if/else, while loops) of a given size."""
from __future__ import annotations

import random

from pylogic.ir.model import (BinOp, Block, Br, CondBr, Function, Imm, PredDefine, PredDest,
                              Reg, Ret)


def function_from_cfg(name: str, labels: list[str], succs: dict[str, list[str]]) -> Function:
    """A PIR function with exactly this CFG. Blocks with more than two successors become
    hyperblocks with guarded side exits; blocks without successors return."""
    x = Reg("%x")
    blocks = []
    for label in labels:
        out = list(dict.fromkeys(succs.get(label, ())))
        body = [BinOp(op="add", dest="%x", a=x, b=Imm(1))]
        if len(out) == 0:
            body.append(Ret(value=x))
        elif len(out) == 1:
            body.append(Br(target=out[0]))
        elif len(out) == 2:
            body.append(CondBr(cond=Reg("%c"), if_true=out[0], if_false=out[1]))
        else:
            body.insert(0, PredDefine(rel="lt", dests=(PredDest("%p", "ut"), PredDest("%q", "uf")),
                                      a=x, b=Imm(3)))
            for k, t in enumerate(out[:-1]):
                body.append(Br(target=t, guard="%p" if k % 2 == 0 else "%q"))
            body.append(Br(target=out[-1]))
        blocks.append(Block(label=label, instrs=tuple(body), hyperblock=len(out) > 2))
    return Function(name=name, params=("%c",), blocks=tuple(blocks))


def random_cfg(rng: random.Random, n: int, edge_factor: float = 1.5,
               exit_prob: float = 0.15) -> tuple[list[str], dict[str, list[str]]]:
    """A random CFG on n blocks: a random spanning structure plus extra edges (back edges,
    cross edges, self-loops), some blocks with no successor (exits), possibly unreachable ones."""
    labels = [f"b{i}" for i in range(n)]
    succs: dict[str, list[str]] = {b: [] for b in labels}
    for i in range(1, n):
        if rng.random() < 0.9:  # otherwise b_i may stay unreachable
            succs[labels[rng.randrange(i)]].append(labels[i])
    for _ in range(int(edge_factor * n) - n):
        a, b = rng.choice(labels), rng.choice(labels)
        succs[a].append(b)
    for b in labels:
        if rng.random() < exit_prob:
            succs[b] = []
    return labels, succs


def irreducible_cfg(rng: random.Random, n: int, window: int = 8, cross: float = 0.3,
                    back: float = 0.06) -> tuple[list[str], dict[str, list[str]]]:
    """A random CFG on n blocks, every block reachable from b0 and at most two successors each,
    with the locality of real code: each block hangs off a recent block (within ``window``),
    plus forward cross edges and back edges to blocks at most ``window`` earlier (fractions
    ``cross`` and ``back`` of n). A back edge whose target does not dominate its source enters
    a cycle at a second block: irreducible regions, many iterations of the dominator walk."""
    labels = [f"b{i}" for i in range(n)]
    succs: dict[str, list[str]] = {b: [] for b in labels}
    for i in range(1, n):  # block i-1 has no successor yet, so some block in the window is open
        open_ = [j for j in range(max(0, i - window), i) if len(succs[labels[j]]) < 2]
        succs[labels[rng.choice(open_)]].append(labels[i])
    for frac, sign in ((cross, 1), (back, -1)):
        for _ in range(int(frac * n)):
            a = rng.randrange(n)
            b = a + sign * rng.randint(1, window)
            if 0 <= b < n and len(succs[labels[a]]) < 2 and labels[b] not in succs[labels[a]]:
                succs[labels[a]].append(labels[b])
    return labels, succs


def structured_cfg(rng: random.Random, n: int) -> tuple[list[str], dict[str, list[str]]]:
    """Structured code of about n blocks: nested sequences, if/else diamonds and while loops
    (some with a break), with one exit. Nesting depth stays logarithmic-ish in n."""
    labels: list[str] = []
    succs: dict[str, list[str]] = {}

    def new() -> str:
        b = f"b{len(labels)}"
        labels.append(b)
        succs[b] = []
        return b

    def region(budget: int, depth: int) -> tuple[str, str]:
        """Build a single-entry single-exit region; return (entry, exit)."""
        if budget <= 2 or depth > 12:
            b = new()
            return b, b
        kind = rng.random()
        if kind < 0.4:  # sequence of parts
            parts = rng.randint(2, 4)
            first = last = None
            for k in range(parts):
                e, x = region(budget // parts, depth + 1)
                if last is not None:
                    succs[last].append(e)
                first = first or e
                last = x
            return first, last
        if kind < 0.75:  # if / else
            head = new()
            te, tx = region((budget - 2) // 2, depth + 1)
            fe, fx = region((budget - 2) // 2, depth + 1)
            join = new()
            succs[head] += [te, fe]
            succs[tx].append(join)
            succs[fx].append(join)
            return head, join
        head = new()  # while loop, sometimes with a break
        be, bx = region(budget - 2, depth + 1)
        out = new()
        succs[head] += [be, out]
        if rng.random() < 0.3 and bx != be:
            brk = new()
            succs[bx] += [head, brk]
            succs[brk].append(out)
        else:
            succs[bx].append(head)
        return head, out

    entry, last = region(n, 0)
    assert labels[0] == entry
    return labels, succs
