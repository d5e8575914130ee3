"""Branch queries relating two registers (issue #15 part C): a ``cbr`` on ``t = cmp.REL v, w``
raises the query ``(v REL w)``, which ``datalog/correlation/pairs.dl`` propagates backwards
inside the function, renaming either register through copies, and resolves by an earlier
branch on the same two registers (either order, negated on its false edge): ``x < y`` decides
``x != y`` TRUE and ``x >= y`` FALSE; ``x < y`` says nothing of ``x <u y``.

Facts: ``branch_pair`` (the query), ``assert_pair`` (what an edge asserts about a pair, in both
orders), ``pair_decides`` (which asserted relation decides which queried one, per function) and
``pair_key`` (the name of each pair a query may be on, ``"v|w"``, the variable column of
``correlation_edge``/``correlation_through`` that ``cbe`` reads).
"""
from __future__ import annotations

from functools import lru_cache
from itertools import product
from typing import Optional

from pylogic.ir import model
from pylogic.ir.model import Cmp, CondBr, Reg
from pylogic.ir.ops import NEGATED, SWAPPED, eval_rel

RELATIONS = ("branch_pair", "assert_pair", "pair_decides", "pair_key")
#: the most pairs a function's pair queries may be renamed into (then UNDEF at the copy)
PAIR_LIMIT = 256


@lru_cache(maxsize=None)
def pair_decision(asserted: str, queried: str) -> Optional[str]:
    """TRUE when ``x asserted y`` implies ``x queried y``, FALSE when it excludes it, else None.
    Decided on every pair of sign-extended 4-bit values (their signed and unsigned orders are
    the 4-bit ones): which of these ten relations imply or exclude which does not depend on
    the width."""
    seen = {eval_rel(queried, x, y) for x, y in product(range(-8, 8), repeat=2)
            if eval_rel(asserted, x, y)}
    return "TRUE" if seen == {True} else "FALSE" if seen == {False} else None


def pair_condition(block, t: int) -> Optional[tuple[str, str, str]]:
    """``(v, rel, w)``: the unguarded ``cbr`` at index t branches on ``t = cmp.REL v, w`` of two
    distinct registers computed in its block, none redefined before the branch."""
    cbr = block.instrs[t]
    if not isinstance(cbr, CondBr) or cbr.guard is not None or not isinstance(cbr.cond, Reg):
        return None
    r = cbr.cond.name
    for k in range(t - 1, -1, -1):
        ins = block.instrs[k]
        if r not in ins.defs():
            continue
        if not isinstance(ins, Cmp) or ins.guard is not None or not isinstance(ins.a, Reg) \
                or not isinstance(ins.b, Reg) or ins.a == ins.b or r in (ins.a.name, ins.b.name):
            return None
        v, w = ins.a.name, ins.b.name
        if any({v, w} & set(later.defs()) for later in block.instrs[k + 1:t]):
            return None
        return v, ins.rel, w
    return None


def pair_facts(f: str, fn, out: dict[str, list[tuple]], copies: list[tuple]) -> None:
    """Append ``fn``'s pair relations (function id ``f``; ``copies``: its ``copy`` rows)."""
    from facts_gen.naming import instr_id
    pairs, rels = [], set()
    for b in fn.blocks:
        if not b.instrs:
            continue
        t = len(b.instrs) - 1
        cond = pair_condition(b, t)
        if cond is None:
            continue
        v, rel, w = cond
        rels.add(rel)
        out["branch_pair"].append((f, instr_id(b.label, t), v, rel, w))
        pairs.append((v, w))
        cbr = b.instrs[t]
        if cbr.if_true == cbr.if_false:
            continue
        for target, r in ((cbr.if_true, rel), (cbr.if_false, NEGATED[rel])):
            out["assert_pair"].append((f, b.label, target, v, w, r))
            out["assert_pair"].append((f, b.label, target, w, v, SWAPPED[r]))
    if not pairs:
        return
    for asserted in model.RELATIONS:
        for queried in sorted(rels):
            answer = pair_decision(asserted, queried)
            if answer is not None:
                out["pair_decides"].append((f, asserted, queried, answer))
    renames: dict[str, set] = {}
    for _, _, d, s in copies:
        renames.setdefault(d, set()).add(s)
    seen, work = set(pairs), list(pairs)
    while work and len(seen) < PAIR_LIMIT:
        v, w = work.pop()
        nxt = [(s, w) for s in renames.get(v, ()) if s != w] + \
              [(v, s) for s in renames.get(w, ()) if s != v]
        for p in nxt:
            if p not in seen and len(seen) < PAIR_LIMIT:
                seen.add(p)
                work.append(p)
    out["pair_key"].extend((f, v, w, f"{v}|{w}") for v, w in sorted(seen))
