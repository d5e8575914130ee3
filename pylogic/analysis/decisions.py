"""What the report's CFG shows of each block (issue #30 item 4): its code as PIR text, and on
each edge the decision that takes it: ``true``/``false`` out of a ``cbr``, with the comparison
that set its condition in the same block (``%x == 4``), so the binary search LLVM's
``lowerswitch`` makes of a C ``switch`` (``NodeBlock``: ``%x < 3``, ``LeafBlock``: ``%x == 4``)
reads with its case values; a guarded branch adds ``if p``. Computed by ``analyze`` from the
loaded program (the facts do not say which ``cbr`` target is the true one) and stored in
``OUT/report/code.json`` (``report_data.CODE``); the report only reads it.

Example
-------
>>> decisions(fn)["edges"]["body"]["exit"]                    # doctest: +SKIP
'false: %i < %n'
"""
from __future__ import annotations

from pylogic.ir.model import Br, Cmp, CondBr, Function, Reg
from pylogic.ir.ops import NEGATED, RELATION, UNSIGNED_RELS
from pylogic.ir.printer import print_instr


def comparison(rel: str, a, b) -> str:
    """``a REL b`` as it reads on an edge: ``%x < 3``, with ``(unsigned)`` for ``ltu`` & co
    (the operator's Python template of ``ir/ops.py``, its one owner)."""
    text = RELATION[rel].python.format(a=a, b=b, ua=a, ub=b)
    return text + (" (unsigned)" if rel in UNSIGNED_RELS else "")


def decisions(fn: Function) -> dict:
    """``{"code": {block: [instruction text]}, "edges": {a: {b: label}}}`` of ``fn``; an edge
    taken by an unguarded ``br`` has no entry (its label is empty)."""
    code, edges = {}, {}
    for block in fn.blocks:
        code[block.label] = [print_instr(i) for i in block.instrs]
        last_cmp: dict[str, Cmp] = {}
        labels: dict[str, list[str]] = {}
        for ins in block.instrs:
            guard = f" if {ins.guard}" if getattr(ins, "guard", None) else ""
            if isinstance(ins, CondBr):
                cmp = last_cmp.get(ins.cond.name) if isinstance(ins.cond, Reg) else None
                if cmp is not None and cmp.rel in RELATION:
                    true = f"true: {comparison(cmp.rel, cmp.a, cmp.b)}"
                    false = f"false: {comparison(NEGATED[cmp.rel], cmp.a, cmp.b)}"
                else:
                    true, false = "true", "false"
                labels.setdefault(ins.if_true, []).append(true + guard)
                labels.setdefault(ins.if_false, []).append(false + guard)
            elif isinstance(ins, Br) and guard:
                labels.setdefault(ins.target, []).append(guard.strip())
            for r in ins.defs():
                last_cmp.pop(r, None)
            if isinstance(ins, Cmp) and not getattr(ins, "guard", None):
                last_cmp[ins.dest] = ins
        if labels:
            edges[block.label] = {t: "; ".join(ls) for t, ls in labels.items()}
    return {"code": code, "edges": edges}
