"""Value names: the text of the expression an instruction computes (``op(a,b)`` with its operands
as text, commutative operands sorted), and registers named by the value they hold (symbolic
back-substitution through copies, pure expressions and loads), the separable Value Name Graph's
one name per lexical expression.

Naming: ``add(%x,4)``, ``cmp.lt(%i,%n)``, ``load.4s(%p)``, ``select(%c,%a,%b)``; ``add(a,b)`` and
``add(b,a)`` are one name. A name built on a load has the pseudo-leaf ``MEMORY``, rewritten by
every store and call; across ``store L, t`` the name ``*L`` becomes ``t`` (``store_generated``).

Example
-------
>>> from pylogic.ir.parser import parse_module
>>> fn = parse_module(
...     "func f(a) {\\ne:\\n x = add a, 1\\n y = mul x, 2\\n ret y\\n}\\n").functions[0]
>>> value_names(fn)["y"][0], expression_of(fn.blocks[0].instrs[1])[0]
('mul(2,add(1,a))', 'mul(2,x)')

References: pathfinder.md §3.4.1.1 (indirection in names), §3.4.1.2 (symbolic
back-substitution), §3.5 (separable VNG), §6.3.1.4 (lexical PRE: ``a op b``).
"""
from __future__ import annotations

from typing import Optional

from pylogic.compiled_modules import low_bits
from pylogic.flow.block_access import block_access
from pylogic.flow.definitions import single_definitions
from pylogic.flow.fits_extension import fits_extension
from pylogic.flow.memory_writes import clobbers_memory
from pylogic.identity_cache import IdentityCache
from pylogic.ir.cfg import reverse_postorder
from pylogic.ir.model import (TRUE_PREDICATES, BinOp, Cmp, Function, GlobalAddr, Imm, Instr,
                              Load, Mov, Reg, Select, Store, UnOp)


COMMUTATIVE = frozenset({"add", "mul", "and", "or", "xor", "cmp.eq", "cmp.ne"})


def operand_text(op) -> str:
    kind = type(op)             # the classes have no subclasses
    if kind is Reg or kind is GlobalAddr:
        return op.name
    if kind is Imm:
        return str(op.value)
    raise TypeError(f"not an operand: {op!r}")


def operand_name(a, names: dict) -> tuple[str, tuple]:
    """(text, leaves) of operand ``a`` under ``names`` ({register: (name, leaves)})."""
    if isinstance(a, Reg) and a.name in names:
        return names[a.name]
    return operand_text(a), (a,)


def compose_name(op: str, parts: list) -> tuple[str, tuple]:
    """(name, leaves) of ``op`` applied to operand (text, leaves) pairs (the leaves in order of
    first occurrence). Each part's own leaves are distinct, as in every name and operand this
    module makes, so one part's are kept and a second's appended where new (``_value_names``
    composes every register's name: its one- and two-operand names without ``dict.fromkeys``,
    issue #28 item 1)."""
    if len(parts) == 1:
        text, leaves = parts[0]
        return f"{op}({text})", leaves
    if len(parts) == 2:
        (t0, l0), (t1, l1) = parts
        if op in COMMUTATIVE and t1 < t0:       # sorted() keeps equal texts in order
            t0, l0, t1, l1 = t1, l1, t0, l0
        if len(l1) == 1:
            if l1[0] not in l0:
                l0 = l0 + l1
        else:
            new = [x for x in l1 if x not in l0]
            if new:
                l0 = l0 + tuple(new)
        return f"{op}({t0},{t1})", l0
    if op in COMMUTATIVE:
        parts = sorted(parts, key=_text)
    return (f"{op}({','.join([t for t, _ in parts])})",
            tuple(dict.fromkeys([leaf for _, leaves in parts for leaf in leaves])))


def _text(part: tuple) -> str:
    return part[0]


#: op_and_args' op of a load, by (size, signed)
_LOAD_OPS: dict = {}


