"""libllvm.run_passes: opt's passes in this process print the very text an opt process prints
(its ``; ModuleID`` comment aside), and give None (the caller then runs opt) for what opt
would reject."""
from __future__ import annotations

import glob
import os

import pytest

from pylogic.ir.llvm import libllvm
from pylogic.ir.llvm.clang import (CLANG_FLAGS, OPT_PASSES, _clang_ll, find_opt, prepare_c,
                                   run_opt)
from tests.support import needs_clang

C_DIR = os.path.join(os.path.dirname(__file__), "c")
GOOD = sorted(p for p in glob.glob(os.path.join(C_DIR, "*.c")) if not p.endswith("syntax_error.c"))

needs_libllvm = pytest.mark.skipif(
    find_opt() is None or libllvm._library(find_opt()) is None,
    reason="opt or its libLLVM not found: opt runs as a process (tested by the import tests)")


def _body(text: str) -> str:
    first, rest = text.split("\n", 1)
    assert first.startswith("; ModuleID = ")
    return rest


@needs_clang
@needs_libllvm
@pytest.mark.parametrize("path", GOOD, ids=os.path.basename)
@pytest.mark.slow
def test_same_text_as_an_opt_process(path):
    clang_text = _clang_ll(path, CLANG_FLAGS, (), 120)
    got = libllvm.run_passes(find_opt(), clang_text, OPT_PASSES)
    assert got is not None
    assert _body(got) == _body(run_opt(clang_text, OPT_PASSES, path))
    assert _body(prepare_c(path, clang_text=clang_text)) == _body(got)


@needs_libllvm
def test_what_opt_rejects_gives_none():
    opt = find_opt()
    assert libllvm.run_passes(opt, "define i32 @f( {", OPT_PASSES) is None     # no parse
    # parses, but %x is used before it is defined in its block: the verifier's error
    assert libllvm.run_passes(opt, "define i32 @f() {\n  %y = add i32 %x, 1\n  %x = add i32 1, 1\n"
                                   "  ret i32 %y\n}\n", OPT_PASSES) is None
    assert libllvm.run_passes(opt, "define void @f() {\n  ret void\n}\n", "no-such-pass") is None
    assert libllvm.run_passes(opt, "define void @f() {\n  ret void\n}\n", OPT_PASSES) is not None


@needs_clang
def test_without_the_library_opt_runs(monkeypatch):
    from pylogic.ir.llvm import clang
    calls = []
    monkeypatch.setattr(libllvm, "_LIB", False)
    monkeypatch.setattr(clang, "run_opt", lambda *a, **k: calls.append(a) or run_opt(*a, **k))
    clang_text = _clang_ll(GOOD[0], CLANG_FLAGS, (), 120)
    text = prepare_c(GOOD[0], clang_text=clang_text)
    assert len(calls) == 1
    assert _body(text) == _body(run_opt(clang_text, OPT_PASSES, GOOD[0]))
