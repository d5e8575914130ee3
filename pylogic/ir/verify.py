"""Structural verifier for PIR modules (docs/pir.md).

``verify_module(m)`` returns every violation as a located :class:`VerifyError` (message prefixed
with the function and block, ``loc`` the instruction's line when the module was parsed, else the
block's or function's, else just the file); ``check_module(m)`` raises all of them at once as one
:class:`VerifyErrors` (a VerifyError whose ``errors`` lists each one) and returns ``m`` when clean.

Rules (docs/pir.md "Module", "Instructions", "Predicate defines"):
- no duplicate globals, functions, parameters or labels; a global's bytes fit its size;
- a defined function has at least one block, an extern none;
- every block ends with exactly one unguarded terminator (br/cbr/ret): an unguarded terminator
  is last and only last; guarded ones before it are side exits;
- branch targets are labels of the function; calls name a defined or ``extern`` function and pass
  as many arguments as it has parameters (a last parameter named ``...`` makes it variadic);
- exit splitting (pathlogic's extension, docs/pir.md "Extensions"): a call with continuations
  (``call F(...) to L0, L1``) ends its block, is unguarded, calls a defined function and names a
  continuation for every exit ``ret.N`` of F; a plain call's callee has no ``ret.N`` with N >= 1;
- guards are predicates: ``p0``/``true`` or a register some predicate define of the function
  writes; such a register is not also written by an ordinary instruction; ordinary instructions
  do not write ``p0``/``true`` or a global's name;
- ``load``/``store`` sizes are 1, 2, 4 or 8; opcodes, relations and deposit types are known;
  a predicate define has one or two distinct destinations;
- typed parameters (docs/pir.md "Extensions"): one type per parameter, each ``sN``/``uN`` with
  1 <= N <= 63, none on ``...``.
"""
from __future__ import annotations

from pylogic.errors import SourceLoc, VerifyError
from pylogic.ir.model import (
    BINARY_OPS, BRANCHING, DEPOSIT_TYPES, MEMORY_SIZES, RELATIONS, TRUE_PREDICATES, UNARY_OPS,
    BinOp, Block, Call, Cmp, Function, GlobalAddr, Load, Module, PredDefine, Reg, Ret, Store,
    UnOp, branch_targets, param_type_range,
)

__all__ = ["verify_module", "check_module", "VerifyErrors", "VARIADIC_PARAM"]

#: A last parameter with this name makes a function variadic for the arity check (extension).
VARIADIC_PARAM = "..."


class VerifyErrors(VerifyError):
    """Every verification error of a module at once; ``errors`` lists them in order."""

    def __init__(self, errors: list[VerifyError]):
        self.errors = list(errors)
        loc = self.errors[0].loc if self.errors else None
        super().__init__(f"{len(self.errors)} verification error(s)", loc)

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


class _Reporter:
    def __init__(self, module: Module):
        self.file_loc = SourceLoc(module.path)
        self.errors: list[VerifyError] = []
        self.exits: dict = {}  # function name -> its highest ``ret.N`` (N >= 1)

    def report(self, message: str, *locs, function: str | None = None,
               block: str | None = None) -> None:
        loc = next((l for l in locs if l is not None), self.file_loc)
        where = []
        if function is not None:
            where.append(f"function '{function}'")
        if block is not None:
            where.append(f"block '{block}'")
        prefix = (", ".join(where) + ": ") if where else ""
        err = VerifyError(prefix + message, loc)
        err.function = function
        err.block = block
        self.errors.append(err)


def _at(loc) -> str:
    return f" (first at line {loc.line})" if loc is not None and loc.line else ""


def verify_module(m: Module) -> list[VerifyError]:
    """All structural violations of ``m`` (empty when valid), each with a location.

    Example: ``verify_module(parse_module(text))`` -> ``[]`` for a valid program.
    References: docs/pir.md "Module", "Instructions", "Predicate defines".
    """
    r = _Reporter(m)
    globals_seen = {}
    for g in m.globals:
        if g.name in globals_seen:
            r.report(f"duplicate global '{g.name}'{_at(globals_seen[g.name].loc)}", g.loc)
        else:
            globals_seen[g.name] = g
        if g.size < 0:
            r.report(f"global '{g.name}' has negative size {g.size}", g.loc)
        elif len(g.init) > g.size:
            r.report(f"global '{g.name}' has {len(g.init)} initial bytes but size {g.size}",
                     g.loc)
    functions = {}
    for fn in m.functions:
        if fn.name in functions:
            r.report(f"duplicate function '{fn.name}'{_at(functions[fn.name].loc)}", fn.loc)
        else:
            functions[fn.name] = fn
    r.exits = split_exits(m)
    for fn in m.functions:
        _verify_function(fn, functions, globals_seen, r)
    return r.errors


