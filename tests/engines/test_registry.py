"""The engine registry: both engines listed, "auto" resolved, unknown and unavailable names
rejected with a clear message, and a new engine taking part in ``run_checked`` and in
``compare-engines`` just by being registered (DESIGN.md: a new engine is one file)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pylogic.cli import main
from pylogic.commands.compare_engines import engine_pairs
from pylogic.engines import (Engine, available_engines, declare, engine, engine_choices,
                             engine_names, load_program, register, resolve_engine, run_checked,
                             run_program, unregister)
from pylogic.errors import DatalogError

PROGRAMS = Path(__file__).parent / "programs"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


class StandIn:
    """An engine in a few lines: it records each call and evaluates through clingo, optionally
    dropping the first row of one relation (to make two engines disagree)."""

    def __init__(self, name="stand_in", usable=True, drop=None):
        self.name, self.usable, self.drop, self.calls = name, usable, drop, []

    def available(self) -> bool:
        return self.usable

    def unavailable_reason(self) -> str:
        return "" if self.usable else "the stand-in is switched off"

    def run(self, program, facts_dir, facts, outputs, *, jobs=None, compiled=False):
        self.calls.append({"outputs": list(outputs), "jobs": jobs, "compiled": compiled})
        rows = engine("clingo").run(program, facts_dir, facts, outputs)
        if self.drop in rows:
            rows[self.drop] = rows[self.drop][1:]
        return rows


@pytest.fixture
def stand_in():
    """Register stand-in engines for one test; remove them after."""
    made = []

    def make(**kw):
        made.append(register(StandIn(**kw)))
        return made[-1]
    yield make
    for e in made:
        unregister(e.name)


def test_both_engines_are_registered():
    assert {"clingo", "souffle"} <= set(engine_names())
    assert engine_choices() == ["auto"] + engine_names()
    for name in engine_names():
        assert isinstance(engine(name), Engine) and engine(name).name == name
    assert "clingo" in available_engines()


def test_auto_resolves_to_the_first_available_engine():
    assert resolve_engine("auto") == available_engines()[0]
    if engine("souffle").available():
        assert resolve_engine("auto") == "souffle"
    else:
        assert resolve_engine("auto") == "clingo"
        assert "not on PATH" in engine("souffle").unavailable_reason()


def test_unknown_engine_is_a_clear_error(capsys):
    with pytest.raises(DatalogError) as info:
        run_program(PROGRAMS / "tc.dl", PROGRAMS / "tc", engine="datomic")
    assert info.value.message == ("unknown engine 'datomic' (choose from "
                                  f"{', '.join(engine_choices())})")
    with pytest.raises(SystemExit):  # the CLI rejects it while parsing, with the choices
        main(["query", str(PROGRAMS / "tc.dl"), "--facts", str(PROGRAMS / "tc"),
              "--engine", "datomic"])
    err = capsys.readouterr().err
    assert "invalid choice: 'datomic'" in err and "Traceback" not in err


def test_unavailable_engine_names_its_reason(stand_in):
    stand_in(name="off", usable=False)
    assert "off" in engine_names() and "off" not in available_engines()
    assert resolve_engine("auto") != "off"
    with pytest.raises(DatalogError) as info:
        run_program(PROGRAMS / "tc.dl", PROGRAMS / "tc", engine="off")
    assert info.value.message == "engine 'off' is not available: the stand-in is switched off"


def test_registering_checks_the_name_and_the_protocol(stand_in):
    with pytest.raises(ValueError):
        register(StandIn(name="clingo"))
    with pytest.raises(ValueError):
        register(StandIn(name="auto"))
    with pytest.raises(ValueError):
        register(object())


def test_a_declared_engine_is_imported_when_first_asked_for(stand_in, tmp_path, monkeypatch):
    """``declare`` lists an engine without importing its module; the first ``engine(name)``
    imports it, and the engine it registers keeps the declared place."""
    (tmp_path / "pathlogic_lazy_engine.py").write_text(
        "from pylogic.engines import register\n"
        "from tests.engines.test_registry import StandIn\n"
        "register(StandIn(name='lazy'))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    declare("lazy", "pathlogic_lazy_engine")
    try:
        stand_in(name="later")
        assert engine_names()[-2:] == ["lazy", "later"] and "lazy" in engine_choices()
        assert "pathlogic_lazy_engine" not in sys.modules
        assert engine("lazy").name == "lazy" and "pathlogic_lazy_engine" in sys.modules
        assert engine_names()[-2:] == ["lazy", "later"]
        with pytest.raises(ValueError):
            declare("lazy", "pathlogic_lazy_engine")
    finally:
        unregister("lazy")
        sys.modules.pop("pathlogic_lazy_engine", None)


def test_a_registered_engine_runs_through_run_checked(stand_in, tmp_path):
    new = stand_in()
    checked = load_program(PROGRAMS / "tc.dl")
    got = run_checked(checked, PROGRAMS / "tc", "stand_in", output_dir=tmp_path, jobs=3,
                      only=["reach"])
    assert got == {"reach": run_checked(checked, PROGRAMS / "tc", "clingo")["reach"]}
    assert new.calls == [{"outputs": ["reach"], "jobs": 3, "compiled": False}]
    assert (tmp_path / "reach.csv").read_text() == \
        (PROGRAMS / "tc" / "expected" / "reach.csv").read_text()
    assert not (tmp_path / "cyclic.csv").exists()  # not computed: not written
    assert resolve_engine("auto") != "stand_in"  # registered last: preferred last


def test_engine_pairs_cover_every_pair():
    assert engine_pairs(["a", "b", "c"]) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert engine_pairs(["a"]) == []


@pytest.fixture
def clingo_only(monkeypatch):
    """duckdb (and Soufflé) switched off: a registered engine is compared with clingo alone,
    on the example with a loop and a call (test_engine_agreement compares the real engines)."""
    for name in available_engines():
        if name != "clingo":
            monkeypatch.setattr(engine(name), "available", lambda: False)
    return EXAMPLES / "loop_call.pir"


@pytest.mark.slow
def test_compare_engines_pairs_a_registered_engine(stand_in, clingo_only, capsys):
    stand_in()
    assert engine_pairs() == [("clingo", "stand_in")]
    assert main(["compare-engines", str(clingo_only)]) == 0
    out = capsys.readouterr().out
    assert "dominance: clingo and stand_in identical" in out and "engines agree" in out


@pytest.mark.slow
def test_compare_engines_reports_a_disagreeing_engine(stand_in, clingo_only, capsys):
    stand_in(name="lossy", drop="idom")
    assert main(["compare-engines", str(clingo_only), "--max-diffs", "1"]) == 1
    out = capsys.readouterr().out
    assert "dominance: idom: 1 rows only in clingo, 0 only in lossy" in out
    assert "differing rows" in out
