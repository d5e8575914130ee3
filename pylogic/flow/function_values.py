"""What every register of one function holds, as far as a flow-sensitive analysis can tell:
definitions and reads, SSA values (a register written once, unguarded, whose definition dominates
every read), dominator-tree intervals, the registers that may be read before any write, and the
known bits of every definition and read (the optimistic fixpoint over the blocks found
executable: SCCP's executable edges; a load of a read-only global inside it has the value of the
bytes it reads, ``readonly_load``). ``simplify`` rewrites with it; ``flow.nonzero``,
``flow.branch_facts``, ``flow.known_memory`` and ``flow.stable`` read it.

``FunctionValues(fn, idom, ...)`` then ``solve()``; ``at(site)`` is the view of one instruction
(``AtSite``: its operands' bits are those of the definitions reaching it).

References: LLVM 14 ValueTracking.cpp (computeKnownBits), SCCPSolver (executable edges);
docs/pir.md (a register never written reads 0).
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterator, NamedTuple, Optional

from pylogic.compiled_modules import low_bits
from pylogic.flow import known_bits as kb
from pylogic.flow.block_access import block_access
from pylogic.flow.branch_facts import BranchFacts
from pylogic.flow.known_bits import Bits
from pylogic.flow.known_bytes import contents_bytes, load_value
from pylogic.flow.known_memory import known_loads
from pylogic.flow.reaching_graph import reaching_graph
from pylogic.identity_cache import IdentityCache
from pylogic.ir.cfg import block_predecessors, reverse_postorder
from pylogic.ir.model import (TRUE_PREDICATES, Call, Cmp, CondBr, Function, GlobalAddr, Imm, Instr,
                              Load, Mov, PredDefine, Reg, Select, BinOp, UnOp, branch_targets)

_ONE, _ZERO = kb.const(1), kb.const(0)
#: an operand without a value while ``solve`` runs (``FunctionValues._compile``)
_NO_VALUE = object()
#: ``FunctionValues.readonly_load`` not asked yet at a site
_UNASKED = object()

#: Most evaluations of one instruction in the known-bits fixpoint before it is given up (unknown).
MAX_VISITS = 200

#: instruction class -> how ``evaluate`` computes what it writes (a table lookup per evaluation
#: instead of a chain of isinstance tests; the classes have no subclasses): ``transfer`` of its
#: ``op``, its ``rel`` or "select", its source (``mov``), a boolean (``bool``), ``known_bits.load``
#: of its size, the callee's return bits (``call``); any other class writes unknown bits
_TRANSFER = {Mov: "mov", BinOp: "op", UnOp: "op", Cmp: "rel", Select: "select",
             PredDefine: "bool", Load: "load", Call: "call"}


def _dominator_intervals(idom: dict, entry: str) -> tuple[dict, dict]:
    """``(pre, post)`` clocks of a depth-first walk of the dominator tree from ``entry``."""
    children = defaultdict(list)
    for n, d in idom.items():
        children[d].append(n)
    pre, post = {}, {}
    clock, stack = 0, [(entry, False)]
    while stack:
        b, done = stack.pop()
        if done:
            post[b] = clock
        else:
            pre[b] = clock
            stack.append((b, True))
            stack.extend((c, False) for c in sorted(children[b]))
        clock += 1
    return pre, post


class Seed(NamedTuple):
    """What ``FunctionValues.solve`` may start from: the ``values`` (solved) of the function
    before a round of ``simplify``, the ``sites`` (label, index) there whose instructions it
    replaced, ``kept`` (label -> the indices left of a block that lost dead instructions) and
    the ``registers`` given other equalities on an edge (their readers evaluate otherwise);
    ``edges``: a branch was decided in its block (an edge left the reaching definitions: a join
    at its target may have lost what came along it)."""
    values: "FunctionValues"
    sites: frozenset
    kept: dict
    registers: set
    edges: bool = False


class _Solved(NamedTuple):
    """What ``_RegisterBits`` joins a register's bits from once ``solve`` is done: the function,
    its ``defs``, ``reads``, ``ssa``, ``params``, dominator-tree ``pre`` clocks and
    ``first_exit`` (``FunctionValues``), the solve's result per instruction number and each
    block's first number (``offset``)."""
    fn: Function
    defs: dict
    reads: dict
    ssa: dict
    params: set
    pre: dict
    first_exit: dict
    results: list
    offset: dict


class _RegisterBits(dict):
    """register -> its known bits (``FunctionValues.bits``): a parameter's from the start of
    ``solve``; after it (``filled``) any other register's is computed when first read as
    ``bits[register]``, the join of its definitions' results (``get`` and ``in`` see only those
    read so far: most registers are never read this way, and the join and the definite
    assignment it needs were computed for all of them each round, issue #28 item 1). Holds no
    reference to its ``FunctionValues`` (no cycle for the collector)."""
    __slots__ = ("fill", "_unwritten")

    def __init__(self):
        super().__init__()
        self.fill: Optional[_Solved] = None     # once solved

    def filled(self, state: _Solved) -> None:
        self.fill, self._unwritten = state, None

    def __missing__(self, r: str) -> Bits:
        if self.fill is None or r not in self.fill.defs:
            raise KeyError(r)
        fn, defs, reads, ssa, params, pre, first_exit, results, offset = self.fill
        out = None
        if r not in ssa:        # ``_maybe_unwritten`` has no SSA value
            if self._unwritten is None:
                self._unwritten = _maybe_unwritten(fn, defs, reads, ssa, params, pre,
                                                   first_exit)
            if r in self._unwritten:
                out = kb.const(0)
        for b, k, ins in defs[r]:
            v = results[offset[b] + k]
            if v is None:
                continue
            if isinstance(ins, PredDefine) or len(ins.defs()) > 1:
                v = kb.UNKNOWN if not isinstance(ins, PredDefine) else kb.BOOL
            out = v if out is None else kb.join(out, v)
        got = self[r] = kb.UNKNOWN if out is None else out
        return got


