"""``ir.model.with_operands`` maps exactly the operands ``uses()`` names, in its order, and
gives the instruction itself back when nothing changes (sccp's and simplify's rewrites call it)."""
import random

from pylogic.ir.model import Call, Imm, Instr, Reg, _OPERAND_FIELDS, with_operands
from tests.ir.strategies import random_module


def _every_instruction_class(cls=Instr):
    for sub in cls.__subclasses__():
        yield sub
        yield from _every_instruction_class(sub)


def test_every_instruction_class_with_operands_is_known():
    for cls in _every_instruction_class():
        if cls.uses is not Instr.uses:
            assert cls is Call or cls in _OPERAND_FIELDS, cls.__name__


def test_operands_mapped_in_uses_order_and_unchanged_ones_kept():
    seen = set()
    for seed in range(200):
        m = random_module(random.Random(seed))
        for fn in m.functions:
            for b in fn.blocks:
                for ins in b.instrs:
                    assert with_operands(ins, lambda a: a) is ins
                    asked = []

                    def bump(a):
                        asked.append(a)
                        return Imm(len(asked)) if isinstance(a, Reg) else a
                    new = with_operands(ins, bump)
                    assert tuple(asked) == ins.uses()
                    assert new.uses() == tuple(Imm(k + 1) if isinstance(a, Reg) else a
                                               for k, a in enumerate(asked))
                    assert new.guard == ins.guard and new.defs() == ins.defs()
                    assert (new is ins) == (not any(isinstance(a, Reg) for a in asked))
                    seen.add(type(ins))
    assert len(seen) >= 8, seen     # the generator really covers the classes
