"""PRE(M): code-motion-only partial redundancy elimination derived from the CMP region
(``pathlogic optimize --passes pre-m``; PathFinder §6.3.1.2, issue #14).

``datalog/pre.dl`` decides (M-availability, where CMP nodes act as kills; insertion edges
(6.2); computations left in place (6.3)); this pass rewrites. For every candidate expression or
load ``e`` (``facts_gen/value_flow.py``) that has some reuse, a fresh temporary ``t`` holds its
value (Replace, 6.1): a computation of ``e`` whose value ``t`` already holds -- AVAIL^M_in is
Must or May at its block's entry, or an earlier computation in the same block with no kill
between -- becomes ``dest = mov t``; any other computation becomes ``t = e; dest = mov t``; and
``t = e`` is inserted on every insertion edge: at the end of its source when that block has one
successor and one branch, at the start of its target when that has one predecessor (and is not
the entry), otherwise in a new block splitting the edge. The insertion points equal those of
lazy code motion (tests/transforms/pre: the LCM oracle), so no path computes ``e`` more often
than before and insertions are down-safe (ANTIC_in = Must): a load or division is inserted
only where every path goes on to compute it anyway.

Example: ``if (c) x = a+b; y = a+b`` becomes ``if (c) {t = a+b; x = t} else {t = a+b};
y = t``: one evaluation of ``a+b`` on each path instead of two on the first.
"""
from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Optional

from pylogic.collector import collector_paused
from pylogic.flow.block_access import block_access
from pylogic.flow.candidates import block_occurrences, candidate_expressions, occurrences
from pylogic.flow.fits_extension import return_fits
from pylogic.flow.known_bytes import WRITERS, function_contents
from pylogic.flow.memory_writes import clobbers_memory
from pylogic.flow.readonly_globals import readonly_globals
from pylogic.flow.spans import spares, write_summary
from pylogic.flow.value_flow_inputs import function_inputs
from pylogic.flow.value_names import (MEMORY, leaf_copies, reads_memory, substituted,
                                      value_names)
from pylogic.identity_cache import IdentityCache
from pylogic.ir.cfg import block_predecessors
from pylogic.ir.model import (TRUE_PREDICATES, Block, Br, Call, Function, Imm, Module, Mov, Reg,
                              Store, branch_targets, retargeted)
from pylogic.transforms.driver import run_per_function
from pylogic.transforms.naming import FreshNames, LazyFreshNames
from pylogic.transforms.pre.dead_loads import drop_dead_safe_loads
from pylogic.transforms.pre.phi_loads import phi_translated_loads
from pylogic.transforms.record import TransformRecord

NEEDS = ("pre_m_insert", "pre_m_avail_at")
#: The source of the virtual edge into the entry block in ``pre_m_insert`` (datalog/pre.dl).
VIRTUAL_ENTRY = "__entry__"


@dataclass(frozen=True)
class FunctionPre:
    function: str
    expressions: int          # expressions given a temporary
    replaced: int             # computations turned into a copy of the temporary (static)
    inserted: int             # computations inserted on edges
    split_edges: int          # new blocks made to hold insertions
    copies_removed: int = 0   # copies of temporaries propagated into their readers
    dead_loads: int = 0       # loads nobody reads that cannot fault, removed (dead_loads.py)
    phi_loads: int = 0        # loads through a join given by its predecessors (phi_loads.py)


@dataclass
class PreRecord(TransformRecord):
    transform: str = "pre-m"

    def totals(self) -> dict:
        keys = ("expressions", "replaced", "inserted", "split_edges", "copies_removed",
                "dead_loads", "phi_loads")
        return {"functions": len(self.applied),
                **{k: sum(getattr(a, k) for a in self.applied) for k in keys}}

    def summary(self) -> str:
        t = self.totals()
        return (f"{self.transform}: {t['replaced']} computations of {t['expressions']} "
                f"expressions replaced by temporaries, {t['inserted']} inserted on edges "
                f"({t['split_edges']} edges split)")


