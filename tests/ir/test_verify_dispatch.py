"""The verifier's per-class dispatch (verify._CLASS_CHECKS) rejects what the ``isinstance``
chain it replaced rejected, with the same messages in the same order. The oracle is that
chain, kept here as it was (verify.py before #32's lower39): random valid modules
(tests/ir/strategies.py) with instructions broken at random, every error compared."""
from __future__ import annotations

import dataclasses
import random

from pylogic.ir import verify
from pylogic.ir.model import (
    BINARY_OPS, DEPOSIT_TYPES, MEMORY_SIZES, RELATIONS, TRUE_PREDICATES, UNARY_OPS, BinOp,
    Call, Cmp, GlobalAddr, Imm, Load, PredDefine, PredDest, Store, UnOp,
    branch_targets,
)
from tests.ir.strategies import random_module

#: The verifier's own (the tests below patch the module's name in turn).
DISPATCH = verify._verify_instr


def _chain_verify_instr(ins, fn, labels, predicates, functions, globals_, report):
    """verify._verify_instr as an isinstance chain (the former code)."""
    for t in branch_targets(ins):
        if t not in labels:
            report(f"branch target '{t}' is not a label of function '{fn.name}'", ins)
    if ins.guard is not None and ins.guard not in TRUE_PREDICATES and ins.guard not in predicates:
        report(f"guard '{ins.guard}' is not a predicate (no predicate define in the function "
               f"writes it; use p0/true or define it with pcmp)", ins)
    if isinstance(ins, PredDefine):
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
    if isinstance(ins, BinOp) and ins.op not in BINARY_OPS:
        report(f"unknown binary operator '{ins.op}'", ins)
    elif isinstance(ins, UnOp) and ins.op not in UNARY_OPS:
        report(f"unknown unary operator '{ins.op}'", ins)
    elif isinstance(ins, Cmp) and ins.rel not in RELATIONS:
        report(f"unknown relation '{ins.rel}'", ins)
    elif isinstance(ins, (Load, Store)) and ins.size not in MEMORY_SIZES:
        report(f"'{ins.opcode}' size {ins.size} is not one of 1, 2, 4, 8", ins)
    elif isinstance(ins, Call):
        callee = functions.get(ins.callee)
        if callee is None:
            report(f"call to undefined function '{ins.callee}' (define it or declare "
                   f"'extern func {ins.callee}(...)')", ins)
        else:
            params = callee.params
            variadic = bool(params) and params[-1] == verify.VARIADIC_PARAM
            fixed = len(params) - 1 if variadic else len(params)
            n = len(ins.args)
            if (n < fixed) if variadic else (n != fixed):
                takes = f"at least {fixed}" if variadic else str(fixed)
                report(f"call to '{ins.callee}' passes {n} argument(s) but it takes {takes}",
                       ins)
    for op in ins.uses():
        if isinstance(op, GlobalAddr) and op.name not in globals_:
            report(f"unknown global '{op.name}'", ins)


def _break(ins, rng: random.Random, globals_: list, predicates: list):
    """``ins`` with one field set to something a verifier rule rejects (or left as it is)."""
    fields = {f.name for f in dataclasses.fields(ins)}
    changes = {}
    pick = rng.randrange(9)
    if pick == 0:
        changes["guard"] = rng.choice(["nope", "p0", *predicates])
    elif pick == 1 and "dest" in fields:
        changes["dest"] = rng.choice(["p0", "true", *globals_, *predicates, "%fine"])
    elif pick == 2 and "op" in fields:
        changes["op"] = rng.choice(["bogus", "add", "neg", "not"])
    elif pick == 3 and "rel" in fields:
        changes["rel"] = rng.choice(["bogus", "eq"])
    elif pick == 4 and "size" in fields:
        changes["size"] = rng.choice([0, 3, 16, 4])
    elif pick == 5 and "callee" in fields:
        changes["callee"] = rng.choice(["@nowhere", ins.callee])
    elif pick == 6 and "args" in fields:
        changes["args"] = ins.args + (Imm(1),) * rng.randrange(1, 3)
    elif pick == 7:
        for name in ("a", "b", "src", "addr", "value"):
            if name in fields and getattr(ins, name) is not None:
                changes[name] = GlobalAddr(rng.choice(["@missing", *globals_]))
                break
    elif pick == 8 and "dests" in fields:
        d = ins.dests[0]
        changes["dests"] = rng.choice([(d, d), (), (PredDest(name=d.name, dtype="zz"),),
                                       (d, d, d)])
    elif "target" in fields:
        changes["target"] = "nolabel"
    return dataclasses.replace(ins, **changes) if changes else ins


def _errors(module, instr_check, monkeypatch):
    monkeypatch.setattr(verify, "_verify_instr", instr_check)
    return [(str(e), e.function, e.block) for e in verify.verify_module(module)]


#: A phrase of each message ``_verify_instr`` reports: every one must come up below.
RULES = ("is not a label", "is not a predicate", "one or two destinations", "twice",
         "unknown deposit type", "is the name of a global", "unknown relation",
         "is always 1", "written by a predicate define", "unknown binary operator",
         "unknown unary operator", "is not one of 1, 2, 4, 8", "undefined function",
         "argument(s) but it takes", "unknown global")


def test_dispatch_reports_what_the_isinstance_chain_reported(monkeypatch):
    seen = set()
    for seed in range(300):
        rng = random.Random(seed)
        m = random_module(rng)
        assert verify.verify_module(m) == []
        globals_ = [g.name for g in m.globals]
        functions = []
        for fn in m.functions:
            preds = sorted({d.name for b in fn.blocks for i in b.instrs
                            if isinstance(i, PredDefine) for d in i.dests})
            blocks = tuple(dataclasses.replace(b, instrs=tuple(
                _break(i, rng, globals_, preds) if rng.random() < 0.5 else i for i in b.instrs))
                for b in fn.blocks)
            functions.append(dataclasses.replace(fn, blocks=blocks))
        broken = dataclasses.replace(m, functions=tuple(functions))
        new = _errors(broken, DISPATCH, monkeypatch)
        assert new == _errors(broken, _chain_verify_instr, monkeypatch), seed
        seen.update(rule for rule in RULES for message, _, _ in new if rule in message)
    assert seen == set(RULES)


def test_every_instruction_class_is_dispatched():
    from pylogic.ir import model
    for cls in vars(model).values():
        if isinstance(cls, type) and issubclass(cls, model.Instr) and cls is not model.Instr:
            targets, pdefine, own = verify._class_checks(cls)
            assert pdefine == (cls is PredDefine)
            assert (own is None) == (cls not in (BinOp, UnOp, Cmp, Load, Store, Call))
            assert targets == (cls.__name__ in ("Br", "CondBr", "Call"))
