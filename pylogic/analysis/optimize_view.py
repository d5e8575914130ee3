"""Before/after views of each pass of an ``optimize`` run (issue #17 item 1): per function, the
code before and after with every instruction marked kept, removed, inserted or moved, counted as
the driver counts them (``optimize.change_counts``: an instruction text that leaves one block and
appears in another is moved; the rest of the difference is removed or inserted)."""
from __future__ import annotations

from collections import Counter
from typing import Optional

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


# ---------------------------------------------------------------- what the optimize report draws
# (issue #30: per pass the dynamic counts it targets as a chart, a CFG before/after of each
# function it changed). Computed here, by the optimize command; pylogic/report only renders it.

#: Dynamic counts the charts show per pass: what the passes target (PRE and simplification
#: remove evaluations, load elimination loads, cbe/icbe and constant propagation conditional
#: branches; issue #30).
TARGETED = ("evaluations", "loads", "conditional_branches")
#: A changed function's CFG is drawn before and after up to this many blocks (dot's layout of a
#: csmith function of hundreds of blocks is a picture nobody reads, and slow).
MAX_CFG_BLOCKS = 80


def run_counts(module: Module, result) -> dict:
    """Dynamic counts of one run of ``module`` (a ``RunResult`` with a profile): instructions,
    conditional branches executed (``interp.conditionals``), expression evaluations, copies
    (``mov``), loads, stores and predicate defines (``interp.machine`` KINDS)."""
    from pylogic.interp.conditionals import conditional_branches
    kinds = result.kinds
    return {"instructions": result.counts.get("instructions", 0),
            "conditional_branches": conditional_branches(module, result),
            "evaluations": kinds.get("computations", 0), "copies": kinds.get("moves", 0),
            "loads": kinds.get("loads", 0), "stores": kinds.get("stores", 0),
            "predicate_defines": kinds.get("predicate_defines", 0)}


def pass_dynamics(result: Optimization, args, inputs, *, entry: str = "main",
                  fuel: Optional[int] = None) -> list[Optional[dict]]:
    """``run_counts`` of the pipeline's input, then of each pass's output, on one case
    (``args``, ``inputs``); None for a module whose run did not complete normally."""
    from pylogic.interp.native.select import run_with
    kwargs = {"fuel": fuel} if fuel is not None else {}
    modules = [result.original] + [p.module if p.module is not None else result.module
                                   for p in result.passes]
    out = []
    for m in modules:
        res = run_with("auto", m, entry=entry, args=tuple(args), inputs=tuple(inputs), **kwargs)
        out.append(run_counts(m, res) if res.error is None else None)
    return out


def cfg_data(fn) -> dict:
    """What ``report.graphs.cfg_svg`` draws of ``fn``, from the function itself (no engine):
    blocks, entry, exits, edges labelled by their decision (``analysis.decisions``), each
    block's code, retreating edges as back edges (loops, on a reducible CFG) and the blocks the
    entry does not reach."""
    from facts_gen.cfg import exit_blocks
    from pylogic.analysis.decisions import decisions
    from pylogic.ir.cfg import retreating_edges, reverse_postorder
    d = decisions(fn)
    labels = [b.label for b in fn.blocks]
    reached = set(reverse_postorder(fn))
    return {"name": fn.name, "blocks": labels, "entry": labels[0] if labels else None,
            "exits": exit_blocks(fn), "code": d["code"], "instrs": d["code"],
            "edges": [(a, b, d["edges"].get(a, {}).get(b, "")) for a, b in fn.edges()],
            "rows": {"back_edge": sorted(retreating_edges(fn)),
                     "unreachable": [(b,) for b in labels if b not in reached]}}


def changed_cfgs(before: Module, after: Module, names) -> list[dict]:
    """Per function of ``names``: ``{name, before, after}`` (``cfg_data`` or None where the
    function is absent on that side), or ``{name, note}`` when a side has more than
    ``MAX_CFG_BLOCKS`` blocks."""
    old = {fn.name: fn for fn in before.defined_functions()}
    new = {fn.name: fn for fn in after.defined_functions()}
    out = []
    for name in names:
        a, b = old.get(name), new.get(name)
        size = max(len(a.blocks) if a else 0, len(b.blocks) if b else 0)
        if size > MAX_CFG_BLOCKS:
            out.append({"name": name, "note": f"{size} blocks: no CFG drawn (more than "
                                              f"{MAX_CFG_BLOCKS})"})
            continue
        out.append({"name": name, "before": cfg_data(a) if a else None,
                    "after": cfg_data(b) if b else None})
    return out


def report_data(item, *, entry: str = "main", fuel: Optional[int] = None) -> dict:
    """What the optimize report shows of one program (``ProgramOptimization``): per pass its
    code before and after (``pipeline_views``) with the CFGs of the functions it changed, and
    per checked case the dynamic counts before and after the pipeline and after each pass
    (``pass_dynamics``; only for cases the check compared)."""
    entry_data = {"relpath": item.relpath, "error": item.error, "views": [], "cases": [],
                  "verdict": "not validated"}
    if item.result is None:
        return entry_data
    views = pipeline_views(item.result)
    current = item.result.original
    for view, p in zip(views, item.result.passes):
        after = p.module if p.module is not None else item.result.module
        view["cfgs"] = changed_cfgs(current, after, [f["name"] for f in view["functions"]])
        current = after
    entry_data["views"] = views
    if item.check is not None:
        entry_data["verdict"] = item.check.verdict
        modules = {"before": item.result.original, "after": item.result.module}
        for c in item.check.comparisons:
            case = {"args": list(c.args), "inputs": list(c.inputs), "verdict": c.verdict,
                    "detail": c.detail}
            if c.verdict != "not compared":
                case.update({side: run_counts(modules[side], getattr(c, side))
                             for side in ("before", "after")})
                case["by_pass"] = pass_dynamics(item.result, c.args, c.inputs, entry=entry,
                                                fuel=fuel)
            entry_data["cases"].append(case)
    return entry_data