class _KillIndex:
    """Which candidate expressions an instruction may change: by written leaf register, and
    every load for a store or call."""

    def __init__(self, exprs: dict, spare=None):
        self.by_reg: dict[str, set] = defaultdict(set)
        self.loads = set()
        self.spare = spare              # spare(ins) -> (e -> the store or call leaves e alone)
        for e, (op, leaves) in exprs.items():
            for a in leaves:
                if isinstance(a, Reg):
                    self.by_reg[a.name].add(e)
            if reads_memory(op, leaves):
                self.loads.add(e)

    def within(self, ins, among) -> set:
        """What ``ins`` kills of ``among``: the alias queries (``spares``) asked only for the
        loads in ``among`` (the walk's available expressions: csmith-2's first walk asked one
        per store and candidate load before; issue #28 item 1)."""
        out = {e for r in ins.defs() for e in self.by_reg.get(r, ()) if e in among}
        if clobbers_memory(ins):
            loads = [e for e in among if e in self.loads]
            if loads:
                spared = self.spare(ins) if self.spare else None
                out.update(e for e in loads if not (spared and spared(e)))
        return out

    def among(self, exprs) -> "_KillsAmong":
        """This index for ``exprs`` alone (a subset of its expressions)."""
        return _KillsAmong(self, frozenset(exprs))


class _KillsAmong:
    """``kills(ins) & exprs``: a ``_KillIndex`` restricted to the expressions given a temporary,
    asking its alias queries (``spares``, one per store and load) once for both walks."""

    def __init__(self, kills: _KillIndex, exprs: frozenset):
        self.kills, self.exprs = kills, exprs
        self._memo = IdentityCache()

    def __call__(self, ins) -> frozenset:
        got = self._memo.get(ins)
        return got if got is not None else \
            self._memo.put(ins, frozenset(self.kills.within(ins, self.exprs)))

    def within(self, ins, among) -> frozenset:
        return self(ins) & among


class _Stores:
    """``stores(ins, exprs)``: the candidate loads in ``exprs`` whose value store ``ins`` makes
    its stored value, or whose bytes a write of known bytes determines (vf_store_gen;
    ``stored``: the function's ``FunctionInputs.stored``; ``known``: its ``KnownBytes``); each
    instruction's computed once (the walks ask for it three times; issue #28 item 1)."""

    def __init__(self, stored, known=None):
        self.stored, self.known = stored, known
        self._memo = IdentityCache()        # ins -> every load it generates, in order

    def __call__(self, ins, exprs) -> list[str]:
        if not isinstance(ins, WRITERS):
            return []           # no store, no write of known bytes (asked of every instruction)
        every = self._memo.get(ins)
        if every is None:
            every = self.stored(ins) if isinstance(ins, Store) else []
            if self.known is not None:
                every = every + [e for e in self.known.generated(ins) if e not in every]
            self._memo.put(ins, every)
        return [e for e in every if e in exprs]


def _no_stores(ins, exprs) -> list:
    """``_Stores`` of a function without candidate loads."""
    return []


def _stored_value(ins, e: str, known=None):
    """What load ``e`` reads right after ``ins`` generates it (``_Stores``)."""
    if known is not None and e in known.generated(ins):
        v = known.generated(ins)[e]
        return Imm(v) if isinstance(v, int) else v          # a relocated global's address
    return ins.value


def _walked(walks: dict, block: Block) -> list:
    """``block``'s ``_walk`` as ``_needed_store_copies`` kept it, or, for a block it did not walk
    (it computes no candidate), each instruction with no expression, not held."""
    return walks.get(block.label) or [(ins, None, False) for ins in block.instrs]


def _walk(block: Block, exprs: dict, available: set, names: dict, kills=None, stores=None,
          occurs: Optional[tuple] = None):
    """For each instruction of ``block``: ``(ins, e or None, whether t holds e before it)``,
    with ``available`` the expressions whose temporary is valid at the block's entry; a store
    makes the loads it generates available (``t = mov v`` after it). ``occurs``: the block's
    ``candidates.occurrences`` under candidates including ``exprs``."""
    kills = kills or _KillIndex(exprs)
    avail = set(available)
    if occurs is None:
        occurs = block_occurrences(block, names, exprs)
    for ins, e in zip(block.instrs, occurs):
        if e is not None and e not in exprs:
            e = None
        yield ins, e, e is not None and e in avail
        if e is not None:
            avail.add(e)
        if avail:               # (nothing to kill of none)
            avail -= kills.within(ins, avail)
        if stores is not None:
            avail.update(stores(ins, exprs))


