"""C programs through clang-14 -> LLVM import -> interpreter, checked against the natively built
program (the oracle). Skipped, with a message, when clang is not installed."""
from __future__ import annotations

import glob
import json
import os
import shutil

import pytest

from pylogic.cli import main as cli_main
from pylogic.commands import validate as validate_cmd
from pylogic.errors import ImportError_
from pylogic.ir.llvm.clang import compile_c_to_ll
from tests.support import needs_clang
from pylogic.ir.load import load_program
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_module
from pylogic.ir.verify import verify_module

HERE = os.path.dirname(__file__)
C_DIR = os.path.join(HERE, "c")
RUNNABLE = sorted(p for p in glob.glob(os.path.join(C_DIR, "*.c"))
                  if not p.endswith("syntax_error.c"))



@needs_clang
@pytest.mark.parametrize("path", RUNNABLE, ids=os.path.basename)
@pytest.mark.slow
def test_fixture_behaves_like_native(path):
    v = validate_cmd.validate_program(path, fuel=5_000_000, timeout=30)
    assert v.status == "identical", v.detail
    assert v.native_stdout  # every fixture prints something: the comparison is not vacuous


@needs_clang
@pytest.mark.parametrize("path", RUNNABLE, ids=os.path.basename)
def test_fixture_module_verifies_and_round_trips(path):
    module, report = load_program(path)
    assert verify_module(module) == []
    assert parse_module(print_module(module)) == module
    assert report.function("main")["status"] == "imported"


@needs_clang
def test_float_function_skipped_others_imported():
    module, report = load_program(os.path.join(C_DIR, "has_float.c"))
    assert report.skipped_by_reason() == {"floating point or vector": ["@half"]}
    assert report.function("twice")["status"] == "imported"
    assert module.function_map()["@half"].extern
    json.dumps(report.to_dict())  # JSON-serialisable


@needs_clang
def test_compile_error_is_located():
    with pytest.raises(ImportError_) as info:
        compile_c_to_ll(os.path.join(C_DIR, "syntax_error.c"))
    assert info.value.loc.line == 2 and "expected ';'" in info.value.message


def test_missing_clang_is_a_clear_error(monkeypatch):
    import pylogic.ir.llvm.clang as cf
    monkeypatch.setattr(cf, "find_clang", lambda: None)
    with pytest.raises(ImportError_) as info:
        cf.compile_c_to_ll(os.path.join(C_DIR, "control.c"))
    assert "clang not found" in info.value.message


# ------------------------------------------------------------ CLI exit codes

@needs_clang
def test_validate_cli_identical_exits_0(capsys):
    assert cli_main(["validate", os.path.join(C_DIR, "control.c")]) == 0
    assert "identical" in capsys.readouterr().out


@needs_clang
def test_validate_cli_difference_exits_1(monkeypatch, capsys):
    real = validate_cmd.run_native

    def wrong_native(path, args=(), timeout=10.0, exe_dir=None):
        out, status = real(path, args, timeout, exe_dir)
        return out.replace("\n", " \n", 1), status  # perturb the first line
    monkeypatch.setattr(validate_cmd, "run_native", wrong_native)
    assert cli_main(["validate", os.path.join(C_DIR, "control.c")]) == 1
    assert "line 1:" in capsys.readouterr().out


@needs_clang
def test_validate_cli_main_not_imported_exits_2(tmp_path, capsys):
    src = tmp_path / "fmain.c"
    src.write_text('#include <stdio.h>\nint main(void) { double d = 1.5; printf("%d\\n", (int)(d * 2)); return 0; }\n')
    assert cli_main(["validate", str(src), "--json"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "not-imported" and "floating point" in out["detail"]


@needs_clang
def test_validate_cli_compile_error_exits_2(capsys):
    assert cli_main(["validate", os.path.join(C_DIR, "syntax_error.c")]) == 2
    assert "syntax_error.c:2" in capsys.readouterr().out


# ------------------------------------------------------------ csmith sample

CSMITH_SEEDS = (2, 3, 4)


@needs_clang
@pytest.mark.skipif(shutil.which("csmith") is None, reason="csmith not installed")
@pytest.mark.parametrize("seed", CSMITH_SEEDS)
@pytest.mark.slow
def test_csmith_sample_identical_checksum(seed, tmp_path):
    from benchmarks.corpus import evaluate, csmith_program
    path = csmith_program(seed, str(tmp_path))
    assert path is not None
    rec = evaluate(path, "csmith", fuel=5_000_000, timeout=10)
    if rec["status"] == "timeout":
        pytest.skip("native csmith run did not finish")
    assert rec["status"] == "identical", rec
    assert rec["functions_imported"] == rec["functions"]