def split_exits(m: Module) -> dict:
    """``{function: highest ret.N instruction}`` of the functions that return through an exit
    N >= 1 (exit splitting, PathFinder §7.4)."""
    out = {}
    for fn in m.functions:
        for b in fn.blocks:
            for ins in b.instrs:
                if isinstance(ins, Ret) and ins.exit and (fn.name not in out
                                                          or ins.exit > out[fn.name].exit):
                    out[fn.name] = ins
    return out


def check_module(m: Module) -> Module:
    """Return ``m`` if it verifies; otherwise raise VerifyErrors carrying every violation."""
    errors = verify_module(m)
    if errors:
        raise VerifyErrors(errors)
    return m


def _verify_function(fn: Function, functions: dict, globals_: dict, r: _Reporter) -> None:
    name = fn.name
    if fn.extern:
        if fn.blocks:
            r.report("an extern function has no body, but this one has blocks", fn.loc,
                     function=name)
    elif not fn.blocks:
        r.report("function has no blocks (a body needs a label and a terminator)", fn.loc,
                 function=name)
    seen_params = set()
    for p in fn.params:
        if p in seen_params:
            r.report(f"duplicate parameter '{p}'", fn.loc, function=name)
        seen_params.add(p)
        if p in globals_:
            r.report(f"parameter '{p}' has the name of a global (reads of '{p}' would give "
                     f"the global's address)", fn.loc, function=name)
    if fn.param_types and len(fn.param_types) != len(fn.params):
        r.report(f"{len(fn.param_types)} parameter types for {len(fn.params)} parameters",
                 fn.loc, function=name)
    for p, t in zip(fn.params, fn.param_types):
        if t and (param_type_range(t) is None or p == VARIADIC_PARAM):
            r.report(f"parameter '{p}' has type '{t}' (a type is sN or uN, 1 <= N <= 63, and "
                     f"'{VARIADIC_PARAM}' has none)", fn.loc, function=name)
    labels = {}
    for b in fn.blocks:
        if b.label in labels:
            r.report(f"duplicate label '{b.label}'{_at(labels[b.label].loc)}", b.loc, fn.loc,
                     function=name, block=b.label)
        else:
            labels[b.label] = b
    # Predicates of this function: every destination of a predicate define (docs/pir.md).
    predicates = set()
    for b in fn.blocks:
        for ins in b.instrs:
            if isinstance(ins, PredDefine):
                predicates.update(d.name for d in ins.dests)
    for b in fn.blocks:
        _verify_block(fn, b, labels, predicates, functions, globals_, r)


def _verify_block(fn: Function, b: Block, labels: dict, predicates: set, functions: dict,
                  globals_: dict, r: _Reporter) -> None:
    fname, label = fn.name, b.label

    def report(message, ins=None):
        r.report(message, ins.loc if ins is not None else None, b.loc, fn.loc,
                 function=fname, block=label)

    if not b.instrs:
        report("block is empty; it must end with an unguarded br, cbr or ret")
    else:
        last = b.instrs[-1]
        if not last.is_terminator:
            report(f"block does not end with a terminator (last instruction is "
                   f"'{last.opcode}'; end the block with an unguarded br, cbr or ret)", last)
        elif last.guard is not None:
            report(f"block ends with a guarded '{last.opcode}' (a guarded branch is a side "
                   f"exit; the last instruction must be an unguarded br, cbr or ret)", last)
    for ins in b.instrs[:-1]:
        if ins.is_terminator and ins.guard is None:
            report(f"unguarded '{ins.opcode}' before the end of the block (the instructions "
                   f"after it never run; only guarded side exits may appear mid-block)", ins)
    for ins in b.instrs:
        _verify_instr(ins, fn, labels, predicates, functions, globals_, report)
        if isinstance(ins, Call):
            _verify_exits(ins, functions, r.exits, report)


def _verify_exits(ins: Call, functions: dict, exits: dict, report) -> None:
    """Exit splitting: the call names a continuation for every exit of its callee."""
    callee = functions.get(ins.callee)
    if ins.continuations:
        if ins.guard is not None:
            report(f"a call with continuations ('to {', '.join(ins.continuations)}') ends its "
                   f"block and cannot be guarded", ins)
        if callee is not None and (callee.extern or not callee.blocks):
            report(f"call to extern '{ins.callee}' names continuations (only a defined "
                   f"function can return through an exit)", ins)
    top = exits.get(ins.callee)
    if top is None or callee is None:
        return
    where = f" at line {top.loc.line}" if top.loc is not None and top.loc.line else ""
    if not ins.continuations:
        report(f"'{ins.callee}' returns through exit {top.exit} (ret.{top.exit}{where}) but "
               f"this call names no continuations: write 'call {ins.callee}(...) to L0, ..., "
               f"L{top.exit}'", ins)
    elif len(ins.continuations) <= top.exit:
        report(f"call to '{ins.callee}' names {len(ins.continuations)} continuation(s) but "
               f"'{ins.callee}' returns through exit {top.exit} (ret.{top.exit}{where})", ins)