def _may_hold(block: Block, exprs: dict, available: set, occurs: tuple, stores, loads) -> bool:
    """Whether ``_walk`` may find a computation in ``block`` whose temporary holds its value:
    one already available at the entry or computed earlier in the block, or a candidate load
    (``loads``) an earlier store generates, with no kill taken into account (a superset of the
    walk's, which asks the alias queries of every store and call; issue #28 item 1: the PRE
    steps of csmith 4, 11, 19, 24, 29, 38, 43, 44 walk 315 blocks for reuse, 2,779 before)."""
    seen = set(available)
    pending = []            # instructions whose generated loads are not yet in seen
    for ins, e in zip(block.instrs, occurs):
        if e is not None:
            if e in seen:
                return True
            if pending and e in loads:
                for earlier in pending:
                    seen.update(stores(earlier, exprs))
                pending.clear()
                if e in seen:
                    return True
            seen.add(e)
        if loads:
            pending.append(ins)
    return False


def _computation(ins, dest: str):
    """``ins`` writing ``dest`` instead (the same expression, annotations dropped)."""
    return dataclasses.replace(ins, dest=dest, annotations=())


def insertion_templates(fn: Function, returns=None, known=None) -> tuple[dict, dict, dict]:
    """``(value names, candidate expressions, {expression: the first unguarded computation of
    it whose operands are all leaves})``: what an edge insertion copies (PathFinder §6.2)."""
    names = value_names(fn) if known is None else known.names
    exprs = candidate_expressions(fn, names, returns, known)
    return names, exprs, _templates(fn, names, exprs)


def _templates(fn: Function, names: dict, exprs: dict, occurs: Optional[dict] = None) -> dict:
    """``insertion_templates``' third part, from the names and candidates already computed
    (``occurs``: their ``candidates.occurrences``)."""
    occurs = occurrences(fn, names, exprs) if occurs is None else occurs
    template = {}
    for b in fn.blocks:
        for ins, e in zip(b.instrs, occurs[b.label]):
            if e is not None and not substituted(ins, names):
                template.setdefault(e, ins)
    return template


