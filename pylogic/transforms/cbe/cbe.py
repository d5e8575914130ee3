"""Conditional branch elimination (``pathlogic optimize --passes cbe``; issue #15 slice 3,
PathFinder §7.3.1 and the ICBE driver of §7.5, intraprocedural restructuring).

``datalog/correlation.dl`` answers, for each analyzable branch ``cbr`` on ``(v relop c)`` and each
edge its query crossed, whether the outcome is known on every path through that edge
(``correlation_edge``: the answer set is ``{TRUE}`` or ``{FALSE}``; the pass reads only the edges
its paths reach, ``correlation_edge_near``). The answers may come through
calls (procedure summaries) and callers; the restructuring stays inside the function. For a path
``X_L -> X_{L-1} -> ... -> X_1 -> B`` whose first edge is decided and whose other edges are not,
the blocks ``X_{L-1} .. X_1, B`` are duplicated (the Must copy of §7.3.1), ``X_L`` jumps to the
copy, and the copy of ``B`` ends in ``br`` to the decided target: the branch is gone on those
paths and evaluated as before on the others (the No copy). Registers are function-wide in PIR,
so copies need no renaming. Paths are found shortest first, at most ``max_path`` blocks back;
each branch may duplicate at most ``limit`` instructions (the per-conditional limit N of §7.5)
and the module may grow by at most ``growth`` (a fraction of its instructions). An iterated pass
(``icbe``) passes its ``Lineage``: the limit then holds per *original* conditional over all rounds,
copies of a branch and of its function counting against the branch they were copied from (else
every round peels one more loop iteration through a copy: csmith-2, issue #28).

A path may pass a call whose callee is transparent to the query on some of its paths (the call
site is then duplicated, the callee is not: PathFinder Fig. 7.9); the answers the callee gives on
its other paths (``correlation_inside``) stay on the duplicated path, so they must be the outcome.

A branch with one answer on every path that reaches it (``correlation``), or on a constant
operand, becomes a ``br`` where it is. Answers through parameters assume the program is entered at ``main`` or at a function no
call site calls (``external_entry``), as ``pathlogic run`` and the harness do.

Example: ``i = mov 0; br cond`` then ``cond: t = cmp.lt i, 10; cbr t, body, end``: the edge from
the entry decides TRUE, so the entry jumps to a copy of ``cond`` that ends in ``br body``.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Iterable, Optional

from facts_gen.interprocedural import CORRELATION_NEAR
from facts_gen.naming import instr_block, instr_id
from pylogic.ir.cfg import block_predecessors
from pylogic.ir.model import Br, CondBr, Function, Imm, Module, branch_targets, retargeted
from pylogic.transforms.driver import run_per_function
from pylogic.transforms.naming import LazyFreshNames
from pylogic.transforms.record import Rejection, TransformRecord

NEEDS = ("correlation", "correlation_edge_near", "correlation_through_near", "correlation_start",
         "correlation_inside", "branch_compare", "branch_pair")
DEFAULT_LIMIT = 64          # instructions duplicated per branch (PathFinder §7.5: N = 5..200 nodes)
DEFAULT_GROWTH = 0.5        # module growth cap, as a fraction of its instructions
DEFAULT_MAX_PATH = CORRELATION_NEAR    # blocks back from the branch (at most that)


@dataclass(frozen=True)
class Threaded:
    """Branch ``branch`` (block ``block``) removed on the paths entering ``path[0]`` from
    ``source``: ``path`` (ending in ``block``) duplicated, ``outcome`` TRUE or FALSE."""
    function: str
    branch: str
    block: str
    source: str
    path: tuple
    outcome: str
    duplicated: int


@dataclass(frozen=True)
class Decided:
    """Branch ``branch`` (block ``block``) has the one answer ``outcome`` on every path that
    reaches it: its ``cbr`` is a ``br`` now, nothing duplicated."""
    function: str
    branch: str
    block: str
    outcome: str
    duplicated: int = 0


@dataclass
class Lineage:
    """What earlier rounds of an iterated pass duplicated (PathFinder §7.5: the per-conditional
    limit N bounds each conditional's duplication): the original ``(function, label)`` of each
    copied block, the original of each cloned function, instructions duplicated per original
    conditional (keyed by its block's original)."""
    blocks: dict = field(default_factory=dict)
    functions: dict = field(default_factory=dict)
    spent: dict = field(default_factory=dict)
    #: ``(function, path, outcome) -> {block: its copy}``: the Must copy of a path threaded before
    paths: dict = field(default_factory=dict)

    def copy(self) -> "Lineage":
        return Lineage(dict(self.blocks), dict(self.functions), dict(self.spent), dict(self.paths))

    def original(self, function: str, label: str) -> tuple:
        """``(function, label)`` that block ``label`` of ``function`` was copied from."""
        if (function, label) in self.blocks:
            return self.blocks[function, label]
        root = self.functions.get(function, function)
        return self.blocks.get((root, label), (root, label))

    def cloned(self, clone: str, function: str) -> None:
        """``clone`` is a copy of ``function`` (same labels)."""
        self.functions[clone] = self.functions.get(function, function)
        for (f, label), key in list(self.blocks.items()):
            if f == function:
                self.blocks[clone, label] = key


@dataclass
class CbeRecord(TransformRecord):
    transform: str = "cbe"
    #: the duplication so far, this round's included (the next round of ``icbe`` gets it)
    lineage: Lineage = field(default_factory=Lineage)

    def totals(self) -> dict:
        return {"threaded": sum(isinstance(a, Threaded) for a in self.applied),
                "decided": sum(isinstance(a, Decided) for a in self.applied),
                "branches": len({(a.function, a.branch) for a in self.applied}),
                "duplicated": sum(a.duplicated for a in self.applied),
                "rejected": len(self.rejected)}

    def summary(self) -> str:
        t = self.totals()
        return (f"cbe: {t['branches']} branches removed on {t['threaded']} paths, "
                f"{t['duplicated']} instructions duplicated")


def _pure(answers: set) -> Optional[str]:
    return next(iter(answers)) if answers in ({"TRUE"}, {"FALSE"}) else None


def _candidates(fn: Function, view, max_path: int) -> list[tuple]:
    """``(branch, block, source, path, outcome)`` per decided path, shortest first. The edges'
    answers and the passages through a block it reads are ``correlation_edge_near`` and
    ``correlation_through_near`` (the walk below, in Datalog: ``max_path`` at most its
    ``CORRELATION_NEAR``)."""
    # a query is (v, rel, c): a rewritten one may reach v beside the branch's own (part C)
    edge_ans: dict[tuple, set] = {}
    for i, m, n, v, rel, c, a in view["correlation_edge_near"]:
        edge_ans.setdefault((i, m, n, (v, rel, c)), set()).add(a)
    through: dict[tuple, set] = {}
    for i, m, n, v, w, rel, c in view["correlation_through_near"]:
        through.setdefault((i, m, n, (v, rel, c)), set()).add((w, rel, c))
    start: dict[str, set] = {}
    for i, v, rel, c in view["correlation_start"]:
        start.setdefault(i, set()).add((v, rel, c))
    inside: dict[tuple, set] = {}        # answers of calls the query passes in a block (Fig. 7.9)
    for i, m, v0, rel, c, a in view["correlation_inside"]:
        inside.setdefault((i, m, "#branch" if v0 == "#branch" else (v0, rel, c)), set()).add(a)
    preds = block_predecessors(fn)
    blocks = fn.block_map()
    out = []
    for i in sorted({row[0] for row in view["branch_compare"]} |
                    {row[0] for row in view["branch_pair"]}):      # (v rel w): pair queries
        block = instr_block(i)
        if block not in blocks or not isinstance(blocks[block].instrs[-1], CondBr):
            continue
        # (path, v at its start, answers of the calls the query passes inside the path's blocks:
        # the duplicated path keeps them, so they must agree with the outcome)
        own = inside.get((i, block, "#branch"), set())
        frontier = [((block,), v, own) for v in sorted(start.get(i, ()))]
        seen_sources: set = set()
        for _ in range(max_path):
            nxt = []
            for path, v, own in frontier:
                for x in preds[path[0]]:
                    answers = edge_ans.get((i, x, path[0], v), set())
                    outcome = _pure(answers)
                    if outcome is not None:
                        if (x, path[0]) not in seen_sources and own <= {outcome}:
                            seen_sources.add((x, path[0]))
                            out.append((i, block, x, path, outcome))
                    elif len(answers) > 1 and x not in path:
                        more = own | inside.get((i, x, v), set())
                        nxt.extend(((x,) + path, w, more)
                                   for w in sorted(through.get((i, x, path[0], v), ())))
            frontier = nxt
    return sorted(out, key=lambda c: (len(c[3]), c))


def decided_br(term: CondBr, outcome: str) -> Br:
    """``term`` with its ``outcome`` ("TRUE"/"FALSE") known: a ``br`` to that side's target."""
    return Br(target=term.if_true if outcome == "TRUE" else term.if_false,
              annotations=term.annotations, loc=term.loc)


def _copy(blocks: dict, path: tuple, k: int, copies: dict, outcome: str):
    """Block ``copies[path[k]]``: ``path[k]`` entering the copy of the next block of ``path``; the
    last ends in ``br`` to the ``outcome`` target of its ``cbr``."""
    b = path[k]
    instrs = list(blocks[b].instrs)
    if k == len(path) - 1:
        instrs[-1] = decided_br(instrs[-1], outcome)
    else:
        instrs[-1] = retargeted(instrs[-1], {path[k + 1]: copies[path[k + 1]]})
    return dataclasses.replace(blocks[b], label=copies[b], instrs=tuple(instrs))


def _enter(blocks: dict, source: str, first: str, copy: str) -> None:
    """``source``'s terminator jumps to ``copy`` instead of ``first`` (a threaded path's start)."""
    src = blocks[source]
    blocks[source] = dataclasses.replace(
        src, instrs=src.instrs[:-1] + (retargeted(src.instrs[-1], {first: copy}),))


def cbe(module: Module, rows, *, functions: Optional[Iterable[str]] = None,
        limit: int = DEFAULT_LIMIT, growth: float = DEFAULT_GROWTH,
        max_path: int = DEFAULT_MAX_PATH,
        allowance: Optional[int] = None,
        lineage: Optional[Lineage] = None) -> tuple[Module, CbeRecord]:
    """``(new module, record)``: decided branches removed on their decided paths; at most
    ``allowance`` instructions duplicated in all (default: ``growth`` of the module's size), at
    most ``limit`` per original conditional (``lineage``: what earlier rounds duplicated)."""
    if max_path > CORRELATION_NEAR:
        raise ValueError(f"cbe: max_path {max_path} is beyond the {CORRELATION_NEAR} blocks of "
                         "correlation_edge_near (facts_gen/interprocedural.py CORRELATION_NEAR)")
    record = CbeRecord(options={"limit": limit, "growth": growth, "max_path": max_path},
                       lineage=Lineage() if lineage is None else lineage.copy())
    spent = record.lineage.spent
    size = sum(len(b.instrs) for f in module.defined_functions() for b in f.blocks)
    allowance = int(size * growth) if allowance is None else allowance

    def rewrite(fn: Function) -> tuple[Function, None]:     # records its own entries
        nonlocal allowance
        view = rows.function(fn.name)
        blocks = {b.label: b for b in fn.blocks}
        order = [b.label for b in fn.blocks]
        names = LazyFreshNames(fn, module)
        lineage = record.lineage
        everywhere: dict[str, set] = {}
        for i, a in view["correlation"]:
            everywhere.setdefault(i, set()).add(a)
        for b in fn.blocks:                               # cbr on a constant (source 1)
            term = b.instrs[-1] if b.instrs else None
            if isinstance(term, CondBr) and term.guard is None and isinstance(term.cond, Imm):
                everywhere[instr_id(b.label, len(b.instrs) - 1)] = {
                    "FALSE" if term.cond.value == 0 else "TRUE"}
        for i, answers in sorted(everywhere.items()):      # decided on every path: no copy
            outcome = _pure(answers)
            block = instr_block(i)
            if outcome is None or block not in blocks:
                continue
            term = blocks[block].instrs[-1]
            if not isinstance(term, CondBr) or instr_id(block, len(blocks[block].instrs) - 1) != i:
                continue
            blocks[block] = dataclasses.replace(blocks[block], instrs=blocks[block].instrs[:-1] + (
                decided_br(term, outcome),))
            record.applied.append(Decided(fn.name, i, block, outcome))
        # copies of earlier rounds entered again this round: the rows were derived when only
        # their first source entered them, so a decision read from them would be stale for the
        # new one (Shootout lists.c: a copy's own branch then threaded for both sources looped)
        entered: set = set()
        for i, block, source, path, outcome in _candidates(fn, view, max_path):
            if _pure(everywhere.get(i, set())) is not None:
                continue
            chain = (source,) + path
            where = f"{source}->{path[0]}"
            if entered.intersection(chain):
                record.rejected.append(Rejection(fn.name, i, where, "path changed",
                                                 "a copy on it gained a predecessor this round"))
                continue
            if any(chain[k + 1] not in branch_targets(blocks[chain[k]].instrs[-1]) for k in range(len(path))):
                record.rejected.append(Rejection(fn.name, i, where, "path changed",
                                                 "an earlier restructuring rerouted an edge"))
                continue
            made = lineage.paths.get((fn.name, path, outcome))
            # (not from a block of that copy: entering it from its own last block would bend
            # the copy's exit back into it, a loop whose test the copy removed; lists.c)
            if made is not None and source not in made.values() and \
                    all(blocks.get(made[b]) == _copy(blocks, path, k, made, outcome)
                        for k, b in enumerate(path)):
                # the same path threaded the same way before and its copy is unchanged: enter
                # that copy (identical code; a loop whose test the path decides is unswitched
                # instead of peeled one more iteration every round, csmith-2)
                _enter(blocks, source, path[0], made[path[0]])
                entered.update(made[b] for b in path)
                record.applied.append(Threaded(fn.name, i, block, source, path, outcome, 0))
                continue
            cost = sum(len(blocks[b].instrs) for b in path)
            key = lineage.original(fn.name, block)
            if spent.get(key, 0) + cost > limit or cost > allowance:
                record.rejected.append(Rejection(fn.name, i, where, "duplication limit",
                                                 f"{cost} instructions"))
                continue
            copies = {b: names.fresh(f"{b}.cbe") for b in path}
            for b in path:
                lineage.blocks[fn.name, copies[b]] = lineage.original(fn.name, b)
            for k, b in enumerate(path):
                blocks[copies[b]] = _copy(blocks, path, k, copies, outcome)
                order.append(copies[b])
            lineage.paths[fn.name, path, outcome] = copies
            _enter(blocks, source, path[0], copies[path[0]])
            spent[key] = spent.get(key, 0) + cost
            allowance -= cost
            record.applied.append(Threaded(fn.name, i, block, source, path, outcome, cost))
        return dataclasses.replace(fn, blocks=tuple(blocks[b] for b in order)), None
    return run_per_function(module, functions, record, rewrite)


