"""Helpers for PPG tests: PIR functions with a given CFG (ppg.md graphs: S = the entry's
predecessor START, E = END) and the trace-enumeration oracle of ppg.md T11."""
from __future__ import annotations

from itertools import count

from pylogic.ir.model import Block, Br, CondBr, Function, Imm, Module, PredDefine, PredDest, Reg, Ret

START, END = ("__start__", "-"), ("__exit__", "-")


def cfg_function(name: str, edges: list[tuple[str, str]]) -> Function:
    """A PIR function whose CFG is ``edges`` written in ppg.md notation: ``("S", x)`` makes x the
    entry, ``(x, "E")`` makes x return. Blocks with several exits use guarded side exits."""
    labels, succs, exits = [], {}, set()
    entry = next(b for a, b in edges if a == "S")
    for a, b in edges:
        for x in (a, b):
            if x not in ("S", "E") and x not in succs:
                labels.append(x)
                succs[x] = []
        if a == "S":
            continue
        if b == "E":
            exits.add(a)
        else:
            succs[a].append(b)
    labels.remove(entry)
    labels.insert(0, entry)
    fresh = count()
    blocks = []
    for x in labels:
        out = succs[x]
        body = []
        if len(out) == 2 and x not in exits:
            body.append(CondBr(cond=Reg("c"), if_true=out[0], if_false=out[1]))
        elif len(out) == 1 and x not in exits:
            body.append(Br(target=out[0]))
        else:
            for t in out:
                p = f"q{next(fresh)}"
                body.append(PredDefine(rel="eq", dests=(PredDest(p, "ut"),), a=Reg("c"),
                                       b=Imm(next(fresh))))
                body.append(Br(target=t, guard=p))
            if x in exits:
                body.append(Ret())
            else:       # several successors, no exit: the last one is the fall-back
                body[-1] = Br(target=out[-1])
        blocks.append(Block(label=x, instrs=tuple(body), hyperblock=len(body) > 1))
    return Function(name=name, params=("c",), blocks=tuple(blocks))


def node(x: str) -> tuple:
    """ppg.md node names -> PPG nodes: S, E, vSE, block labels, virtual ``v<a>_<b>``."""
    if x == "S":
        return START
    if x == "E":
        return END
    if x == "vSE":
        return ("__start__", "__exit__")
    if x.startswith("v") and "_" in x:
        a, b = x[1:].split("_")
        return (a, "__exit__" if b == "E" else b)
    return (x, "-")


def traces(edges: list[tuple]) -> list[frozenset]:
    """All START -> END paths of a DAG given as PPG-node edges (ppg.md Def 12), as node sets."""
    succ: dict = {}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
    out, stack = [], [(START, (START,))]
    while stack:
        n, path = stack.pop()
        if n == END:
            out.append(frozenset(path))
            continue
        for m in succ.get(n, ()):
            stack.append((m, path + (m,)))
    return out


def module_of(*functions: Function) -> Module:
    return Module(functions=tuple(functions), path="ppg.pir")
