"""Python oracles for datalog/pre.dl and the pre-m pass (tests only, DESIGN.md): the maximal
fixed point of the thesis' equations (pathfinder.md §4.4) iterated directly on the
{⊤, Must, May, No} lattice, and lazy code motion (Knoop, Rüthing, Steffen 1992, in the edge
formulation of Drechsler & Stadel 1993) written from the textbook equations.
"""
from __future__ import annotations

from pylogic.ir.model import Call, Load, Reg, Ret, Store
from pylogic.flow.address_roots import memory_roots
from pylogic.flow.definitions import definitions
from pylogic.flow.known_bytes import KnownBytes
from pylogic.flow.spans import load_roots, load_spans, memory_offsets, object_sizes, spares
from pylogic.flow.value_names import expression_of, reads_memory, store_generated, value_names

TOP, MUST, MAY, NO = "top", "must", "may", "no"


def meet(x: str, y: str) -> str:
    """⊓ of Def 4.4: ⊤ ⊓ x = x, Must ⊓ No = May, May ⊓ x = May."""
    if x == TOP:
        return y
    if y == TOP or x == y:
        return x
    return MAY


def local_properties(fn, exprs, defined=frozenset(), readonly=frozenset(), contents=None,
                     global_sizes=None):
    """``(antloc, comp, kills)``: sets of (block, expr), computed by walking each block
    (``readonly``: the module's ``readonly_globals``; ``contents``: its ``readonly_contents``)."""
    antloc, comp, kills = set(), set(), set()
    names = value_names(fn)
    defs = definitions(fn)
    roots = memory_roots(fn, defined, readonly)
    lroots = load_roots(fn, names, exprs, roots)
    offsets = memory_offsets(fn)
    spans = load_spans(fn, names, exprs, roots, offsets)
    known = KnownBytes(fn, names, defined, contents)
    sizes = object_sizes(fn, global_sizes or {})
    for b in fn.blocks:
        killed = set()
        last = {}
        for ins in b.instrs:
            found = expression_of(ins, names) if ins.guard is None else None
            if found and found[0] in exprs:
                e = found[0]
                if e not in killed:
                    antloc.add((b.label, e))
                last[e] = True
            for e, (op, args) in exprs.items():
                regs = {a.name for a in args if isinstance(a, Reg)}
                if set(ins.defs()) & regs or (
                        reads_memory(op, args) and isinstance(ins, (Store, Call)) and
                        not spares(ins, lroots.get(e), roots, defined, spans.get(e),
                                   offsets, sizes)) or (
                        op in ("div", "rem") and isinstance(ins, Call)):
                    killed.add(e)
                    kills.add((b.label, e))
                    last[e] = False
            for e in known.generated(ins):  # writes of known bytes determine the load
                if e in exprs:
                    last[e] = True
            if isinstance(ins, Store):     # the stored value is the load's after it (§3.4.1.1)
                for e in store_generated(ins, names, defs):
                    if e in exprs:
                        last[e] = True
        comp |= {(b.label, e) for e, v in last.items() if v}
    return antloc, comp, kills


def graph(fn):
    succ = {b.label: list(b.successors()) for b in fn.blocks}
    pred = {b.label: [] for b in fn.blocks}
    for a, ss in succ.items():
        for s in ss:
            pred[s].append(a)
    exits = {b.label for b in fn.blocks if any(isinstance(i, Ret) for i in b.instrs)}
    return succ, pred, exits


def reachable(fn):
    succ, _, _ = graph(fn)
    seen, stack = {fn.blocks[0].label}, [fn.blocks[0].label]
    while stack:
        for s in succ[stack.pop()]:
            if s not in seen:
                seen.add(s)
                stack.append(s)
    return seen


