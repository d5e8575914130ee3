"""Branch correlation through memory (issue #15 part B): global scalar variables as *memory
cells* whose loads and stores are value-flow steps (PathFinder Fig. 7.4, spec §12 item 20), and
pointer dereferences as the fourth correlation source (§7.1.3.1 source 4, item 22).

A global ``x`` is a cell, named ``*x`` (no register can be so named), when its name is used only
as the address of loads and stores of one width: every load of the same size and signedness, every
store of that size, nothing else (no ``call f(x)``, no ``store p, x``). Fields (issue #15 part
C): ``t = add x, C`` whose register t is only the address of loads and stores in its own block,
before t is redefined, accesses x's bytes at offset C; a global whose accesses at constant offsets
never overlap is one cell per offset, ``*x+C`` (``*x`` at 0), each under the rule above (gcc
torture anon-1: ``foo.b = 6; foo.a = 5; if (foo.b != 6)``). Its address
then never reaches a register we do not follow, so only the stores naming it change it (pointers are not forged
from integer constants -- in the interpreter segment addresses are chosen at run time, and LLVM's
alias analysis assumes the same of a non-escaping global). Its value is what its loads read:

- ``v = load x`` is the copy ``v := *x``;
- ``store x, C`` asserts ``*x == ext(C)`` (truncated to the width and extended as the loads do);
- ``store x, r`` is the copy ``*x := r`` for 8-byte cells, and a range assertion for narrower ones;
- a call of a defined function that stores to ``x`` (itself or through its callees) changes
  ``*x`` (its value at the callee's exits is a summary query, Fig. 7.4); other calls do not (an
  extern cannot reach ``x`` either: its address never escapes);
- at the program's start (``main``'s entry) ``*x`` holds its initial bytes; at the entry of a
  function with call sites, what it held before those calls. Like the answers through
  parameters, this assumes a program is entered at ``main`` or at a function no call site calls
  (``external_entry``, where a cell is UNDEF), as ``pathlogic run`` and the harness do.

Dereference (source 4): an unguarded ``load p`` or ``store p, _`` that completes has p != 0. In
the reference interpreter (``pylogic/interp/memory.py``) every object lives in a segment whose id
is at least 1, an address is ``id << 32 | offset``, and an access outside every live segment --
address 0 among them -- is a run-time error that stops the program (the native engine replays
faulting runs in the interpreter); in C and LLVM IR a null dereference is undefined. So a branch
reached after such an access, with p not redefined since, sees p != 0, and so does a copy of p
made by a `mov` in the same block (neither redefined in between). Only the address register
and its copies are covered (``load (add p, 8)`` says nothing about p without assuming more); docs/pir.md does not
specify invalid addresses, so the claim rests on the interpreter's memory model.
"""
from __future__ import annotations

from pylogic.ir.model import BinOp, Call, GlobalAddr, Imm, Load, Module, Mov, Reg, Store
from facts_gen.naming import function_id, instr_id
from pylogic.identity_cache import BodyCache, IdentityCache

RELATIONS = ("memory_cell", "cell_def", "cell_init", "deref")


def _extend(value: int, size: int, signed: bool) -> int:
    """What a ``size``-byte load (``signed`` or zero-extending) reads after storing ``value``."""
    if size >= 8:
        value &= (1 << 64) - 1
        return value - (1 << 64) if value >> 63 else value
    value &= (1 << (8 * size)) - 1
    if signed and value >> (8 * size - 1):
        value -= 1 << (8 * size)
    return value


def _range(size: int, signed: bool) -> str:
    if signed:
        return f"range {-(1 << (8 * size - 1))} {(1 << (8 * size - 1)) - 1}"
    return f"range 0 {(1 << (8 * size)) - 1}"


def _function_parts(module: Module) -> dict:
    """``{function name: _function_accesses(fn, ...)}`` of the defined functions, each kept per
    body."""
    names = frozenset(g.name for g in module.globals)
    return {fn.name: _ACCESSES.get_or_compute(fn, (fn.name, names),
                                              lambda: _function_accesses(fn, names))
            for fn in module.defined_functions()}


