"""The reaching definitions of ``flow.reaching`` as a graph with one node per merge point, so
that what a read sees is built, and its known bits joined (``flow.function_values``), once per
merge point instead of once per read and reaching definition (issue #28 item 1: ``simplify``
re-joined every reaching definition at every read and its bit-vector fixpoint swept the blocks
once per loop level: exponent 1.83 on ``benchmarks.optimize_scale``).

A node is a definition (its id in ``defs``, numbered by ``reaching.number_definitions``) or a
merge node (id ``len(defs) + j``, ``operands[j]`` the nodes it joins):

* the start of a block, for one register: the values leaving its predecessors along the edges
  into it (``reaching.block_exits``, edge equalities included), and the entry's value at the
  entry block;
* a guarded write or a predicate define: the value before it and the write (it does not kill).

A read's node is the last write of the register before it in its block, else the start of the
block: Braun et al.'s on-demand variable lookup (every block sealed: the CFG is known), run as a
worklist of (block, register) starts, so a long chain of blocks needs no recursion. A node
stands for the definitions it reaches through merge nodes (``leaves``): exactly the set
``reaching_definitions`` gives that read (tests/flow/test_reaching_graph.py compares them on
random programs). ``single(node)``: the one definition, if it is one.

**Block-local registers.** A register written (and given edge equalities) in one block B only
and read only there -- a loop counter -- is looked up at B alone: the entry's value and the
values leaving B along the edges whose target is in B's strongly connected component (a path
back to B meets no other write), instead of a merge node at every block it is live across (the
look-ups of ``optimize_scale``'s counters, live from the entry, were quadratic). A register never
written holds the entry's value everywhere. (``transforms.pcp.sparse`` does the same for its
loop φs.)

References: M. Braun, S. Buchwald, S. Hack, R. Leißa, C. Mallon, A. Zwinkau, "Simple and
efficient construction of static single assignment form", CC 2013 (Alg. 1-2); Aho, Sethi,
Ullman, "Compilers", §10.5 (reaching definitions).
"""
from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Optional

from pylogic.flow.block_access import block_access
from pylogic.flow.reaching import block_exits, block_writes, numbered_writes, writes_kill
from pylogic.ir.cfg import reverse_postorder, strongly_connected
from pylogic.ir.model import TRUE_PREDICATES, Function

__all__ = ["ReachingGraph", "reaching_graph"]

#: a merge node ``single`` was not asked about yet
_UNASKED = object()


@dataclass
class ReachingGraph:
    """``defs[i]`` is definition i (``reaching.Def``); merge node ``len(defs) + j`` joins
    ``operands[j]``; ``reads[(label, index)][reg]`` the node of that instruction's read of
    ``reg``; ``users[node]`` the merge nodes with ``node`` among their operands (a list, or
    ``()`` when none)."""
    defs: list
    operands: list
    reads: dict
    users: list
    #: merge node -> the one definition it stands for, None when several (``single``: filled
    #: when asked; most merge nodes never are, issue #28 item 1)
    _single: dict = field(default_factory=dict)

    def at(self, site: tuple, reg: str) -> Optional[int]:
        """The node of ``reg`` read by the instruction at ``site``; None when it does not read
        ``reg`` or is unreachable."""
        return self.reads.get(site, {}).get(reg)

    def single(self, node: int) -> Optional[int]:
        """The one definition ``node`` stands for, or None when it stands for several. A walk
        of the merge nodes behind ``node`` until a second definition; every merge node stands
        for at least one (its block is reached from the entry, whose start has the entry's
        value), so when the walk finds one only, each node it passed stands for that one."""
        n_defs = len(self.defs)
        if node < n_defs:
            return node
        memo = self._single
        got = memo.get(node, _UNASKED)
        if got is not _UNASKED:
            return got
        operands, found, seen, stack = self.operands, None, {node}, [node]
        while stack:
            for o in operands[stack.pop() - n_defs]:
                if o < n_defs:
                    if found is None:
                        found = o
                    elif o != found:
                        memo[node] = None
                        return None
                elif o not in seen:
                    got = memo.get(o, _UNASKED)
                    if got is _UNASKED:
                        seen.add(o)
                        stack.append(o)
                    elif got is None:
                        memo[node] = None
                        return None
                    elif found is None:
                        found = got
                    elif got != found:
                        memo[node] = None
                        return None
        for m in seen:
            memo[m] = found
        return found

    def leaves(self, node: int) -> set:
        """Every definition ``node`` stands for (what ``reaching_definitions`` gives its
        read)."""
        n_defs, out, seen, stack = len(self.defs), set(), {node}, [node]
        while stack:
            m = stack.pop()
            if m < n_defs:
                out.add(m)
                continue
            for o in self.operands[m - n_defs]:
                if o not in seen:
                    seen.add(o)
                    stack.append(o)
        return out


