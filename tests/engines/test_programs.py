"""Every program under programs/ against its hand-written expected outputs (Soufflé's evaluation
test layout: inputs beside the program, expected .csv, compared after sorting) on every registered
engine (tests/support.py skips, with the reason, the ones not available here)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pylogic.engines import load_program, run_program
from pylogic.engines.csv_io import read_output
from pylogic.errors import DatalogError
from tests.support import ENGINES, needs_souffle

PROGRAMS = Path(__file__).parent / "programs"
ALL = sorted(p.stem for p in PROGRAMS.glob("*.dl"))


def expected_rows(name: str) -> dict[str, list[tuple]]:
    checked = load_program(PROGRAMS / f"{name}.dl")
    out = {}
    for rel, params in checked.outputs.items():
        path = PROGRAMS / name / "expected" / f"{rel}.csv"
        out[rel] = sorted(read_output(path, checked.relations[rel]))
    return out


def test_every_program_has_expected_outputs():
    assert ALL, "no programs found"
    for name in ALL:
        checked = load_program(PROGRAMS / f"{name}.dl")
        for rel in checked.outputs:
            assert (PROGRAMS / name / "expected" / f"{rel}.csv").exists(), (name, rel)


#: Programs an engine refuses (a located "unsupported construct" error), with what they use.
REFUSED: dict[tuple[str, str], str] = {}


def refused(name: str, engine: str) -> None:
    """For a program listed in REFUSED: check that the engine refuses it, then skip."""
    if (name, engine) in REFUSED:
        with pytest.raises(DatalogError, match="unsupported construct"):
            run_program(PROGRAMS / f"{name}.dl", PROGRAMS / name, engine=engine)
        pytest.skip(f"{engine} refuses {name}.dl ({REFUSED[name, engine]})")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", ALL)
def test_engine_matches_expected(name, engine):
    refused(name, engine)
    got = run_program(PROGRAMS / f"{name}.dl", PROGRAMS / name, engine=engine)
    assert got == expected_rows(name)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", ALL)
def test_engine_writes_souffle_format(name, engine, tmp_path):
    refused(name, engine)
    run_program(PROGRAMS / f"{name}.dl", PROGRAMS / name, engine=engine, output_dir=tmp_path)
    checked = load_program(PROGRAMS / f"{name}.dl")
    for rel, params in checked.outputs.items():
        written = (tmp_path / params.get("filename", f"{rel}.csv")).read_text()
        expected = (PROGRAMS / name / "expected" / f"{rel}.csv").read_text()
        assert sorted(written.splitlines()) == sorted(expected.splitlines()), rel


@pytest.mark.slow
@needs_souffle
def test_souffle_compiled_matches_interpreted(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    name = "aggregates"
    a = run_program(PROGRAMS / f"{name}.dl", PROGRAMS / name, engine="souffle")
    b = run_program(PROGRAMS / f"{name}.dl", PROGRAMS / name, engine="souffle", compiled=True)
    assert a == b == expected_rows(name)


def test_in_memory_facts_override_files():
    got = run_program(PROGRAMS / "tc.dl", PROGRAMS / "tc", engine="clingo",
                      facts={"edge": [("x", "y"), ("y", "x")]})
    assert got["reach"] == [("x", "x"), ("x", "y"), ("y", "x"), ("y", "y")]
    assert got["cyclic"] == [("x",), ("y",)]


def test_public_symbol_reader_agrees_with_raw_reader(monkeypatch):
    from pylogic.engines import clingo_engine

    fast = run_program(PROGRAMS / "logic.dl", PROGRAMS / "logic", engine="clingo")
    monkeypatch.setattr(clingo_engine, "_raw_model_reader", lambda: None)
    slow = run_program(PROGRAMS / "logic.dl", PROGRAMS / "logic", engine="clingo")
    assert fast == slow == expected_rows("logic")