def _shapes(parts: dict) -> tuple[dict, set]:
    """The module's ``(shapes, bad)`` (``_function_accesses``) from its functions' parts."""
    shapes: dict[tuple, set] = {}
    bad: set[str] = set()
    for mine in parts.values():
        for g_off, kinds in mine[1].items():
            shapes.setdefault(g_off, set()).update(kinds)
        bad |= mine[2]
    return shapes, bad


def _function_accesses(fn, names: frozenset):
    """``(where, shapes, bad, stores)`` of one function (``names``: the module's globals):
    ``where[(function, block, index)] = (g, offset)`` for each load or store of a global g's
    bytes at a constant offset -- through ``@g`` itself, or through a register ``t = add @g, C``
    of the same block (not redefined in between); ``shapes[(g, offset)]``: the kinds of those
    accesses; ``bad``: the globals whose address is used any other way (it may reach a register
    we do not follow: not cells); ``stores``: the keys of ``where`` that are stores."""
    where: dict[tuple, tuple] = {}
    shapes: dict[tuple, set] = {}
    bad: set[str] = set()
    stores: set[tuple] = set()

    def field(ins):                        # t = add @g, C (either order)
        if isinstance(ins, BinOp) and ins.op == "add" and ins.guard is None:
            for a, c in ((ins.a, ins.b), (ins.b, ins.a)):
                if isinstance(a, GlobalAddr) and a.name in names and isinstance(c, Imm):
                    return a.name, c.value
        return None
    bound: dict[str, set] = {}             # register -> globals some `add @g, C` binds it to
    for b in fn.blocks:
        for ins in b.instrs:
            made = field(ins) if isinstance(ins, BinOp) else None
            if made is not None:
                bound.setdefault(ins.dest, set()).add(made[0])
    name = fn.name
    for b in fn.blocks:
        current: dict[str, tuple] = {}
        label = b.label
        for k, ins in enumerate(b.instrs):
            via = key = None               # key: this instruction's, when it accesses a global
            if isinstance(ins, (Load, Store)) and (isinstance(ins, Load) or ins.value != ins.addr):
                addr = ins.addr
                if isinstance(addr, Reg) and addr.name in current:
                    via, key = addr.name, (name, label, k)
                    g_off = current[via]
                elif isinstance(addr, GlobalAddr) and addr.name in names:
                    key, g_off = (name, label, k), (addr.name, 0)
                if key is not None:
                    where[key] = g_off
                    if isinstance(ins, Load):
                        shapes.setdefault(g_off, set()).add(("load", ins.size, ins.signed))
                    else:
                        shapes.setdefault(g_off, set()).add(("store", ins.size, None))
                        stores.add(key)
            made = field(ins) if isinstance(ins, BinOp) else None
            for op in ins.uses():
                if isinstance(op, GlobalAddr) and op.name in names and made is None and \
                        not (key is not None and via is None and ins.addr == op):
                    bad.add(op.name)
                elif isinstance(op, Reg) and op.name in bound and not (via == op.name and ins.addr == op):
                    bad.update(bound[op.name])
            for r in ins.defs():
                current.pop(r, None)
            if made is not None:
                current[ins.dest] = made
    return where, shapes, frozenset(bad), frozenset(stores)


#: a function body's ``_function_accesses`` and a block's ``_copies_in_block``, kept by identity
#: (an iterated pass's rounds keep the blocks they did not change: ``identity_cache.BodyCache``)
_ACCESSES = BodyCache(1 << 12)
_COPIES = IdentityCache(1 << 14)
#: a function body's ``_function_cell_facts``, kept by body and what else they read
#: (``memory_cell_facts``: the module's cells, the function's own accesses of them, its
#: callees' writes, main's initial bytes)
_PARTS = BodyCache(1 << 12)
#: a function's named accesses and stored cells (``_named``), by its ``_function_accesses``
#: part and the module's cells
_NAMED = IdentityCache(1 << 12)


def cell_name(g: str, offset: int) -> str:
    """``*g`` for the global's first bytes, ``*g+8`` for a field at offset 8."""
    return f"*{g}" if offset == 0 else f"*{g}+{offset}"


