"""clang.clang_many: several C files through one ``clang -cc1`` give, for every file it vouches
for, the very text clang gives the file alone (struct type names included), and it leaves out
what it cannot vouch for."""
from __future__ import annotations

import glob
import os

import pytest

from pylogic.ir.llvm.clang import CLANG_FLAGS, _clang_ll, _fresh_type_names, clang_many
from tests.support import needs_clang

C_DIR = os.path.join(os.path.dirname(__file__), "c")
GOOD = sorted(p for p in glob.glob(os.path.join(C_DIR, "*.c")) if not p.endswith("syntax_error.c"))

#: The same struct and union names in two files (the second gets suffixed ones from cc1), a
#: string holding such a name, and a field of the struct type after a string constant.
SHARED = """struct S { int a; union U *u; };
union U { long l; char c; };
struct W { char s[4]; struct S *p; };
struct S s1; union U u1;
struct W w1 = { "%s", &s1 };
const char *text = "%union.U.1 %struct.S.2";
int main(void) { return s1.a + (int)u1.l + (w1.p == 0); }
"""
#: Two anonymous structs: named struct.anon and struct.anon.0 by a clang of its own.
OWN_CLASH = """struct { int a; } x;
struct { long b; } y;
int main(void) { return x.a + (int)y.b; }
"""


def _alone(path: str) -> str:
    return _clang_ll(path, CLANG_FLAGS, (), 120)


@needs_clang
@pytest.mark.slow
def test_batch_gives_each_file_its_own_text(tmp_path):
    extra = []
    for k in range(3):
        p = tmp_path / f"shared{k}.c"
        p.write_text(SHARED)
        extra.append(str(p))
    clash = tmp_path / "own_clash.c"
    clash.write_text(OWN_CLASH)
    paths = GOOD + extra + [str(clash)]
    got = clang_many(paths)
    assert set(extra) <= set(got)               # renamed back, not left out
    assert "%union.U.1 %struct.S.2" in got[extra[1]]     # a string: as written
    assert str(clash) not in got                # its own clash: left to a clang of its own
    assert len(got) >= len(paths) - 2
    for path, text in got.items():
        assert text == _alone(path), path


@needs_clang
def test_an_error_leaves_every_file_out(tmp_path):
    paths = GOOD[:2] + [os.path.join(C_DIR, "syntax_error.c")]
    assert clang_many(paths) == {}
    assert clang_many(GOOD[:1]) == {}           # one file: nothing to share


def test_type_names_renamed_outside_strings_and_comments_only():
    text = ("%union.U0.3 = type { ptr }\n%struct.S = type { %union.U0.3 }\n"
            '@s = global [12 x i8] c"%union.U0.3\\00"\n'
            "@g = global %struct.S zeroinitializer ; %union.U0.3 here\n"
            '@h = global { [2 x i8], %union.U0.3 } { [2 x i8] c";\\00", %union.U0.3 undef }\n')
    assert _fresh_type_names(text) == (
        "%union.U0 = type { ptr }\n%struct.S = type { %union.U0 }\n"
        '@s = global [12 x i8] c"%union.U0.3\\00"\n'
        "@g = global %struct.S zeroinitializer ; %union.U0.3 here\n"
        '@h = global { [2 x i8], %union.U0 } { [2 x i8] c";\\00", %union.U0 undef }\n')


@pytest.mark.parametrize("extra", ["%union.U0 = type opaque\n",       # two of one name
                                   "@x = global ptr null ; ok\n%union.U0.7 = type opaque\n",
                                   "define void @f(ptr %union.U0) {\n  ret void\n}\n"])
def test_type_names_left_alone_when_unclear(extra):
    assert _fresh_type_names("%union.U0.3 = type { ptr }\n" + extra) is None
