"""Validation never claims what it did not check (issue #11 item 3): through the CLI,
``if-convert --validate``, ``optimize --validate`` and ``validate`` print ``identical`` and exit 0
only when both runs completed normally and agreed; a run that stopped on an error, exhausted
input or fuel, a missing ``main`` or an external the interpreter lacks is "could not be checked"
(exit 2), a real difference exit 1. Programs are written at test time."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from pylogic.cli import main
from pylogic.interp import run_module
from pylogic.interp.differential import (DIFFERENT, IDENTICAL, NOT_COMPARED, START_FUNCTION,
                                         with_argv)
from pylogic.ir.parser import parse_module
from pylogic.ir.verify import verify_module
from tests.support import needs_clang

#: Reads one input, branches on it (if-conversion merges the diamond).
READS = """func main() {
entry:
    x = input
    c = cmp.lt x, 3
    cbr c, small, big
small:
    print 1
    br join
big:
    print 2
    br join
join:
    ret x
}
"""

#: Divides by its argument on one side of a diamond.
DIVIDES = """func main(n) {
entry:
    print n
    c = cmp.lt n, 3
    cbr c, low, high
low:
    y = div 10, n
    br join
high:
    y = mov 2
    br join
join:
    print y
    ret y
}
"""

#: Never stops (a diamond inside an endless loop).
SPINS = """func main() {
entry:
    i = mov 0
    br head
head:
    c = cmp.lt i, 3
    cbr c, up, down
up:
    i = add i, 0
    br head
down:
    print i
    ret i
}
"""


def write(tmp_path, text, name):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def if_convert(path, *options):
    """``pathlogic if-convert PATH --validate`` -> (exit status, everything printed)."""
    return path, ["if-convert", path, "--validate", "--engine", "clingo", *options]


def run_cli(argv, capsys):
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out + out.err


# ---------------------------------------------------------------- if-convert --validate

def test_input_read_without_inputs_is_not_identical(tmp_path, capsys):
    path = write(tmp_path, READS, "reads.pir")
    rc, text = run_cli(["if-convert", path, "--validate", "-o", str(tmp_path / "o.pir")], capsys)
    assert "1 region(s) converted" in text          # there was something to check
    assert rc == 2 and "identical" not in text
    assert "not compared: both runs stopped on the same run-time error: input exhausted" in text
    assert "validation: could not be checked" in text
    # the same program with its inputs is checked, and identical
    rc, text = run_cli(["if-convert", path, "--validate", "-o", str(tmp_path / "o.pir"),
                        "--inputs", "1", "--inputs", "7"], capsys)
    assert rc == 0 and text.count("identical") == 2
    # one case short of input: the whole check is not identical
    rc, text = run_cli(["if-convert", path, "--validate", "-o", str(tmp_path / "o.pir"),
                        "--inputs", "1", "--inputs", ""], capsys)
    assert rc == 2 and "validation: could not be checked" in text


def test_division_by_zero_is_not_identical(tmp_path, capsys):
    path = write(tmp_path, DIVIDES, "divides.pir")
    rc, text = run_cli(["if-convert", path, "--validate", "-o", str(tmp_path / "o.pir"),
                        "--args", "0"], capsys)
    assert "1 region(s) converted" in text
    assert rc == 2 and "identical" not in text
    assert "both runs stopped on the same run-time error: division by zero" in text
    rc, text = run_cli(["if-convert", path, "--validate", "-o", str(tmp_path / "o.pir"),
                        "--args", "2"], capsys)
    assert rc == 0 and "identical" in text


def test_fuel_exhaustion_is_not_identical(tmp_path, capsys):
    path = write(tmp_path, SPINS, "spins.pir")
    rc, text = run_cli(["if-convert", path, "--validate", "-o", str(tmp_path / "o.pir"),
                        "--fuel", "1000"], capsys)
    assert "1 region(s) converted" in text
    assert rc == 2 and "identical" not in text and "fuel exhausted" in text


def test_json_carries_the_verdict_and_its_reason(tmp_path, capsys):
    path = write(tmp_path, DIVIDES, "divides.pir")
    rc = main(["if-convert", path, "--validate", "--json", "-o", str(tmp_path / "o.pir"),
               "--args", "0"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 2
    assert data["validation_verdict"]["verdict"] == NOT_COMPARED
    assert data["validation_verdict"]["exit_status"] == 2
    assert "division by zero" in data["validation_verdict"]["reason"]
    [case] = data["validation"]
    assert case["identical"] is False and case["verdict"] == NOT_COMPARED


def test_unreadable_file_under_validate_is_not_checked(tmp_path, capsys):
    bad = write(tmp_path, "func main() {\nentry:\n    x = frob 1\n    ret 0\n}\n", "bad.pir")
    rc, text = run_cli(["if-convert", bad, "--validate"], capsys)
    assert rc == 2 and "bad.pir:3" in text and "identical" not in text
    rc, _ = run_cli(["if-convert", bad], capsys)     # no claim asked for: a plain error
    assert rc == 1


# ---------------------------------------------------------------- optimize --validate

def test_optimize_validate_statuses(tmp_path, capsys):
    path = write(tmp_path, DIVIDES, "divides.pir")
    base = ["optimize", path, "--passes", "if-convert", "--validate", "--engine", "clingo"]
    rc, text = run_cli(base + ["--args", "2"], capsys)
    assert rc == 0 and "identical" in text
    rc, text = run_cli(base + ["--args", "0"], capsys)
    assert rc == 2 and "identical" not in text and "both runs stopped" in text
    # a directory with a file that does not load: that file was not checked
    write(tmp_path, "func main() {\nentry:\n    x = frob 1\n    ret 0\n}\n", "bad.pir")
    rc, text = run_cli(["optimize", str(tmp_path), "--passes", "if-convert", "--validate",
                        "--args", "2", "--engine", "clingo"], capsys)
    assert rc == 2 and "bad.pir:3" in text
    rc, _ = run_cli(["optimize", str(tmp_path), "--passes", "if-convert", "--engine", "clingo"],
                    capsys)
    assert rc == 1                                    # without --validate: a failure


def test_optimize_validate_error_on_one_side_is_different(tmp_path, capsys, monkeypatch):
    import dataclasses
    from pylogic.ir.model import BinOp, Imm
    from pylogic.transforms import registry
    from pylogic.transforms.record import TransformRecord

    def divide_by_zero(module, rows):   # a deliberately broken pass: divides by 0 before ret
        fn = module.functions[0]
        last = fn.blocks[-1]
        bad = BinOp(op="div", dest="zz", a=Imm(1), b=Imm(0))
        last = dataclasses.replace(last, instrs=last.instrs[:-1] + (bad, last.instrs[-1]))
        fn = dataclasses.replace(fn, blocks=fn.blocks[:-1] + (last,))
        return dataclasses.replace(module, functions=(fn,)), TransformRecord("divide")

    monkeypatch.setitem(registry.PASSES, "divide",
                        registry.Pass("divide", divide_by_zero, (), "test only"))
    path = write(tmp_path, DIVIDES, "divides.pir")
    rc, text = run_cli(["optimize", path, "--passes", "divide", "--validate", "--args", "2"],
                       capsys)
    assert rc == 1 and "behaves differently" in text
    assert "run-time error: before None vs after 'division by zero'" in text


# ---------------------------------------------------------------- argc/argv of the PIR run

ARGV_PIR = """func main(argc, argv, envp) {
entry:
    print argc
    a1 = add argv, 8
    p = load a1
    ch = load.1u p
    print ch
    a2 = add argv, 16
    end = load a2
    print end
    e = load envp
    print e
    r = mul argc, 10
    ret r
}
"""


def test_with_argv_lays_out_argc_argv_and_envp():
    module = parse_module(ARGV_PIR, "argv.pir")
    started, entry = with_argv(module, ["prog.c", "Z"])
    assert entry == START_FUNCTION and verify_module(started) == []
    res = run_module(started, entry=entry)
    assert res.error is None and res.prints == [2, ord("Z"), 0, 0] and res.return_value == 20
    # plain PIR keeps IR.md's rule: main's parameters take --args values
    assert run_module(module, args=(3, 0, 0)).prints[0] == 3
    # a main without parameters is called without arguments; no main: nothing added
    bare = parse_module("func main() {\nentry:\n    ret 4\n}\n", "bare.pir")
    assert run_module(*with_argv(bare, ["b"])).return_value == 4
    other = parse_module("func f() {\nentry:\n    ret 4\n}\n", "f.pir")
    assert with_argv(other, ["f"]) == (other, "main")


# ---------------------------------------------------------------- validate (native vs PIR)

ARGC_C = r"""
#include <stdio.h>
int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) printf("[%s]", argv[i]);
    printf("\n");
    return argc * 10;
}
"""


def validate(tmp_path, capsys, source, *options, name="p.c"):
    path = write(tmp_path, source, name)
    rc = main(["validate", path, "--json", "--timeout", "30", *options])
    return rc, json.loads(capsys.readouterr().out)


@needs_clang
def test_argc_and_argv_are_seen_as_natively(tmp_path, capsys):
    rc, v = validate(tmp_path, capsys, ARGC_C)
    assert rc == 0 and v["status"] == IDENTICAL and v["native_exit"] == 10, v
    rc, v = validate(tmp_path, capsys, ARGC_C, "--args", "alpha", "-3")
    assert rc == 0 and v["status"] == IDENTICAL, v
    assert v["native_exit"] == 30 and v["pir_stdout"] == "[alpha][-3]\n"


@needs_clang
@pytest.mark.parametrize("source, status, words", [
    ('#include <stdio.h>\nint main(void) { int x = 0; printf("go\\n");\n'
     '  if (scanf("%d", &x) != 1) x = 3; return x; }\n', "unsupported", "scanf"),
    ('#include <setjmp.h>\nstatic jmp_buf b;\nstatic void f(int x) { if (x) longjmp(b, x); }\n'
     'int main(void) { int r = setjmp(b); if (!r) f(4); return r; }\n', "unsupported", "setjmp"),
    ("int helper(int x) { return x + 1; }\n", "no-main", "no main"),
    ('#include <stdio.h>\nint d(int a) { return 100 / a; }\nint main(int argc, char **argv) {\n'
     '  printf("start\\n"); fflush(stdout); return d(argc - 1); }\n', "both-stopped",
     "division by zero"),
    ('__attribute__((noinline)) int f(int x) { __asm__("" : "+r"(x)); return x; }\n'
     'int main(void) { return f(3); }\n', "unsupported", "skipped at import: inline asm"),
], ids=["scanf", "setjmp", "no-main", "division-by-zero", "skipped-function"])
@pytest.mark.slow
def test_programs_that_cannot_be_checked_exit_2(tmp_path, capsys, source, status, words):
    rc, v = validate(tmp_path, capsys, source)
    assert rc == 2 and v["status"] == status and v["verdict"] == NOT_COMPARED, v
    assert words in v["detail"]
    rc = main(["validate", str(tmp_path / "p.c")])     # the text form says so, never identical
    text = capsys.readouterr().out
    assert rc == 2 and f"could not be checked ({status})" in text and "identical" not in text


@needs_clang
def test_a_real_difference_still_exits_1(tmp_path, capsys, monkeypatch):
    from pylogic.commands import validate as validate_cmd
    real = validate_cmd.run_native

    def off_by_one(path, args=(), timeout=10.0, exe_dir=None, ldflags=()):
        out, status = real(path, args, timeout, exe_dir, ldflags)
        return out, status + 1
    monkeypatch.setattr(validate_cmd, "run_native", off_by_one)
    rc, v = validate(tmp_path, capsys, ARGC_C)
    assert rc == 1 and v["status"] == DIFFERENT and v["detail"] == "exit status: native 11 vs pir 10"


@needs_clang
@pytest.mark.skipif(shutil.which("ar") is None, reason="ar (binutils) not installed")
@pytest.mark.slow
def test_ldflags_link_the_native_build(tmp_path, capsys):
    from tests.support import clang_path
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "triple.c").write_text("int triple(int x) { return 3 * x; }\n")
    subprocess.run([clang_path(), "-c", str(lib / "triple.c"), "-o", str(lib / "triple.o")],
                   check=True)
    subprocess.run(["ar", "rcs", str(lib / "libtriple.a"), str(lib / "triple.o")], check=True)
    source = ('#include <stdio.h>\nint triple(int);\nint main(int argc, char **argv) {\n'
              '  printf("%d\\n", argc);\n  if (argc > 50) return triple(argc);\n'
              '  return argc + 1; }\n')
    rc, v = validate(tmp_path, capsys, source)            # the native build does not link
    assert rc == 2 and v["status"] == "native-error" and "--ldflags" in v["detail"], v
    rc, v = validate(tmp_path, capsys, source, f"--ldflags=-L{lib} -ltriple")
    assert rc == 0 and v["status"] == IDENTICAL and v["native_exit"] == 2, v
    rc, v = validate(tmp_path, capsys, source, f"--ldflags=-L{lib}", "--ldflags", "-ltriple",
                     "--args", "x")                   # the spelling: --ldflags -lz
    assert rc == 0 and v["status"] == IDENTICAL and v["native_exit"] == 3, v


def test_validate_refuses_other_files_as_not_checked(tmp_path, capsys):
    path = write(tmp_path, "func main() {\nentry:\n    ret 0\n}\n", "p.pir")
    rc, text = run_cli(["validate", path], capsys)
    assert rc == 2 and "validate takes a .c or .ll file" in text
