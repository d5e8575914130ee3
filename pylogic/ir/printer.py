"""Printer: PIR model -> canonical PIR text (docs/pir.md).

Canonical means: deposit types by their canonical names (never aliases or IA-64 completers),
integers in decimal, labels on their own line (``LABEL:`` plus `` !hyperblock``), instructions
indented four spaces, annotations as `` #key=value`` at the end of the line, globals first.
For every valid module ``parse_module(print_module(m)) == m`` (equality ignores locations).
"""
from __future__ import annotations

from pylogic.ir.model import (
    Alloca, BinOp, Block, Br, Call, Cmp, CondBr, Function, Global, Input, Instr, Load, Module,
    Mov, PredDefine, Print, Ret, Select, Store, UnOp,
)
from pylogic.ir.parser import encode_string, is_string_like

__all__ = ["print_module", "print_function", "print_block", "print_instr", "print_global"]

INDENT = "    "


def _annotations(annotations) -> str:
    return "".join(f" #{key}={value}" for key, value in annotations)


def _body(ins: Instr) -> str:
    """The instruction without guard and annotations."""
    if isinstance(ins, Mov):
        return f"{ins.dest} = mov {ins.src}"
    if isinstance(ins, BinOp):
        return f"{ins.dest} = {ins.op} {ins.a}, {ins.b}"
    if isinstance(ins, UnOp):
        return f"{ins.dest} = {ins.op} {ins.a}"
    if isinstance(ins, Cmp):
        return f"{ins.dest} = cmp.{ins.rel} {ins.a}, {ins.b}"
    if isinstance(ins, Select):
        return f"{ins.dest} = select {ins.cond}, {ins.a}, {ins.b}"
    if isinstance(ins, PredDefine):
        dests = ", ".join(f"{d.name}:{d.dtype}" for d in ins.dests)
        return f"{dests} = pcmp.{ins.rel} {ins.a}, {ins.b}"
    if isinstance(ins, Load):
        if ins.size == 8 and ins.signed:
            op = "load"
        else:
            op = f"load.{ins.size}" + ("" if ins.signed else "u")
        return f"{ins.dest} = {op} {ins.addr}"
    if isinstance(ins, Store):
        op = "store" if ins.size == 8 else f"store.{ins.size}"
        return f"{op} {ins.addr}, {ins.value}"
    if isinstance(ins, Alloca):
        return f"{ins.dest} = alloca {ins.size}"
    if isinstance(ins, Call):
        call = f"call {ins.callee}({', '.join(str(a) for a in ins.args)})"
        if ins.continuations:
            call += f" to {', '.join(ins.continuations)}"
        return call if ins.dest is None else f"{ins.dest} = {call}"
    if isinstance(ins, Input):
        return f"{ins.dest} = input"
    if isinstance(ins, Print):
        return f"print {ins.value}"
    if isinstance(ins, Br):
        return f"br {ins.target}"
    if isinstance(ins, CondBr):
        return f"cbr {ins.cond}, {ins.if_true}, {ins.if_false}"
    if isinstance(ins, Ret):
        op = f"ret.{ins.exit}" if ins.exit else "ret"
        return op if ins.value is None else f"{op} {ins.value}"
    raise TypeError(f"cannot print {type(ins).__name__}")


def print_instr(ins: Instr) -> str:
    """One instruction as PIR text, guard and annotations included, without indentation.

    Example: ``print_instr(Mov(dest="x", src=Imm(1), guard="p1"))`` -> ``"(p1) x = mov 1"``.
    """
    guard = f"({ins.guard}) " if ins.guard is not None else ""
    return guard + _body(ins) + _annotations(ins.annotations)


def print_block(block: Block) -> str:
    """A block: its label line then its instructions indented four spaces (no final newline)."""
    head = f"{block.label}:" + (" !hyperblock" if block.hyperblock else "")
    lines = [head + _annotations(block.annotations)]
    lines.extend(INDENT + print_instr(ins) for ins in block.instrs)
    return "\n".join(lines)


def print_function(fn: Function) -> str:
    """A function definition or ``extern func`` declaration (no final newline)."""
    types = fn.param_types or ("",) * len(fn.params)
    header = f"{fn.name}({', '.join(p + (':' + t if t else '') for p, t in zip(fn.params, types))})"
    if fn.extern:
        return f"extern func {header}" + _annotations(fn.annotations)
    lines = [f"func {header} {{" + _annotations(fn.annotations)]
    lines.extend(print_block(b) for b in fn.blocks)
    lines.append("}")
    return "\n".join(lines)


def print_global(g: Global) -> str:
    """``global NAME = "text"`` when the bytes read as a string and fill the global exactly,
    else ``global NAME[SIZE]`` with ``= {b0, ...}`` when it has non-zero initial bytes;
    ``const global ...`` for a constant one."""
    kw = "const global" if g.const else "global"
    if g.init and g.size == len(g.init) + 1 and is_string_like(g.init):
        return f"{kw} {g.name} = {encode_string(g.init)}"
    if not g.init:
        return f"{kw} {g.name}[{g.size}]"
    return f"{kw} {g.name}[{g.size}] = {{{', '.join(str(b) for b in g.init)}}}"


def print_module(m: Module) -> str:
    """The whole module as canonical PIR text: globals, then functions separated by blank
    lines, ending with a newline."""
    parts = []
    if m.globals:
        parts.append("\n".join(print_global(g) for g in m.globals))
    parts.extend(print_function(f) for f in m.functions)
    return "\n\n".join(parts) + "\n" if parts else ""