def pre_m_function(fn: Function, fresh: FreshNames, inserts: set, avail_in: dict,
                   name: str = "pre-m", defined: frozenset = frozenset(),
                   readonly: frozenset = frozenset(), returns=None, contents=None,
                   global_sizes=None):
    """``(new function, FunctionPre)``: PRE(M) on one function given ``inserts`` {(a, b, e)}
    and ``avail_in`` {(b, e): "must" | "may"} (AVAIL^M_in; read only where ``b`` computes
    ``e`` and where an expression inserted into ``b`` reads ``e``'s temporary: ``pre_m_avail_at``).

    An expression named through substituted registers (``value_names``) is inserted on an edge
    only from a computation whose operands are all leaves (the name's own operands, valid on
    the edge); without one, its insertions are dropped and only Must-available computations
    reuse its temporary (global CSE on value names)."""
    # the facts' value names, known bytes (vf_store_gen), candidates, roots and spans
    inputs = function_inputs(fn, defined, readonly, returns, contents, global_sizes)
    known, names, exprs = inputs.known, inputs.names, inputs.exprs
    occurs = inputs.occurrences
    if inserts or avail_in:
        template = _templates(fn, names, exprs, occurs)
        plans, edge_uses = _operand_plans(fn, names, exprs, template, inserts, avail_in, occurs)
    else:   # read only for insertions and May-available entries (262 of the 316 calls of
        template, plans, edge_uses = {}, {}, set()   # csmith 24, 29, 4, ... had neither; #28)
    inserts = {(a, b, e) for a, b, e in inserts if e in template or (a, b, e) in plans}
    entry_avail = defaultdict(set)
    inserted = {e for _, _, e in inserts}
    for (b, e), state in avail_in.items():
        if state == "must" or e in template or e in inserted:
            entry_avail[b].add(e)
    # which expressions have reuse: an insertion, or a computation t already holds, or an
    # operand of an insertion read from its temporary
    reused = {e for _, _, e in inserts} | {n for _, n in edge_uses}
    def spare(ins):         # alias facts (vf_load_root / vf_store_root, vf_*_span, vf_store_over)
        # derived on the first alias query (``FunctionInputs`` keeps them): most functions
        # ask none (csmith 24, 29, 4, 11, 19, 44, 38, 43, 32: the load spans of 230 of the
        # first pre-m's 251 functions were derived for no query; issue #28 item 1)
        roots, offsets = inputs.roots, inputs.offsets   # the module's functions, read-only globals
        lspans, lroots, osizes = inputs.load_spans, inputs.load_roots, inputs.object_sizes
        write = write_summary(ins, roots, defined, offsets)      # once for every load asked
        return lambda e: spares(ins, lroots.get(e), roots, defined, lspans.get(e), offsets,
                                osizes, write)
    kills = _KillIndex(exprs, spare)
    # what stores generate are loads (store_generated, known bytes): none is a candidate in a
    # function without candidate loads (csmith-32's @__pathlogic_init, 538 stores: its
    # pre_m_function 0.011 -> 0.007 s; issue #28 item 1)
    stores = _Stores(inputs.stored, known) if kills.loads else _no_stores
    for b in fn.blocks:
        if _may_hold(b, exprs, entry_avail[b.label], occurs[b.label], stores, kills.loads):
            reused |= {e for _, e, held in _walk(b, exprs, entry_avail[b.label], names, kills,
                                                 stores, occurs[b.label]) if held}
    if not reused:
        return fn, FunctionPre(fn.name, 0, 0, 0, 0)
    temp = {e: fresh.fresh("pre.t") for e in sorted(reused)}
    exprs_t = {e: exprs[e] for e in reused}
    kills_t = kills.among(exprs_t)
    needed, walks = _needed_store_copies(fn, exprs_t, entry_avail, reused, names, kills_t,
                                         stores, inserts, edge_uses, occurs)
    blocks, replaced = [], 0
    copied = {label for label, _, _ in needed}
    for b in fn.blocks:
        if b.label not in walks and b.label not in copied:
            blocks.append(b)            # computes no e, copies no stored value
            continue
        out, out_index = [], []
        for ins, e, held in _walked(walks, b):
            if e is None:
                out.append(ins)
                # store-to-load forwarding: the stored value is the load's (vf_store_gen),
                # copied only where some path reaches a use of the temporary
                k = len(out_index)
                out.extend(Mov(dest=temp[g], src=_stored_value(ins, g, known), loc=ins.loc)
                           for g in stores(ins, exprs_t)
                           if (b.label, k, g) in needed)
                out_index.append(ins)
                continue
            out_index.append(ins)
            if held:
                replaced += 1
            else:
                out.append(_computation(ins, temp[e]))
            out.append(Mov(dest=ins.dest, src=Reg(temp[e]), annotations=ins.annotations,
                           loc=ins.loc))
        blocks.append(b.with_instrs(out))
    # insertions: one computation of e per insertion edge, from a leaf-operand occurrence
    on_edge = defaultdict(list)
    # operands first: an expression's name is longer than the names it is built on
    for a, b, e in sorted(inserts, key=lambda x: (x[0], x[1], len(x[2]), x[2])):
        if e in template:
            on_edge[(a, b)].append(_computation(template[e], temp[e]))
        else:
            ins, operands = plans[(a, b, e)]
            source = {r: Reg(temp[n]) if n in temp else n for r, n in operands.items()}
            on_edge[(a, b)].append(_computation(_read_through(ins, source), temp[e]))
    blocks, split = _place(fn, blocks, on_edge, fresh)
    new, copies = propagate_copies(dataclasses.replace(fn, blocks=tuple(blocks)),
                                   set(temp.values()))
    return new, FunctionPre(fn.name, len(reused), replaced, sum(map(len, on_edge.values())),
                            split, copies)