def _maybe_unwritten(fn: Function, defs: dict, reads: dict, ssa: dict, params: set, pre: dict,
                     first_exit: dict) -> set:
    """Registers (not SSA values, not parameters) of ``fn`` (``defs``, ``reads``, ``ssa``,
    ``params``, dominator-tree ``pre`` clocks and ``first_exit`` of ``FunctionValues``) some read
    of which may come before any write (it then reads 0): definite assignment, a forward
    must-problem over the CFG; a block with a side exit passes on only what it writes before
    its first one. Only those registers' writes and reads are visited, not every instruction
    (issue #28 item 1: most registers are SSA values)."""
    regs = [r for r in defs if r not in ssa and r not in params]
    if not regs:
        return set()
    bit = {r: 1 << i for i, r in enumerate(regs)}
    every = low_bits(len(regs))
    live = [b.label for b in fn.blocks if b.label in pre]
    gen = dict.fromkeys(live, 0)
    first_write: dict = {}      # register -> block -> index of its first unguarded write there
    for r in regs:
        firsts: dict = {}
        for b, k, ins in defs[r]:
            if ins.guard is None and not isinstance(ins, PredDefine) and b in gen:
                if k <= first_exit[b]:
                    gen[b] |= bit[r]
                if k < firsts.get(b, k + 1):
                    firsts[b] = k
        first_write[r] = firsts
    preds = {t: [p for p in ps if p in pre] for t, ps in block_predecessors(fn).items()}
    entry = fn.blocks[0].label
    into = {b: (0 if b == entry else every) for b in live}
    changed = True
    while changed:
        changed = False
        for b in live:
            if b == entry:
                continue
            new = every
            for p in preds[b]:
                new &= into[p] | gen[p]
            if new != into[b]:
                into[b], changed = new, True
    out = set()
    for r in regs:
        b_r, firsts = bit[r], first_write[r]
        for b, k in reads.get(r, ()):
            # not written on every path into b, nor earlier in b
            if b in into and not into[b] & b_r and firsts.get(b, k) >= k:
                out.add(r)
                break
    return out


#: idom (one dict object per function and simplify call) -> its intervals (read-only)
_INTERVALS = IdentityCache(64)


