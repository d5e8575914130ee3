"""Before/after views of each pass of an ``optimize`` run (issue #17 item 1): per function, the
code before and after with every instruction marked kept, removed, inserted or moved, counted as
the driver counts them (``optimize.change_counts``: an instruction text that leaves one block and
appears in another is moved; the rest of the difference is removed or inserted)."""
from __future__ import annotations

from collections import Counter

from pylogic.analysis.optimize import Optimization
from pylogic.ir.model import Module
from pylogic.ir.printer import print_instr


def _listing(fn, changed: Counter, moved: Counter, mark: str) -> list[tuple[str, str, str]]:
    """(block, instruction text, mark) in program order; ``changed`` and ``moved`` are consumed."""
    out = []
    for b in fn.blocks:
        for i in b.instrs:
            text = print_instr(i)
            key = (b.label, text)
            if changed[key] > 0:
                changed[key] -= 1
                if moved[text] > 0:
                    moved[text] -= 1
                    out.append((b.label, text, "moved"))
                else:
                    out.append((b.label, text, mark))
            else:
                out.append((b.label, text, "kept"))
    return out


def pass_diff(before: Module, after: Module) -> list[dict]:
    """Per function of either module: ``{name, before: [(block, text, mark)], after: [...],
    removed, inserted, moved}`` (marks: kept / removed / moved before; kept / inserted / moved
    after). Functions the pass left unchanged are omitted."""
    old = {fn.name: fn for fn in before.defined_functions()}
    new = {fn.name: fn for fn in after.defined_functions()}
    out = []
    for name in list(old) + [n for n in new if n not in old]:
        a, b = old.get(name), new.get(name)
        pa = Counter((blk.label, print_instr(i)) for blk in a.blocks for i in blk.instrs) \
            if a else Counter()
        pb = Counter((blk.label, print_instr(i)) for blk in b.blocks for i in blk.instrs) \
            if b else Counter()
        gone, came = pa - pb, pb - pa
        if not gone and not came:
            continue
        gone_text = Counter(t for (_, t), n in gone.items() for _ in range(n))
        came_text = Counter(t for (_, t), n in came.items() for _ in range(n))
        both = gone_text & came_text
        out.append({"name": name,
                    "before": _listing(a, Counter(gone), Counter(both), "removed") if a else [],
                    "after": _listing(b, Counter(came), Counter(both), "inserted") if b else [],
                    "removed": sum((gone_text - both).values()),
                    "inserted": sum((came_text - both).values()), "moved": sum(both.values())})
    return out


def pipeline_views(result: Optimization) -> list[dict]:
    """Per pass of ``result``: ``{name, totals, functions: pass_diff(...)}``."""
    views, current = [], result.original
    for p in result.passes:
        after = p.module if p.module is not None else result.module
        views.append({"name": p.name, "totals": p.totals(),
                      "functions": pass_diff(current, after)})
        current = after
    return views
