"""Hypothesis strategies: small random PIR functions full of predicate defines."""
from hypothesis import strategies as st

from pylogic.ir.model import (
    DEPOSIT_TYPES, RELATIONS, Block, Br, CondBr, Function, Imm, Input, PredDefine, PredDest,
    Reg, Ret,
)

PREDS = ["p1", "p2", "p3", "p4"]


@st.composite
def defines(draw, regs, n_max=4):
    out = []
    for _ in range(draw(st.integers(0, n_max))):
        kind = draw(st.integers(0, 9))
        if kind == 0 and "r3" in regs:
            out.append(Input(dest="r3"))
            continue
        a = Reg(draw(st.sampled_from(regs)))
        b = Reg(draw(st.sampled_from(regs))) if kind == 1 else Imm(draw(st.integers(-2, 2)))
        if kind == 2:
            a, b = b, a
        d1 = draw(st.sampled_from(PREDS))
        dests = [PredDest(d1, draw(st.sampled_from(DEPOSIT_TYPES)))]
        if draw(st.booleans()):
            dests.append(PredDest(draw(st.sampled_from([p for p in PREDS if p != d1])),
                                  draw(st.sampled_from(DEPOSIT_TYPES))))
        guard = draw(st.sampled_from([None, None, "p0"] + PREDS))
        out.append(PredDefine(guard=guard, rel=draw(st.sampled_from(RELATIONS)),
                              dests=tuple(dests), a=a, b=b))
    return out


@st.composite
def functions(draw):
    """A hyperblock, a diamond (merge) or a loop, each block holding random defines."""
    shape = draw(st.sampled_from(["hyper", "diamond", "loop", "nested"]))
    regs = ["r1", "r2"] if shape == "hyper" else ["r1", "r2", "r3"]
    blk = lambda label, term, n=4: Block(label=label, instrs=tuple(draw(defines(regs, n))) + term)  # noqa
    if shape == "hyper":
        blocks = [blk("entry", (Ret(),), 6)]
    elif shape == "diamond":
        blocks = [blk("entry", (CondBr(cond=Reg("r1"), if_true="L", if_false="R"),)),
                  blk("L", (Br(target="M"),)), blk("R", (Br(target="M"),)),
                  blk("M", (Ret(),))]
    elif shape == "loop":
        blocks = [blk("pre", (Br(target="loop"),)),
                  blk("loop", (CondBr(cond=Reg("r3"), if_true="loop", if_false="exit"),)),
                  blk("exit", (Ret(),), 2)]
    else:
        blocks = [blk("pre", (Br(target="head"),), 2),
                  blk("head", (CondBr(cond=Reg("r2"), if_true="a", if_false="b"),), 2),
                  blk("a", (Br(target="latch"),), 2), blk("b", (Br(target="latch"),), 2),
                  blk("latch", (CondBr(cond=Reg("r3"), if_true="head", if_false="exit"),), 2),
                  blk("exit", (Ret(),), 1)]
    return Function(name="gen", params=("r1", "r2"), blocks=tuple(blocks))