def _op_of(ins: Instr) -> str:
    """``op_and_args(ins)[0]`` of an expression ``_value_names`` names."""
    kind = type(ins)
    if kind is BinOp or kind is UnOp:
        return ins.op
    if kind is Load:
        key = ins.size, ins.signed
        op = _LOAD_OPS.get(key)
        if op is None:
            op = _LOAD_OPS[key] = op_and_args(ins)[0]
        return op
    return op_and_args(ins)[0]


#: the instructions _value_names may name: a copy, or one ``op_and_args`` gives an op of (its
#: classes below: change both together)
_NAMED = frozenset({Mov, BinOp, UnOp, Cmp, Select, Load})


def load_op(size: int, signed: bool) -> str:
    """The operator of a ``load.N`` in value names: ``load.Ns`` sign-extends, ``load.Nu`` not."""
    return f"load.{size}{'s' if signed else 'u'}"


def op_and_args(ins: Instr):
    kind = type(ins)            # the classes have no subclasses
    if kind is BinOp:
        return ins.op, [ins.a, ins.b]
    if kind is UnOp:
        return ins.op, [ins.a]
    if kind is Cmp:
        return f"cmp.{ins.rel}", [ins.a, ins.b]
    if kind is Select:
        return "select", [ins.cond, ins.a, ins.b]
    if kind is Load:
        return load_op(ins.size, ins.signed), [ins.addr]
    return None, None


def expression_of(ins: Instr, names: Optional[dict] = None) -> Optional[tuple[str, str, tuple]]:
    """``(name, op, leaves)`` of the expression ``ins`` computes, or None (moves, calls, stores,
    allocas, inputs, predicate defines, branches compute none). ``names`` (``value_names``)
    substitutes registers by the values they hold; ``leaves`` are the operands the name is
    built from (the instruction's own operands when nothing is substituted).

    Remembered per ``names`` dict and instruction object (both by identity; a names dict is
    never changed once built): the facts, the candidates, the load spans and each walk of a PRE
    step name the same instructions under the same names again (issue #28 item 1)."""
    if not names:
        return _expression_of(ins, names)
    if _LATEST[0] is names:             # a walk asks under one names dict in a row
        memo = _LATEST[1]
    else:
        memo = _EXPRESSIONS.get(names)
        if memo is None:
            memo = _EXPRESSIONS.put(names, {})
        _LATEST[:] = names, memo
    hit = memo.get(id(ins))
    if hit is not None and hit[0] is ins:
        return hit[1]
    found = _expression_of(ins, names)
    memo[id(ins)] = (ins, found)         # keeps ins alive, so its id is not reused
    return found


#: names dict -> {id(instruction): (instruction, its expression_of)}
_EXPRESSIONS = IdentityCache(256)
#: the names dict asked last and its memo (it keeps that dict alive, so the ``is`` test cannot
#: match another dict): most calls come in runs under one dict, and the LRU lookup of
#: ``_EXPRESSIONS`` per call was a third of ``expression_of``'s time (issue #28 item 1)
_LATEST: list = [None, None]


def _expression_of(ins: Instr, names: Optional[dict]) -> Optional[tuple[str, str, tuple]]:
    """``expression_of`` computed."""
    op, args = op_and_args(ins)
    if op is None:
        return None
    name, leaves = compose_name(op, [operand_name(a, names or {}) for a in args])
    return name, op, leaves


def substituted(ins: Instr, names: dict) -> bool:
    """Whether some operand of ``ins`` is named through ``names`` (not a leaf itself)."""
    return any(isinstance(a, Reg) and a.name in names for a in ins.uses())


#: Longest value name built by substitution; a longer one keeps its register as a leaf.
MAX_NAME = 160


def value_names(fn: Function, keep: frozenset = frozenset()) -> dict[str, tuple[str, tuple]]:
    """``_value_names``, one dict per function object and ``keep``, shared by every caller (read
    it, never change it): a PRE step names a function for its facts and again for its rewrite
    (known bytes, candidates), and the next step's facts name the functions it left alone."""
    return _NAMES.get_or_compute(fn, lambda: _value_names(fn, keep), keep)


#: (function, keep) -> its value names
_NAMES = IdentityCache(256)