def tracked_cells(module: Module) -> tuple[dict[str, tuple], dict[tuple, str]]:
    """``({cell name: (global, offset, size, signed)}, {(function, block, index): cell name})``:
    the memory cells (module doc) and the loads and stores that name them. A global is split
    into cells at the offsets it is accessed at when those accesses never overlap; a field is a
    cell when all its loads have one size and signedness and its stores that size."""
    cells, named, _stored = _module_cells(module)
    return cells, {key: cell for accesses in named.values() for key, cell in accesses}


def _module_cells(module: Module) -> tuple[dict, dict, dict]:
    """``(cells, {function: its named accesses}, {function: the cells it stores to itself})``
    (``tracked_cells``): a function's accesses, sorted ``((function, block, index), cell)``
    pairs, and its stores are kept per body and the module's cells (issue #28 item 1: every
    round of icbe named every load and store of the module again)."""
    parts = _function_parts(module)
    shapes, bad = _shapes(parts)
    sizes = {g.name: g.size for g in module.globals}
    fields: dict[str, dict] = {}
    for (g, off), kinds in shapes.items():
        fields.setdefault(g, {})[off] = kinds
    cells = {}
    for g, offs in fields.items():
        if g in bad:
            continue
        spans = sorted((off, n) for off, kinds in offs.items() for _, n, _ in kinds)
        if any(off < 0 or off + n > sizes[g] for off, n in spans) or any(
                a + n > b and (a, n) != (b, m) for (a, n), (b, m) in zip(spans, spans[1:])) or \
                any(len({n for _, n, _ in kinds}) > 1 for kinds in offs.values()):
            continue                                 # overlapping or mixed widths: no cells
        for off, kinds in offs.items():
            loads = {(n, sg) for k, n, sg in kinds if k == "load"}
            if len(loads) != 1:
                continue
            (size, signed), = loads
            cells[cell_name(g, off)] = (g, off, size, signed)
    cell_of = tuple(sorted((g_off, cell_name(*g_off)) for g_off in shapes
                           if cell_name(*g_off) in cells))
    named, stored = {}, {}
    for name, part in parts.items():
        named[name], stored[name] = _NAMED.get_or_compute(part, lambda: _named(part, cell_of),
                                                          cell_of)
    return cells, named, stored


def _named(part: tuple, cell_of: tuple) -> tuple[tuple, frozenset]:
    """One function's named accesses and the cells it stores to (``_module_cells``) from its
    ``_function_accesses`` part and the module's ``(g, offset) -> cell`` pairs."""
    cells = dict(cell_of)
    accesses = tuple(sorted((key, cells[g_off]) for key, g_off in part[0].items()
                            if g_off in cells))
    return accesses, frozenset(cell for key, cell in accesses if key in part[3])


def _writers(module: Module, stored: dict) -> dict[str, set[str]]:
    """``{function: cells it may store to, itself or through the defined functions it calls}``
    (``stored``: the cells each function stores to itself)."""
    defined = {fn.name: fn for fn in module.defined_functions() if fn.blocks}
    own = {name: set(stored.get(name, ())) for name in defined}
    calls = {name: defined.keys() & fn.callees() for name, fn in defined.items()}
    changed = True
    while changed:                                   # transitive closure over the call graph
        changed = False
        for name in defined:
            for callee in calls[name]:
                if not own[callee] <= own[name]:
                    own[name] |= own[callee]
                    changed = True
    return own