def _operand_plans(fn: Function, names: dict, exprs: dict, template: dict, inserts: set,
                   avail_in: dict, occurs: Optional[dict] = None) -> tuple[dict, set]:
    """``({(a, b, e): (occurrence, {operand register: expression name or leaf operand})},
    {(a, e')})``: how to insert on edge a -> b an expression ``e`` that has no computation with
    leaf operands (its operands are named registers, e.g. ``cmp.eq(1,load.2s(@v))``): from an
    occurrence whose every named operand is a leaf (its name is one), or an expression ``e'``
    whose temporary holds it on the edge -- ``e'`` is inserted on the same edge too (placed
    first) or Must-available at ``b`` (AVAIL^M_in; then ``(a, e')`` is an edge use of the
    temporary). Sound as a leaf template is: ANTIC_in[b] = Must, so nothing changes ``e`` (nor
    ``e'``, built on a part of ``e``'s leaves and memory) between the edge and ``e``'s
    occurrence."""
    occurs = occurrences(fn, names, exprs) if occurs is None else occurs
    occurrence = {}
    for b in fn.blocks:
        for ins, e in zip(b.instrs, occurs[b.label]):
            if e is not None and e not in template:
                occurrence.setdefault(e, ins)
    operands = {}
    for e, ins in occurrence.items():
        plan = {}
        for a in ins.uses():
            if not (isinstance(a, Reg) and a.name in names):
                continue
            text, leaves = names[a.name]
            if text in exprs:
                plan[a.name] = text
            elif len(leaves) == 1 and leaves[0] != MEMORY and _leaf_text(leaves[0]) == text:
                plan[a.name] = leaves[0]                  # a copy of a leaf
            else:
                plan[a.name] = None
        if all(v is not None for v in plan.values()):
            operands[e] = (ins, plan)
    ok = {(a, b, e) for a, b, e in inserts if e in template}
    allowed = set(operands)
    while True:
        plans: dict = {}
        pending = {(a, b, e) for a, b, e in inserts if e in allowed}
        changed = True
        while changed:             # an operand inserted on the same edge must be insertable
            changed = False
            for a, b, e in sorted(pending - set(plans)):
                ins, plan = operands[e]
                if all(not isinstance(n, str) or (a, b, n) in ok or (a, b, n) in plans or
                       (a != VIRTUAL_ENTRY and avail_in.get((b, n)) == "must")
                       for n in plan.values()):
                    plans[(a, b, e)] = (ins, plan)
                    changed = True
        # all or none of an expression's insertions: May-availability then means t holds it
        partial = {e for a, b, e in pending if (a, b, e) not in plans}
        if not partial:
            break
        allowed -= partial
    edge_uses = {(a, n) for (a, b, e), (_, plan) in plans.items() for n in plan.values()
                 if isinstance(n, str) and (a, b, n) not in ok and (a, b, n) not in plans}
    return plans, edge_uses


def _leaf_text(leaf) -> str:
    """The text of a leaf operand in a value name (``flow.value_names.operand_text``)."""
    return str(leaf.value) if isinstance(leaf, Imm) else leaf.name


