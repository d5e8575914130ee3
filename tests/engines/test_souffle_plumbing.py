"""The souffle engine's plumbing (fact staging, command line, output reading, error mapping),
exercised with a stand-in ``souffle`` script on PATH that evaluates with our clingo engine. The
real binary is not installable here; test_programs.py compares it for real when present."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from pylogic.engines import run_program
from pylogic.errors import DatalogError

PROGRAMS = Path(__file__).parent / "programs"

FAKE = """#!{python}
import sys
args = sys.argv[1:]
with open({log!r}, "a") as log:
    log.write(" ".join(args) + "\\n")
if {fail!r}:
    sys.stderr.write("Error: Undefined relation q in file " + args[-1] + " at line 3\\n")
    sys.exit(1)
facts, out = args[args.index("-F") + 1], args[args.index("-D") + 1]
import os
assert sorted(os.listdir(facts)), "facts staged"
from pylogic.engines import run_program
run_program(args[-1], facts, engine="clingo", output_dir=out)
"""


@pytest.fixture
def fake_souffle(tmp_path, monkeypatch):
    def install(fail=False):
        bindir = tmp_path / "bin"
        bindir.mkdir(exist_ok=True)
        script = bindir / "souffle"
        log = tmp_path / "calls.log"
        script.write_text(FAKE.format(python=sys.executable, log=str(log), fail=fail))
        script.chmod(0o755)
        monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
        return log
    return install


@pytest.mark.parametrize("name", ["tc", "aggregates", "logic"])
@pytest.mark.slow
def test_souffle_engine_plumbing(fake_souffle, name):
    log = fake_souffle()
    got = run_program(PROGRAMS / f"{name}.dl", PROGRAMS / name, engine="souffle")
    assert got == run_program(PROGRAMS / f"{name}.dl", PROGRAMS / name, engine="clingo")
    call = log.read_text().split()
    assert call[0] == "-F" and call[2] == "-D" and call[-1].endswith(f"{name}.dl")


@pytest.mark.slow
def test_souffle_in_memory_facts_and_missing_files(fake_souffle, tmp_path):
    fake_souffle()
    got = run_program(PROGRAMS / "tc.dl", tmp_path / "nowhere", engine="souffle",
                      facts={"edge": [("p", "q")]})
    assert got == {"reach": [("p", "q")], "cyclic": []}
    got = run_program(PROGRAMS / "tc.dl", tmp_path / "nowhere", engine="souffle")
    assert got == {"reach": [], "cyclic": []}


def test_auto_prefers_souffle_when_on_path(fake_souffle):
    from pylogic.engines import available_engines, resolve_engine

    fake_souffle()
    assert resolve_engine("auto") == "souffle" and available_engines()[:2] == ["souffle", "clingo"]


def test_souffle_error_is_located(fake_souffle):
    fake_souffle(fail=True)
    with pytest.raises(DatalogError) as info:
        run_program(PROGRAMS / "tc.dl", PROGRAMS / "tc", engine="souffle")
    assert info.value.loc.line == 3 and "Undefined relation q" in info.value.message


def test_souffle_checks_facts_range_before_running(fake_souffle, tmp_path):
    log = fake_souffle()
    (tmp_path / "n.facts").write_text("99999999999\n")
    with pytest.raises(DatalogError) as info:
        run_program(PROGRAMS / "arith.dl", tmp_path, engine="souffle")
    assert "32-bit" in info.value.message and not log.exists()
