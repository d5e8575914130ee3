"""Parser: every form of IR.md parses to the expected model objects (one focused test each)."""
import pytest

from pylogic.errors import ParseErrors, PathlogicError, ParseError
from pylogic.ir.deposit_types import IA64_COMPLETERS
from pylogic.ir.model import (
    Alloca, BinOp, Br, Call, Cmp, CondBr, Global, GlobalAddr, Imm, Input, Load, Mov, PredDefine,
    PredDest, Print, Reg, Ret, Select, Store, UnOp,
)
from pylogic.ir.parser import parse_file, parse_module
from pylogic.ir.verify import verify_module

# IR.md "Example": Figure 3(b) of the predicate-analysis paper.
FIG3B = """\
func fig3b(r1) {
entry: !hyperblock
    p2:uf = pcmp.eq 0, 0            ; p2 := 0
    p1:ut, p2:of = pcmp.gt r1, -8
    (p1) p3:ut, p2:of = pcmp.lt r1, 8
    (p3) p4:ut = pcmp.eq r1, 0
    (p2) p5:ut = pcmp.lt r1, 0
    (p3) print 1                    ; stmtA
    (p2) print 3                    ; stmtC
    (p4) print 2                    ; stmtB
    (p5) print 4                    ; stmtD
    ret
}
"""


def body(*lines: str) -> str:
    return "func f(a, b) {\nentry:\n" + "".join(f"    {l}\n" for l in lines) + "    ret\n}\n"


def first_instr(line: str):
    return parse_module(body(line)).functions[0].blocks[0].instrs[0]


def test_fig3b_parses_to_expected_model():
    m = parse_module(FIG3B, "fig3b.pir")
    (fn,) = m.functions
    assert fn.name == "fig3b" and fn.params == ("r1",)
    (block,) = fn.blocks
    assert block.label == "entry" and block.hyperblock
    ins = block.instrs
    assert len(ins) == 10
    assert ins[0] == PredDefine(rel="eq", dests=(PredDest("p2", "uf"),), a=Imm(0), b=Imm(0))
    assert ins[1] == PredDefine(rel="gt", dests=(PredDest("p1", "ut"), PredDest("p2", "of")),
                                a=Reg("r1"), b=Imm(-8))
    assert ins[2].guard == "p1" and ins[2].dests == (PredDest("p3", "ut"), PredDest("p2", "of"))
    assert ins[5] == Print(value=Imm(1), guard="p3")
    assert ins[9] == Ret(value=None)
    assert ins[1].loc.line == 4 and ins[1].loc.col == 5 and ins[1].loc.file == "fig3b.pir"
    assert verify_module(m) == []


@pytest.mark.parametrize("line,expected", [
    ("x = mov a", Mov(dest="x", src=Reg("a"))),
    ("x = neg a", UnOp(op="neg", dest="x", a=Reg("a"))),
    ("x = not 5", UnOp(op="not", dest="x", a=Imm(5))),
    ("x = cmp.leu a, b", Cmp(rel="leu", dest="x", a=Reg("a"), b=Reg("b"))),
    ("x = select a, 1, b", Select(dest="x", cond=Reg("a"), a=Imm(1), b=Reg("b"))),
    ("x = load a", Load(dest="x", addr=Reg("a"), size=8, signed=True)),
    ("x = load.2 a", Load(dest="x", addr=Reg("a"), size=2, signed=True)),
    ("x = load.1u a", Load(dest="x", addr=Reg("a"), size=1, signed=False)),
    ("store a, b", Store(addr=Reg("a"), value=Reg("b"), size=8)),
    ("store.4 a, 7", Store(addr=Reg("a"), value=Imm(7), size=4)),
    ("x = alloca 16", Alloca(dest="x", size=Imm(16))),
    ("x = call f(a, 2)", Call(dest="x", callee="f", args=(Reg("a"), Imm(2)))),
    ("call f(a, b)", Call(dest=None, callee="f", args=(Reg("a"), Reg("b")))),
    ("x = input", Input(dest="x")),
    ("print b", Print(value=Reg("b"))),
])
def test_instruction_forms(line, expected):
    assert first_instr(line) == expected


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl",
                                "shr", "sar"])
def test_binary_ops(op):
    assert first_instr(f"x = {op} a, -3") == BinOp(op=op, dest="x", a=Reg("a"), b=Imm(-3))


def test_terminators_and_side_exits():
    text = ("func f(a) {\nentry: !hyperblock\n    (p) br other\n    (p) cbr a, other, entry\n"
            "    (p) ret a\n    p:ut = pcmp.eq a, 0\n    cbr a, other, entry\nother:\n"
            "    br entry\n}\n")
    m = parse_module(text)
    entry, other = m.functions[0].blocks
    assert entry.instrs[0] == Br(target="other", guard="p")
    assert entry.instrs[1] == CondBr(cond=Reg("a"), if_true="other", if_false="entry", guard="p")
    assert entry.instrs[2] == Ret(value=Reg("a"), guard="p")
    assert entry.successors() == ("other", "entry")
    assert other.instrs == (Br(target="entry"),) and not other.hyperblock
    assert verify_module(m) == []


