"""The Datalog parser's tables are read back from the user cache instead of being built again
(issue #32: building them cost 0.25 s of every ``pathlogic query``). The parser read back
parses every shipped program and reports syntax errors exactly as the one built from the
grammar; with the tables cached nothing is built; a damaged entry is rebuilt."""
from __future__ import annotations

import pytest

from pylogic.analysis.catalog import datalog_dir
from pylogic.engines import dialect
from pylogic.errors import DatalogError

#: Syntax errors of several kinds: unexpected tokens (the expected ones named), characters, end.
BAD = [".decl f(x number)\n", "f(1", "g(x) :- f(x),, h(x).\n",
       ".decl f(x: symbol)\nf(\"a\") :- !.\n", ".decl\n", "g(x) :- f(x) h(x).\n",
       ".decl f(x: number)\nf(1) :- 1 2.\n", "f(x) :- g(x) ~ 3.\n",
       ".type T = [a: number, b: symbol\n", ".output\n", "f(x) :- count : { g(x) } = 3 4.\n"]


@pytest.fixture
def cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("PATHLOGIC_CACHE", str(tmp_path))
    parser = dialect._parser
    parser.cache_clear()
    yield tmp_path
    parser.cache_clear()


def outcome(parser, text: str, monkeypatch) -> str:
    """What ``parse_text`` gives with ``parser``: the items, or the located error."""
    monkeypatch.setattr(dialect, "_parser", lambda: parser)
    try:
        return repr(dialect.parse_text(text, "t.dl"))
    except DatalogError as exc:
        return str(exc)


class NotBuilt(dialect.Lark):
    def __init__(self, *args, **kwargs):
        raise AssertionError("the parser tables were built, not read from the cache")


def test_the_parser_read_back_is_the_one_built(cache_dir, monkeypatch):
    built = dialect._parser()
    assert list((cache_dir / "parsers").rglob("*")), "the tables were not saved"
    dialect._parser.cache_clear()
    monkeypatch.setattr(dialect, "Lark", NotBuilt)   # Lark.load makes no Lark(...) call
    loaded = dialect._parser()
    monkeypatch.undo()
    assert loaded is not built
    texts = [p.read_text() for p in sorted(datalog_dir().rglob("*.dl"))]
    assert len(texts) > 10
    errors = [outcome(built, text, monkeypatch) for text in BAD]
    assert all(e.startswith("t.dl:") and "syntax error" in e for e in errors), errors
    assert any("expected" in e for e in errors)
    for text in texts + BAD:
        assert outcome(loaded, text, monkeypatch) == outcome(built, text, monkeypatch)


def test_a_damaged_entry_is_rebuilt(cache_dir):
    dialect._parser()
    (entry,) = [p for p in (cache_dir / "parsers").rglob("*") if p.is_file()]
    entry.write_bytes(b"not a parser")
    dialect._parser.cache_clear()
    assert dialect.parse_text(".decl f(x: number)\n", "t.dl")[0].name == "f"
    dialect._parser.cache_clear()
    assert entry.read_bytes() != b"not a parser"   # saved again


def test_no_cache_no_file(monkeypatch, tmp_path):
    monkeypatch.setenv("PATHLOGIC_CACHE", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    dialect._parser.cache_clear()
    try:
        assert dialect.parse_text(".decl f(x: number)\n", "t.dl")[0].name == "f"
    finally:
        dialect._parser.cache_clear()
    assert not list(tmp_path.rglob("*"))
