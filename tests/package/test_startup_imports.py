"""Start-up stays quick (issue #32 item 2): ``pathlogic --help``, ``pathlogic CMD --help`` for
every command, a one-fact ``query -e`` and a short ``run`` import only what they use. Building the command line
imports every command module, so a command module imports at top only what its parser needs
(engine names, pass names, defaults); the engines, the interpreter, the facts extractors and the
passes are imported by the function that runs the command. Each check runs a fresh interpreter
and reads its ``sys.modules``."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from pylogic.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[2]

#: Libraries no --help needs (the engines, graphs, the native JIT, the Datalog parser, BDDs, SAT,
#: HTML templates, the cluster).
HEAVY_LIBRARIES = ("duckdb", "clingo", "networkx", "llvmlite", "lark", "dd", "pysat", "jinja2",
                   "distributed", "dask")
#: Our own modules no --help needs: the facts extractors, the passes, the interpreter, the
#: native engine, the Datalog front end, the IR importer.
HEAVY_MODULES = ("facts_gen", "pylogic.transforms", "pylogic.interp.machine",
                 "pylogic.interp.native.engine", "pylogic.engines.dialect",
                 "pylogic.ir.llvm.importer")
#: What --help does need of them: the pass names (the package's ``__init__`` is a docstring).
LIGHT = ("pylogic.transforms", "pylogic.transforms.registry")

#: Runs each command line given on stdin (a JSON list of argv lists) through ``pylogic.cli.main``
#: in this process and prints, per command line, every module imported so far.
PROBE = """
import contextlib, io, json, sys
import pylogic.cli
found = []
for argv in json.load(sys.stdin):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            status = pylogic.cli.main(argv)
        except SystemExit as exc:
            status = exc.code
    found.append({"argv": argv, "status": status, "modules": sorted(sys.modules)})
print(json.dumps(found))
"""


def imported(argvs: list[list[str]]) -> list[dict]:
    """Per command line: its exit status and the modules imported once it (and the ones before
    it, in the same fresh interpreter) had run."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", PROBE], input=json.dumps(argvs), cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def heavy(modules: list[str], allowed: tuple[str, ...] = ()) -> list[str]:
    """The modules of ``modules`` that are, or are under, one of HEAVY_LIBRARIES or
    HEAVY_MODULES, except LIGHT and those under one of ``allowed``."""
    def under(name: str, prefix: str) -> bool:
        return name == prefix or name.startswith(prefix + ".")
    return [m for m in modules
            if any(under(m, h) for h in HEAVY_LIBRARIES + HEAVY_MODULES)
            and m not in LIGHT and not any(under(m, a) for a in allowed)]


def command_names() -> list[str]:
    """Every subcommand as typed (``import_pir`` is ``import``), from the parser itself."""
    parser = __import__("pylogic.cli", fromlist=["build_parser"]).build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return list(sub.choices)


def test_every_command_is_probed():
    names = command_names()
    assert len(names) == len(COMMANDS) and "query" in names and "import" in names


def test_help_imports_nothing_heavy():
    """``pathlogic --help`` and then each ``pathlogic CMD --help`` in one interpreter: after each,
    no heavy module is loaded (so none of them loads one)."""
    runs = imported([["--help"]] + [[name, "--help"] for name in command_names()])
    for run in runs:
        assert run["status"] == 0, run["argv"]
        assert heavy(run["modules"]) == [], f"{' '.join(run['argv'])} imported them"
    assert "pylogic.transforms.registry" in runs[-1]["modules"]   # the names, not the passes


def test_one_fact_query_imports_only_its_engine(tmp_path):
    (tmp_path / "f.facts").write_text("a\nb\n")
    program = ('.decl f(x: symbol) .input f(filename="f.facts") .output g '
               '.decl g(x: symbol) g(x) :- f(x).')
    (run,) = imported([["query", "-e", program, "--facts", str(tmp_path), "--engine", "clingo"]])
    assert run["status"] == 0
    modules = run["modules"]
    assert "clingo" in modules and "pylogic.engines.dialect" in modules  # it did run the query
    assert heavy(modules, allowed=("clingo", "lark", "pylogic.engines.dialect")) == []


def test_a_short_run_of_a_pir_file_stays_in_the_interpreter():
    """``pathlogic run`` of a short .pir program: no native code (llvmlite), no LLVM importer."""
    (run,) = imported([["run", str(ROOT / "examples" / "loop_call.pir"), "--json"]])
    assert run["status"] == 0
    assert "pylogic.interp.machine" in run["modules"]       # it did run
    assert heavy(run["modules"], allowed=("pylogic.interp.machine",)) == []


def test_the_check_sees_heavy_modules():
    """The checks can fail: what a heavy top-level import brings in is named."""
    assert heavy(["json", "networkx", "networkx.algorithms", "facts_gen.extract", "lark",
                  "pylogic.transforms", "pylogic.transforms.registry", "pylogic.transforms.dce.dce",
                  "pylogic.interp.defaults", "pylogic.interp.machine"], allowed=("lark",)) == \
        ["networkx", "networkx.algorithms", "facts_gen.extract", "pylogic.transforms.dce.dce",
         "pylogic.interp.machine"]