def availability(fn, exprs, gen, kill, entry_state=NO):
    """``(AVAIL_in, AVAIL_out)`` of §4.4: f = Must on gen, No on kill, identity otherwise."""
    succ, pred, _ = graph(fn)
    entry = fn.blocks[0].label
    blocks = [b.label for b in fn.blocks]
    av_in = {(b, e): TOP for b in blocks for e in exprs}
    av_out = dict(av_in)
    changed = True
    while changed:
        changed = False
        for b in blocks:
            for e in exprs:
                x = entry_state if b == entry else TOP
                for p in pred[b]:
                    x = meet(x, av_out[(p, e)])
                y = MUST if (b, e) in gen else NO if (b, e) in kill else x
                if (x, y) != (av_in[(b, e)], av_out[(b, e)]):
                    av_in[(b, e)], av_out[(b, e)] = x, y
                    changed = True
    return av_in, av_out


def anticipability(fn, exprs, antloc, kills):
    """``(ANTIC_in, ANTIC_out)`` of §4.4 (separable VNG): Must at users, No at kills."""
    succ, _, exits = graph(fn)
    blocks = [b.label for b in fn.blocks]
    an_in = {(b, e): TOP for b in blocks for e in exprs}
    an_out = dict(an_in)
    changed = True
    while changed:
        changed = False
        for b in reversed(blocks):
            for e in exprs:
                x = NO if b in exits else TOP
                for s in succ[b]:
                    x = meet(x, an_in[(s, e)])
                y = MUST if (b, e) in antloc else NO if (b, e) in kills else x
                if (y, x) != (an_in[(b, e)], an_out[(b, e)]):
                    an_in[(b, e)], an_out[(b, e)] = y, x
                    changed = True
    return an_in, an_out


def lazy_code_motion(fn, exprs, antloc, comp, kills):
    """LCM (edge-based): ``(insert edges {(a, b, e)}, compute-in-place {(b, e)})``.

    ANTIN/AVOUT are the classic bit-vector problems; EARLIEST(i,j) = ANTIN(j) ∧ ¬AVOUT(i) ∧
    (KILL(i) ∨ ¬ANTOUT(i)); LATER(i,j) = EARLIEST(i,j) ∨ (LATERIN(i) ∧ ¬ANTLOC(i)); LATERIN(j) =
    ∧ LATER(i,j), with a virtual edge into the entry; INSERT(i,j) = LATER(i,j) ∧ ¬LATERIN(j); an
    upward-exposed computation stays where ANTLOC ∧ LATERIN.
    """
    succ, pred, exits = graph(fn)
    blocks = [b.label for b in fn.blocks]
    entry = blocks[0]
    edges = [(a, b) for a in blocks for b in succ[a]]
    ins, outs = set(), set()
    for e in exprs:
        ant_in = {b: True for b in blocks}
        ant_out = {b: True for b in blocks}
        av_out = {b: True for b in blocks}
        changed = True
        while changed:
            changed = False
            for b in reversed(blocks):
                o = (b not in exits) and all(ant_in[s] for s in succ[b])
                i = (b, e) in antloc or ((b, e) not in kills and o)
                if (o, i) != (ant_out[b], ant_in[b]):
                    ant_out[b], ant_in[b] = o, i
                    changed = True
            for b in blocks:
                x = b != entry and all(av_out[p] for p in pred[b])
                y = (b, e) in comp or ((b, e) not in kills and x)
                if y != av_out[b]:
                    av_out[b] = y
                    changed = True
        earliest = {(a, b): ant_in[b] and not av_out[a] and ((a, e) in kills or not ant_out[a])
                    for a, b in edges}
        earliest_entry = ant_in[entry]
        later_in = {b: True for b in blocks}
        later = {}
        changed = True
        while changed:
            changed = False
            for a, b in edges:
                later[(a, b)] = earliest[(a, b)] or (later_in[a] and (a, e) not in antloc)
            for b in blocks:
                v = all(later[(p, b)] for p in pred[b])
                if b == entry:
                    v = v and earliest_entry
                if v != later_in[b]:
                    later_in[b] = v
                    changed = True
        ins |= {(a, b, e) for a, b in edges if later[(a, b)] and not later_in[b]}
        if earliest_entry and not later_in[entry]:          # the virtual edge into the entry
            ins.add(("__entry__", entry, e))
        outs |= {(b, e) for b in blocks if (b, e) in antloc and later_in[b]}
    return ins, outs
