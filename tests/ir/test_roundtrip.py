"""Round trip (parse(print(m)) == m) on generated modules, and robustness on 1,000 corrupted
inputs: every outcome is a clean module, located ParseErrors or located VerifyErrors."""
import random

import pytest
from hypothesis import HealthCheck, given, settings

from pylogic.errors import ParseErrors
from pylogic.ir.model import Module, PredDefine
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_function, print_module
from pylogic.ir.verify import verify_module
from tests.ir.strategies import ALL_KINDS, modules, random_module


@pytest.mark.slow
@settings(max_examples=200, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(modules())
def test_generated_modules_round_trip(m):
    assert verify_module(m) == []
    text = print_module(m)
    assert parse_module(text) == m
    assert print_module(parse_module(text)) == text  # printing is canonical


def test_generators_cover_every_feature():
    """The corpus the round trip runs on really contains each feature (else the test is weak)."""
    seen = set()
    for seed in range(300):
        m = random_module(random.Random(seed))
        seen.update("extern" for f in m.functions if f.extern)
        seen.update("global-" + ("str" if g.size == len(g.init) + 1 else "bytes")
                    for g in m.globals if g.init)
        for f in m.functions:
            seen.update("variadic" for p in f.params if p == "...")
            for b in f.blocks:
                seen.update(["hyperblock"] if b.hyperblock else [])
                seen.update(["block-annotation"] if b.annotations else [])
                for i, ins in enumerate(b.instrs):
                    seen.add(type(ins).__name__)
                    seen.update(["guard"] if ins.guard else [])
                    seen.update(["annotation"] if ins.annotations else [])
                    if ins.is_terminator and ins.guard and i < len(b.instrs) - 1:
                        seen.add("side-exit")
                    if isinstance(ins, PredDefine):
                        seen.add(f"dests{len(ins.dests)}")
                        seen.update(d.dtype for d in ins.dests)
    expected = {"Mov", "BinOp", "UnOp", "Cmp", "Select", "PredDefine", "Load", "Store", "Alloca",
                "Call", "Input", "Print", "Br", "CondBr", "Ret", "guard", "annotation",
                "side-exit", "hyperblock", "block-annotation", "extern", "variadic",
                "global-str", "global-bytes", "dests1", "dests2", "ut", "uf", "ot", "of", "at",
                "af", "ct", "cf", "disjt", "disjf", "conjt", "conjf"}
    assert expected <= seen, expected - seen
    assert len(ALL_KINDS) == 14


# ---------------------------------------------------------------- corrupted inputs

BAD_TOKENS = ["@", "%", "}", "{", ",", "=", ":", "(", ")", '"', "0x", "12abc", "-", "#",
              "99999999999999999999999", "pcmp.eq", "!foo", "∨x", "é", "\x00", "addd", ";",
              "func", "global", "p:zz", ":zz", "[", "]", "!hyperblock", "#=v", "\\"]


def corrupt(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    line = lines[i]
    kind = rng.randrange(10)
    if kind == 0:  # truncate a line
        lines[i] = line[:rng.randrange(len(line) + 1)]
    elif kind == 1:  # insert a bad token
        pos = rng.randrange(len(line) + 1)
        lines[i] = line[:pos] + rng.choice([" ", ""]) + rng.choice(BAD_TOKENS) + line[pos:]
    elif kind == 2:  # unknown opcode
        for op in (" add ", " mov ", " print ", " ret", " br ", " cbr ", " pcmp.", " load",
                   " call "):
            if op in line:
                lines[i] = line.replace(op, " addd ", 1)
                break
    elif kind == 3:  # delete a terminator or a closing brace
        targets = [j for j, l in enumerate(lines) if l.strip() == "}" or
                   l.strip().startswith(("ret", "br ", "cbr "))]
        if targets:
            del lines[rng.choice(targets)]
    elif kind == 4:  # bad deposit type
        lines[i] = line.replace(":u", ":q", 1).replace(":c", ":∨z", 1)
    elif kind == 5:  # bad number
        lines[i] = line.replace("1", "1x", 1) if rng.random() < 0.5 else line.replace("0", "0x", 1)
    elif kind == 6:  # delete a random character
        if line:
            pos = rng.randrange(len(line))
            lines[i] = line[:pos] + line[pos + 1:]
    elif kind == 7:  # duplicate or delete a line
        if rng.random() < 0.5:
            lines.insert(i, line)
        else:
            del lines[i]
    elif kind == 8:  # swap two lines
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    else:  # replace a random character by a random printable one
        if line:
            pos = rng.randrange(len(line))
            lines[i] = line[:pos] + chr(rng.randrange(32, 0x250)) + line[pos + 1:]
    return "\n".join(lines)


def assert_located_outcome(text: str):
    """Parse + verify: never any exception but ParseErrors; every error has line >= 1."""
    try:
        m = parse_module(text, "fuzz.pir")
    except ParseErrors as exc:
        assert exc.errors, text
        for err in exc.errors:
            assert err.loc is not None and err.loc.line >= 1 and err.loc.col >= 0, (err, text)
            assert err.loc.file == "fuzz.pir" and err.message, text
        assert isinstance(exc.partial, Module)
        assert verify_module(exc.partial) is not None  # partial modules can be verified
        return "parse"
    for err in verify_module(m):
        assert err.loc is not None and err.loc.line >= 1, (str(err), text)
    return "ok"


@pytest.mark.slow
def test_thousand_corrupted_inputs():
    rng = random.Random(20240611)
    outcomes = {"parse": 0, "ok": 0}
    for case in range(1000):
        text = print_module(random_module(random.Random(case)))
        for _ in range(rng.randint(1, 3)):
            text = corrupt(text, rng)
        outcomes[assert_located_outcome(text)] += 1
    assert outcomes["parse"] > 500  # most corruptions are syntax errors


def test_deleted_closing_brace_is_reported():
    rng = random.Random(7)
    for case in range(100):
        m = random_module(random.Random(case), externs=False)
        text = print_module(m)
        lines = text.split("\n")
        braces = [j for j, l in enumerate(lines) if l == "}"]
        del lines[rng.choice(braces)]
        try:
            parse_module("\n".join(lines))
        except ParseErrors as exc:
            assert any("unterminated function" in e.message and "(missing '}')" in e.message
                       for e in exc.errors), [str(e) for e in exc.errors]
        else:
            raise AssertionError("a deleted '}' went unnoticed:\n" + "\n".join(lines))


def test_error_in_one_function_keeps_the_others():
    for case in range(100):
        m = random_module(random.Random(case), max_functions=4)
        defined = [f for f in m.functions if not f.extern]
        victim = defined[case % len(defined)]
        chunks = []
        for f in m.functions:
            text = print_function(f)
            if f is victim:  # an unknown opcode right after the entry label line
                first_nl = text.index("\n", text.index("\n") + 1)
                text = text[:first_nl] + "\n    x = zzop 1, 2" + text[first_nl:]
            chunks.append(text)
        globals_text = print_module(Module(globals=m.globals))
        source = globals_text + "\n\n".join(chunks) + "\n"
        try:
            parse_module(source)
        except ParseErrors as exc:
            assert len(exc.errors) == 1
            assert exc.errors[0].message.startswith("unknown opcode 'zzop'")
            assert exc.partial.functions == tuple(f for f in m.functions if f is not victim)
            assert exc.partial.globals == m.globals
        else:
            raise AssertionError(source)