def _needed_store_copies(fn: Function, exprs_t: dict, entry_avail: dict, reused: set,
                         names: dict, kills, stores: _Stores, inserts: set,
                         edge_uses: set = frozenset(), occurs: Optional[dict] = None
                         ) -> tuple[set, dict]:
    """``({(block, index, e)}, walks)``: the stores generating ``e`` whose value some path
    carries to a computation of ``e`` that reuses the temporary, before any other write of it
    or kill of ``e`` (a backward "needed" analysis over blocks; an insertion of ``e`` on an edge
    writes the temporary). Only those stores get ``t = mov value``. ``walks``: block -> its
    ``_walk`` as a list, which the rewrite walks again (issue #28 item 1), for the blocks
    computing some ``e`` (in the others the walk finds nothing: each ``e`` is None)."""
    walks = {}
    for b in fn.blocks:
        occ = block_occurrences(b, names, exprs_t) if occurs is None else occurs[b.label]
        if any(e in exprs_t for e in occ if e is not None):
            walks[b.label] = list(_walk(b, exprs_t, entry_avail[b.label] & reused, names,
                                        kills, stores, occ))
    generators = {b.label: [(k, g) for k, ins in enumerate(b.instrs)
                            for g in stores(ins, exprs_t)] for b in fn.blocks}
    if not any(generators.values()):
        return set(), walks             # no store generates a reused load: none to copy
    events = {}                          # block -> [(index, e, "use" | "gen" | "kill" | "store")]
    for b in fn.blocks:
        ev = []
        at = defaultdict(list)
        for k, g in generators[b.label]:
            at[k].append(g)
        walk = _walked(walks, b)
        for k, (ins, e, held) in enumerate(walk):
            if e is not None:
                ev.append((k, e, "use" if held else "gen"))
            ev.extend((k, x, "kill") for x in kills(ins))
            ev.extend((k, g, "store") for g in at.get(k, ()))
        events[b.label] = ev
    first = {}
    for label, ev in events.items():
        seen = {}
        for _, e, kind in ev:
            seen.setdefault(e, kind)
        first[label] = seen
    succ = {b.label: b.successors() for b in fn.blocks}
    on_edge = {(a, b, e) for a, b, e in inserts}
    need_in = {label: {e for e, kind in f.items() if kind == "use"} for label, f in first.items()}
    need_out = {label: set() for label in need_in}
    edge_read = defaultdict(set)        # block -> what an edge insertion out of it reads
    for a, e in edge_uses:
        edge_read[a].add(e)
    preds = block_predecessors(fn)
    # a worklist to the least fixed point (need_in only grows), which the round-robin sweeps
    # of every block reached too; first visits in reverse block order
    work = [b.label for b in fn.blocks]
    queued = set(work)
    while work:
        label = work.pop()
        queued.discard(label)
        out = set(edge_read.get(label, ()))
        for s in succ[label]:
            out |= {e for e in need_in.get(s, ()) if (label, s, e) not in on_edge}
        if out != need_out[label]:
            need_out[label] = out
            grown = {e for e in out if e not in first[label]} - need_in[label]
            if grown:
                need_in[label] |= grown
                for p in preds[label]:
                    if p not in queued:
                        queued.add(p)
                        work.append(p)
    needed = set()
    for label, ev in events.items():
        later: dict = {}                 # e -> the kind of its next event (a backward scan)
        for k, g, kind in reversed(ev):
            if kind == "store":
                nxt = later.get(g)
                if nxt == "use" or (nxt is None and g in need_out[label]):
                    needed.add((label, k, g))
            later[g] = kind
    return needed, walks


def propagate_copies(fn: Function, temps: set) -> tuple[Function, int]:
    """``fn`` without the copies ``x = mov t`` of a temporary ``t`` in ``temps`` whose every
    read of ``x`` sees ``t`` unchanged since the copy (``value_names.leaf_copies``: x is named
    by the leaf t when the temporaries are kept as leaves): those reads read ``t`` and the copy
    goes. Returns the function and the copies removed.
    """
    source = leaf_copies(fn, frozenset(temps))
    if not source:
        return fn, 0
    blocks = []
    # (BlockAccess.registers leaves the constant registers out)
    whole = not TRUE_PREDICATES.isdisjoint(source)
    for b in fn.blocks:
        if not whole and block_access(b).registers.isdisjoint(source):
            blocks.append(b)        # neither reads nor writes a copy (derived by leaf_copies)
            continue
        out = []
        # (an instruction's register operands are its uses(): one reading no copy, its guard
        # included, is kept as it is)
        for ins, read in zip(b.instrs, block_access(b).reads):
            if isinstance(ins, Mov) and ins.dest in source:
                continue
            out.append(ins if source.keys().isdisjoint(read) else _read_through(ins, source))
        blocks.append(b.with_instrs(out))
    return dataclasses.replace(fn, blocks=tuple(blocks)), len(source)