def reaching_graph(fn: Function, order: Optional[list] = None,
                   dominating: frozenset = frozenset()) -> ReachingGraph:
    """The reaching-definitions graph (module docstring) of ``fn``; blocks the entry's state
    never flows to get no reads, as in ``reaching_definitions``. ``order``: ``fn``'s
    ``reverse_postorder`` when the caller has it (``simplify``'s rounds keep the CFG).
    ``dominating``: registers written once, unguarded, by a definition that dominates every
    read (``FunctionValues.ssa``): each read of one is that definition's node, with no merge
    node at the blocks between (69% of the merge nodes of the PRE pipeline on csmith 32, 8, 1,
    30, 31, 28; issue #28 item 1), unless an edge equality also defines it."""
    blocks = fn.block_map()
    if order is None:
        order = reverse_postorder(fn)
    defs, registers, first, edge_ids = numbered_writes(fn, set(order))
    n_defs = len(defs)
    # the entry definitions come first, one per register in ``registers``' order
    entry_id = dict(zip(registers, range(len(registers))))
    if not order:
        return ReachingGraph(defs, [], {}, [[] for _ in defs])
    entry = order[0]
    exits = {label: block_exits(blocks, label) for label in order}
    live, todo = {entry}, [entry]           # the blocks the entry's state flows to
    while todo:
        for ts in exits[todo.pop()].values():
            for t in ts:
                if t not in live:
                    live.add(t)
                    todo.append(t)
    live_order = [b for b in order if b in live]
    incoming = defaultdict(list)            # block -> [(pred, index of the exit)]
    for p in live_order:
        for k, ts in exits[p].items():
            for t in ts:
                incoming[t].append((p, k, t))
    last = {b: len(blocks[b].instrs) - 1 for b in live_order}

    operands: list = []
    starts: dict = {}           # (block, register) -> its merge node
    pending: list = []

    def merge(ops: list) -> int:
        operands.append(ops)
        return n_defs + len(operands) - 1

    def start(label: str, r: str) -> int:
        node = starts.get((label, r))
        if node is None:
            node = starts[(label, r)] = merge([])
            pending.append((label, r))
        return node

    # ---- each block forward: its reads, and per register the writes' positions and nodes
    if dominating and edge_ids:         # an edge equality is a second definition
        dominating = dominating - {r for ids in edge_ids.values() for r, _i in ids}
    held: dict = {}             # register of ``dominating`` -> its definition's node, once walked
    reads: dict = {}
    final: dict = {}            # block -> register -> its node after the block's last write
    # block with side exits -> register -> ([index], [node after that write]): the node leaving
    # by an exit before the end (no table for the other blocks: their edges leave at the end)
    local: dict = {}
    for label in live_order:
        cur: dict = {}
        block = blocks[label]
        access = block_access(block)
        table: Optional[dict] = {} if access.first_exit < last[label] else None
        k = 0
        i = first[label]        # the id of the block's next write (``numbered_writes``)
        instrs = block.instrs
        for regs_read, ds in zip(access.read_registers, access.defs):
            if regs_read:
                reads[(label, k)] = {r: cur[r] if r in cur else held[r] if r in held
                                     else start(label, r) for r in regs_read}
            if ds:
                ins = instrs[k]
                kills = writes_kill(ins)
                for d in ds:
                    if d in TRUE_PREDICATES:        # not numbered
                        continue
                    node = i if kills else merge([cur[d] if d in cur else start(label, d), i])
                    i += 1
                    cur[d] = node
                    if d in dominating:     # read after it here, or where it dominates
                        held[d] = node
                    if table is None:
                        continue
                    got = table.get(d)
                    if got is None:
                        table[d] = ([k], [node])
                    else:
                        got[0].append(k)
                        got[1].append(node)
            k += 1
        final[label] = cur
        if table is not None:
            local[label] = table

    def leaving(p: str, k: int, t: str, r: str) -> int:
        """The node of ``r`` leaving block ``p`` by instruction ``k``'s edge to ``t``."""
        if k == last[p]:
            got = None
            for reg, i in edge_ids.get((p, t), ()):
                if reg == r:
                    got = i
            if got is not None:
                return got
            got = final[p].get(r)     # the last write of r in p, if any
            return start(p, r) if got is None else got
        entry_ = local[p].get(r)        # an exit before the end: the last write before it
        if entry_ is not None:
            j = bisect_right(entry_[0], k) - 1
            if j >= 0:
                return entry_[1][j]
        return start(p, r)

    # ---- block-local registers (module docstring)
    home: dict = {}             # register -> its one block, or None (several / read elsewhere)
    for label in live_order:
        for _label, _k, r in block_writes(blocks[label])[0]:
            home[r] = label if home.get(r, label) == label else None
    for (p, _t), eqs in edge_ids.items():
        if p in live:
            for r, _i in eqs:
                home[r] = p if home.get(r, p) == p else None
    for (label, _k), regs in reads.items():
        for r in regs:
            if home.get(r, label) != label:
                home[r] = None
    comp = strongly_connected(live_order, {b: [t for ts in exits[b].values() for t in ts]
                                           for b in live_order}) if any(
        h is not None for h in home.values()) else {}

    # ---- the starts (Braun et al.'s readVariableRecursive, as a worklist)
    while pending:
        label, r = pending.pop()
        ops = operands[starts[(label, r)] - n_defs]
        if r not in home:                       # never written: the entry's value
            ops.append(entry_id[r])
            continue
        if home[r] == label:
            ops.append(entry_id[r])
            for k, ts in exits[label].items():
                for t in ts:
                    if t == label or comp[t] == comp[label]:
                        ops.append(leaving(label, k, t, r))
        else:
            if label == entry:
                ops.append(entry_id[r])
            for p, k, t in incoming[label]:
                ops.append(leaving(p, k, t, r))
        ops[:] = dict.fromkeys(ops)

    users: list = [()] * (n_defs + len(operands))     # a list only for a node with users
    for j, ops in enumerate(operands):
        for o in ops:
            got = users[o]
            if got:
                got.append(n_defs + j)
            else:
                users[o] = [n_defs + j]
    # compiled (pylogic.compiled_modules), the closures share one scope object holding them:
    # a reference cycle, broken here rather than by the collector
    merge = start = leaving = None
    return ReachingGraph(defs, operands, reads, users)

