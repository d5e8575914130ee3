"""The Cython-compiled modules (``pylogic.compiled_modules``): the list names real modules, the
guard runs a changed source instead of its stale extension, and compiled and source give the same
optimized examples, real programs and csmith programs (the oracle: the same code run by the
interpreter, ``PATHLOGIC_FROM_SOURCE``)."""
from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from pylogic import compiled_modules
from pylogic.compiled_modules import COMPILED, StaleExtensionGuard, compiled_status
from tests.support import clang_path

ROOT = Path(__file__).resolve().parents[2]


def test_every_compiled_name_is_a_module_of_the_tree():
    assert len(set(COMPILED)) == len(COMPILED)
    missing = [n for n in COMPILED if not (ROOT / (n.replace(".", "/") + ".py")).is_file()]
    assert missing == []


def _c_integer_shifts(tree: ast.AST) -> list[str]:
    """Shifts Cython computes on a C integer (``compiled_modules``' docstring): an operand that is
    a ``len()`` call, or a comprehension's variable over ``range()``."""
    found = []
    for node in ast.walk(tree):
        over_range = set()
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            for gen in node.generators:
                if isinstance(gen.iter, ast.Call) and getattr(gen.iter.func, "id", "") == "range":
                    over_range |= {t.id for t in ast.walk(gen.target) if isinstance(t, ast.Name)}
        for sub in ast.walk(node) if over_range else [node]:
            if isinstance(sub, ast.BinOp) and isinstance(sub.op, (ast.LShift, ast.RShift)):
                for side in (sub.left, sub.right):
                    if (isinstance(side, ast.Call) and getattr(side.func, "id", "") == "len") or \
                            (isinstance(side, ast.Name) and side.id in over_range):
                        found.append((sub.lineno, ast.unparse(sub)))
    return [f"line {n}: {text}" for n, text in sorted(set(found))]


def test_no_compiled_module_shifts_a_c_integer():
    bad = {}
    for name in COMPILED:
        tree = ast.parse((ROOT / (name.replace(".", "/") + ".py")).read_text())
        if _c_integer_shifts(tree):
            bad[name] = _c_integer_shifts(tree)
    assert bad == {}, "use compiled_modules.low_bits, or name the value first"


def test_the_shift_check_sees_both_forms():
    tree = ast.parse("a = (1 << len(x)) - 1\nb = [1 << i for i in range(n)]\n"
                     "c = [1 << i for i, _ in enumerate(x)]\nd = 1 << low_bits(len(x))\n")
    assert _c_integer_shifts(tree) == ["line 1: 1 << len(x)", "line 2: 1 << i"]


def _pair(folder: Path, tail: str, source_minus_built_s: float | None) -> None:
    """``tail.py`` and, unless None, an extension file beside it, the source that many seconds
    newer than the extension."""
    source = folder / f"{tail}.py"
    source.write_text("X = 1\n")
    if source_minus_built_s is None:
        return
    built = folder / f"{tail}{EXTENSION_SUFFIXES[0]}"
    built.write_bytes(b"")
    t = 1_700_000_000
    os.utime(built, (t, t))
    os.utime(source, (t + source_minus_built_s, t + source_minus_built_s))


@pytest.mark.parametrize("newer_by,from_source", [(5.0, True), (0.2, False), (-5.0, False),
                                                  (None, False)])
def test_the_guard_takes_the_source_only_when_it_changed_after_the_build(tmp_path, newer_by,
                                                                         from_source):
    name = "pylogic.flow.spans"
    tail = name.rpartition(".")[2]
    _pair(tmp_path, tail, newer_by)
    guard = StaleExtensionGuard()
    spec = guard.find_spec(name, [str(tmp_path)])
    if from_source:
        assert spec is not None and spec.origin == str(tmp_path / f"{tail}.py")
        assert guard.from_source == {name}
    else:
        assert spec is None and guard.from_source == set()
    # a module not compiled is never the guard's
    assert guard.find_spec("pylogic.flow.lattice", [str(tmp_path)]) is None


def test_always_takes_every_compiled_source(tmp_path):
    _pair(tmp_path, "spans", -5.0)
    spec = StaleExtensionGuard(always=True).find_spec("pylogic.flow.spans", [str(tmp_path)])
    assert spec is not None and spec.origin.endswith("spans.py")


def test_the_guard_is_installed_first():
    assert sys.meta_path[0] is compiled_modules._GUARD


#: each program through these pipelines, compiled and from source (each a fresh process)
PIPELINES = ("simplify,pre-mr,pre-m,simplify", "icbe", "sccp,dce", "pde", "coalesce")

#: prints {program: {pipeline: sha256 of the printed version}} and the compiled status
PROBE = """
import json, sys
from benchmarks.optimize import corpus
from benchmarks.refactor_check import check_program
from pylogic.compiled_modules import compiled_status
real, csmith, workdir, globs = sys.argv[1], sys.argv[2], sys.argv[3], tuple(sys.argv[4:])
out = {}
for name, kind, path in corpus(True, csmith, "", workdir, real=real):
    rec = check_program((name, kind, path, globs, "auto"))
    out[name] = [rec["status"], rec["versions"]]
print(json.dumps({"versions": out, "status": compiled_status()}))
"""


def _probe(real: str, csmith: str, workdir: Path, from_source: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PATHLOGIC_FROM_SOURCE", None)
    if from_source:
        env["PATHLOGIC_FROM_SOURCE"] = "1"
    proc = subprocess.run([sys.executable, "-c", PROBE, real, csmith, str(workdir), *PIPELINES], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


@pytest.mark.slow
def test_compiled_and_source_give_the_same_versions(tmp_path):
    here = compiled_status()
    if not here["compiled"] and not any(
            (ROOT / (n.replace(".", "/") + EXTENSION_SUFFIXES[0])).exists() for n in COMPILED):
        pytest.skip("no compiled module in this tree (installed without Cython?): nothing to "
                    "compare")
    real = "Stanford/*,Dhrystone/*,Shootout/ary3.c" if clang_path() else ""
    # csmith 2 and 9: compiled, ``function_values`` and ``value_names`` gave them other PRE
    # outputs (stop 62: a mask ``(1 << len(x)) - 1`` wrapped at 64 bits)
    csmith = "2,9" if clang_path() and shutil.which("csmith") else ""
    compiled = _probe(real, csmith, tmp_path, from_source=False)
    source = _probe(real, csmith, tmp_path, from_source=True)
    assert source["status"]["compiled"] == []
    assert len(compiled["status"]["compiled"]) >= len(COMPILED) // 2, compiled["status"]
    assert compiled["status"]["source"] == [], "stale extensions: rebuild (pip install -e .)"
    assert len(compiled["versions"]) >= 6 + (10 if real else 0) + (2 if csmith else 0)
    ok = [p for p, (status, _v) in compiled["versions"].items() if status == "ok"]
    assert len(ok) >= 6
    assert compiled["versions"] == source["versions"]