def _value_names(fn: Function, keep: frozenset = frozenset()) -> dict[str, tuple[str, tuple]]:
    """``{register: (name, leaves)}``: registers that can be named by the value they hold --
    symbolic back-substitution (pathfinder.md §3.4.1.2) with copies and pure expressions
    substituted, as far as it is exact.

    A register qualifies when it has one definition (or identical copies of it, as restructuring
    makes), unguarded, a copy, a pure expression or a
    load (pathfinder.md §3.4.1.1: indirection in the name, ``t := load L`` names t ``*L``; such
    a name has the pseudo-leaf ``MEMORY``, rewritten by every store and call), it is no
    parameter, and it is never read (by any instruction, guards included) where it may be
    *stale*: not yet written since the entry, or a leaf of its name rewritten since its
    definition. Then at every read its value is its name
    evaluated on the current leaves, so kills of the name are the definitions of its leaves,
    and a copy named by a register can be replaced by that register at every read. Found by
    iteration: a register read while possibly stale becomes a leaf, and the names built on it
    change. Registers in ``keep`` are never substituted (always leaves).

    References: pathfinder.md §3.4.1.1, §3.4.1.2 (symbolic back-substitution).
    """
    define = _single_definitions(fn, keep)
    succ = {b.label: b.successors() for b in fn.blocks}
    names: dict = {}
    found: dict = {}            # register -> expression_of(its definition, names)
    substitutes: dict = {}      # register -> the registers of define its name substituted
    checked: set = set()        # registers whose present names passed _stale_reads
    dropped = False             # whether a round dropped some register
    while define:
        bad: set = set()

        def name(r: str, visiting: set):
            if r in names:
                return names[r]
            if r in visiting:
                bad.add(r)
                return r, (Reg(r),)
            visiting.add(r)
            ins = define[r]
            parts, inner = [], []
            for a in ins.uses():
                if type(a) is Reg and a.name in define:
                    inner.append(a.name)
                    parts.append(name(a.name, visiting))
                else:
                    parts.append((operand_text(a), (a,)))
            visiting.discard(r)
            substitutes[r] = inner
            if type(ins) is Mov:
                out = parts[0]
            else:
                op = _op_of(ins)
                out = compose_name(op, parts)
                found[r] = (out[0], op, out[1])
                if type(ins) is Load and MEMORY not in out[1]:
                    out = (out[0], out[1] + (MEMORY,))
            if len(out[0]) > MAX_NAME:
                bad.add(r)
            names[r] = out
            return out

        for r in define:
            if r not in names:
                name(r, set())
        name = None     # its closure holds itself: freed now, not by the collector
        if not bad:
            # each register's bit is followed alone: a name checked before is checked again
            # only when it changed
            unchecked = {r: named for r, named in names.items() if r not in checked}
            if unchecked:
                bad = _stale_reads(fn, unchecked, succ)
                checked.update(unchecked)
        if not bad:
            # (a first round that finds nothing named its registers in that order already)
            ordered = _naming_order(define, substitutes, names) if dropped else names
            # the definitions' expressions are named as expression_of names them (their operands'
            # names, ins.uses() in op_and_args' order): kept for it, not composed again
            _EXPRESSIONS.put(ordered, {id(define[r]): (define[r], found[r])
                                       for r in ordered if r in found})
            return ordered
        _forget(bad, define, names, found, substitutes, checked)
        dropped = True
    return {}


def _forget(bad: set, define: dict, names: dict, found: dict, substitutes: dict,
            checked: set) -> None:
    """Drop the registers ``bad`` from ``define`` and forget the names built on them (those
    substituting one of them, directly or not): naming the rest again from scratch gives every
    other register the name it has (with no cycle left, a name depends only on the
    registers it substitutes), so ``_value_names``' next round names only these again."""
    users: dict = {}
    for r, inner in substitutes.items():
        for a in inner:
            users.setdefault(a, []).append(r)
    stack = list(bad)
    stale = set(bad)
    while stack:
        for u in users.get(stack.pop(), ()):
            if u not in stale:
                stale.add(u)
                stack.append(u)
    for r in stale:
        names.pop(r, None)
        found.pop(r, None)
        substitutes.pop(r, None)
        checked.discard(r)
    for r in bad:
        del define[r]