def memory_cell_facts(module: Module, relpath: str, out: dict[str, list[tuple]],
                      conds: dict[str, set[str]]) -> None:
    """Append cell and dereference facts (and the copies and assertions of cells) to ``out``;
    add each function's assertions to ``conds`` (the keys of its ``decides`` rows)."""
    cells, named, stored = _module_cells(module)
    writers = _writers(module, stored)
    inits = {g.name: g.init for g in module.globals}
    names = tuple(sorted(cells))
    for fn in module.defined_functions():
        if not fn.blocks:
            continue
        f = function_id(relpath, fn.name)
        accesses = named.get(fn.name, ())
        used = {cell for _, cell in accesses}
        callees = fn.callees()
        key = (relpath, fn.name, names, accesses, tuple((x, cells[x]) for x in sorted(used)),
               tuple((c, frozenset(writers[c])) for c in sorted(callees) if c in writers),
               tuple((x, cells[x], inits[cells[x][0]]) for x in names)
               if fn.name.lstrip("@") == "main" else ())
        rows, mine = _PARTS.get_or_compute(fn, key, lambda: _function_cell_facts(
            fn, f, cells, dict(accesses), writers, inits))
        for name, part in rows.items():
            out[name].extend(part)
        conds.setdefault(f, {"eq 0"}).update(mine)


def _function_cell_facts(fn, f: str, cells: dict, named: dict, writers: dict,
                         inits: dict) -> tuple[dict, set]:
    """``memory_cell_facts`` of one function ``fn`` (id ``f``): its rows per relation, and the
    assertions they add to its ``conds``."""
    out: dict[str, list] = {r: [] for r in ("memory_cell", "cell_init", "deref", "copy",
                                            "cell_def", "assert_def")}
    mine: set[str] = set()
    for x in sorted(cells):
        out["memory_cell"].append((f, x))
    if fn.name.lstrip("@") == "main":
        for x, (g, off, size, signed) in sorted(cells.items()):
            raw = int.from_bytes(inits[g][off:off + size].ljust(size, b"\0"), "little")
            cond = f"eq {_extend(raw, size, signed)}"
            out["cell_init"].append((f, x, cond))
            mine.add(cond)
    for b in fn.blocks:
        same = _COPIES.get_or_compute(b, lambda: _copies_in_block(b))
        for k, ins in enumerate(b.instrs):
            i = instr_id(b.label, k)
            if k in same:
                for r in sorted(same[k]):
                    out["deref"].append((f, i, r))               # PathFinder source 4
                mine.add("ne 0")
            cell = named.get((fn.name, b.label, k))
            if isinstance(ins, Load) and cell is not None and ins.guard is None:
                out["copy"].append((f, i, ins.dest, cell))
            elif isinstance(ins, Store) and cell is not None:
                _, _, size, signed = cells[cell]
                out["cell_def"].append((f, i, cell))
                if ins.guard is not None:
                    continue
                if isinstance(ins.value, Reg) and size >= 8:
                    out["copy"].append((f, i, cell, ins.value.name))
                elif isinstance(ins.value, Reg):
                    out["assert_def"].append((f, i, cell, _range(size, signed)))
                    mine.add(_range(size, signed))
                elif not isinstance(ins.value, GlobalAddr):
                    cond = f"eq {_extend(ins.value.value, size, signed)}"
                    out["assert_def"].append((f, i, cell, cond))
                    mine.add(cond)
            elif isinstance(ins, Call) and ins.callee in writers:
                for x in sorted(writers[ins.callee]):
                    out["cell_def"].append((f, i, x))
    return {r: rows for r, rows in out.items() if rows}, mine


def _copies_in_block(block) -> dict[int, set[str]]:
    """At each unguarded load or store through a register of ``block`` (by index): the registers
    holding the same value as its address through unguarded ``mov``s in the block, neither
    redefined since (a dereference of one is one of all: gcc.dg/tree-ssa 20030730-1.c stores
    through a copy of the tested pointer)."""
    classes: dict[str, set[str]] = {}
    at: dict[int, set[str]] = {}
    for k, ins in enumerate(block.instrs):
        if isinstance(ins, (Load, Store)) and isinstance(ins.addr, Reg) and ins.guard is None:
            at[k] = set(classes.get(ins.addr.name, (ins.addr.name,)))
        for d in ins.defs():
            old = classes.pop(d, None)
            if old is not None:
                old.discard(d)
        if isinstance(ins, Mov) and ins.guard is None and isinstance(ins.src, Reg) \
                and ins.src.name != ins.dest:
            c = classes.setdefault(ins.src.name, {ins.src.name})
            c.add(ins.dest)
            classes[ins.dest] = c
    return at