@pytest.mark.parametrize("dtype", ["ut", "uf", "ot", "of", "at", "af", "ct", "cf", "disjt",
                                   "disjf", "conjt", "conjf"])
def test_deposit_types(dtype):
    ins = first_instr(f"p:{dtype} = pcmp.ne a, b")
    assert ins == PredDefine(rel="ne", dests=(PredDest("p", dtype),), a=Reg("a"), b=Reg("b"))


@pytest.mark.parametrize("alias,canonical", [("∨t", "disjt"), ("∨f", "disjf"),
                                             ("∧t", "conjt"), ("∧f", "conjf")])
def test_unicode_aliases_store_canonical_name(alias, canonical):
    ins = first_instr(f"p:{alias}, q:{alias} = pcmp.lt a, b")
    assert ins.dests == (PredDest("p", canonical), PredDest("q", canonical))


# IR.md: .unc = ut,uf; plain = ct,cf; .or = ot,ot; .orcm = of,of; .and = at,at;
# .andcm = af,af; .or.andcm = ot,af; .and.orcm = at,of.
IA64_EXPECTED = {"unc": ("ut", "uf"), "": ("ct", "cf"), "or": ("ot", "ot"),
                 "orcm": ("of", "of"), "and": ("at", "at"), "andcm": ("af", "af"),
                 "or.andcm": ("ot", "af"), "and.orcm": ("at", "of")}


@pytest.mark.parametrize("completer", sorted(IA64_EXPECTED))
def test_ia64_completers(completer):
    assert IA64_COMPLETERS[completer] == IA64_EXPECTED[completer]
    op = "pcmp.gtu" + (f".{completer}" if completer else "")
    ins = first_instr(f"(g) {op} p1, p2 = a, 0x10")
    t1, t2 = IA64_EXPECTED[completer]
    assert ins == PredDefine(rel="gtu", dests=(PredDest("p1", t1), PredDest("p2", t2)),
                             a=Reg("a"), b=Imm(16), guard="g")


def test_ia64_single_destination_extension():
    ins = first_instr("pcmp.eq.unc p1 = a, b")
    assert ins.dests == (PredDest("p1", "ut"),)


def test_two_destination_define_and_guard():
    ins = first_instr("(p0) p1:at, p2:cf = pcmp.ge a, b")
    assert ins.guard == "p0"
    assert ins.dests == (PredDest("p1", "at"), PredDest("p2", "cf"))
    assert ins.defs() == ("p1", "p2")


def test_hyperblock_and_annotations():
    text = ("func f() { #hot=1\nentry: !hyperblock #freq=1000 #line=3\n"
            "    (true) x = add 1, 2 #line=12 #note=a:b/c\n    ret x #line=13\n}\n")
    fn = parse_module(text).functions[0]
    assert fn.annotations == (("hot", "1"),)
    block = fn.blocks[0]
    assert block.hyperblock and block.annotations == (("freq", "1000"), ("line", "3"))
    assert block.instrs[0].annotations == (("line", "12"), ("note", "a:b/c"))
    assert block.instrs[0].guard == "true"
    assert block.instrs[1].annotations == (("line", "13"),)


@pytest.mark.parametrize("literal,value", [
    ("0x1F", 31), ("-0x1F", -31), ("-8", -8), ("+7", 7), ("0", 0),
    ("0xFFFFFFFFFFFFFFFF", -1), ("9223372036854775807", 2**63 - 1),
    ("-9223372036854775808", -2**63), ("18446744073709551615", -1), ("0X10", 16),
])
def test_integer_literals(literal, value):
    assert first_instr(f"x = mov {literal}") == Mov(dest="x", src=Imm(value))


def test_percent_and_at_names():
    text = "func @main(%a) {\n%entry:\n    %x = add %a, @g\n    ret %x\n}\nglobal @g[8]\n"
    m = parse_module(text)
    fn = m.functions[0]
    assert fn.name == "@main" and fn.params == ("%a",) and fn.blocks[0].label == "%entry"
    assert fn.blocks[0].instrs[0] == BinOp(op="add", dest="%x", a=Reg("%a"),
                                           b=GlobalAddr("@g"))
    assert verify_module(m) == []


def test_globals_three_forms_and_late_declaration():
    text = ('func f() {\nentry:\n    x = load buf\n    print s\n    ret init\n}\n'
            'global buf[16]\n'
            'global init[8] = {1, 2, 0xff}\n'
            'global s = "a;b\\n\\"q\\"\\0\\x41" ; a comment; with "quotes"\n')
    m = parse_module(text)
    assert m.globals == (Global(name="buf", size=16),
                         Global(name="init", size=8, init=bytes([1, 2, 255])),
                         Global(name="s", size=10, init=b'a;b\n"q"\x00A'))
    ins = m.functions[0].blocks[0].instrs
    assert ins[0].addr == GlobalAddr("buf") and ins[1].value == GlobalAddr("s")
    assert ins[2].value == GlobalAddr("init")


