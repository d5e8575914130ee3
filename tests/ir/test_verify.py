"""Verifier: one test per rule, asserting the message and the location (function, block, line)."""
import pytest

from pylogic.errors import VerifyError
from pylogic.ir.model import Block, Function, Global, Imm, Load, Module, Ret
from pylogic.ir.parser import parse_module
from pylogic.ir.verify import VerifyErrors, check_module, verify_module


def only_error(text: str):
    errors = verify_module(parse_module(text, "v.pir"))
    assert len(errors) == 1, [str(e) for e in errors]
    err = errors[0]
    assert isinstance(err, VerifyError) and err.loc.file == "v.pir"
    return err


def test_valid_module_has_no_errors():
    text = ("global g[8]\nextern func ext(a, ...)\nfunc f(a) {\nentry: !hyperblock\n"
            "    p:ut, q:uf = pcmp.eq a, 0\n    (p) br out\n    (q) x = call ext(a, 1, 2)\n"
            "    x = load.4 g\n    (p0) print x\n    br out\nout:\n    ret\n}\n")
    m = parse_module(text)
    assert verify_module(m) == []
    assert check_module(m) is m


def test_block_without_terminator():
    err = only_error("func f() {\nentry:\n    print 1\n}\n")
    assert err.message == ("function 'f', block 'entry': block does not end with a terminator "
                           "(last instruction is 'print'; end the block with an unguarded br, "
                           "cbr or ret)")
    assert (err.loc.line, err.function, err.block) == (3, "f", "entry")


def test_block_ending_with_guarded_terminator():
    err = only_error("func f() {\nentry:\n    p:ut = pcmp.eq 1, 1\n    (p) ret\n}\n")
    assert "block ends with a guarded 'ret'" in err.message and err.loc.line == 4


def test_unguarded_terminator_mid_block():
    err = only_error("func f() {\nentry:\n    ret 1\n    print 2\n    ret\n}\n")
    assert "unguarded 'ret' before the end of the block" in err.message
    assert (err.loc.line, err.block) == (3, "entry")


def test_guarded_side_exits_are_fine():
    m = parse_module("func f() {\nentry:\n    p:ut = pcmp.eq 1, 1\n    (p) br entry\n"
                     "    (p) ret 1\n    ret\n}\n")
    assert verify_module(m) == []


def test_empty_block():
    m = Module(functions=(Function(name="f", blocks=(Block(label="b"),)),), path="m.pir")
    (err,) = verify_module(m)
    assert err.message == ("function 'f', block 'b': block is empty; it must end with an "
                           "unguarded br, cbr or ret")
    assert err.loc.file == "m.pir"  # a built module has no line: the file is still named


def test_branch_target_missing():
    err = only_error("func f(a) {\nentry:\n    cbr a, entry, nowhere\n}\n")
    assert err.message.endswith("branch target 'nowhere' is not a label of function 'f'")
    assert err.loc.line == 3


def test_guard_not_a_predicate():
    err = only_error("func f(a) {\nentry:\n    (a) print 1\n    ret\n}\n")
    assert "guard 'a' is not a predicate" in err.message and err.loc.line == 3


def test_true_predicates_are_guards():
    m = parse_module("func f() {\nentry:\n    (p0) print 1\n    (true) print 2\n    ret\n}\n")
    assert verify_module(m) == []


def test_predicate_also_written_by_ordinary_instruction():
    err = only_error("func f() {\nentry:\n    p:ut = pcmp.eq 1, 1\n    p = mov 1\n    ret\n}\n")
    assert ("'p' is written by a predicate define and also by this 'mov'" in err.message
            and err.loc.line == 4)


def test_write_to_p0():
    err = only_error("func f() {\nentry:\n    p0 = mov 1\n    ret\n}\n")
    assert "'p0' is always 1 and cannot be written" in err.message


def test_duplicate_label():
    err = only_error("func f() {\nentry:\n    br entry\nentry:\n    ret\n}\n")
    assert "duplicate label 'entry' (first at line 2)" in err.message and err.loc.line == 4


def test_duplicate_function():
    err = only_error("func f() {\nentry:\n    ret\n}\nextern func f()\n")
    assert err.message == "duplicate function 'f' (first at line 1)" and err.loc.line == 5


def test_duplicate_global():
    err = only_error("global g[1]\nglobal g = \"x\"\n")
    assert err.message == "duplicate global 'g' (first at line 1)" and err.loc.line == 2


def test_duplicate_param():
    err = only_error("func f(a, a) {\nentry:\n    ret\n}\n")
    assert err.message == "function 'f': duplicate parameter 'a'" and err.loc.line == 1


def test_call_undefined_function():
    err = only_error("func f() {\nentry:\n    call g()\n    ret\n}\n")
    assert "call to undefined function 'g'" in err.message and err.loc.line == 3


def test_call_wrong_arity():
    err = only_error("extern func g(a, b)\nfunc f() {\nentry:\n    x = call g(1)\n    ret\n}\n")
    assert "call to 'g' passes 1 argument(s) but it takes 2" in err.message
    assert err.loc.line == 4


def test_variadic_extern_arity():
    ok = "extern func printf(fmt, ...)\nfunc f() {\nentry:\n    call printf(1, 2, 3)\n    ret\n}\n"
    assert verify_module(parse_module(ok)) == []
    err = only_error(ok.replace("printf(1, 2, 3)", "printf()"))
    assert "passes 0 argument(s) but it takes at least 1" in err.message


def test_function_without_blocks():
    err = only_error("func f() {\n}\n")
    assert err.message.startswith("function 'f': function has no blocks") and err.loc.line == 1


def test_memory_sizes():
    err = only_error("func f(a) {\nentry:\n    x = load.3 a\n    ret\n}\n")
    assert "'load' size 3 is not one of 1, 2, 4, 8" in err.message and err.loc.line == 3
    err = only_error("func f(a) {\nentry:\n    store.16 a, 1\n    ret\n}\n")
    assert "'store' size 16 is not one of 1, 2, 4, 8" in err.message


def test_destination_named_like_global():
    err = only_error("global g[8]\nfunc f() {\nentry:\n    g = mov 1\n    ret\n}\n")
    assert "destination 'g' is the name of a global" in err.message


def test_built_module_checks():
    m = Module(functions=(Function(name="f", blocks=(Block(label="b", instrs=(
        Load(dest="x", addr=Imm(0), size=5), Ret())),)),),
        globals=(Global(name="g", size=1, init=b"abc"),))
    messages = [e.message for e in verify_module(m)]
    assert messages == ["global 'g' has 3 initial bytes but size 1",
                        "function 'f', block 'b': 'load' size 5 is not one of 1, 2, 4, 8"]


def test_check_module_raises_all_errors():
    m = parse_module("func f() {\nentry:\n    print 1\n}\nfunc f() {\nb:\n    ret\n}\n", "x.pir")
    with pytest.raises(VerifyErrors) as info:
        check_module(m)
    assert len(info.value.errors) == 2
    text = str(info.value)
    assert "x.pir:3:5: verify error:" in text and "x.pir:5:1: verify error:" in text
    assert isinstance(info.value, VerifyError)
