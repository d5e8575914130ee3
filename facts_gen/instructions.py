"""Instruction-level relations: instructions, block sizes, operands, defs/uses, guards, predicate
defines, comparisons, calls, memory operations, branches and annotations (docs/relations.md)."""
from __future__ import annotations

from pylogic.ir.model import (BRANCHING, Alloca, Call, Cmp, Function, GlobalAddr, Imm, Load,
                              PredDefine, Reg, Store, branch_targets)
from facts_gen.naming import instr_id

#: Relations this module writes (datalog/schema.dl, "Instructions, operands, defs and uses").
RELATIONS = ("param", "instr", "block_size", "guard", "def", "use", "operand", "compare", "pdefine",
             "branch", "call", "memory", "annotation")


def operand_kind(op) -> tuple[str, str]:
    """(kind, text) of an operand: kind is reg | const | global. Constants are text (64-bit)."""
    if isinstance(op, Reg):
        return "reg", op.name
    if isinstance(op, Imm):
        return "const", str(op.value)
    if isinstance(op, GlobalAddr):
        return "global", op.name
    raise TypeError(f"not an operand: {op!r}")


def _traits(cls) -> tuple:
    """What ``instruction_facts`` writes for instructions of class ``cls`` beyond every
    instruction's rows: (branch targets?, compare?, its last relation: "pdefine", "call",
    "load", "store", "alloca" or None), by ``isinstance``."""
    last = next((name for kind, name in ((PredDefine, "pdefine"), (Call, "call"), (Load, "load"),
                                         (Store, "store"), (Alloca, "alloca"))
                 if issubclass(cls, kind)), None)
    return issubclass(cls, BRANCHING), issubclass(cls, (Cmp, PredDefine)), last


_TRAITS: dict[type, tuple] = {}


def instruction_facts(f: str, fn: Function, out: dict[str, list[tuple]]) -> None:
    """Append the instruction relations of one defined function to ``out``."""
    out["param"].extend((f, k, p) for k, p in enumerate(fn.params))
    # each relation's append and each class's traits looked up once (#32: 4% of analyze)
    instr, guard, def_, use = (out[n].append for n in ("instr", "guard", "def", "use"))
    operand, branch, compare = (out[n].append for n in ("operand", "branch", "compare"))
    call, memory, annotation = out["call"].append, out["memory"].append, out["annotation"]
    traits = _TRAITS
    out["block_size"].extend((f, b.label, len(b.instrs)) for b in fn.blocks)
    for b in fn.blocks:
        label = b.label
        if b.annotations:
            annotation.extend((f, label, k, v) for k, v in b.annotations)
        for idx, ins in enumerate(b.instrs):
            i = instr_id(label, idx)
            instr((f, i, label, idx, ins.opcode))
            if ins.guard is not None:
                guard((f, i, ins.guard))
            for r in ins.defs():
                def_((f, i, r))
            for pos, op in enumerate(ins.uses()):
                if type(op) is Reg:
                    operand((f, i, pos, "reg", op.name))
                    use((f, i, op.name))
                    continue
                kind, text = operand_kind(op)
                operand((f, i, pos, kind, text))
                if kind == "reg":
                    use((f, i, text))
            cls = type(ins)
            got = traits.get(cls)
            if got is None:
                got = traits[cls] = _traits(cls)
            targets, compares, last = got
            if targets:
                for t in branch_targets(ins):
                    branch((f, i, t))
            if compares:
                compare((f, i, ins.rel))
            if last is None:
                pass
            elif last == "pdefine":
                out["pdefine"].extend((f, i, slot, d.name, d.dtype)
                                      for slot, d in enumerate(ins.dests))
            elif last == "call":
                call((f, i, ins.callee))
            elif last == "load":
                memory((f, i, "load", ins.size, "s" if ins.signed else "u"))
            elif last == "store":
                memory((f, i, "store", ins.size, "-"))
            else:
                memory((f, i, "alloca", 0, "-"))
            if ins.annotations:
                annotation.extend((f, i, k, v) for k, v in ins.annotations)
