"""A shipped program's clingo translation is kept in the program cache (``clingo_cache``,
issue #28 item 1): another process, or another copy of the program, reads it instead of
translating; an entry of another key (pathlogic's source changed) or an unreadable one is a
miss, translated and written again; a program no key identifies is not kept."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pylogic.analysis.catalog import get
from pylogic.engines import clingo_cache, semantics, to_clingo
from pylogic.engines.program import load_program
from pylogic.engines.run import run_checked

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """
.decl e(a: number, b: number)
.input e
.decl path(a: number, b: number)
.output path
path(a, b) :- e(a, b).
path(a, c) :- path(a, b), e(b, c).
"""

#: in a process of its own: the program loaded, identified by the key, translated with
#: program_text replaced; prints whether a translation was made, then the text
SECOND = """
import sys
from pylogic.engines import clingo_cache, to_clingo
from pylogic.engines.program import load_program
calls = []
real = to_clingo.program_text
to_clingo.program_text = lambda *a: calls.append(1) or real(*a)
checked = load_program(sys.argv[1])
clingo_cache.identify(checked, sys.argv[2])
text = clingo_cache.translation(checked, {"e", "path"}, ["path"], frozenset({"e"}))
print(len(calls)); print(text, end="")
"""


@pytest.fixture
def setup(monkeypatch, tmp_path):
    """(program file, cache directory): the program cache in tmp_path."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("PATHLOGIC_PROGRAM_CACHE", str(cache))
    path = tmp_path / "path.dl"
    path.write_text(PROGRAM)
    return path, cache


@pytest.fixture
def made(monkeypatch) -> list:
    """One item appended for each translation made."""
    counted: list = []
    real = to_clingo.program_text
    monkeypatch.setattr(to_clingo, "program_text", lambda *a: counted.append(1) or real(*a))
    return counted


def translate(checked) -> str:
    return clingo_cache.translation(checked, {"e", "path"}, ["path"], frozenset({"e"}))


def entries(cache: Path) -> list:
    return sorted(p for p in (cache / "clingo").rglob("*") if p.is_file()) if cache.exists() else []


def test_another_process_reads_the_translation(setup, made):
    path, cache = setup
    checked = load_program(path)
    clingo_cache.identify(checked, "k1")
    text = translate(checked)
    assert made == [1] and len(entries(cache)) == 1
    assert text == to_clingo.program_text(checked, {"e", "path"}, {"path"}, frozenset({"e"}))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", SECOND, str(path), "k1"], env=env, cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    assert out == "0\n" + text                      # read, not translated
    again = load_program(path)                      # a fresh copy in this process: read too
    assert again is not checked
    clingo_cache.identify(again, "k1")
    made.clear()
    assert translate(again) == text and made == []


def test_another_key_is_a_miss(setup, made):
    """A changed source changes the catalog's key: the entry under the old one is not read."""
    path, cache = setup
    checked = load_program(path)
    clingo_cache.identify(checked, "k1")
    translate(checked)
    other = load_program(path)
    clingo_cache.identify(other, "k2")
    translate(other)
    assert made == [1, 1] and len(entries(cache)) == 2


@pytest.mark.parametrize("damage", [b"not a pickle", b"\x80\x05K\x07."])   # garbage; an int
def test_an_unreadable_entry_is_a_miss(setup, made, damage):
    path, cache = setup
    checked = load_program(path)
    clingo_cache.identify(checked, "k1")
    text = translate(checked)
    (entry,) = entries(cache)
    entry.write_bytes(damage)
    again = load_program(path)
    clingo_cache.identify(again, "k1")
    assert translate(again) == text and made == [1, 1]
    assert entry.read_bytes() != damage             # written again


def test_an_unidentified_program_is_not_kept(setup, made):
    path, cache = setup
    translate(load_program(path))
    translate(load_program(path))
    assert made == [1, 1] and entries(cache) == []


def test_a_shipped_program_is_kept_and_its_rows_are_the_same(setup, monkeypatch):
    """The catalog identifies what it loads; a run reading its translation back answers as
    one that translated it."""
    path, cache = setup
    checked = get("reachability").program()
    facts = {"block": [("f", b) for b in "abcd"], "entry": [("f", "a")],
             "edge": [("f", "a", "b"), ("f", "b", "c"), ("f", "d", "a")]}
    first = run_checked(checked, engine="clingo", facts=facts)
    assert first["unreachable"] == [("f", "d")] and len(first["reachable"]) == 3
    assert entries(cache), "the catalog's program was not identified"
    semantics._DERIVED.clear()                       # this process's translations forgotten
    monkeypatch.setattr(to_clingo, "program_text", None)   # a translation would fail
    assert run_checked(checked, engine="clingo", facts=facts) == first