class FunctionValues:
    """Definitions, SSA values and known bits of one function."""

    def __init__(self, fn: Function, idom: dict[str, str], readonly: Optional[dict] = None,
                 returns: Optional[dict] = None, defined: Optional[set] = None,
                 global_sizes: Optional[dict] = None, order: Optional[list] = None):
        self.fn = fn
        # ``reverse_postorder(fn)``: given by a caller whose rounds keep the CFG (simplify)
        self.order = reverse_postorder(fn) if order is None else order
        self.readonly = readonly or {}
        self.returns = returns or {}    # defined function -> known bits of what it returns
        self.defined = defined      # names of the module's defined functions (None: unknown)
        self.global_sizes = global_sizes or {}
        entry = fn.blocks[0].label
        # dominator-tree intervals: d dominates n iff pre[d] <= pre[n] and post[n] <= post[d];
        # the same for every round of simplify (one idom object, the CFG does not change)
        self.pre, self.post = _INTERVALS.get_or_compute(
            idom, lambda: _dominator_intervals(idom, entry), tag=entry)
        self.defs: dict[str, list] = defaultdict(list)    # register -> [(block, index, instr)]
        self.reads: dict[str, list] = defaultdict(list)   # register -> [(block, index)]
        self.first_exit = {}
        defs, reads = self.defs, self.reads
        for b in fn.blocks:
            access = block_access(b)
            label, instrs = b.label, b.instrs
            k = 0
            for ds, rs in zip(access.defs, access.reads):
                if ds:
                    for d in ds:
                        defs[d].append((label, k, instrs[k]))
                if rs:
                    site = (label, k)
                    for r in rs:
                        reads[r].append(site)
                k += 1
            # a block may be left before its end by a side exit (hyperblocks): a definition
            # after one does not reach the other blocks on every path through its block
            self.first_exit[label] = access.first_exit
        params = set(fn.params)
        self.params = params
        self.ssa: dict[str, Instr] = {}
        pre, post, first_exit = self.pre, self.post, self.first_exit
        for r, ds in defs.items():
            if r in params or len(ds) != 1:
                continue
            b, k, ins = ds[0]
            if ins.guard is not None or b not in pre or isinstance(ins, PredDefine):
                continue
            # ``_dominates(b, k, ub, uk)`` for every read in a block of the dominator tree
            early, pb, qb = k < first_exit[b], pre[b], post[b]
            for ub, uk in reads[r]:
                if ub == b:
                    if k >= uk:
                        break
                elif ub in pre and not (early and pb <= pre[ub] and post[ub] <= qb):
                    break
            else:
                self.ssa[r] = ins
        # register -> known bits; after ``solve`` each filled when first read (``_RegisterBits``)
        self.bits: _RegisterBits = _RegisterBits()
        self.here: Optional[tuple] = None       # (block, index) of the instruction rewritten
        # SSA register -> the ``BinOp`` a rewrite earlier in this round made of its definition
        # (equal to it: ``simplify`` combines constants through it, issue #28 item 1)
        self.rewritten: dict = {}
        # flow-sensitive: the definitions reaching each read, as a graph with one node per
        # merge point (flow.reaching_graph), and the known bits of each definition and merge node
        # (an SSA value read only in blocks of the dominator tree is read as its definition)
        self.reaching = reaching_graph(fn, self.order, frozenset(
            r for r in self.ssa if all(ub in pre for ub, _uk in reads[r])))
        self.fn_blocks = fn.block_map()
        # known bits per node of ``self.reaching`` (definitions, then merge nodes; None: no value
        # yet), then the constant operands ``_compile`` adds during ``solve``
        self.node_bits: list = [None] * (len(self.reaching.defs) + len(self.reaching.operands))
        # after ``solve``: how it evaluated each instruction (by number: ``_site_index`` of its
        # block plus its index; ``_instrs``), None for one it never evaluated
        self._compiled: Optional[list] = None
        self._readonly_loads: dict = {}     # site -> ``readonly_load`` there

    def _dominates(self, b: str, k: int, ub: str, uk: int) -> bool:
        if b == ub:
            return k < uk
        return k < self.first_exit[b] and self.pre[b] <= self.pre[ub] \
            and self.post[ub] <= self.post[b]

    # ------------------------------------------------------------ known bits
    def operand(self, a, site: Optional[tuple] = None) -> Bits:
        """Known bits of operand ``a``; read by the instruction at ``site``: the join of the
        definitions reaching that read (``flow.reaching``), else of all of a's."""
        if isinstance(a, Imm):
            return kb.const(a.value)
        if isinstance(a, Reg):
            if a.name in TRUE_PREDICATES:
                return kb.const(1)
            if site is not None:
                got = self._reaching_bits(a.name, site)
                if got is not None:
                    return got
            if a.name not in self.defs and a.name not in self.params:
                return kb.const(0)      # never written: reads 0 (docs/pir.md)
            got = self.bits.get(a.name)
            if got is None:         # after ``solve``: filled now; before: unknown
                return kb.UNKNOWN if self.bits.fill is None else self.bits[a.name]
            return got
        return kb.UNKNOWN       # a global's address

    def _reaching_bits(self, r: str, site: tuple) -> Optional[Bits]:
        """Join of the known bits of the definitions of ``r`` reaching ``site`` (those with a
        value yet: optimistic); None when ``site`` has no reaching information for ``r`` or no
        reaching definition has a value yet."""
        node = self.reaching.at(site, r)
        return None if node is None else self._node_bits(node)

    def _node_bits(self, node: int) -> Optional[Bits]:
        """Known bits of a node of ``self.reaching``: a definition's, or the join kept for a
        merge node (of its definitions with a value yet; None: none has one)."""
        return self.node_bits[node]

    def evaluate(self, ins: Instr, site: Optional[tuple] = None) -> Optional[Bits]:
        """Known bits of what ``ins`` (at ``site``, when given) writes (its single destination);
        None: an operand has no value yet (optimistic start)."""
        return self.evaluated(ins, site)[0]

    def evaluated(self, ins: Instr, site: Optional[tuple] = None) -> tuple:
        """``(evaluate(ins, site), ops)``: ``ops`` the bits of its operands in ``uses()`` order,
        each what ``operand`` gives (after ``solve``: a register with no reaching node has its
        bits then), when the result is not None, else None."""
        node_bits = self.node_bits
        if site is not None and self._compiled is not None:
            at = self._site_index.get(site[0])
            how = None if at is None else self._compiled[at + site[1]]
            if how is not None and self._instrs[at + site[1]] is ins \
                    and self._no_value_slot not in how[0]:
                # the slots ``solve`` read them from: a reaching node, a constant, a parameter's
                # bits (each what ``operand`` gives now); not a register without a node, which
                # had no value then and has its definitions' join now (``_compile``)
                slots, fixed, op = how
                ops = [node_bits[j] for j in slots]
                if None in ops:
                    return None, None
                return (fixed if fixed is not None else ops[0] if op is None else
                        kb.transfer(op, *ops)), ops
        # each operand's bits as ``operand`` gives them, its reaching node looked up once
        # (issue #28 item 1: the check and ``operand`` had each asked ``reaching.at``)
        reads = self.reaching.reads.get(site) if site is not None else None
        ops = []
        for a in ins.uses():
            node, got = self._operand_source(a, reads)
            if node is not None:
                got = node_bits[node]
                if got is None:
                    return None, None
            elif got is _NO_VALUE:
                return None, None
            ops.append(got)
        fixed, op = self._transfer_of(ins)
        return (fixed if fixed is not None else ops[0] if op is None else
                kb.transfer(op, *ops)), ops

    def _operand_source(self, a, reads: Optional[dict]) -> tuple:
        """Where operand ``a`` (of an instruction whose reads' nodes are ``reads``) gets its
        bits: ``(node, None)`` through a node of ``self.reaching`` (``node_bits[node]``), else
        ``(None, bits)``, ``_NO_VALUE`` for a register with no value yet (optimistic start)."""
        kind = type(a)
        if kind is Imm:
            return None, kb.const(a.value)
        if kind is not Reg:
            return None, kb.UNKNOWN             # a global's address
        name = a.name
        if name in TRUE_PREDICATES:
            return None, _ONE
        node = reads.get(name) if reads is not None else None
        if node is not None:
            return node, None
        if name in self.defs:
            got = self.bits.get(name)
            if got is None:
                got = kb.UNKNOWN if name in self.params else _NO_VALUE \
                    if self.bits.fill is None else self.bits[name]
            return None, got
        if name in self.params:
            return None, self.bits.get(name, kb.UNKNOWN)
        return None, _ZERO                      # never written: reads 0 (docs/pir.md)

    def _transfer_of(self, ins: Instr) -> tuple:
        """``(fixed, op)``: what ``ins`` writes given its operands' bits ``ops`` -- ``fixed``
        when not None, else ``ops[0]`` when ``op`` is None (a copy), else ``kb.transfer(op,
        *ops)``."""
        how = _TRANSFER.get(type(ins))
        if how is None:
            return kb.UNKNOWN, None
        if how == "mov":
            return None, None
        if how in ("op", "rel", "select"):
            return None, ins.op if how == "op" else ins.rel if how == "rel" else "select"
        if how == "bool":
            return kb.BOOL, None
        if how == "load":
            return kb.load(ins.size, ins.signed), None
        return self.returns.get(ins.callee, kb.UNKNOWN), None     # a call

    def param_bits(self, r: str) -> Bits:
        """A parameter's value on entry: in its type's range when it has one (a call with an
        argument outside it faults; docs/pir.md "Extensions") and nothing writes it again."""
        rng = self.fn.param_ranges().get(r) if self.fn.param_types else None
        if rng is None or r in self.defs:
            return kb.UNKNOWN
        return kb.in_range(*rng)

    def entry_bits(self, r: str) -> Bits:
        """A parameter's value on entry: its type's range when it has one, else unknown."""
        rng = self.fn.param_ranges().get(r) if self.fn.param_types else None
        return kb.UNKNOWN if rng is None else kb.in_range(*rng)

    def stable(self, a) -> bool:
        """``a`` holds one value for the whole call: a literal, a global's address, a register
        never written (a parameter or 0) or an SSA value (through copies)."""
        a = self.leader(a)
        return not isinstance(a, Reg) or a.name in self.ssa or a.name not in self.defs

    def branch_facts(self) -> BranchFacts:
        """Compares decided by dominating branches (``flow.branch_facts``), built once."""
        if getattr(self, "_branch_facts", None) is None:
            # the dominance test reads the intervals, not ``self``: a closure over ``self`` kept
            # there was a reference cycle, each round's values freed only by the collector
            pre, post = self.pre, self.post
            self._branch_facts = BranchFacts(
                self.fn, self.stable, self.leader,
                lambda d, n: d in pre and n in pre and pre[d] <= pre[n] and post[n] <= post[d])
        return self._branch_facts

    def at(self, site: tuple) -> "AtSite":
        """These values as seen by the instruction at ``site`` (label, index)."""
        return AtSite(self, site)

    def _no_value_yet(self, a, site: tuple) -> bool:
        """Operand ``a`` read at ``site`` has no known bits yet (optimistic start)."""
        if not isinstance(a, Reg) or a.name in TRUE_PREDICATES:
            return False
        if self.reaching.at(site, a.name) is not None:
            return self._reaching_bits(a.name, site) is None
        return self.bits.fill is None and a.name not in self.bits and a.name in self.defs \
            and a.name not in self.params

    def _successors(self, block, forced=frozenset()) -> set:
        """The blocks control may reach from ``block`` as far as the known bits tell: a ``cbr``
        terminator on a condition known non-zero (zero) leaves by its true (false) edge only;
        one whose condition has no value yet by neither (both once ``block`` is ``forced``)."""
        out = set(block_access(block).side_targets)
        last = len(block.instrs) - 1
        for k, ins in enumerate(block.instrs[last:], last):
            if isinstance(ins, CondBr) and ins.guard is None and block.label not in forced:
                site = (block.label, k)
                if self._no_value_yet(ins.cond, site):
                    continue
                c = self.operand(ins.cond, site)
                if c.one:
                    out.add(ins.if_true)
                elif c.zero == kb.M:
                    out.add(ins.if_false)
                else:
                    out.update((ins.if_true, ins.if_false))
            else:
                out.update(branch_targets(ins))
        return out

    def _compile(self, ins: Instr, reads: Optional[dict]) -> tuple:
        """How ``solve`` evaluates ``ins`` (whose reads' nodes are ``reads``):
        ``(slots, fixed, op)``: ``slots`` the index in ``node_bits`` of each operand's bits in
        ``evaluate``'s order (a constant operand gets an index of its own after the nodes; one
        with no value during the solve, an index that stays None), ``(fixed, op)`` as
        ``_transfer_of`` gives them. Equal to ``evaluate`` while ``self.bits`` holds only the
        parameters (``solve``)."""
        node_bits, consts = self.node_bits, self._const_slots
        slots = []
        for a in ins.uses():
            if reads is not None and type(a) is Reg:    # most operands: a reaching node (the
                node = reads.get(a.name)                # constant registers have none)
                if node is not None:
                    slots.append(node)
                    continue
            node, got = self._operand_source(a, reads)
            if node is not None:
                slots.append(node)
                continue
            slot = consts.get(got)
            if slot is None:
                slot = consts[got] = len(node_bits)
                node_bits.append(None if got is _NO_VALUE else got)
            slots.append(slot)
        return (tuple(slots),) + self._transfer_of(ins)

    def solve(self, seed: Optional["Seed"] = None) -> None:
        """The known bits of every definition (flow-sensitive: each read joins the definitions
        reaching it) and of every register (the join of its definitions): the optimistic
        fixpoint, a worklist over reads, over the blocks found executable (SCCP's executable
        edges: GVN's processFoldableCondBr likewise ignores what a constant branch cannot
        reach); a definition in a block never found executable contributes nothing (it never
        runs). A definition of an executable block left without a value (a cycle with no base)
        becomes unknown, and so does a condition: then both its edges are taken.

        The worklist holds instructions by number (``site``: the function's instructions in
        block order) and a definition's bits are pushed into the merge nodes reaching it once
        per merge node that changes (the join is exact on ``normal`` bits, so this equals
        re-joining every definition); a read is evaluated again when the join it reads changes
        (before issue #28, whenever any definition reaching it changed; those evaluations,
        unchanged, also counted towards ``MAX_VISITS``). An instruction writing nothing is never
        evaluated (its value is read by nothing) except a ``cbr``, whose edges are followed.

        ``seed``: this function is the last round's of ``simplify`` with some instructions
        rewritten to equal ones and dead pure ones deleted (``Seed``); only the instructions
        that may evaluate otherwise are solved (``_seeded``), the others keep the last round's
        results: the same fixpoint. Solved whole when the executable blocks come out otherwise."""
        if seed is not None:
            self._solve(seed)
            if self.executable == seed.values.executable:
                return
            self.node_bits = [None] * (len(self.reaching.defs) + len(self.reaching.operands))
            self.bits = _RegisterBits()
        self._solve(None)

    def _solve(self, seed: Optional["Seed"]) -> None:
        g = self.reaching
        defs, users, node_bits = g.defs, g.users, self.node_bits
        fn_blocks = self.fn.blocks
        offset, instrs, site_block, writes = {}, [], [], []
        for bi, b in enumerate(fn_blocks):
            offset[b.label] = len(instrs)
            instrs.extend(b.instrs)
            site_block.extend([bi] * len(b.instrs))
            writes.extend(block_access(b).defs)
        n = len(instrs)
        is_cbr = [type(ins) is CondBr for ins in instrs]
        reads_at: list = [None] * n         # site -> {register: node} (``g.reads``)
        # node -> the sites reading it that do something (the graph's nodes only)
        readers: list = [()] * len(node_bits)
        for (label, k), regs in g.reads.items():
            site = offset[label] + k
            reads_at[site] = regs
            if writes[site] or is_cbr[site]:
                for node in regs.values():
                    got = readers[node]
                    if got:
                        got.append(site)
                    else:
                        readers[node] = [site]
        site_defs: list = [()] * n          # site -> ids of the definitions there
        for i, d in enumerate(defs):
            if d.kind == "instr":
                site = offset[d.site[0]] + d.site[1]
                site_defs[site] += (i,)
        def_sites = [site for site, ids in enumerate(site_defs) if ids]
        self._const_slots: dict = {}
        compiled: list = [None] * n
        results: list = [None] * n
        visits: list = [0] * n
        pending = [False] * n
        executable = [False] * len(fn_blocks)
        self.executable: set = set()
        forced: set = set()
        work: list = []
        join, transfer = kb.join, kb.transfer

        def set_def_bits(i: int, v: Bits) -> None:
            """Definition ``i`` now has bits ``v``: into the merge nodes it reaches, and the
            reads of every node that changed onto the worklist."""
            node_bits[i] = v
            stack = [i]
            while stack:
                node = stack.pop()
                for site in readers[node]:
                    if executable[site_block[site]] and not pending[site]:
                        pending[site] = True
                        work.append(site)
                val = node_bits[node]
                for m in users[node]:
                    old = node_bits[m]
                    new = val if old is None else join(old, val)
                    if new != old:
                        node_bits[m] = new
                        stack.append(m)

        # (before the entry's and the edges' definitions: ``_seeded`` may start the joins over)
        frozen = None if seed is None else self._seeded(
            seed, offset, instrs, site_defs, writes, results, readers, users, set_def_bits)
        zero = kb.const(0)
        for i, d in enumerate(defs):
            kind = d.kind
            if kind == "instr":
                continue
            v = kb.const(d.value) if kind == "edge" else \
                self.entry_bits(d.reg) if d.reg in self.params else zero
            if users[i]:
                set_def_bits(i, v)
            else:       # no merge node to join into; no read is executable yet to push
                node_bits[i] = v
        blocks = self.fn.block_map()
        block_index = {b.label: bi for bi, b in enumerate(fn_blocks)}

        def reach(label: str) -> None:
            new = [label]
            while new:
                b = new.pop()
                if b in self.executable or b not in blocks:
                    continue
                self.executable.add(b)
                executable[block_index[b]] = True
                first = offset[b]
                for site in range(first, first + len(blocks[b].instrs)):
                    if (writes[site] or is_cbr[site]) and not pending[site]:
                        pending[site] = True
                        work.append(site)
                new.extend(self._successors(blocks[b], forced) - self.executable)

        for r in self.params:
            self.bits[r] = self.param_bits(r)
        reach(fn_blocks[0].label)
        while True:
            while work:
                site = work.pop()
                pending[site] = False
                if frozen is not None and frozen[site] and not is_cbr[site]:
                    continue
                if is_cbr[site]:
                    for t in self._successors(fn_blocks[site_block[site]], forced) \
                            - self.executable:
                        reach(t)
                    continue
                how = compiled[site]
                if how is None:
                    ins = instrs[site]
                    how = compiled[site] = self._compile(ins, reads_at[site])
                    if type(ins) is Load and self.readonly:
                        label = fn_blocks[site_block[site]].label
                        v = self.readonly_load(ins, (label, site - offset[label]))
                        if v is not None:       # the bytes it reads are its value
                            how = compiled[site] = (how[0], kb.const(v), None)
                slots, fixed, op = how
                arity = len(slots)
                if arity == 2:              # most instructions: no list of operands built
                    x, y = node_bits[slots[0]], node_bits[slots[1]]
                    if x is None or y is None:
                        continue
                    new = fixed if fixed is not None else x if op is None else transfer(op, x, y)
                elif arity == 1:            # copies, loads, unary operations
                    x = node_bits[slots[0]]
                    if x is None:
                        continue
                    new = fixed if fixed is not None else x if op is None else transfer(op, x)
                else:
                    ops = [node_bits[j] for j in slots]
                    if None in ops:
                        continue
                    new = fixed if fixed is not None else ops[0] if op is None else \
                        transfer(op, *ops)
                visits[site] += 1
                old = results[site]
                if old is not None:
                    new = join(old, new)
                    if visits[site] > MAX_VISITS:
                        new = kb.UNKNOWN
                    if new == old:
                        continue
                results[site] = new
                ids = site_defs[site]
                if ids:
                    ins = instrs[site]
                    v = new
                    if type(ins) is PredDefine:
                        v = kb.BOOL
                    elif len(writes[site]) > 1:
                        v = kb.UNKNOWN
                    for i in ids:
                        if users[i]:
                            set_def_bits(i, v)
                            continue
                        # ``set_def_bits`` without the call: most definitions no merge node
                        # joins (a call per definition was a tenth of ``solve``, issue #28)
                        node_bits[i] = v
                        for j in readers[i]:
                            if executable[site_block[j]] and not pending[j]:
                                pending[j] = True
                                work.append(j)
            idle = [i for site in def_sites if executable[site_block[site]]
                    for i in site_defs[site] if node_bits[i] is None]
            for i in idle:
                set_def_bits(i, kb.UNKNOWN)
            if idle:
                continue
            stuck = [b.label for b in fn_blocks
                     if b.label in self.executable and b.label not in forced
                     and isinstance(b.instrs[-1], CondBr) and b.instrs[-1].guard is None
                     and self._no_value_yet(b.instrs[-1].cond, (b.label, len(b.instrs) - 1))]
            if not stuck:
                break
            for b in stuck:
                forced.add(b)
                for t in self._successors(blocks[b], forced) - self.executable:
                    reach(t)
        self._no_value_slot = self._const_slots.get(_NO_VALUE)
        del self._const_slots
        self._compiled, self._site_index, self._instrs = compiled, offset, instrs
        for r in self.params:
            self.bits[r] = self.param_bits(r)

        self.bits.filled(_Solved(self.fn, self.defs, self.reads, self.ssa, self.params, self.pre,
                                 self.first_exit, results, offset))

    def _seeded(self, seed: "Seed", offset: dict, instrs: list, site_defs: list, writes: list,
                results: list, readers: list, users: list, set_def_bits) -> list:
        """The sites ``_solve`` keeps (True) with the last round's results, their definitions'
        bits set (and joined): every site but the forward cone of those that may evaluate
        otherwise -- the rewritten ones, the readers of a register given other equalities on an
        edge and, when an edge left the reaching definitions, every site some read of which
        now joins other bits (``Seed``). A site outside the cone reads what it read (its
        definitions, their results and the joins are the same), so its result is the same, and
        the cone starts as ``solve`` starts."""
        old = seed.values
        old_results, old_offset = old.bits.fill.results, old._site_index
        old_blocks = old.fn_blocks
        at = [None] * len(instrs)       # site -> its site in the last round
        dirty = []
        for b in self.fn.blocks:
            label = b.label
            first, no = offset[label], old_offset[label]
            if old_blocks[label] is b:          # the same instructions at the same places
                at[first:first + len(b.instrs)] = range(no, no + len(b.instrs))
                continue
            kept = seed.kept.get(label)
            for k2 in range(len(b.instrs)):
                k = k2 if kept is None else kept[k2]
                at[first + k2] = no + k
                if (label, k) in seed.sites:
                    dirty.append(first + k2)
        reads = self.reads
        for r in seed.registers:
            for label, k in reads.get(r, ()):
                dirty.append(offset[label] + k)
        frozen = self._freeze(list(dirty), at, old_results, offset, instrs, site_defs, writes,
                              results, readers, users, set_def_bits, old.executable)
        if seed.edges:
            moved = [site for site in (offset[label] + k
                                       for label, k, _r in self.moved_reads(old, seed.kept))
                     if frozen[site]]
            if moved:
                self.node_bits[:] = [None] * len(self.node_bits)
                frozen = self._freeze(dirty + moved, at, old_results, offset, instrs, site_defs,
                                      writes, results, readers, users, set_def_bits,
                                      old.executable)
        return frozen

    def _freeze(self, dirty: list, at: list, old_results: list, offset: dict, instrs: list,
                site_defs: list, writes: list, results: list, readers: list, users: list,
                set_def_bits, executable: set) -> list:
        """``_seeded``'s sites kept: all but the forward cone of ``dirty`` (each site's
        definitions, the joins they reach, their readers, ...; ``dirty`` is emptied), with the
        last round's results (``at``: site -> its site then) and their definitions' bits set."""
        n = len(instrs)
        frozen = [True] * n
        for site in range(n):
            results[site] = old_results[at[site]]
        seen_nodes: set = set()
        while dirty:
            site = dirty.pop()
            if not frozen[site]:
                continue
            frozen[site] = False
            results[site] = None
            stack = list(site_defs[site])
            while stack:
                node = stack.pop()
                if node in seen_nodes:
                    continue
                seen_nodes.add(node)
                for r in readers[node]:
                    if frozen[r]:
                        dirty.append(r)
                got = users[node]
                if got:
                    stack.extend(got)
        for b in self.fn.blocks:
            if b.label not in executable:
                continue
            first = offset[b.label]
            for k in range(len(b.instrs)):
                site = first + k
                ids = site_defs[site]
                if not ids or not frozen[site] or results[site] is None:
                    continue
                ins, v = instrs[site], results[site]
                if type(ins) is PredDefine:
                    v = kb.BOOL
                elif len(writes[site]) > 1:
                    v = kb.UNKNOWN
                for i in ids:
                    set_def_bits(i, v)
        return frozen

    def moved_reads(self, previous: "FunctionValues", kept: dict) -> Iterator[tuple]:
        """``(label, index, register)`` of each read whose joined bits differ from those of the
        same read in ``previous`` (the function before a round of ``simplify``; ``kept`` as
        ``Seed.kept``): where a branch decided in its block took an edge out of the reaching
        definitions, a join at its target may have lost what came along it."""
        old_reads, old_bits, new_bits = previous.reaching.reads, previous.node_bits, self.node_bits
        for (label, k), regs in self.reaching.reads.items():
            ks = kept.get(label)
            was = old_reads.get((label, k if ks is None else ks[k]), {})
            for r, node in regs.items():
                o = was.get(r)
                if o is None or old_bits[o] != new_bits[node]:
                    yield label, k, r

    # ------------------------------------------------------------ SSA values
    def leader(self, a):
        """The operand ``a`` is a copy of, through SSA copies (itself otherwise)."""
        seen, ssa = 0, self.ssa
        while type(a) is Reg and seen < 64:
            ins = ssa.get(a.name)
            if type(ins) is not Mov:
                break
            src = ins.src
            if type(src) is Reg and not self.is_value(src.name):
                break
            a, seen = src, seen + 1
        return a

    def instr_at(self) -> dict:
        """``{(block, index): instruction}``."""
        if not hasattr(self, "_at"):
            self._at = {(b.label, k): ins for b in self.fn.blocks for k, ins in enumerate(b.instrs)}
        return self._at

    def is_value(self, r: str) -> bool:
        """``r`` holds one value wherever it is read: an SSA register, or a parameter nothing
        writes again."""
        return r in self.ssa or (r in self.params and r not in self.defs)

    def same(self, a, b) -> bool:
        return a == b or self.leader(a) == self.leader(b)

    def ssa_def(self, a) -> Optional[Instr]:
        """The defining instruction of an SSA register (through copies), or None."""
        a = self.leader(a)
        if isinstance(a, Reg):
            return self.ssa.get(a.name)
        return None

    def reaching_def(self, a, site: tuple) -> Optional[Instr]:
        """The one definition of register ``a`` that reaches its read at ``site`` when it is an
        unguarded instruction writing only ``a`` (it then dominates ``site``: every path to it
        ends with that write), else None."""
        got = self.reaching_def_site(a, site)
        return None if got is None else got[1]

    def reaching_def_site(self, a, site: tuple) -> Optional[tuple]:
        """``((label, index), instruction)`` of ``reaching_def``, or None."""
        if type(a) is not Reg:
            return None
        g = self.reaching
        regs = g.reads.get(site)
        node = None if regs is None else regs.get(a.name)     # ``g.at(site, a.name)``
        if node is None:
            return None
        i = g.single(node)
        if i is None:
            return None
        d = g.defs[i]
        if d.kind != "instr":
            return None
        (b, k), (ub, uk) = d.site, site
        ins = self.fn_blocks[b].instrs[k]
        if ins.guard is not None or isinstance(ins, PredDefine) or len(ins.defs()) != 1 \
                or not self._dominates(b, k, ub, uk):
            return None
        return (b, k), ins

    def readonly_load(self, ins: Load, site: tuple) -> Optional[int]:
        """The value the load ``ins`` at ``site`` reads when it reads a read-only global inside
        its bounds (so it cannot fault either; ``known_bytes.readonly_contents``), else None.
        ``solve`` gives the load these bits, so what is computed from it folds in the round that
        folds the load (issue #28 item 1: a round of ``simplify`` per chain of them, 16% of its
        first call's time on the PRE median csmith programs)."""
        got = self._readonly_loads.get(site, _UNASKED)
        if got is _UNASKED:
            got = self._readonly_loads[site] = self._readonly_load(ins, self.at(site))
        return got

    def _readonly_load(self, ins: Load, view: "AtSite") -> Optional[int]:
        addr, off = view.leader(ins.addr), 0
        inner = view.ssa_def(addr)
        if isinstance(inner, BinOp) and inner.op == "add" and inner.guard is None:
            g, c = (inner.a, inner.b) if isinstance(inner.a, GlobalAddr) else (inner.b, inner.a)
            if isinstance(g, GlobalAddr) and isinstance(c, Imm):
                addr, off = g, c.value
        got = contents_bytes(self.readonly, addr.name, off, ins.size) \
            if isinstance(addr, GlobalAddr) else None
        return load_value(got[0], ins.signed) if got is not None and not got[1] else None

    def known_loads(self) -> dict:
        """``{site: value}``: loads reading known bytes of an alloca or a global
        (``flow.known_memory``), computed once per round."""
        if getattr(self, "_known_loads", None) is None:
            def constant(a, site):
                if type(a) is Imm:      # a store's size: ``const(v).constant`` is v
                    return a.value
                return self.operand(a, site).constant
            self._known_loads = known_loads(self.fn, self.reaching_def_site, constant,
                                                    self.readonly, self.defined,
                                                    self.global_sizes, self.order)
        return self._known_loads

    def site_leader(self, a, site: tuple):
        """``leader`` of what operand ``a`` read at ``site`` holds: through a reaching copy of a
        stable value (its definition dominates that copy, which dominates ``site``, so it is
        not written again in between)."""
        ins = self.reaching_def(a, site)
        if isinstance(ins, Mov) and self.stable(ins.src):
            return self.leader(ins.src)
        return self.leader(a)