def _naming_order(define: dict, substitutes: dict, names: dict) -> dict:
    """``names`` in the order one naming round from scratch over ``define`` makes them: each
    register after those it substitutes, in ``define``'s order (the order the callers see)."""
    ordered: dict = {}
    for root in define:
        if root in ordered:
            continue
        stack = [(root, iter(substitutes[root]))]
        while stack:
            r, todo = stack[-1]
            for a in todo:
                if a not in ordered:
                    stack.append((a, iter(substitutes[a])))
                    break
            else:
                stack.pop()
                ordered[r] = names[r]
    return ordered


def _single_definitions(fn: Function, keep: frozenset) -> dict[str, Instr]:
    """``{register: its definition}`` of the registers ``_value_names`` starts from: one
    definition (or identical copies of it), unguarded, a copy or an expression, no parameter,
    not in ``keep``: ``definitions.single_definitions`` (kept per function object, which the
    address roots and offsets read too; a walk of its own was a tenth of ``value_names``, issue
    #28 item 1) of the classes named."""
    return {r: ins for r, ins in single_definitions(fn).items()
            if type(ins) in _NAMED and r not in keep}


def leaf_copies(fn: Function, leaves: frozenset) -> dict[str, Reg]:
    """``{x: t}`` for the copies ``x = mov t`` (``t`` in ``leaves``) that
    ``value_names(fn, keep=leaves)`` names by the leaf ``t``: every read of ``x`` sees ``t``
    unchanged since the copy. Computed without naming the other registers: ``x``'s name is
    the kept leaf ``t`` whatever they are named, and ``_stale_reads`` follows each register's
    bit alone, so which of them ``_value_names`` drops does not change whether ``x`` stays
    (PRE(M)'s copies of its temporaries; issue #28 item 1: naming the whole function was 0.17
    of ``pre_m_function``'s 0.83 s under cProfile on csmith 4, 11, 19, 24, 29, 38, 43, 44)."""
    names = {}
    for x, ins in _single_definitions(fn, leaves).items():
        if isinstance(ins, Mov) and isinstance(ins.src, Reg) and ins.src.name in leaves \
                and len(ins.src.name) <= MAX_NAME:
            names[x] = ins.src.name, (ins.src,)
    if not names:
        return {}
    bad = _stale_reads(fn, names, {b.label: b.successors() for b in fn.blocks})
    return {x: named[1][0] for x, named in names.items() if x not in bad}


