"""Branch correlation through memory (issue #15 part B): global scalar variables as *memory
cells* whose loads and stores are value-flow steps (PathFinder Fig. 7.4, spec §12 item 20), and
pointer dereferences as the fourth correlation source (§7.1.3.1 source 4, item 22).

A global ``x`` is a cell, named ``*x`` (no register can be so named), when its name is used only
as the address of loads and stores of one width: every load of the same size and signedness, every
store of that size, nothing else (no ``add x, 8``, no ``call f(x)``, no ``store p, x``). Its address
then never reaches a register, so only the stores naming it change it (pointers are not forged
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
reached after such an access, with p not redefined since, sees p != 0. Only the address register
itself is covered (``load (add p, 8)`` says nothing about p without assuming more); IR.md does not
specify invalid addresses, so the claim rests on the interpreter's memory model.
"""
from __future__ import annotations

from pylogic.ir.model import Call, GlobalAddr, Load, Module, Reg, Store
from facts_gen.naming import function_id, instr_id

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


def tracked_cells(module: Module) -> dict[str, tuple[int, bool]]:
    """``{global name: (size, signed)}`` of the globals that are memory cells (module doc)."""
    shape: dict[str, set] = {}
    bad: set[str] = set()
    sizes = {g.name: g.size for g in module.globals}
    for fn in module.defined_functions():
        for b in fn.blocks:
            for ins in b.instrs:
                for op in ins.uses():
                    if not isinstance(op, GlobalAddr) or op.name not in sizes:
                        continue
                    if isinstance(ins, Load) and ins.addr == op:
                        shape.setdefault(op.name, set()).add(("load", ins.size, ins.signed))
                    elif isinstance(ins, Store) and ins.addr == op and ins.value != op:
                        shape.setdefault(op.name, set()).add(("store", ins.size, None))
                    else:
                        bad.add(op.name)
    out = {}
    for name, kinds in shape.items():
        loads = {(n, s) for k, n, s in kinds if k == "load"}
        stores = {n for k, n, _ in kinds if k == "store"}
        if name in bad or len(loads) != 1:
            continue
        (size, signed), = loads
        if stores <= {size} and size <= sizes[name]:
            out[name] = (size, signed)
    return out


def _writers(module: Module, cells: dict) -> dict[str, set[str]]:
    """``{function: cells it may store to, itself or through the defined functions it calls}``."""
    defined = {fn.name: fn for fn in module.defined_functions() if fn.blocks}
    own = {name: set() for name in defined}
    calls = {name: set() for name in defined}
    for name, fn in defined.items():
        for b in fn.blocks:
            for ins in b.instrs:
                if isinstance(ins, Store) and isinstance(ins.addr, GlobalAddr) and ins.addr.name in cells:
                    own[name].add(ins.addr.name)
                elif isinstance(ins, Call) and ins.callee in defined:
                    calls[name].add(ins.callee)
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
    cells = tracked_cells(module)
    writers = _writers(module, cells)
    inits = {g.name: g.init for g in module.globals}
    for fn in module.defined_functions():
        if not fn.blocks:
            continue
        f = function_id(relpath, fn.name)
        mine = conds.setdefault(f, {"eq 0"})
        for x in sorted(cells):
            out["memory_cell"].append((f, "*" + x))
        if fn.name.lstrip("@") == "main":
            for x, (size, signed) in sorted(cells.items()):
                raw = int.from_bytes(inits[x][:size].ljust(size, b"\0"), "little")
                cond = f"eq {_extend(raw, size, signed)}"
                out["cell_init"].append((f, "*" + x, cond))
                mine.add(cond)
        for b in fn.blocks:
            for k, ins in enumerate(b.instrs):
                i = instr_id(b.label, k)
                if isinstance(ins, (Load, Store)) and isinstance(ins.addr, Reg) and ins.guard is None:
                    out["deref"].append((f, i, ins.addr.name))       # PathFinder source 4
                    mine.add("ne 0")
                if isinstance(ins, Load) and isinstance(ins.addr, GlobalAddr) \
                        and ins.addr.name in cells and ins.guard is None:
                    out["copy"].append((f, i, ins.dest, "*" + ins.addr.name))
                elif isinstance(ins, Store) and isinstance(ins.addr, GlobalAddr) \
                        and ins.addr.name in cells:
                    cell = "*" + ins.addr.name
                    size, signed = cells[ins.addr.name]
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
                        out["cell_def"].append((f, i, "*" + x))