class AtSite:
    """``FunctionValues`` as the instruction at ``site`` sees them: its operands' known bits are
    those of
    the definitions reaching it (sound for any register it reads: an SSA value built on one reads
    the same value there); everything else is the function's. ``to(site)`` moves the view to
    another instruction (``simplify``'s round asks one view per instruction, issue #28 item 1)."""

    def __init__(self, values: FunctionValues, site: tuple):
        self._values = values
        # the function's, read without ``__getattr__``: the same objects for every site
        self.leader, self.is_value, self.stable = values.leader, values.is_value, values.stable
        self.ssa, self.defs, self.readonly = values.ssa, values.defs, values.readonly
        self.known_loads, self.branch_facts = values.known_loads, values.branch_facts
        self.to(site)

    def to(self, site: tuple) -> "AtSite":
        """This view moved to the instruction at ``site``."""
        self._site = self.site = site
        return self

    def __getattr__(self, name):
        return getattr(self._values, name)

    def operand(self, a) -> Bits:
        return self._values.operand(a, self._site)

    def evaluate(self, ins: Instr) -> Optional[Bits]:
        return self._values.evaluated(ins, self._site)[0]

    def evaluated(self, ins: Instr) -> tuple:
        return self._values.evaluated(ins, self._site)

    # The instruction's own operands are followed through the definitions reaching them; an
    # operand of an inner definition is compared by its value there, which rules only use when
    # it is stable (``stable_operand``, through ``leader``, which stays the function's).
    def same(self, a, b) -> bool:
        v = self._values
        return a == b or v.site_leader(a, self._site) == v.site_leader(b, self._site)

    def ssa_def(self, a) -> Optional[Instr]:
        v = self._values
        a = v.leader(a)         # once: ``v.ssa_def`` follows the same copies
        inner = v.ssa.get(a.name) if isinstance(a, Reg) else None
        if inner is not None:
            return inner
        ins = v.reaching_def(a, self._site)
        if isinstance(ins, Mov):
            return v.ssa_def(ins.src) if v.stable(ins.src) else None
        return ins