def _stale_reads(fn: Function, names: dict, succ: dict) -> set:
    """Named registers some instruction may read while stale (see
    ``value_names``): a forward may-analysis, stale at the entry, made stale by a definition of
    a leaf, made fresh by the register's own definition. Sets are bit masks over the named
    registers (one Python int per block state); a block is its transfer function
    ``out = (in & keep) | gen`` (the composition of its instructions' ``(s | made stale) & ~made
    fresh``) and the reads it exposes to its entry state, so a visit propagates only the bits
    that reached the block since the last one (issue #28: per-instruction masks on every visit
    were quadratic on a 30,000-instruction function with loops spanning it)."""
    index = {r: k for k, r in enumerate(names)}
    bit = {r: 1 << k for r, k in index.items()}
    dependents: dict[str, int] = {}
    for r, (_, leaves) in names.items():
        for leaf in leaves:
            if isinstance(leaf, Reg):
                dependents[leaf.name] = dependents.get(leaf.name, 0) | bit[r]
    everything = low_bits(len(index))
    memory = dependents.get(MEMORY.name, 0)
    transfer: dict[str, tuple] = {}     # block -> (keep, gen, reads of the entry state)
    bad = 0                             # reads of what the block itself made stale
    # the masks are as wide as the named registers: an instruction that reads, makes stale
    # or makes fresh none of them leaves them as they are, without an operation on them
    # a block that reads and writes no named register nor a leaf of a name, and writes no
    # memory a name is built on, leaves every bit as it is (leaf_copies: a few names, most
    # blocks)
    relevant = set(bit) | set(dependents)
    relevant.discard(MEMORY.name)
    skip = relevant.isdisjoint(TRUE_PREDICATES)     # (left out of BlockAccess.registers)
    bit_of, dependents_of = bit.get, dependents.get
    for b in fn.blocks:
        access = block_access(b)        # the registers each instruction reads (guard included)
        if skip and access.registers.isdisjoint(relevant) and not (memory and _clobbers(b)):
            transfer[b.label] = (everything, 0, 0)
            continue
        keep, gen, exposed = everything, 0, 0
        for ins, read, written in zip(b.instrs, access.reads, access.defs):
            if read:
                reads = 0
                for r in read:
                    reads |= bit_of(r, 0)
                if reads:
                    exposed |= reads & keep
                    bad |= reads & gen
            if memory and clobbers_memory(ins):     # every name built on a load goes stale
                gen |= memory
            for x in written:
                made_fresh = bit_of(x, 0)
                if made_fresh and ins.guard is None:
                    keep &= ~made_fresh
                    gen = (gen | dependents_of(x, 0)) & ~made_fresh
                else:
                    gen |= dependents_of(x, 0)
        transfer[b.label] = (keep, gen, exposed)
    stale_in = {b.label: 0 for b in fn.blocks}
    stale_in[fn.blocks[0].label] = everything
    arrived = dict(stale_in)            # bits of stale_in not yet propagated
    # round-robin sweeps in reverse postorder (unreachable blocks last): the first sweep visits
    # every block, a later one the blocks new bits reached, until a sweep adds none (d + 2
    # sweeps, d the loop connectedness: Kam & Ullman 1976). A worklist popping the lowest rank
    # first re-swept a loop body for every back edge that brought bits: 62 visits per block
    # on a 33,885-instruction function with back edges to any earlier block, 4 sweeps here.
    order = reverse_postorder(fn)
    reached = set(order)
    order += [b.label for b in fn.blocks if b.label not in reached]
    first, pending = True, True
    while pending:
        pending = False
        for label in order:
            delta = arrived[label]
            if not delta and not first:
                continue
            arrived[label] = 0
            keep, gen, exposed = transfer[label]
            bad |= delta & exposed
            out = delta & keep
            if first:
                out |= gen
            if not out:
                continue
            for s in succ[label]:
                if s in stale_in:
                    new = out & ~stale_in[s]
                    if new:
                        stale_in[s] |= new
                        arrived[s] |= new
                        pending = True
        first = False
    return {r for r, k in index.items() if bad >> k & 1}


def _clobbers(block) -> bool:
    """Whether some instruction of ``block`` may write memory (``clobbers_memory``), once per
    block object."""
    return block.derived("_clobbers_memory",
                         lambda b: any(clobbers_memory(ins) for ins in b.instrs))


def is_load(op: str) -> bool:
    return op.startswith("load.")


#: The pseudo-leaf of every name built on a load (``value_names``): memory, "written" by every
#: store and call (not a PIR identifier, so no register is called so).
MEMORY = Reg("<memory>")


def reads_memory(op: str, leaves) -> bool:
    """Whether the expression's value depends on memory: a load, or built on one."""
    return is_load(op) or MEMORY in leaves


def store_generated(ins: Instr, names: dict, defs: dict, returns=None) -> list[str]:
    """The load names whose value an unguarded ``store.N A, v`` makes ``v`` (pathfinder.md
    §3.4.1.1: across ``store L, t`` the name ``*L`` becomes ``t``): ``load.Ns(A)`` and
    ``load.Nu(A)`` when ``v`` fits N bytes so extended (both for N = 8)."""
    if not isinstance(ins, Store) or ins.guard is not None:
        return []
    addr = operand_name(ins.addr, names)
    return [compose_name(load_op(ins.size, signed), [addr])[0]
            for signed in (True, False)
            if fits_extension(ins.value, ins.size, signed, defs, frozenset(), returns)]
