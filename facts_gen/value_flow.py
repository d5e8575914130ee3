"""Value-flow facts (PathFinder ch. 3-4, pathfinder.md §10.1): the lexical expressions and loads of
a function -- the separable Value Name Graph of §3.5, one name per lexical expression -- with
their operands, the instructions that compute them (generators = users, §4.1) and the
instructions that may change their value (kills).

Naming: an expression is written ``op(a,b)`` with its operands as text (``add(%x,4)``,
``cmp.lt(%i,%n)``, ``load.4s(%p)``, ``select(%c,%a,%b)``); the operands of commutative
operators are sorted, so ``add(a,b)`` and ``add(b,a)`` are one name.

Only *candidate* expressions are listed: those computed at least twice in the function, or once
in a block on a CFG cycle (a loop-invariant user reuses its own value around the loop, Def 4.1).
Any other expression cannot be redundant, so leaving it out keeps the availability relations
output-sensitive.

Generators and users: every unguarded instruction computing the expression (§4.1: for arithmetic
"users alone suffice"; loads are users, Ex. 4.1). A guarded computation is neither (it may be
nullified) but its write is still a kill. Kills: an instruction writing an operand register
(guarded or not), in ``vf_kill``; for loads also every store and call (may-alias, no
disambiguation; Ex. 4.1 "stores that could not be disambiguated"): ``vf_clobber`` lists those
instructions once and ``vf_load`` the load expressions, instead of one ``vf_kill`` row per pair.

Example
-------
>>> from pylogic.ir.parser import parse_module
>>> m = parse_module("func f(a) {\\ne:\\n x = add a, 1\\n y = add 1, a\\n ret y\\n}\\n")
>>> out = {name: [] for name in VALUE_FLOW_RELATIONS}
>>> value_flow_facts("t::f", m.functions[0], out)
>>> out["vf_expr"], out["vf_occurs"]
([('t::f', 'add(1,a)', 'add')], [('t::f', 'e#0', 'add(1,a)'), ('t::f', 'e#1', 'add(1,a)')])

References: pathfinder.md §3.5 (separable VNG), §4.1 (generators, users, kills), §6.3.1.4
(lexical PRE: ``a op b`` with a, b not redefined), §10.1 (relations Python extracts).
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Optional

import networkx as nx

from pylogic.ir.model import (Alloca, BinOp, Call, Cmp, Function, GlobalAddr, Imm, Instr, Load,
                              Mov, Reg, Ret, Select, Store, UnOp)
from facts_gen.naming import instr_id

#: Relations this module writes (declared in datalog/schema.dl, "Value flow" section).
VALUE_FLOW_RELATIONS = ("vf_expr", "vf_expr_operand", "vf_occurs", "vf_kill", "vf_load",
                        "vf_clobber", "vf_store_gen", "vf_load_root", "vf_store_root",
                        "vf_global_root", "vf_load_span", "vf_store_span", "vf_store_over")
#: The root of an address that may point anywhere but into a private alloca.
ANY = "*"
#: The root of an address into global NAME is ``&NAME`` (no identifier starts with ``&``).
GLOBAL = "&"


#: The root of an address derived from alloca R whose address escapes is ``^R``.
ESCAPED = "^"


def is_global_root(root: str) -> bool:
    """Whether ``root`` names a global object or an escaped alloca: an object distinct from
    every other root, which an ``ANY`` address and calls may also reach."""
    return root.startswith(GLOBAL) or root.startswith(ESCAPED)

COMMUTATIVE = frozenset({"add", "mul", "and", "or", "xor", "cmp.eq", "cmp.ne"})


def _text(op) -> str:
    if isinstance(op, (Reg, GlobalAddr)):
        return op.name
    if isinstance(op, Imm):
        return str(op.value)
    raise TypeError(f"not an operand: {op!r}")


def _operand_name(a, names: dict) -> tuple[str, tuple]:
    """(text, leaves) of operand ``a`` under ``names`` ({register: (name, leaves)})."""
    if isinstance(a, Reg) and a.name in names:
        return names[a.name]
    return _text(a), (a,)


def _compose(op: str, parts: list) -> tuple[str, tuple]:
    """(name, leaves) of ``op`` applied to operand (text, leaves) pairs."""
    if op in COMMUTATIVE:
        parts = sorted(parts, key=lambda p: p[0])
    leaves: dict = {}
    for _, ls in parts:
        for leaf in ls:
            leaves.setdefault(leaf, None)
    return f"{op}({','.join(t for t, _ in parts)})", tuple(leaves)


def _op_and_args(ins: Instr):
    if isinstance(ins, BinOp):
        return ins.op, [ins.a, ins.b]
    if isinstance(ins, UnOp):
        return ins.op, [ins.a]
    if isinstance(ins, Cmp):
        return f"cmp.{ins.rel}", [ins.a, ins.b]
    if isinstance(ins, Select):
        return "select", [ins.cond, ins.a, ins.b]
    if isinstance(ins, Load):
        return f"load.{ins.size}{'s' if ins.signed else 'u'}", [ins.addr]
    return None, None


def expression_of(ins: Instr, names: Optional[dict] = None) -> Optional[tuple[str, str, tuple]]:
    """``(name, op, leaves)`` of the expression ``ins`` computes, or None (moves, calls, stores,
    allocas, inputs, predicate defines, branches compute none). ``names`` (``value_names``)
    substitutes registers by the values they hold; ``leaves`` are the operands the name is
    built from (the instruction's own operands when nothing is substituted)."""
    op, args = _op_and_args(ins)
    if op is None:
        return None
    name, leaves = _compose(op, [_operand_name(a, names or {}) for a in args])
    return name, op, leaves


def substituted(ins: Instr, names: dict) -> bool:
    """Whether some operand of ``ins`` is named through ``names`` (not a leaf itself)."""
    return any(isinstance(a, Reg) and a.name in names for a in ins.uses())


#: Longest value name built by substitution; a longer one keeps its register as a leaf.
MAX_NAME = 160


def value_names(fn: Function, keep: frozenset = frozenset()) -> dict[str, tuple[str, tuple]]:
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
    """
    count: dict[str, int] = dict.fromkeys(fn.params, 1)
    first: dict[str, Instr] = {}
    for b in fn.blocks:
        for ins in b.instrs:
            for r in ins.defs():
                same = dataclasses.replace(ins, annotations=())
                if first.get(r) == same:
                    continue        # a copy of one definition (a block duplicated by pre-mr)
                first[r] = same
                count[r] = count.get(r, 0) + 1
    define = {}
    for b in fn.blocks:
        for ins in b.instrs:
            if ins.guard is not None or len(ins.defs()) != 1 or count[ins.defs()[0]] != 1 \
                    or ins.defs()[0] in keep:
                continue
            op, _ = _op_and_args(ins)
            if isinstance(ins, Mov) or op is not None:
                define[ins.defs()[0]] = ins
    succ = {b.label: b.successors() for b in fn.blocks}
    while define:
        names: dict = {}
        bad: set = set()

        def name(r: str, visiting: set):
            if r in names:
                return names[r]
            if r in visiting:
                bad.add(r)
                return r, (Reg(r),)
            visiting.add(r)
            ins = define[r]
            parts = [name(a.name, visiting) if isinstance(a, Reg) and a.name in define
                     else (_text(a), (a,)) for a in ins.uses()]
            visiting.discard(r)
            if isinstance(ins, Mov):
                out = parts[0]
            else:
                out = _compose(_op_and_args(ins)[0], parts)
                if isinstance(ins, Load) and MEMORY not in out[1]:
                    out = (out[0], out[1] + (MEMORY,))
            if len(out[0]) > MAX_NAME:
                bad.add(r)
            names[r] = out
            return out

        for r in define:
            name(r, set())
        if not bad:
            bad = _stale_reads(fn, names, succ)
        if not bad:
            return names
        for r in bad:
            del define[r]
    return {}


def _stale_reads(fn: Function, names: dict, succ: dict) -> set:
    """Named registers some instruction may read while stale (see
    ``value_names``): a forward may-analysis, stale at the entry, made stale by a definition of
    a leaf, made fresh by the register's own definition. Sets are bit masks over the named
    registers (one Python int per block state)."""
    index = {r: k for k, r in enumerate(names)}
    dependents: dict[str, int] = {}
    for r, (_, leaves) in names.items():
        for leaf in leaves:
            if isinstance(leaf, Reg):
                dependents[leaf.name] = dependents.get(leaf.name, 0) | (1 << index[r])
    plans: dict[str, list] = {}  # block -> per instruction (reads, [(made stale, made fresh)])
    for b in fn.blocks:
        steps = []
        for ins in b.instrs:
            reads = 0
            for a in ins.uses():
                if isinstance(a, Reg) and a.name in index:
                    reads |= 1 << index[a.name]
            if ins.guard in index:
                reads |= 1 << index[ins.guard]
            effects = [(dependents.get(x, 0),
                        (1 << index[x]) if x in index and ins.guard is None else 0)
                       for x in ins.defs()]
            if clobbers_memory(ins):          # every name built on a load goes stale
                effects.insert(0, (dependents.get(MEMORY.name, 0), 0))
            steps.append((reads, effects))
        plans[b.label] = steps
    stale_in = {b.label: 0 for b in fn.blocks}
    stale_in[fn.blocks[0].label] = (1 << len(index)) - 1
    bad = 0
    work = [b.label for b in fn.blocks]
    while work:
        label = work.pop()
        stale = stale_in[label]
        for reads, effects in plans[label]:
            bad |= reads & stale
            for made_stale, made_fresh in effects:
                stale = (stale | made_stale) & ~made_fresh
        for s in succ[label]:
            if s in stale_in and stale & ~stale_in[s]:
                stale_in[s] |= stale
                work.append(s)
    return {r for r, k in index.items() if bad >> k & 1}


def is_load(op: str) -> bool:
    return op.startswith("load.")


#: The pseudo-leaf of every name built on a load (``value_names``): memory, "written" by every
#: store and call (not a PIR identifier, so no register is called so).
MEMORY = Reg("<memory>")


def reads_memory(op: str, leaves) -> bool:
    """Whether the expression's value depends on memory: a load, or built on one."""
    return is_load(op) or MEMORY in leaves


#: Library calls that write memory only at their first argument and keep no pointer
#: (the interpreter's builtins of these names, when the module does not define them).
MEMORY_WRITERS = frozenset({"memcpy", "memmove", "memset", "__memcpy_chk", "__memmove_chk",
                            "__memset_chk"})


def memory_writer(ins: Instr, defined: frozenset = frozenset()) -> bool:
    """Whether ``ins`` calls one of ``MEMORY_WRITERS`` (not defined in the module)."""
    return isinstance(ins, Call) and ins.callee not in defined and \
        ins.callee.lstrip("@") in MEMORY_WRITERS and bool(ins.args)


def address_roots(fn: Function, defined: frozenset = frozenset()) -> dict[str, str]:
    """``{register: alloca register}``: registers pointing into a *private* alloca -- one
    written once by ``alloca`` whose address never escapes (it and the registers derived from it
    by ``mov``/``add``/``sub``, each written once, are only load and store addresses, compared,
    derived from, or arguments of ``memcpy``/``memset``-like calls (``MEMORY_WRITERS``, unless
    ``defined`` names them); stored as a value, passed to another call, returned, selected or
    copied into a register written elsewhere, it escapes). Nothing else can point into such memory: a call
    cannot change it, a store through another address cannot either, and a load through another
    address cannot read it (the alias facts vf_load_root / vf_store_root; C's object rules, as
    LLVM's BasicAA uses them)."""
    root, escaped = _alloca_roots(fn, defined)
    return {r: a for r, a in root.items() if a not in escaped}


def escaped_alloca_roots(fn: Function, defined: frozenset = frozenset()) -> dict[str, str]:
    """``{register: "^ALLOCA"}``: registers derived (as in ``address_roots``) from an alloca
    whose address escapes. A store or memset through them writes that alloca only (its
    underlying object, as LLVM's BasicAA decides), which other pointers and calls may reach too:
    such a root is like a global's (``is_global_root``)."""
    root, escaped = _alloca_roots(fn, defined)
    return {r: ESCAPED + a for r, a in root.items() if a in escaped}


def _alloca_roots(fn: Function, defined: frozenset) -> tuple[dict[str, str], set]:
    """``({register: the alloca register it is derived from}, {allocas whose address escapes})``
    (``address_roots``)."""
    single = _single_definitions(fn)
    root = _grow_roots(single, {r: r for r, ins in single.items() if isinstance(ins, Alloca)})
    escaped = set()
    for b in fn.blocks:
        for ins in b.instrs:
            for pos, a in enumerate(ins.uses()):
                if not (isinstance(a, Reg) and a.name in root):
                    continue
                ok = ins.guard is None and (
                    (isinstance(ins, Load) and pos == 0) or (isinstance(ins, Store) and pos == 0)
                    or isinstance(ins, Cmp) or memory_writer(ins, defined)
                    or (isinstance(ins, (Mov, BinOp)) and ins.defs()[0] in root))
                if not ok:
                    escaped.add(root[a.name])
            if ins.guard in root:
                escaped.add(root[ins.guard])
    return root, escaped


def _single_definitions(fn: Function) -> dict[str, Instr]:
    """``{register: its definition}`` for registers written once, unguarded (identical copies
    of one definition, as in blocks pre-mr duplicated, count as one)."""
    return {r: ds[0] for r, ds in definitions(fn).items() if ds[0] is not None
            and ds[0].guard is None and all(_same(d, ds[0]) for d in ds[1:])}


def _grow_roots(single: dict[str, Instr], root: dict[str, str], base=lambda a: None) -> dict:
    """``root`` ({register: root}) extended to the ``single`` definitions that copy a rooted
    value or add/subtract an offset to one (pointer arithmetic stays inside its object);
    ``base``: the root of a non-register operand (a global's address), or None."""
    def of(a):
        return root.get(a.name) if isinstance(a, Reg) else base(a)
    changed = True
    while changed:
        changed = False
        for r, ins in single.items():
            if r in root:
                continue
            got = None
            if isinstance(ins, Mov):
                got = of(ins.src)
            elif isinstance(ins, BinOp) and ins.op in ("add", "sub"):
                ra, rb = of(ins.a), of(ins.b)
                got = ra if rb is None else rb if ra is None and ins.op == "add" else None
            if got is not None:
                root[r] = got
                changed = True
    return root


def _same(a: Optional[Instr], b: Instr) -> bool:
    """Whether ``a`` is a copy of ``b`` (annotations aside)."""
    return a is not None and dataclasses.replace(a, annotations=()) == \
        dataclasses.replace(b, annotations=())


def global_roots(fn: Function) -> dict[str, str]:
    """``{register: "&NAME"}``: registers pointing into global NAME -- written once, unguarded,
    by ``mov NAME`` or by ``add``/``sub`` of an offset to such an address (C's object rules, as
    LLVM's BasicAA uses them: pointer arithmetic stays inside its object; the interpreter's
    segments, one per object, fault otherwise). Distinct globals never overlap. Identical
    copies of one definition (blocks pre-mr duplicated) count as one."""
    return _grow_roots(_single_definitions(fn), {},
                       lambda a: GLOBAL + a.name if isinstance(a, GlobalAddr) else None)


#: The root of an address into a read-only global NAME is ``=NAME`` (``readonly_globals``):
#: nothing writes it, so no store or call changes a load of it.
READONLY = "="


def readonly_globals(module) -> frozenset[str]:
    """Globals of ``module`` nothing can write: in every defined function their address (and
    every register ``global_roots`` derives from it) is only a load address, compared, or
    derived into such a register -- never stored, stored to, passed, returned or selected, so
    no pointer to them exists outside (``const`` tables such as gcc torture ashrdi-1's
    ``zext``: LLVM's memory dependence knows it); and every ``const global`` (docs/pir.md
    "Extensions"), whatever its uses. The source of a ``memcpy``/``memmove`` (``MEMORY_COPIES``,
    not defined in the module) is read too."""
    written = _written_globals(module)
    # a const global is never written: a write into it faults
    return frozenset(g.name for g in module.globals if g.name not in written or g.const)


def _written_globals(module, skip: frozenset = frozenset()) -> set[str]:
    """Globals some defined function (but those in ``skip``) may write (``readonly_globals``)."""
    written: set[str] = set()
    defined = frozenset(fn.name for fn in module.functions if not fn.extern)
    for fn in module.functions:
        if fn.extern or not fn.blocks or fn.name in skip:
            continue
        groots = global_roots(fn)

        def root(a):
            if isinstance(a, GlobalAddr):
                return GLOBAL + a.name
            return groots.get(a.name) if isinstance(a, Reg) else None
        for b in fn.blocks:
            for ins in b.instrs:
                for pos, a in enumerate(ins.uses()):
                    r = root(a)
                    if r is None:
                        continue
                    ok = ins.guard is None and (
                        (isinstance(ins, Load) and pos == 0) or isinstance(ins, Cmp)
                        or (isinstance(ins, (Mov, BinOp)) and groots.get(ins.defs()[0]) == r)
                        or (pos == 1 and memory_writer(ins, defined)
                            and ins.callee.lstrip("@") in MEMORY_COPIES))
                    if not ok:
                        written.add(r[len(GLOBAL):])
                if ins.guard in groots:
                    written.add(groots[ins.guard][len(GLOBAL):])
    return written


#: The importer's function storing relocated addresses into globals, called first in main.
INIT_FUNCTION = "@__pathlogic_init"


def relocated_contents(module) -> dict[str, tuple[int, bytes, dict]]:
    """``{name: (size, bytes, {offset: GlobalAddr or None})}``: globals only
    ``@__pathlogic_init`` writes (the importer's relocations: constant initialisers holding
    addresses, e.g. a ``const`` struct of pointers) -- in it only as store addresses, by
    8-byte stores of constants or global addresses, and it is called once, as main's first
    instruction. What main reads of them after that call: the initial bytes overlaid with the
    stored constants, and at each offset a global's address was stored, that address (None: an
    address plus an offset, which is no operand)."""
    fns = {fn.name: fn for fn in module.functions if not fn.extern and fn.blocks}
    init, main = fns.get(INIT_FUNCTION), fns.get("@main") or fns.get("main")
    calls = [i for fn in fns.values() for b in fn.blocks for i in b.instrs
             if isinstance(i, Call) and i.callee == INIT_FUNCTION]
    if init is None or main is None or len(calls) != 1 or len(init.blocks) != 1 or \
            not main.blocks[0].instrs or main.blocks[0].instrs[0] is not calls[0]:
        return {}
    sizes = {g.name: g for g in module.globals}
    derived: dict[str, tuple[str, int]] = {}
    stores: dict[str, list] = {}
    bad: set = set()
    for ins in init.blocks[0].instrs:
        if isinstance(ins, BinOp) and ins.op == "add" and isinstance(ins.a, GlobalAddr) and \
                isinstance(ins.b, Imm) and ins.guard is None:
            derived[ins.dest] = (ins.a.name, ins.b.value)
            continue
        if isinstance(ins, Store) and ins.guard is None and ins.size == 8:
            at = (ins.addr.name, 0) if isinstance(ins.addr, GlobalAddr) else \
                derived.get(ins.addr.name) if isinstance(ins.addr, Reg) else None
            if at is not None:
                v = ins.value
                value = v.value if isinstance(v, Imm) else v if isinstance(v, GlobalAddr) else None
                stores.setdefault(at[0], []).append((at[1], value))
                if isinstance(v, GlobalAddr):
                    bad.add(v.name)                       # its address is stored: it escapes
                elif isinstance(v, Reg) and v.name in derived:
                    bad.add(derived[v.name][0])
                continue
        if not isinstance(ins, Ret):
            return {}
    outside = _written_globals(module, frozenset({INIT_FUNCTION}))
    out = {}
    for name, writes in stores.items():
        g = sizes.get(name)
        if g is None or name in outside or name in bad:
            continue
        data, slots = bytearray(g.init.ljust(g.size, b"\0")), {}
        for off, value in writes:
            if not 0 <= off <= g.size - 8:
                break
            if isinstance(value, int):
                data[off:off + 8] = (value & ((1 << 64) - 1)).to_bytes(8, "little")
                slots.pop(off, None)
            else:
                slots[off] = value
        else:
            out[name] = (g.size, bytes(data), slots)
    return out


def function_contents(module) -> Callable[[str], dict]:
    """``contents(function name)``: the ``KnownBytes`` contents of globals in that function --
    ``readonly_contents``, and in main also ``relocated_contents``."""
    ro = readonly_contents(module)
    main = {**ro, **relocated_contents(module)}
    return lambda name: main if name in ("@main", "main") else ro


def memory_roots(fn: Function, defined: frozenset = frozenset(),
                 readonly: frozenset = frozenset()) -> dict[str, str]:
    """``{register: root}``: ``address_roots`` (private allocas), ``escaped_alloca_roots`` and
    ``global_roots`` (``=NAME``
    for the ``readonly`` globals); plus ``{"&NAME": "=NAME"}`` for each of those, which
    ``memory_root`` reads for the global's own name."""
    ro = {GLOBAL + g: READONLY + g for g in readonly}
    groots = {r: ro.get(g, g) for r, g in global_roots(fn).items()}
    return {**ro, **groots, **escaped_alloca_roots(fn, defined), **address_roots(fn, defined)}


def memory_root(addr, roots: dict) -> str:
    """The root an address points into (``memory_roots``: a private alloca register, or
    ``&NAME`` for global NAME), or ``ANY``."""
    if isinstance(addr, GlobalAddr):
        return roots.get(GLOBAL + addr.name, GLOBAL + addr.name)
    return roots.get(addr.name, ANY) if isinstance(addr, Reg) else ANY


def clobbers_memory(ins: Instr) -> bool:
    """A store or a call: may change any loaded value (no alias analysis)."""
    return isinstance(ins, (Store, Call))


def cyclic_blocks(fn: Function) -> set[str]:
    """Blocks on some CFG cycle (a non-trivial strongly connected component or a self loop)."""
    g = nx.DiGraph()
    g.add_nodes_from(b.label for b in fn.blocks)
    g.add_edges_from(fn.edges())
    out: set[str] = set()
    for comp in nx.strongly_connected_components(g):
        if len(comp) > 1:
            out |= comp
    out |= {a for a, b in g.edges() if a == b}
    return out


class Definitions(dict):
    """``{register: every instruction writing it}`` (parameters: a ``None`` entry), with
    ``ranges``: ``{parameter: (lo, hi)}`` of the typed parameters (docs/pir.md "Extensions": a
    call with an argument outside the range is a run-time error), the values a ``None``
    entry may stand for."""

    def __init__(self, *args, ranges=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.ranges = ranges or {}


def definitions(fn: Function) -> Definitions:
    """``{register: every instruction writing it}`` (parameters: a ``None`` entry; typed ones
    with their range in ``ranges``)."""
    out = Definitions({p: [None] for p in fn.params},
                      ranges=fn.param_ranges() if fn.param_types else None)
    for b in fn.blocks:
        for ins in b.instrs:
            for r in ins.defs():
                out.setdefault(r, []).append(ins)
    return out


def fits_extension(v, size: int, signed: bool, defs: dict, seen: frozenset = frozenset(),
                   returns=None) -> bool:
    """Whether operand ``v`` always holds a value that ``size`` bytes extended (sign- or
    zero-) give back unchanged, so ``store.size A, v`` then ``load.size A`` reads ``v``:
    a constant in range, or a register every write of which is such a value (a register never
    written reads 0, which fits; a typed parameter's entry value lies in its range,
    ``Definitions.ranges``). Conservative: anything else does not fit."""
    if size >= 8:
        return True
    bits = 8 * size
    lo, hi = (-(1 << (bits - 1)), 1 << (bits - 1)) if signed else (0, 1 << bits)
    if isinstance(v, Imm):
        return lo <= v.value < hi
    if not isinstance(v, Reg) or v.name in seen or v.name not in defs:
        return False
    seen = seen | {v.name}
    for ins in defs[v.name]:
        if ins is None:                      # a parameter: its type's range, when typed
            rng = getattr(defs, "ranges", {}).get(v.name)
            if rng is None or not (lo <= rng[0] and rng[1] < hi):
                return False
            continue
        if len(ins.defs()) != 1:
            return False
        if isinstance(ins, Mov):
            ok = fits_extension(ins.src, size, signed, defs, seen, returns)
        elif isinstance(ins, Cmp):
            ok = True                                             # 0 or 1
        elif isinstance(ins, Call) and returns is not None:       # what the callee returns
            ok = returns(ins.callee, size, signed)
        elif isinstance(ins, Load):      # sign-extended from M bytes fits M..8 signed only
            ok = (ins.size < size and (not ins.signed or signed)) or \
                (ins.size == size and ins.signed == signed)
        elif isinstance(ins, BinOp) and ins.op in ("and", "or", "xor"):
            # bitwise: the bits above N stay copies of bit N-1 (sign) or zero (zero extension)
            # when they are in both operands; and with a constant in [0, c] fits too
            ok = all(fits_extension(x, size, signed, defs, seen, returns)
                     for x in (ins.a, ins.b)) or (
                ins.op == "and" and any(isinstance(c, Imm) and 0 <= c.value < hi
                                        for c in (ins.a, ins.b)))
        elif isinstance(ins, BinOp) and ins.op in ("sar", "shr") and isinstance(ins.b, Imm):
            k = ins.b.value % 64                                   # shift counts mod 64
            if ins.op == "sar":                                    # in [-2^(63-k), 2^(63-k))
                ok = signed and k >= 64 - bits
            else:                                                  # in [0, 2^(64-k))
                ok = k > 0 and k >= 64 - bits + (1 if signed else 0)
        else:
            ok = False
        if not ok:
            return False
    return True


class ReturnFits:
    """``returns(callee, size, signed)``: whether every value the module's function ``callee``
    returns fits ``size`` bytes so extended (``fits_extension`` of each ``ret`` operand; a bare
    ``ret`` returns 0), so storing a call's result and loading it back reads the result
    (struct returns: gcc torture pr45070's ``rv.ucs``). Unknown callees and recursion: no."""

    def __init__(self, module):
        self.functions = {fn.name: fn for fn in module.functions if not fn.extern and fn.blocks}
        self.memo: dict = {}
        self.defs: dict = {}

    def __call__(self, callee: str, size: int, signed: bool) -> bool:
        key = (callee, size, signed)
        if key not in self.memo:
            fn = self.functions.get(callee)
            self.memo[key] = False              # while in progress (recursion): no
            if fn is not None:
                defs = self.defs.setdefault(callee, definitions(fn))
                self.memo[key] = all(
                    ins.value is None or fits_extension(ins.value, size, signed, defs,
                                                        frozenset(), self)
                    for b in fn.blocks for ins in b.instrs if isinstance(ins, Ret))
        return self.memo[key]


def store_generated(ins: Instr, names: dict, defs: dict, returns=None) -> list[str]:
    """The load names whose value an unguarded ``store.N A, v`` makes ``v`` (pathfinder.md
    §3.4.1.1: across ``store L, t`` the name ``*L`` becomes ``t``): ``load.Ns(A)`` and
    ``load.Nu(A)`` when ``v`` fits N bytes so extended (both for N = 8)."""
    if not isinstance(ins, Store) or ins.guard is not None:
        return []
    addr = _operand_name(ins.addr, names)
    return [_compose(f"load.{ins.size}{'s' if signed else 'u'}", [addr])[0]
            for signed in (True, False)
            if fits_extension(ins.value, ins.size, signed, defs, frozenset(), returns)]


def readonly_contents(module) -> dict[str, tuple[int, bytes, dict]]:
    """``{name: (size, initial bytes, {})}`` of the ``readonly_globals`` of ``module``: what
    they hold at every point of every run (the format of ``relocated_contents``)."""
    ro = readonly_globals(module)
    return {g.name: (g.size, g.init, {}) for g in module.globals if g.name in ro}


#: Library calls copying their second argument's bytes to their first (the interpreter's
#: ``memmove``), and those setting bytes to their second argument.
MEMORY_COPIES = frozenset({"memcpy", "memmove", "__memcpy_chk", "__memmove_chk"})
MEMORY_SETS = frozenset({"memset", "__memset_chk"})
#: Longest write whose bytes ``KnownBytes`` follows.
MAX_KNOWN = 1 << 16


class KnownBytes:
    """Writes whose bytes are known, at a known offset into one object, and the loads they
    determine (store-to-load forwarding across sizes and offsets, as LLVM's GVN does through
    memory dependence): ``alloca N`` (N fresh zeroed bytes, IR.md), a store of a constant,
    ``memset`` of a constant byte and length, ``memcpy``/``memmove`` of a constant length from
    a read-only global (``contents``: ``function_contents``). ``generated(ins)`` maps each load
    name whose
    bytes lie inside what ``ins`` writes to the value it then reads.

    An address qualifies when its value name (``value_names``) has no leaf but constants,
    global addresses and at most one alloca register it is derived from: it is that register's
    current object (or the global) at the offset ``memory_offsets`` gives, wherever it is
    read, so a write and a load with such addresses meet in one object exactly when their
    objects are equal."""

    def __init__(self, fn: Function, names: Optional[dict] = None,
                 defined: frozenset = frozenset(), contents: Optional[dict] = None):
        self.names = value_names(fn) if names is None else names
        self.defined = defined
        self.contents = contents or {}
        single = _single_definitions(fn)
        allocas = {r: r for r, ins in single.items() if isinstance(ins, Alloca)}
        self.allocas = set(allocas)
        self.alloca_of = _grow_roots(single, allocas)
        self.global_of = global_roots(fn)
        self.offsets = memory_offsets(fn)
        self._memo: dict[int, tuple] = {}          # id(instruction) -> (it, generated)
        self.loads: dict[str, list] = {}         # object -> [(name, lo, size, signed)]
        seen = set()
        for b in fn.blocks:
            for ins in b.instrs:
                if not isinstance(ins, Load) or ins.guard is not None:
                    continue
                name = expression_of(ins, self.names)[0]
                at = self.place(ins.addr)
                if at is not None and name not in seen:
                    seen.add(name)
                    self.loads.setdefault(at[0], []).append((name, at[1], ins.size, ins.signed))

    def place(self, addr) -> Optional[tuple[str, int]]:
        """``(object, offset)`` of a qualifying address (the class doc), else None."""
        if isinstance(addr, GlobalAddr):
            return GLOBAL + addr.name, 0
        if not isinstance(addr, Reg) or addr.name not in self.offsets:
            return None
        off = self.offsets[addr.name]
        leaves = [x for x in _operand_name(addr, self.names)[1] if isinstance(x, Reg)]
        if not leaves and addr.name in self.global_of:
            return self.global_of[addr.name], off
        if len(leaves) == 1 and leaves[0].name in self.allocas and \
                self.alloca_of.get(addr.name) == leaves[0].name:
            return leaves[0].name, off
        return None

    def written(self, ins: Instr) -> Optional[tuple[str, int, bytes]]:
        """``(object, offset, bytes)`` an unguarded write of known bytes puts there, or None."""
        if ins.guard is not None:
            return None
        if isinstance(ins, Alloca):
            n = ins.size.value if isinstance(ins.size, Imm) else -1
            return (ins.dest, 0, bytes(n), {}) if ins.dest in self.allocas and \
                0 <= n <= MAX_KNOWN else None
        if isinstance(ins, Store):
            at = self.place(ins.addr)
            if at is None or not isinstance(ins.value, Imm):
                return None
            mask = (1 << (8 * ins.size)) - 1
            return at + ((ins.value.value & mask).to_bytes(ins.size, "little"), {})
        if not (memory_writer(ins, self.defined) and len(ins.args) >= 3 and
                isinstance(ins.args[2], Imm) and 0 < ins.args[2].value <= MAX_KNOWN):
            return None
        n, callee, at = ins.args[2].value, ins.callee.lstrip("@"), self.place(ins.args[0])
        if at is None:
            return None
        if callee in MEMORY_SETS and isinstance(ins.args[1], Imm):
            return at + (bytes((ins.args[1].value & 0xFF,)) * n, {})
        src = self.place(ins.args[1]) if callee in MEMORY_COPIES else None
        if src is not None and src[0].startswith(GLOBAL) and src[0][1:] in self.contents:
            size, init, slots = self.contents[src[0][1:]]
            lo = src[1]
            if 0 <= lo and lo + n <= size:
                return at + (init[lo:lo + n].ljust(n, b"\0"),
                             {o - lo: v for o, v in slots.items() if lo - 8 < o < lo + n})
        return None

    def generated(self, ins: Instr) -> dict:
        """``{load name: the value it reads}`` right after ``ins`` (an int, or a GlobalAddr
        for an 8-byte load of a relocated address), for the loads inside the bytes ``ins``
        writes."""
        key = id(ins)
        if key in self._memo and self._memo[key][0] is ins:
            return self._memo[key][1]
        got = self.written(ins) if self.loads else None
        out = {}
        for name, off, size, signed in self.loads.get(got[0], ()) if got else ():
            v = self.value_in(got, off, size, signed)
            if v is not None:
                out[name] = v
        self._memo[key] = (ins, out)
        return out

    @staticmethod
    def value_in(got: tuple, off: int, size: int, signed: bool):
        """What a load of ``size`` bytes at ``off`` reads after the write ``got`` (``written``):
        an int, a GlobalAddr (a relocated address), or None (not inside, or not known)."""
        _, lo, data, slots = got
        if not (lo <= off and off + size <= lo + len(data)):
            return None
        hit = [o for o in slots if o < off - lo + size and off - lo < o + 8]
        if not hit:
            return int.from_bytes(data[off - lo:off - lo + size], "little", signed=signed)
        if hit == [off - lo] and size == 8 and slots[off - lo] is not None:
            return slots[off - lo]
        return None


def candidate_expressions(fn: Function, names: Optional[dict] = None, returns=None,
                          known: Optional[KnownBytes] = None) -> dict[str, tuple[str, tuple]]:
    """``{name: (op, leaves)}`` of the expressions that can be redundant in ``fn`` (computed by
    an unguarded instruction at least twice, or once on a cycle; a store generating a load's
    value, or a write of known bytes it reads (``known``), counts as a computation of it),
    named under ``names`` (default: ``value_names(fn)``)."""
    names = value_names(fn) if names is None else names
    seen: dict[str, list] = {}
    where: dict[str, list[str]] = {}
    stored: dict[str, list[str]] = {}
    defs = None
    for b in fn.blocks:
        for ins in b.instrs:
            if ins.guard is not None:
                continue
            if known is not None:
                for e in known.generated(ins):
                    stored.setdefault(e, []).append(b.label)
            if isinstance(ins, Store):
                defs = definitions(fn) if defs is None else defs
                for e in store_generated(ins, names, defs, returns):
                    stored.setdefault(e, []).append(b.label)
                continue
            found = expression_of(ins, names)
            if found is not None:
                seen.setdefault(found[0], [found[1], found[2]])
                where.setdefault(found[0], []).append(b.label)
    for e, blocks in stored.items():
        if e in where:
            where[e] = where[e] + blocks
    cyclic = None
    out = {}
    for name, blocks in where.items():
        if len(blocks) < 2:
            if cyclic is None:
                cyclic = cyclic_blocks(fn)
            if blocks[0] not in cyclic:
                continue
        out[name] = tuple(seen[name])
    return out


def load_roots(fn: Function, names: dict, exprs: dict, roots: dict) -> dict[str, frozenset]:
    """``{expression reading memory: the roots it reads}``: for a load, the root of its address
    (``memory_root``) and those of the loads its address is built on; for an expression built
    on loads (``value_names``), those of the loads its operands are named by. Unioned over the
    occurrences (equal names read the same memory; the union is the safe side). The roots of
    ``load_spans``, whatever the offsets."""
    return roots_of_spans(load_spans(fn, names, exprs, roots, {}))


def roots_of_spans(spans: dict) -> dict[str, frozenset]:
    """``load_roots`` from the ``load_spans`` already computed (its roots, whatever the offsets)."""
    return {e: frozenset(by_root) for e, by_root in spans.items() if by_root}


def written_root(ins: Instr, roots: dict, defined: frozenset = frozenset()) -> Optional[str]:
    """The memory root a store or a ``MEMORY_WRITERS`` call writes; None for other calls."""
    if isinstance(ins, Store):
        return memory_root(ins.addr, roots)
    if memory_writer(ins, defined):
        return memory_root(ins.args[0], roots)
    return None


def may_write(written: Optional[str], root: str) -> bool:
    """Whether a write of root ``written`` (None: an arbitrary call) may change memory of
    ``root``: a private alloca only by a write of its own root; a global by a write of its own
    root, through ``ANY`` or by a call; ``ANY`` by anything but a private alloca's write."""
    if written is None:
        return root == ANY or is_global_root(root)
    return written == root or (written == ANY and is_global_root(root)) or (
        root == ANY and is_global_root(written))


def spares(ins: Instr, root, roots: dict, defined: frozenset = frozenset(),
           spans: Optional[dict] = None, offsets: Optional[dict] = None,
           sizes: Optional[dict] = None) -> bool:
    """Whether the store or call ``ins`` surely leaves an expression reading memory of ``root``
    (a root or a set of roots, ``load_roots``; None: unknown) unchanged. With ``spans`` (the
    expression's ``load_spans``) and ``offsets`` (``memory_offsets``), a write of one of its
    roots at bytes none of its reads of that root touch spares it too, and so does a
    ``memcpy``/``memset`` of 0 bytes (``writes_nothing``); with ``sizes`` (``object_sizes``), a
    write through ``ANY`` of more bytes than a root's object has cannot be to it."""
    if writes_nothing(ins, defined):
        return True
    if not root or not clobbers_memory(ins):
        return False
    written = written_root(ins, roots, defined)
    wspan = written_span(ins, roots, offsets, defined) if spans and offsets is not None else None
    for r in ([root] if isinstance(root, str) else root):
        if not may_write(written, r):
            continue
        if written == r and wspan is not None and spans.get(r) is not None and \
                not any(lo < whi and wlo < hi for lo, hi in spans[r] for wlo, whi in [wspan]):
            continue                                         # disjoint bytes of one object
        if written == ANY and sizes and r in sizes and (written_size(ins, defined) or 0) > sizes[r]:
            continue                                         # too large for the object
        return False
    return True


def written_size(ins: Instr, defined: frozenset = frozenset()) -> Optional[int]:
    """How many bytes a store or a ``MEMORY_WRITERS`` call of a constant length writes."""
    if isinstance(ins, Store):
        return ins.size
    if memory_writer(ins, defined) and len(ins.args) >= 3 and isinstance(ins.args[2], Imm):
        return ins.args[2].value
    return None


def object_sizes(fn: Function, global_sizes: dict) -> dict[str, int]:
    """``{root: bytes of its object}`` for the global roots (``&NAME``, ``=NAME``) and the
    allocas of a constant size (``^R`` and ``R``): every access lies inside one object (C's
    object rules; the interpreter's segments), so one larger than an object is not to it."""
    out = {}
    for g, n in global_sizes.items():
        out[GLOBAL + g] = out[READONLY + g] = n
    for r, ins in _single_definitions(fn).items():
        if isinstance(ins, Alloca) and isinstance(ins.size, Imm):
            out[r] = out[ESCAPED + r] = ins.size.value
    return out


#: Offsets kept in span facts (Souffle numbers are 32-bit): larger ones are unknown.
MAX_OFFSET = 1 << 30


def memory_offsets(fn: Function) -> dict[str, int]:
    """``{register: constant byte offset}``: registers written once, unguarded, as an alloca
    (offset 0) or as a copy of, or a constant added to or subtracted from, a global's address or
    such a register. Combined with its root (``memory_roots``, grown along the same
    definitions), the register points exactly ``offset`` bytes into the root's object."""
    single = _single_definitions(fn)
    off = {r: 0 for r, ins in single.items() if isinstance(ins, Alloca)}

    def of(a):
        if isinstance(a, GlobalAddr):
            return 0
        return off.get(a.name) if isinstance(a, Reg) else None

    def const(a, depth=0):              # an immediate, or a register copied from one
        if isinstance(a, Imm):
            return a.value
        ins = single.get(a.name) if isinstance(a, Reg) and depth < 8 else None
        return const(ins.src, depth + 1) if isinstance(ins, Mov) else None
    changed = True
    while changed:
        changed = False
        for r, ins in single.items():
            if r in off:
                continue
            got = None
            if isinstance(ins, Mov):
                got = of(ins.src)
            elif isinstance(ins, BinOp) and ins.op == "add":
                if const(ins.b) is not None and of(ins.a) is not None:
                    got = of(ins.a) + const(ins.b)
                elif const(ins.a) is not None and of(ins.b) is not None:
                    got = of(ins.b) + const(ins.a)
            elif isinstance(ins, BinOp) and ins.op == "sub" and const(ins.b) is not None \
                    and of(ins.a) is not None:
                got = of(ins.a) - const(ins.b)
            if got is not None and abs(got) < MAX_OFFSET:
                off[r] = got
                changed = True
    return off


def address_offset(addr, roots: dict, offsets: dict) -> Optional[int]:
    """The offset of ``addr`` into its root's object (``memory_offsets``), or None when its
    root or offset is unknown."""
    if isinstance(addr, GlobalAddr):
        return 0
    if isinstance(addr, Reg) and addr.name in roots:
        return offsets.get(addr.name)
    return None


def writes_nothing(ins: Instr, defined: frozenset = frozenset()) -> bool:
    """A ``MEMORY_WRITERS`` call of 0 bytes: it changes no memory."""
    return memory_writer(ins, defined) and len(ins.args) >= 3 and ins.args[2] == Imm(0)


def written_span(ins: Instr, roots: dict, offsets: Optional[dict],
                 defined: frozenset = frozenset()) -> Optional[tuple[int, int]]:
    """``(lo, hi)``: the bytes of its root (``written_root``) a store or a ``MEMORY_WRITERS``
    call of a constant length (``written_size``) writes, when its address's offset is known;
    else None."""
    n = written_size(ins, defined)
    if offsets is None or n is None or not 0 <= n < MAX_OFFSET:
        return None
    lo = address_offset(ins.addr if isinstance(ins, Store) else ins.args[0], roots, offsets)
    return None if lo is None else (lo, lo + n)


def load_spans(fn: Function, names: dict, exprs: dict, roots: dict,
               offsets: dict) -> dict[str, dict]:
    """``{expression reading memory: {root: frozenset of (lo, hi) byte ranges, or None}}``: the
    bytes of each root (``load_roots``) the expression's loads read, None for a root some load
    reads at an unknown offset."""
    defs = definitions(fn)
    memo: dict[str, dict] = {}

    def merge(into: dict, got: dict) -> None:
        for r, s in got.items():
            into[r] = None if s is None or into.get(r, ()) is None else \
                frozenset(into.get(r, frozenset()) | s)

    def own(ins) -> dict:
        lo = address_offset(ins.addr, roots, offsets)
        return {memory_root(ins.addr, roots):
                None if lo is None else frozenset({(lo, lo + ins.size)})}

    def of_reg(r: str) -> dict:
        if r not in memo:
            memo[r] = {}
            ins = defs[r][0]
            out = of_operands(ins)
            if isinstance(ins, Load):
                merge(out, own(ins))
            memo[r] = out
        return memo[r]

    def of_operands(ins) -> dict:
        out: dict = {}
        for a in ins.uses():
            if isinstance(a, Reg) and a.name in names and defs.get(a.name, [None])[0] is not None:
                merge(out, of_reg(a.name))
        return out

    out: dict[str, dict] = {}
    for b in fn.blocks:
        for ins in b.instrs:
            if ins.guard is not None:
                continue
            found = expression_of(ins, names)
            if found is None or found[0] not in exprs or not reads_memory(found[1], found[2]):
                continue
            got = of_operands(ins)
            if isinstance(ins, Load):
                merge(got, own(ins))
            merge(out.setdefault(found[0], {}), got)
    return out


def value_flow_facts(f: str, fn: Function, out: dict[str, list[tuple]],
                     defined: frozenset = frozenset(), readonly: frozenset = frozenset(),
                     returns=None, contents: Optional[dict] = None,
                     global_sizes: Optional[dict] = None) -> None:
    """Append the value-flow relations (``VALUE_FLOW_RELATIONS``) of one defined function to
    ``out`` (``defined``: the module's functions; ``readonly``: its ``readonly_globals``;
    ``returns``: its ``ReturnFits``; ``contents``: its ``function_contents`` for ``fn``;
    ``global_sizes``: {global: size})."""
    names = value_names(fn)
    known = KnownBytes(fn, names, defined, contents)
    exprs = candidate_expressions(fn, names, returns, known)
    if not exprs:
        return
    by_reg: dict[str, list[str]] = {}
    loads: list[str] = []
    wide: list = []                 # (instruction, bytes) of writes through ANY
    defs = None
    for name, (op, args) in sorted(exprs.items()):
        out["vf_expr"].append((f, name, op))
        for pos, a in enumerate(a for a in args if a != MEMORY):
            kind = "reg" if isinstance(a, Reg) else "const" if isinstance(a, Imm) else "global"
            out["vf_expr_operand"].append((f, name, pos, kind, _text(a)))
            if kind == "reg":
                by_reg.setdefault(a.name, []).append(name)
        if reads_memory(op, args):
            loads.append(name)
            out["vf_load"].append((f, name))
    if loads:
        roots = memory_roots(fn, defined, readonly)
        offsets = memory_offsets(fn)
        globs = set()
        spans = load_spans(fn, names, exprs, roots, offsets)
        for name, rs in sorted(roots_of_spans(spans).items()):
            out["vf_load_root"].extend((f, name, r) for r in sorted(rs))
            globs |= {r for r in rs if is_global_root(r)}
        for name, by_root in sorted(spans.items()):
            out["vf_load_span"].extend((f, name, r, lo, hi) for r, s in sorted(by_root.items())
                                       if s is not None for lo, hi in sorted(s))
    for b in fn.blocks:
        for idx, ins in enumerate(b.instrs):
            i = instr_id(b.label, idx)
            if ins.guard is None:
                found = expression_of(ins, names)
                if found is not None and found[0] in exprs:
                    out["vf_occurs"].append((f, i, found[0]))
            killed = {e for r in ins.defs() for e in by_reg.get(r, ())}
            out["vf_kill"].extend((f, i, e) for e in sorted(killed))
            if not loads:
                continue
            gen: list = []          # the load names a store makes its value (store_generated)
            if isinstance(ins, Store) and ins.guard is None:
                defs = definitions(fn) if defs is None else defs
                gen = store_generated(ins, names, defs, returns)
            if clobbers_memory(ins) and not writes_nothing(ins, defined):
                out["vf_clobber"].append((f, i))
                written = written_root(ins, roots, defined)
                if written is not None:
                    out["vf_store_root"].append((f, i, written))
                    span = written_span(ins, roots, offsets, defined)
                    if span is not None:
                        out["vf_store_span"].append((f, i) + span)
                    size = written_size(ins, defined)
                    if written == ANY and size:
                        wide.append((i, size))
                    if is_global_root(written):
                        globs.add(written)
                    out["vf_store_gen"].extend((f, i, e) for e in gen if e in exprs)
            out["vf_store_gen"].extend((f, i, e) for e in sorted(known.generated(ins))
                                       if e in exprs and e not in gen)
    if loads:
        out["vf_global_root"].extend((f, r) for r in sorted(globs))
        sizes = object_sizes(fn, global_sizes or {})
        out["vf_store_over"].extend((f, i, r) for i, n in wide for r in sorted(globs)
                                    if r in sizes and n > sizes[r])