def test_extern_and_empty_params():
    m = parse_module("extern func putchar(c)\nfunc main() {\nentry:\n    call putchar(65)\n"
                     "    ret\n}\n")
    ext, main = m.functions
    assert ext.extern and ext.params == ("c",) and ext.blocks == ()
    assert main.params == () and not main.extern
    assert verify_module(m) == []


def test_instruction_after_label_extension_and_comments_blank_lines():
    m = parse_module("; header\n\nfunc f() {\n\nentry: x = mov 1 ; c\n   ; only a comment\n"
                     "exit: !hyperblock ret x\n}\n")
    entry, exit_ = m.functions[0].blocks
    assert entry.instrs == (Mov(dest="x", src=Imm(1)),)
    assert exit_.hyperblock and exit_.instrs == (Ret(value=Reg("x")),)


def test_keyword_like_register_names():
    m = parse_module("func f(func) {\nret:\n    global = add func, 1\n"
                     "    pcmp.eq:ut = pcmp.eq global, 0\n    (pcmp.eq) br ret\n    ret global\n}\n")
    ins = m.functions[0].blocks[0].instrs
    assert ins[0] == BinOp(op="add", dest="global", a=Reg("func"), b=Imm(1))
    assert ins[1].dests == (PredDest("pcmp.eq", "ut"),)
    assert ins[2] == Br(target="ret", guard="pcmp.eq")


def error_messages(text: str) -> list[str]:
    with pytest.raises(ParseErrors) as info:
        parse_module(text, "bad.pir")
    for err in info.value.errors:
        assert isinstance(err, ParseError) and err.loc.file == "bad.pir" and err.loc.line >= 1
    return [f"{e.loc.line}:{e.loc.col}: {e.message}" for e in info.value.errors]


@pytest.mark.parametrize("line,expected", [
    ("x = addd a, b", "3:9: unknown opcode 'addd' (expected one of: add, sub,"),
    ("x = add a b", "3:15: expected ',' after first operand"),
    ("p:zz = pcmp.eq a, b", "3:7: unknown deposit type 'zz'"),
    ("x = mov 0x", "3:13: bad integer literal '0x'"),
    ("x = mov 1 #k=v junk", "3:20: unexpected 'junk' after an annotation"),
    ("x = cmp.eqq a, b", "3:9: unknown relation 'eqq' in 'cmp.eqq'"),
    ("pcmp.eq.xor p, q = a, b", "3:5: unknown IA-64 completer '.xor'"),
    ("p:ut = pcmp.eq.unc a, b", "3:12: completer '.unc' is only allowed in the IA-64 form"),
    ("x = pcmp.eq a, b", "3:9: a predicate define names each destination's deposit type"),
    ("add a, b", "3:5: 'add' needs a destination"),
    ("x = print a", "3:9: 'print' produces no value"),
    ("x = mov a, b", "3:14: unexpected ',' after the last operand of 'mov'"),
    ("(p x = mov a", "3:8: expected ')' after guard predicate 'p'"),
    ("x = mov €", "3:13: unexpected character '€'"),
])
def test_located_error_messages(line, expected):
    messages = error_messages(body(line))
    assert messages[0].startswith(expected), messages


def test_unterminated_function_recovers_at_next_func():
    text = ("func f() {\nentry:\n    ret\n"  # missing }
            "func g() {\nentry:\n    x = addd 1, 2\n    ret\n}\n"
            "func h() {\nentry:\n    ret 3\n}\n")
    with pytest.raises(ParseErrors) as info:
        parse_module(text)
    msgs = [(e.loc.line, e.message) for e in info.value.errors]
    assert msgs[0] == (1, "unterminated function 'f' (missing '}')")
    assert msgs[1][0] == 6 and msgs[1][1].startswith("unknown opcode 'addd'")
    assert [f.name for f in info.value.partial.functions] == ["h"]


def test_instruction_before_first_label():
    messages = error_messages("func f() {\n    ret\n}\n")
    assert messages == ["2:5: instruction before the first label in function 'f' (start the "
                        "body with a label such as 'entry:')"]


def test_errors_keep_other_functions_and_globals():
    text = ("global g[4]\nfunc a() {\nentry:\n    ret\n}\nfunc b() {\nentry:\n    x = \n"
            "    ret\n}\nglobal bad[-1]\nfunc c() {\nentry:\n    ret\n}\n")
    with pytest.raises(ParseErrors) as info:
        parse_module(text)
    partial = info.value.partial
    assert [f.name for f in partial.functions] == ["a", "c"]
    assert [g.name for g in partial.globals] == ["g"]
    assert len(info.value.errors) == 2


def test_parse_file_errors(tmp_path):
    bad = tmp_path / "latin1.pir"
    bad.write_bytes(b"func f() {\nentry:\n    ret \xe9\n}\n")
    with pytest.raises(ParseError) as info:
        parse_file(bad)
    assert (info.value.loc.line, info.value.loc.col) == (3, 9)
    with pytest.raises(PathlogicError, match="cannot read"):
        parse_file(tmp_path / "missing.pir")
    with pytest.raises(PathlogicError, match="cannot read"):
        parse_file(tmp_path)
    good = tmp_path / "fig3b.pir"
    good.write_text(FIG3B, encoding="utf-8")
    assert parse_file(good).path == str(good)
