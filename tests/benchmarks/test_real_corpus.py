"""benchmarks/real: the vendored llvm-test-suite programs and their manifest (every change
listed), selectable as ``benchmarks.optimize --real``; a few run as their native build does."""
from __future__ import annotations

import os
import subprocess

import pytest

from benchmarks import real_corpus
from benchmarks.corpus import FLOAT_IR
from benchmarks.optimize import corpus, real_sample
from pylogic.interp.machine import run_module
from pylogic.ir.llvm.clang import compile_native, prepare_c
from pylogic.ir.llvm.importer import import_llvm
from tests.support import needs_clang

M = real_corpus.manifest()


def test_every_integer_program_is_vendored_with_its_changes_applied():
    progs = dict(real_corpus.programs())
    assert len(progs) == sum(not e.get("float") for e in M["programs"]) >= 20
    for e in M["programs"]:
        path = real_corpus.local_path(e)
        if e.get("float"):
            assert not os.path.exists(path), path      # left out, reported with its reason
            continue
        with open(path) as fh:
            text = fh.read()
        for old, new, why in real_corpus.changes_of(e, M):
            assert why
            if new:
                assert new in text, (path, new)
            if old not in new:
                assert old not in text, (path, old)   # the upstream text was replaced


def test_license_and_notices_travel_with_the_programs():
    for name in ["LICENSE.TXT", *M["verbatim"]]:
        assert os.path.getsize(os.path.join(real_corpus.REAL, name)) > 0, name
    with open(os.path.join(real_corpus.REAL, "LICENSE.TXT")) as fh:
        assert "Apache License" in fh.read()


def test_not_imported_are_the_float_programs_with_the_count():
    out = real_corpus.not_imported()
    assert len(out) == sum(bool(e.get("float")) for e in M["programs"]) > 0
    assert {r["reason"] for r in out} == {"floating point"}


def test_apply_changes_insists_on_one_match():
    assert real_corpus.apply_changes("a 1 b", [["1", "2", "size"]], "x") == "a 2 b"
    for text in ("a b", "1 1"):
        with pytest.raises(SystemExit, match="occurs"):
            real_corpus.apply_changes(text, [["1", "2", "size"]], "x")


def test_optimize_selects_real_programs_by_glob():
    every = real_sample("all")
    assert len(every) == len(real_corpus.programs())
    shootout = real_sample("Shootout/*")
    assert shootout and all(n.startswith("Shootout-") for n, _ in shootout)
    assert real_sample("") == []
    items = corpus(False, "", "0", "/tmp", real="Dhrystone/*")
    assert [(n, k) for n, k, _ in items] == [("Dhrystone-dry.c", "real")]


@needs_clang
@pytest.mark.parametrize("name", ["Shootout/fib2.c", "BenchmarkGame/fannkuch.c",
                                  "Stanford/Towers.c"])
@pytest.mark.slow
def test_program_imports_without_float_and_runs_as_its_native_build(name, tmp_path):
    path = dict(real_corpus.programs())[name]
    ll = prepare_c(path, ("-w",))
    assert not FLOAT_IR.search(ll)
    module, report = import_llvm(ll, path)
    assert report.complete
    res = run_module(module, fuel=20_000_000)
    assert res.error is None
    exe = tmp_path / "prog"
    compile_native(path, exe, extra_flags=("-w",))
    native = subprocess.run([str(exe)], capture_output=True, timeout=60)
    assert res.stdout_bytes == native.stdout and res.exit_status == native.returncode
