"""pylogic.ir.load: one file by suffix, and whole directories (bad files reported with file:line,
the others still loaded; --jobs N gives what 1 gives)."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from pylogic.errors import ImportError_, ParseErrors, PathlogicError
from pylogic.ir.load import discover, load_directory, load_program, load_text
from pylogic.ir.printer import print_module
from tests.support import needs_clang

ROOT = Path(__file__).resolve().parents[2]
LLVM_TESTS = ROOT / "tests" / "ir" / "llvm"

GOOD_PIR = "func @f(%a) {\nentry:\n  %b = add %a, 1\n  ret %b\n}\n"
BAD_PIR = "func @f() {\nentry:\n  %x = frob 1\n  ret\n}\n"          # line 3: unknown opcode
UNVERIFIED_PIR = "func @g() {\nentry:\n  br nowhere\n}\n"             # line 3: no such label
BAD_LL = "define i32 @h() {\n  ret i64 0\n}\n"                       # line 2: wrong type


def _mixed_directory(root: Path, with_c: bool) -> Path:
    """Good and bad inputs of every suffix, some in a subdirectory."""
    (root / "sub").mkdir(parents=True)
    (root / "good.pir").write_text(GOOD_PIR)
    shutil.copy(ROOT / "examples" / "loop_call.pir", root / "sub" / "loop_call.pir")
    (root / "bad.pir").write_text(BAD_PIR)
    (root / "sub" / "unverified.pir").write_text(UNVERIFIED_PIR)
    shutil.copy(LLVM_TESTS / "ll" / "features.ll", root / "features.ll")
    (root / "bad.ll").write_text(BAD_LL)
    (root / "notes.txt").write_text("not an input")
    if with_c:
        for name in ("control.c", "has_float.c", "syntax_error.c"):
            shutil.copy(LLVM_TESTS / "c" / name, root / "sub" / name)
    return root


def _located(message: str, path: Path, line: int) -> bool:
    return re.match(rf"{re.escape(str(path))}:{line}(:\d+)?: ", message) is not None


def test_load_program_by_suffix(tmp_path):
    pir = tmp_path / "f.pir"
    pir.write_text(GOOD_PIR)
    module, report = load_program(pir)
    assert [f.name for f in module.functions] == ["@f"] and report is None
    module, report = load_program(LLVM_TESTS / "ll" / "features.ll")
    assert report is not None and report.functions
    assert any(f.name == "@main" for f in module.functions)


def test_load_program_errors_are_located(tmp_path):
    (tmp_path / "bad.pir").write_text(BAD_PIR)
    with pytest.raises(ParseErrors) as exc:
        load_program(tmp_path / "bad.pir")
    assert _located(str(exc.value), tmp_path / "bad.pir", 3)
    (tmp_path / "bad.ll").write_text(BAD_LL)
    with pytest.raises(ImportError_) as exc:
        load_program(tmp_path / "bad.ll")
    assert _located(str(exc.value), tmp_path / "bad.ll", 2)
    with pytest.raises(ImportError_, match="cannot read"):
        load_program(tmp_path / "missing.ll")


def test_load_text_verifies():
    assert load_text(GOOD_PIR).functions[0].name == "@f"
    with pytest.raises(PathlogicError, match="nowhere"):
        load_text(UNVERIFIED_PIR)
    assert load_text(UNVERIFIED_PIR, verify=False).functions[0].name == "@g"


def test_discover(tmp_path):
    root = _mixed_directory(tmp_path / "d", with_c=False)
    found = [p.relative_to(root).as_posix() for p in discover(root)]
    assert found == ["bad.ll", "bad.pir", "features.ll", "good.pir", "sub/loop_call.pir",
                     "sub/unverified.pir"]
    assert discover(root / "notes.txt") == [root / "notes.txt"]  # a file is taken as given
    with pytest.raises(PathlogicError, match="no such file"):
        discover(tmp_path / "absent")


@pytest.mark.parametrize("with_c", [pytest.param(True, marks=needs_clang), False])
def test_directory_bad_files_reported_others_loaded(tmp_path, with_c):
    root = _mixed_directory(tmp_path / "d", with_c)
    loaded = load_directory(root)
    loaded_names = [p.relpath for p in loaded.programs]
    expected = ["features.ll", "good.pir", "sub/loop_call.pir"]
    if with_c:
        expected = ["features.ll", "good.pir", "sub/control.c", "sub/has_float.c",
                    "sub/loop_call.pir"]
    assert loaded_names == expected
    skipped = {p.relpath: p.message for p in loaded.problems if p.skipped}
    bad = {"bad.pir": 3, "bad.ll": 2, "sub/unverified.pir": 3}
    if with_c:
        bad["sub/syntax_error.c"] = 2
    assert set(skipped) == set(bad)
    for relpath, line in bad.items():
        assert _located(skipped[relpath], root / relpath, line), skipped[relpath]
    assert "unknown opcode" in skipped["bad.pir"]
    assert "import error" in skipped["bad.ll"]
    assert "verify error" in skipped["sub/unverified.pir"]
    # Every loaded program is a verified module; .ll/.c ones carry their import report.
    for program in loaded.programs:
        assert (program.import_report is None) == program.relpath.endswith(".pir")
    if with_c:  # functions the importer leaves out are notes, the file is still loaded
        notes = [p for p in loaded.problems if not p.skipped]
        assert notes and all(p.relpath == "sub/has_float.c" for p in notes)
        assert all("not imported" in p.message for p in notes)


def test_directory_single_file(tmp_path):
    (tmp_path / "only.pir").write_text(GOOD_PIR)
    loaded = load_directory(tmp_path / "only.pir")
    assert [p.relpath for p in loaded.programs] == ["only.pir"] and not loaded.problems


@pytest.mark.parametrize("with_c", [pytest.param(True, marks=needs_clang), False])
@pytest.mark.slow
def test_directory_jobs_same_result(tmp_path, with_c):
    root = _mixed_directory(tmp_path / "d", with_c)

    def summary(loaded):
        return ([(p.relpath, print_module(p.module),
                  p.import_report.to_dict()["functions"] if p.import_report else None)
                 for p in loaded.programs],
                [(p.relpath, p.message, p.skipped) for p in loaded.problems])

    assert summary(load_directory(root, jobs=2)) == summary(load_directory(root, jobs=1))