def _read_through(ins, source: dict):
    """``ins`` reading ``source[x]`` wherever it read register ``x``."""
    changes = {}
    for f in dataclasses.fields(ins):
        v = getattr(ins, f.name)
        if isinstance(v, Reg) and v.name in source:
            changes[f.name] = source[v.name]
        elif f.name == "args" and any(isinstance(a, Reg) and a.name in source for a in v):
            changes[f.name] = tuple(source.get(a.name, a) if isinstance(a, Reg) else a
                                    for a in v)
    if ins.guard in source:
        changes["guard"] = source[ins.guard].name
    return dataclasses.replace(ins, **changes) if changes else ins


def _place(fn: Function, blocks: list, on_edge: dict, fresh: FreshNames):
    """Put each edge's computations at the end of its source, the start of its target, or in a
    new block on the edge (critical edges); returns the blocks and how many edges were split."""
    preds = block_predecessors(fn)
    entry = fn.blocks[0].label
    index = {b.label: k for k, b in enumerate(blocks)}
    added, split = [], 0
    for (a, b), code in sorted(on_edge.items()):
        if a == VIRTUAL_ENTRY:                       # the edge into the function
            first = blocks[index[b]]
            if preds[b]:
                added_first = Block(label=fresh.fresh("pre.entry"), instrs=tuple(code) + (Br(target=b),))
                blocks.insert(0, added_first)
                index = {blk.label: k for k, blk in enumerate(blocks)}
                split += 1
            else:
                blocks[index[b]] = dataclasses.replace(first, instrs=tuple(code) + first.instrs)
            continue
        src = blocks[index[a]]
        branches = [k for k, ins in enumerate(src.instrs) if branch_targets(ins)]
        if b != entry and preds[b] == [a]:
            tgt = blocks[index[b]]
            blocks[index[b]] = dataclasses.replace(tgt, instrs=tuple(code) + tgt.instrs)
        elif src.successors() == (b,) and len(branches) == 1 and \
                not isinstance(src.instrs[branches[0]], Call):     # not before a split call
            k = branches[0]
            blocks[index[a]] = dataclasses.replace(
                src, instrs=src.instrs[:k] + tuple(code) + src.instrs[k:])
        else:
            label = fresh.fresh(f"{a}.pre.{b}")
            retarget = {b: label}
            instrs = tuple(retargeted(ins, retarget) for ins in src.instrs)
            blocks[index[a]] = dataclasses.replace(src, instrs=instrs)
            added.append(Block(label=label, instrs=tuple(code) + (Br(target=b),)))
            split += 1
    return blocks + added, split


def pre_m(module: Module, rows, *, functions: Optional[Iterable[str]] = None
          ) -> tuple[Module, PreRecord]:
    """``(new module, record)``: PRE(M) on every (or each named) function; ``rows`` holds
    ``pre_m_insert`` and ``pre_m_avail_at`` of the module (``Rows``)."""
    defined = frozenset(fn.name for fn in module.functions if not fn.extern)
    readonly, returns = readonly_globals(module), return_fits(module)
    contents = function_contents(module)
    sizes = {g.name: g.size for g in module.globals}

    def rewrite(fn: Function) -> tuple[Function, FunctionPre]:
        view = rows.function(fn.name)
        inserts = set(view["pre_m_insert"])
        avail = {(b, e): state for b, e, state in view["pre_m_avail_at"]}
        # names collected only for a function that gets new ones (most get none)
        new, info = pre_m_function(fn, LazyFreshNames(fn, module), inserts, avail,
                                   defined=defined, readonly=readonly, returns=returns,
                                   contents=contents(fn.name), global_sizes=sizes)
        new, joined = phi_translated_loads(
            new, LazyFreshNames(new, module), defined, contents(fn.name), readonly, returns,
            lambda f: function_inputs(f, defined, readonly, returns, contents(fn.name), sizes))
        new, dead = drop_dead_safe_loads(new, sizes)
        return new, dataclasses.replace(info, dead_loads=dead, phi_loads=joined)
    with collector_paused():
        return run_per_function(module, functions, PreRecord(), rewrite)