def _class_checks(cls) -> tuple:
    """What ``_verify_instr`` checks on instructions of class ``cls`` beyond every instruction's
    guard, destinations and operands: (branch targets?, predicate define?, the check of its
    own fields or None), by ``issubclass`` in the order the checks were once an ``isinstance``
    chain; looked up once per class (#32: the chain was half of verifying an imported module)."""
    own = next((check for kind, check in ((BinOp, _check_binop), (UnOp, _check_unop),
                                          (Cmp, _check_cmp), ((Load, Store), _check_size),
                                          (Call, _check_call))
                if issubclass(cls, kind)), None)
    return issubclass(cls, BRANCHING), issubclass(cls, PredDefine), own


_CLASS_CHECKS: dict[type, tuple] = {}


def _verify_instr(ins, fn: Function, labels: dict, predicates: set, functions: dict,
                  globals_: dict, report) -> None:
    cls = type(ins)
    checks = _CLASS_CHECKS.get(cls)
    if checks is None:
        checks = _CLASS_CHECKS[cls] = _class_checks(cls)
    targets, pdefine, own = checks
    if targets:
        for t in branch_targets(ins):
            if t not in labels:
                report(f"branch target '{t}' is not a label of function '{fn.name}'", ins)
    guard = ins.guard
    if guard is not None and guard not in TRUE_PREDICATES and guard not in predicates:
        report(f"guard '{guard}' is not a predicate (no predicate define in the function "
               f"writes it; use p0/true or define it with pcmp)", ins)
    if pdefine:
        if not 1 <= len(ins.dests) <= 2:
            report(f"a predicate define has one or two destinations, not {len(ins.dests)}", ins)
        names = [d.name for d in ins.dests]
        if len(set(names)) != len(names):
            report(f"predicate define writes '{names[0]}' twice", ins)
        for d in ins.dests:
            if d.dtype not in DEPOSIT_TYPES:
                report(f"unknown deposit type '{d.dtype}'", ins)
            if d.name in globals_:
                report(f"destination '{d.name}' is the name of a global", ins)
        if ins.rel not in RELATIONS:
            report(f"unknown relation '{ins.rel}'", ins)
    else:
        for d in ins.defs():
            if d in TRUE_PREDICATES:
                report(f"'{d}' is always 1 and cannot be written by '{ins.opcode}' (only a "
                       f"predicate define may name it, and its write is discarded)", ins)
            elif d in predicates:
                report(f"'{d}' is written by a predicate define and also by this "
                       f"'{ins.opcode}' (predicates must be written only by pcmp)", ins)
            elif d in globals_:
                report(f"destination '{d}' is the name of a global", ins)
    if own is not None:
        own(ins, functions, report)
    for op in ins.uses():
        if type(op) is not Reg and isinstance(op, GlobalAddr) and op.name not in globals_:
            report(f"unknown global '{op.name}'", ins)


def _check_binop(ins, functions: dict, report) -> None:
    if ins.op not in BINARY_OPS:
        report(f"unknown binary operator '{ins.op}'", ins)


def _check_unop(ins, functions: dict, report) -> None:
    if ins.op not in UNARY_OPS:
        report(f"unknown unary operator '{ins.op}'", ins)


def _check_cmp(ins, functions: dict, report) -> None:
    if ins.rel not in RELATIONS:
        report(f"unknown relation '{ins.rel}'", ins)


def _check_size(ins, functions: dict, report) -> None:
    if ins.size not in MEMORY_SIZES:
        report(f"'{ins.opcode}' size {ins.size} is not one of 1, 2, 4, 8", ins)


def _check_call(ins, functions: dict, report) -> None:
    callee = functions.get(ins.callee)
    if callee is None:
        report(f"call to undefined function '{ins.callee}' (define it or declare "
               f"'extern func {ins.callee}(...)')", ins)
    else:
        params = callee.params
        variadic = bool(params) and params[-1] == VARIADIC_PARAM
        fixed = len(params) - 1 if variadic else len(params)
        n = len(ins.args)
        if (n < fixed) if variadic else (n != fixed):
            takes = f"at least {fixed}" if variadic else str(fixed)
            report(f"call to '{ins.callee}' passes {n} argument(s) but it takes {takes}",
                   ins)
